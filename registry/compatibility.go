package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/charter-dev/charter/action/gate"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/srerr"
)

// CompatibilityResult is the verdict of a compatibility check (POST
// /compatibility/...): Messages follow Confluent's verbose format (one
// string per finding, then `{oldSchemaVersion: n}` and `{oldSchema: '…'}`
// per incompatible earlier version, then `{validateFields: '…',
// compatibility: 'LEVEL'}`).
type CompatibilityResult struct {
	Compatible bool
	Level      compat.Level
	Findings   []compat.Finding
	Messages   []string
	// Versions are the versions the check compared, oldest first: every
	// live one (of the compatibility group) under a transitive level,
	// else the latest or the one given; none at NONE.
	Versions []int
}

// CheckCompatibility tests req against subject (POST
// /compatibility/subjects/{s}/versions[/{v}]). With version 0 it checks
// against every live version the subject's effective level requires, as
// register does; otherwise against that one version (Latest for
// "latest"), in the level's directions. A subject with no live versions is
// compatible when version is 0 or Latest.
//
// Errors: 40402 unknown version, or any numbered version of an unknown
// subject (Confluent's answer); 42201 invalid schema, type or reference; 42285
// compatibility not decided within the comparison's bounds.
func (s *Service) CheckCompatibility(ctx context.Context, subject string, version int, req RegisterRequest) (CompatibilityResult, error) {
	f, err := s.checkRequest(&req)
	if err != nil {
		return CompatibilityResult{}, err
	}
	var out CompatibilityResult
	var v *Verdict // for the Observers
	err = s.view(ctx, "check compatibility", func(tx Tx) error {
		v = nil
		subject, err := resolveAlias(ctx, tx, subject)
		if err != nil {
			return err
		}
		versions, err := subjectVersions(ctx, tx, subject)
		if err != nil {
			return err
		}
		lv := live(versions)
		against := lv
		if version != 0 {
			v, ok := findVersion(lv, version, false)
			switch {
			case ok:
				against = []SubjectVersion{v}
			case version == Latest:
				// No live version: compatible, as Confluent's
				// CompatibilityResource answers "latest"
				// (RestApiTest.testCompatibilityNonExistentSubject).
				against = nil
			default:
				return errVersionNotFound(subject, version)
			}
		}
		cfg, err := effectiveConfig(ctx, tx, subject)
		if err != nil {
			return err
		}
		req := req
		if req.Metadata, req.RuleSet, err = contract(ctx, tx, cfg, req, lv); err != nil {
			return err
		}
		normalize := req.Normalize || (cfg.Normalize != nil && *cfg.Normalize)
		cand, err := s.newCandidate(ctx, tx, f, subject, req, normalize)
		if err != nil {
			return err
		}
		if version == 0 {
			if against, err = compatibilityGroup(ctx, tx, cfg, cand.schema.Metadata, against); err != nil {
				return err
			}
		}
		level := cfg.Compatibility
		if version != 0 && level.Transitive() {
			// One given version: the transitive variant means the same.
			level = compat.Level(strings.TrimSuffix(string(level), "_TRANSITIVE"))
		}
		checker, err := subjectFormat(ctx, tx, f, subject)
		if err != nil {
			return err
		}
		res, olds, err := s.compatibility(ctx, tx, subject, checker, cand.parsed, level, against)
		if err != nil {
			return err
		}
		if err := undecided(subject, res); err != nil {
			return err
		}
		out = CompatibilityResult{
			Compatible: res.Compatible(),
			Level:      cfg.Compatibility,
			Findings:   res.Findings,
			Messages:   compatibilityMessages(res, olds, cfg),
		}
		if level != compat.None && len(against) > 0 {
			compared := against
			if !level.Transitive() {
				compared = against[len(against)-1:]
			}
			for _, sv := range compared {
				out.Versions = append(out.Versions, sv.Version)
			}
		}
		v = &Verdict{Source: VerdictCheck, Subject: subject, Type: f.Type(), Level: level,
			Compared: compared(level, len(against)), Findings: res.Findings}
		return nil
	})
	if v != nil {
		s.verdict(*v)
	}
	return out, err
}

// checkCompatibility checks next at level against the live versions
// (oldest first) and returns the result with the earlier schemas it used
// by version. Non-transitive levels parse only the latest version. It
// stops with ctx's error when ctx ends (the client has gone).
func (s *Service) checkCompatibility(ctx context.Context, tx Tx, f compat.Format, next compat.Schema, level compat.Level, versions []SubjectVersion) (compat.Result, map[int]Schema, error) {
	if level == compat.None || len(versions) == 0 {
		return compat.Result{Level: level}, nil, nil
	}
	if !level.Transitive() {
		versions = versions[len(versions)-1:]
	}
	prev := make([]compat.Previous, 0, len(versions))
	olds := make(map[int]Schema, len(versions))
	var foreign []compat.Finding
	for _, v := range versions {
		p, ok := s.parsed.get(v.Key())
		var st Schema
		if !ok || p.Type() != f.Type() {
			var err error
			st, err = tx.SchemaByID(ctx, v.Context(), v.SchemaID)
			if err != nil {
				return compat.Result{}, nil, fmt.Errorf("load schema %d of version %d: %w", v.SchemaID, v.Version, err)
			}
			olds[v.Version] = st
			if st.Type != f.Type() {
				foreign = append(foreign, compat.Finding{
					Violation: compat.Violation{
						RuleID:  gate.RuleSchemaTypeChanged,
						Path:    ".",
						Message: fmt.Sprintf("version %d is a %s schema and the new schema is %s; only compatibility NONE allows changing the schema type", v.Version, st.Type, f.Type()),
					},
					Direction: compat.DirBackward,
					Version:   v.Version,
				})
				continue
			}
			p, err = s.parseStoredScan(ctx, tx, st)
			if err != nil {
				return compat.Result{}, nil, err
			}
		}
		prev = append(prev, compat.Previous{Version: v.Version, Schema: p})
	}
	res, err := compat.CheckContext(ctx, f, level, next, prev)
	if err != nil {
		return compat.Result{}, nil, fmt.Errorf("check compatibility: %w", err)
	}
	res.Findings = append(res.Findings, foreign...)
	if err := loadFailedVersions(ctx, tx, res, versions, olds); err != nil {
		return compat.Result{}, nil, err
	}
	return res, olds, nil
}

// loadFailedVersions adds to olds the stored schema of each version a
// finding of res names and olds lacks (the messages quote them).
func loadFailedVersions(ctx context.Context, tx Tx, res compat.Result, versions []SubjectVersion, olds map[int]Schema) error {
	if res.Compatible() {
		return nil
	}
	for _, fd := range res.Findings {
		if _, ok := olds[fd.Version]; ok {
			continue
		}
		for _, v := range versions {
			if v.Version == fd.Version {
				st, err := tx.SchemaByID(ctx, v.Context(), v.SchemaID)
				if err != nil {
					return fmt.Errorf("load schema %d: %w", v.SchemaID, err)
				}
				olds[v.Version] = st
			}
		}
	}
	return nil
}

// undecided returns 42285 when a finding of res says that its format
// could not decide (compat.Violation.Undecided): such a result is neither
// compatible nor incompatible, and a bound reached must not read as
// either.
func undecided(subject string, res compat.Result) error {
	for _, f := range res.Findings {
		if f.Undecided {
			return srerr.New(srerr.ErrCompatibilityUndecided,
				"Compatibility of the schema with version %d of subject '%s' could not be decided (%s): %s",
				f.Version, subject, f.RuleID, f.Message)
		}
	}
	return nil
}

// compatibilityMessages renders findings in Confluent's verbose format:
// for each earlier version with findings (newest first), one
// `{errorType:'RULE_ID', path:'…', direction:'…', description:'…'}` per
// finding, then `{oldSchemaVersion: n}` and `{oldSchema: '…'}`; finally
// `{validateFields: '…', compatibility: 'LEVEL'}`. Single quotes inside
// values are escaped as \'. Compatible results have no messages.
func compatibilityMessages(res compat.Result, olds map[int]Schema, cfg Config) []string {
	if res.Compatible() {
		return []string{}
	}
	var (
		out   []string
		order []int
		byVer = map[int][]compat.Finding{}
	)
	for _, f := range res.Findings {
		if _, ok := byVer[f.Version]; !ok {
			order = append(order, f.Version)
		}
		byVer[f.Version] = append(byVer[f.Version], f)
	}
	for _, v := range order {
		for _, f := range byVer[v] {
			out = append(out, fmt.Sprintf("{errorType:'%s', path:'%s', direction:'%s', description:'%s'}",
				quoteEscape(f.RuleID), quoteEscape(f.Path), directionText(f.Direction, v), quoteEscape(f.Message)))
		}
		out = append(out, fmt.Sprintf("{oldSchemaVersion: %d}", v))
		if st, ok := olds[v]; ok {
			out = append(out, fmt.Sprintf("{oldSchema: '%s'}", quoteEscape(st.Text)))
		}
	}
	validate := cfg.ValidateFields != nil && *cfg.ValidateFields
	out = append(out, fmt.Sprintf("{validateFields: '%t', compatibility: '%s'}", validate, cfg.Compatibility))
	return out
}

// quoteEscape escapes single quotes (and backslashes) so that a value
// stays inside its '…' in Confluent's `{key:'value'}` message format.
func quoteEscape(s string) string {
	if !strings.ContainsAny(s, `'\`) {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s)
}

// directionText says in words who reads whom.
func directionText(d compat.Direction, version int) string {
	if d == compat.DirForward {
		return fmt.Sprintf("FORWARD: version %d reading data written with the new schema", version)
	}
	return fmt.Sprintf("BACKWARD: the new schema reading data written with version %d", version)
}

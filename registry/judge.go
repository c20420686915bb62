package registry

import (
	"context"
	"fmt"
	"time"

	"github.com/charter-dev/charter/action/gate"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/governance"
)

// judgement is one call of the gate from inside a transaction: what the
// registry read to build the gate's input, and the verdict.
type judgement struct {
	gate.Result
	// olds are the stored earlier versions the compatibility check
	// compared with, by version, for Confluent's 409 messages.
	olds map[int]Schema
}

// judgeRequest is what a registration, a dry run or a compatibility
// check asks the gate about.
type judgeRequest struct {
	subject string
	format  compat.Format
	level   compat.Level
	cand    candidate
	// version is the number the candidate gets, or has when existing.
	version  int
	existing bool
	// against are the live versions the level compares with (already
	// limited to the compatibility group); latest is the subject's
	// latest live version (nil for a first version).
	against []SubjectVersion
	latest  *SubjectVersion
	// now is the moment judged.
	now time.Time
	// compatOnly skips governance (a store without GovernanceTx, the
	// Confluent compatibility endpoint).
	compatOnly bool
}

// judge builds the gate's input for r in tx and evaluates it: the one
// judge that registration, the dry run and `charter check --against
// registry` share.
func (s *Service) judge(ctx context.Context, tx Tx, r judgeRequest) (judgement, error) {
	var j judgement
	f, err := subjectFormat(ctx, tx, r.format, r.subject)
	if err != nil {
		return j, err
	}
	in := gate.Input{Context: ctx, Subject: r.subject, Now: r.now, Format: f, Level: r.level, Existing: r.existing,
		Candidate: governance.Version{Version: r.version, Schema: r.cand.parsed, Metadata: r.cand.schema.Metadata, RuleSet: r.cand.schema.RuleSet}}
	// A re-registration is not compared (the gate skips compatibility
	// when Existing), but the deprecation table asks the earlier versions
	// whether a kept field could be removed at the level. A new version
	// is compared here (incrementally at a transitive level, see
	// compatibility), and the gate takes the verdict; the earlier
	// versions are parsed for the gate only when the deprecation rules
	// may read them.
	haveAgainst := false
	loadAgainst := func() error {
		if haveAgainst {
			return nil
		}
		haveAgainst = true
		prev, olds, err := s.previousVersions(ctx, tx, r.level, r.against)
		if err != nil {
			return err
		}
		in.Against = prev
		if j.olds == nil {
			j.olds = olds
		}
		return nil
	}
	if r.existing {
		if err := loadAgainst(); err != nil {
			return j, err
		}
	} else {
		res, olds, err := s.compatibility(ctx, tx, r.subject, f, r.cand.parsed, r.level, r.against)
		if err != nil {
			return j, err
		}
		in.Compat, j.olds = &res, olds
	}
	if r.latest != nil && !r.existing {
		prev, err := storedSchema(ctx, tx, r.latest.Key())
		if err != nil {
			return j, err
		}
		p, err := s.parseStored(ctx, tx, prev)
		if err != nil {
			return j, err
		}
		in.Latest = &governance.Version{Version: r.latest.Version, Schema: p, Metadata: prev.Metadata, RuleSet: prev.RuleSet}
	}
	g, governed := tx.(GovernanceTx)
	if r.compatOnly || !governed {
		if j.Compat, err = gate.CheckCompatibilityContext(in); err != nil {
			return j, err
		}
		j.Findings = gate.CompatFindings(r.subject, j.Compat)
		if !r.compatOnly && !r.existing {
			cfg, err := effectiveConfig(ctx, tx, r.subject)
			if err != nil {
				return j, err
			}
			in.State.ValidateFields = cfg.ValidateFields != nil && *cfg.ValidateFields
			j.Findings = append(j.Findings, gate.ReservedFindings(in)...)
		}
		return j, s.loadOlds(ctx, tx, &j, r.against)
	}
	st, err := s.loadState(ctx, tx, g, r.subject, r.now)
	if err != nil {
		return j, err
	}
	in.State = st
	if len(st.Deprecations) > 0 {
		if err := loadAgainst(); err != nil {
			return j, err
		}
	}
	if len(st.Contracts) > 0 {
		if in.References, err = s.resolveReferences(ctx, tx, r.cand.schema.Context, r.cand.schema.References); err != nil {
			return j, err
		}
	}
	res, err := gate.Evaluate(in)
	if ctx.Err() != nil {
		// The comparisons stopped part way: no verdict.
		return j, fmt.Errorf("judge %s version %d: %w", r.subject, r.version, ctx.Err())
	}
	if err != nil {
		return j, unverifiable(r.subject, fmt.Errorf("judge %s version %d: %w", r.subject, r.version, err))
	}
	j.Result = res
	return j, s.loadOlds(ctx, tx, &j, r.against)
}

// previousVersions parses the live versions the level compares with
// (only the latest for a non-transitive level), through the parsed cache.
func (s *Service) previousVersions(ctx context.Context, tx Tx, level compat.Level, versions []SubjectVersion) ([]compat.Previous, map[int]Schema, error) {
	if level == compat.None || len(versions) == 0 {
		return nil, nil, nil
	}
	if !level.Transitive() {
		versions = versions[len(versions)-1:]
	}
	prev := make([]compat.Previous, 0, len(versions))
	olds := make(map[int]Schema, len(versions))
	for _, v := range versions {
		p, ok := s.parsed.get(v.Key())
		if !ok {
			st, err := tx.SchemaByID(ctx, v.Context(), v.SchemaID)
			if err != nil {
				return nil, nil, fmt.Errorf("load schema %d of version %d: %w", v.SchemaID, v.Version, err)
			}
			olds[v.Version] = st
			if p, err = s.parseStoredScan(ctx, tx, st); err != nil {
				return nil, nil, err
			}
		}
		prev = append(prev, compat.Previous{Version: v.Version, Schema: p})
	}
	return prev, olds, nil
}

// loadOlds loads the stored text of every earlier version a
// compatibility finding names, for Confluent's messages.
func (s *Service) loadOlds(ctx context.Context, tx Tx, j *judgement, versions []SubjectVersion) error {
	if j.Compat.Compatible() {
		return nil
	}
	if j.olds == nil {
		j.olds = map[int]Schema{}
	}
	for _, fd := range j.Compat.Findings {
		if _, ok := j.olds[fd.Version]; ok {
			continue
		}
		for _, v := range versions {
			if v.Version == fd.Version {
				st, err := tx.SchemaByID(ctx, v.Context(), v.SchemaID)
				if err != nil {
					return fmt.Errorf("load schema %d: %w", v.SchemaID, err)
				}
				j.olds[v.Version] = st
			}
		}
	}
	return nil
}

package governance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/pii"
)

// SubjectState is everything the registry knows about a subject's
// governance (GET /governance/subjects/{s}/state): the input of Evaluate
// besides the schemas.
type SubjectState struct {
	Subject      string         `json:"subject"`
	Owner        *Owner         `json:"owner,omitempty"`
	Deprecations []Deprecation  `json:"deprecations"`
	Removed      []RemovedField `json:"removed"`
	Dismissals   []Dismissal    `json:"dismissals"`
	// Tags are the subject's governance tags: path globs, matched as
	// Confluent metadata.tags globs are, to tags. They count as if every
	// version's metadata.tags had them.
	Tags map[string][]string `json:"tags,omitempty"`
	// Policy is the subject's effective policy (global merged with the
	// subject's own).
	Policy PolicyConfig `json:"policy"`
	// LatestSemVer is the semantic version of the latest live version, ""
	// when the subject has none.
	LatestSemVer string `json:"latestSemver,omitempty"`
	// Consumers are the teams or applications known to read the subject
	// (from lineage, when it exists).
	Consumers []string `json:"consumers,omitempty"`
	// Readers maps each consumer reading the subject now to the field
	// paths it reads (lineage: published contracts and declared
	// consumers): the readers of the deprecation table.
	Readers map[string][]string `json:"readers,omitempty"`
	// Contracts are the consumer contracts published for the subject,
	// verified against every candidate.
	Contracts []PublishedContract `json:"contracts,omitempty"`
	// Compatibility is the subject's effective compatibility level, and
	// ValidateFields its config's validateFields (Confluent's reserved
	// fields are checked when true).
	Compatibility  compat.Level `json:"compatibility,omitempty"`
	ValidateFields bool         `json:"validateFields,omitempty"`
	// Normalize is the subject's effective config normalize: a
	// registration's schema is stored and compared normalized, so a
	// reordered schema is the same version.
	Normalize bool `json:"normalize,omitempty"`
	// CompatibilityGroup is the subject's effective config
	// compatibilityGroup: the metadata property whose value selects the
	// earlier versions the level compares with (only those with the
	// candidate's value; "" compares with all).
	CompatibilityGroup string `json:"compatibilityGroup,omitempty"`
	// NextVersion is the number the subject's next new version gets: the
	// highest version it ever used (soft-deleted included) + 1; 0 for a
	// subject without versions.
	NextVersion int `json:"nextVersion,omitempty"`
}

// PublishedContract is a consumer contract as the gate reads it: who
// published which Pact file (V3 or V4 message pact, as JSON).
type PublishedContract struct {
	Consumer        string          `json:"consumer"`
	ConsumerVersion string          `json:"consumerVersion,omitempty"`
	Branch          string          `json:"branch,omitempty"`
	Pact            json.RawMessage `json:"pact"`
}

// Input is one evaluation: a candidate version of a subject, what came
// before it, and the time.
type Input struct {
	// Context, when set, stops the classification's compatibility
	// comparison once it ends; the result is then incomplete, and the
	// caller (which cancelled it) discards it. nil never stops.
	Context context.Context
	// Now is the evaluation time (the registry's injected clock).
	Now time.Time
	// Format is the candidate's format, for compatibility findings in
	// the classification; nil compares structure only.
	Format compat.Format
	// Level is the subject's effective compatibility level.
	Level compat.Level
	State SubjectState
	// Previous is the subject's latest live version; nil for a first
	// version.
	Previous *Version
	// Against are the earlier schemas the level compares with, oldest
	// first (nil: Previous alone); the deprecation table asks them
	// whether a field can be removed at the level.
	Against []compat.Schema
	// Candidate is the schema being registered. Its Version is the number
	// it gets (or has, when Existing).
	Candidate Version
	// Existing marks the re-registration of a version the subject
	// already has: only the deprecation rules run (the others ran when
	// the version was created; deprecations depend on the time).
	Existing bool
}

// Result is what Evaluate finds.
type Result struct {
	// Findings are sorted by severity (errors first), rule ID and path,
	// with their configured severities; rules that are off report none.
	Findings []rule.Finding `json:"findings"`
	// Classification is the candidate's class against Previous (nil for
	// a first version and for Existing).
	Classification *Classification `json:"classification,omitempty"`
	// SemVer is the candidate's semantic version ("" for Existing).
	SemVer string `json:"semver,omitempty"`
	// NewDeprecations are fields the candidate marks deprecated that have
	// no deprecation yet: the registry records them (SourceSchema).
	NewDeprecations []Deprecation `json:"newDeprecations,omitempty"`
	// Removed are the fields of Previous that the candidate drops; the
	// registry remembers them.
	Removed []RemovedField `json:"removed,omitempty"`
	// Restored are removed paths the candidate brings back with their
	// type; their reservation ends.
	Restored []string `json:"restored,omitempty"`
}

// Failed reports whether a finding is an error (the registration is
// refused).
func (r Result) Failed() bool { return rule.Report{Findings: r.Findings}.Failed() }

// Evaluate applies every governance rule to in: a pure function of its
// argument, used by the registry on register and by the CLI gate.
func Evaluate(in Input) Result {
	e := &evaluation{in: in, subject: in.State.Subject, cfg: in.State.Policy}
	var res Result
	if in.Candidate.Schema == nil {
		return res
	}
	e.fields = compat.Fields(in.Candidate.Schema)
	res.NewDeprecations = e.inlineDeprecations()
	e.deprecations(res.NewDeprecations)
	if !in.Existing {
		e.owner()
		e.removedFields()
		if e.on(RuleRemovedFieldReused) || e.on(RuleRemovedNumberReused) {
			e.add(reuseFindings(e.subject, in.State.Removed, in.Candidate.Schema)...)
		}
		e.pii()
		if e.on(RuleEnvelopeIncomplete) {
			e.add(envelopeFindings(e.subject, in.Candidate.Schema.Type(), e.fields, in.State.Policy.Envelope)...)
		}
		if e.on(RuleInlineBinary) {
			e.add(inlineBinaryFindings(e.subject, e.fields)...)
		}
		res.SemVer, res.Classification = e.classify()
		if in.Previous != nil && in.Previous.Schema != nil {
			res.Removed = Removals(e.subject, in.Previous.Schema, in.Candidate.Schema, in.Candidate.Version, in.Now)
			res.Restored = Restored(in.State.Removed, in.Candidate.Schema)
		}
	}
	res.Findings = e.finish()
	return res
}

type evaluation struct {
	in      Input
	subject string
	cfg     PolicyConfig
	fields  []compat.Field
	out     []rule.Finding
}

func (e *evaluation) on(id string) bool {
	_, on := e.cfg.Severity(id)
	return on
}

// add keeps the findings of rules that are on, at their severity.
func (e *evaluation) add(fs ...rule.Finding) {
	for _, f := range fs {
		sev, on := e.cfg.Severity(f.RuleID)
		if !on {
			continue
		}
		f.Severity = sev
		if f.Subject == "" {
			f.Subject = e.subject
		}
		e.out = append(e.out, f)
	}
}

func (e *evaluation) finish() []rule.Finding {
	out := e.out
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.RuleID != b.RuleID {
			return a.RuleID < b.RuleID
		}
		return a.Path < b.Path
	})
	if out == nil {
		out = []rule.Finding{}
	}
	return out
}

func date(t time.Time) string { return t.UTC().Format("2006-01-02") }

// inlineDeprecations returns deprecations for the fields the candidate
// marks deprecated and that have none yet.
func (e *evaluation) inlineDeprecations() []Deprecation {
	have := map[string]bool{}
	for _, d := range e.in.State.Deprecations {
		have[d.Key()] = true
	}
	var out []Deprecation
	for _, f := range uniqueFields(e.fields) {
		if !f.Deprecated || have[FieldItem(f.Path).Key()] {
			continue
		}
		d := NewDeprecation(e.subject, FieldItem(f.Path), e.in.Now, e.cfg.TTLDays(), SourceSchema)
		if r := f.Props["deprecated"]; r != "" && r != "true" {
			d.Reason = r
		}
		d.SinceVersion = e.in.Candidate.Version
		out = append(out, d)
	}
	return out
}

// deprecations reports the deprecated items the candidate keeps: fields
// through the deprecation table (keptField), versions on their
// re-registration.
func (e *evaluation) deprecations(fresh []Deprecation) {
	paths := byPath(e.fields)
	all := append(append([]Deprecation(nil), e.in.State.Deprecations...), fresh...)
	for _, d := range all {
		use := ""
		if d.Replacement != "" {
			use = fmt.Sprintf("; use %s instead", Display(d.Replacement))
		}
		why := ""
		if d.Reason != "" {
			why = " (" + d.Reason + ")"
		}
		switch d.Kind {
		case ItemField:
			if _, ok := paths[d.Path]; ok {
				e.keptField(d, d.Path, why, use)
			}
		case ItemVersion:
			if e.in.Existing && e.in.Candidate.Version == d.Version {
				e.keptVersion(d, why, use)
			}
		}
	}
}

// keptVersion reports the re-registration of a deprecated version.
func (e *evaluation) keptVersion(d Deprecation, why, use string) {
	now := e.in.Now
	if d.StateAt(now) == StateDeprecated {
		left := d.DaysLeft(now)
		e.add(rule.Finding{RuleID: RuleDeprecationActive,
			Message: fmt.Sprintf("%s is deprecated%s since %s with a TTL of %s: %s left, it expires on %s%s",
				d.Item, why, date(d.DeprecatedAt), Days(d.TTLDays), Days(left), date(d.ExpiresAt), use),
			Hint: fmt.Sprintf("move producers to a newer version before %s, or ask its owner for an extension", date(d.ExpiresAt))})
		return
	}
	if act := d.ActiveExtensions(now); len(act) > 0 {
		var who []string
		for _, x := range act {
			who = append(who, fmt.Sprintf("%s until %s (approved by %s: %s)", x.Consumer, date(x.Until), x.Approver, x.Reason))
		}
		e.add(rule.Finding{RuleID: RuleDeprecationExtended, Consumer: act[0].Consumer,
			Message: fmt.Sprintf("%s expired on %s%s but is extended for %s%s", d.Item, date(d.ExpiresAt), why, strings.Join(who, "; "), use),
			Hint:    fmt.Sprintf("the extension ends on %s; after that, registering %s again is refused", date(act[0].Until), d.Item)})
		return
	}
	ruleID := RuleDeprecationExpired
	if d.Source == SourceSchema {
		ruleID = RuleDeprecationInlineExpired
	}
	e.add(rule.Finding{RuleID: ruleID,
		Message: fmt.Sprintf("%s of subject %s expired on %s (deprecated on %s with a TTL of %s)%s and no extension covers it%s",
			d.Item, e.subject, date(d.ExpiresAt), date(d.DeprecatedAt), Days(d.TTLDays), why, use),
		Hint: fmt.Sprintf("register the subject's latest schema instead of %s, or have the subject's owner grant an extension (charter extend %s %s --consumer TEAM --days N --reason … --approver …)",
			d.Item, e.subject, d.Key())})
}

// lastEnded returns the extension of xs that ended last before now, nil
// when none has ended.
func lastEnded(xs []Extension, now time.Time) *Extension {
	var out *Extension
	for i := range xs {
		if now.Before(xs[i].Until) {
			continue
		}
		if out == nil || xs[i].Until.After(out.Until) {
			out = &xs[i]
		}
	}
	return out
}

// owner reports OWNER_MISSING.
func (e *evaluation) owner() {
	if !e.on(RuleOwnerMissing) || e.in.State.Owner != nil {
		return
	}
	for _, raw := range [][]byte{e.in.Candidate.Metadata, previousMetadata(e.in.Previous)} {
		if md, err := pii.ParseMetadata(raw); err == nil && strings.TrimSpace(md.Properties[PropOwner]) != "" {
			return
		}
	}
	e.add(rule.Finding{RuleID: RuleOwnerMissing,
		Message: fmt.Sprintf("subject %s has no owner: no team, contact channel or description is recorded", e.subject),
		Hint: fmt.Sprintf("charter owners %s --team TEAM --contact CHANNEL --description TEXT (PUT /governance/subjects/%s/owner), or set the %q metadata property",
			rule.ShellArg(e.subject), url.PathEscape(e.subject), PropOwner)})
}

func previousMetadata(v *Version) []byte {
	if v == nil {
		return nil
	}
	return v.Metadata
}

// detectors caches PII detectors by allow-list.
var detectors sync.Map // string → *pii.Detector

func detector(allow []string) *pii.Detector {
	if len(allow) == 0 {
		return nil // pii's default
	}
	key := strings.Join(allow, "\x00")
	if d, ok := detectors.Load(key); ok {
		return d.(*pii.Detector)
	}
	d, err := pii.NewDetector(pii.WithAllowList(allow...))
	if err != nil {
		return nil
	}
	detectors.Store(key, d)
	return d
}

// withTags returns metadata raw with the governance tags added to its
// tags.
func withTags(raw []byte, tags map[string][]string) pii.Metadata {
	md, _ := pii.ParseMetadata(raw)
	if len(tags) == 0 {
		return md
	}
	merged := make(map[string][]string, len(md.Tags)+len(tags))
	for k, v := range md.Tags {
		merged[k] = v
	}
	for k, v := range tags {
		merged[k] = append(append([]string(nil), merged[k]...), v...)
	}
	md.Tags = merged
	return md
}

// pii runs the PII rules of package pii.
func (e *evaluation) pii() {
	cfg := pii.Config{Severity: map[string]string{}}
	enabled := false
	for _, r := range pii.Rules() {
		// The policy's severity is applied by e.add.
		if e.on(r.ID) {
			cfg.Severity[r.ID] = rule.Warning.String()
			enabled = true
		} else {
			cfg.Severity[r.ID] = "off"
		}
	}
	if !enabled {
		return
	}
	if p := e.cfg.PII; p != nil {
		cfg.PIITags, cfg.MaskTags = p.PIITags, p.MaskTags
		if p.MinConfidence != "" {
			_ = cfg.MinConfidence.UnmarshalText([]byte(p.MinConfidence))
		}
		cfg.Detector = detector(p.AllowList)
	}
	in := pii.Input{
		Current:   e.fields,
		Metadata:  withTags(e.in.Candidate.Metadata, e.in.State.Tags),
		Consumers: e.in.State.Consumers,
	}
	in.RuleSet, _ = pii.ParseRuleSet(e.in.Candidate.RuleSet)
	if p := e.in.Previous; p != nil && p.Schema != nil {
		in.Previous = compat.Fields(p.Schema)
		in.PreviousMetadata = withTags(p.Metadata, e.in.State.Tags)
	}
	for _, d := range e.in.State.Dismissals {
		in.Dismissals = append(in.Dismissals, pii.Dismissal{Field: d.Field, PatternID: d.PatternID, By: d.By, Reason: d.Reason})
	}
	e.add(pii.Evaluate(in, cfg)...)
}

// classify returns the candidate's semantic version and classification,
// and reports SEMVER_MAJOR.
func (e *evaluation) classify() (string, *Classification) {
	prev := e.in.Previous
	if prev == nil || prev.Schema == nil {
		return InitialSemVer.String(), nil
	}
	c := Classify(ClassifyInput{
		Context: e.in.Context, Format: e.in.Format, Level: e.in.Level, Previous: *prev, Current: e.in.Candidate,
		TTLDays: e.cfg.TTLDays(), Deprecations: e.in.State.Deprecations,
	})
	base := InitialSemVer
	if v, err := ParseSemVer(e.in.State.LatestSemVer); err == nil {
		base = v
	}
	next := base.Next(c.Bump)
	if c.Bump == BumpMajor {
		var why []string
		for _, ch := range c.Changes {
			if ch.Bump == BumpMajor {
				why = append(why, ch.Text)
			}
		}
		level := e.in.Level
		if level == "" || level == compat.None {
			level = compat.Backward
		}
		e.add(rule.Finding{RuleID: RuleSemverMajor,
			Message: fmt.Sprintf("version %d is a major change (%s → %s): it breaks %s readers: %s", e.in.Candidate.Version, base, next, level, strings.Join(why, "; ")),
			Hint:    "if the break is intended, start a new major line (compatibilityGroup with an application.major.version property) or a new subject"})
	}
	return next.String(), &c
}

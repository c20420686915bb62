package pii

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
)

// Rule IDs. They never change once released.
const (
	RuleUntagged              = "PII_UNTAGGED"
	RuleUnmasked              = "PII_UNMASKED"
	RuleNewFieldWithConsumers = "PII_NEW_FIELD_WITH_CONSUMERS"
)

// policyRule is one PII policy rule bound to the one small function that
// fires it. The function fills a finding's Path, Message and Hint;
// Evaluate adds the rule ID and the configured severity.
type policyRule struct {
	rule.Rule
	check func(*evaluation) []rule.Finding
}

// policyRules are in ID order, the order Evaluate reports in. Every
// default is a warning: a Confluent client that knows nothing of
// Charter's governance is never refused by these rules unless the operator
// raises them to error (issue 4, "Policy engine").
var policyRules = []policyRule{
	{Rule: rule.Rule{ID: RuleNewFieldWithConsumers, Category: rule.CategoryPII, Severity: rule.Warning,
		Purpose: "a new personal-data field appears on a subject that existing consumers read",
		Source:  "Charter issue 4 §5"},
		check: checkNewWithConsumers},
	{Rule: rule.Rule{ID: RuleUnmasked, Category: rule.CategoryPII, Severity: rule.Warning,
		Purpose: "a field whose tags the subject requires masked has no encryption, masking or tokenization marker",
		Source:  "Charter issue 4 §5; Confluent CSFLE ENCRYPT rules and field-level rule tags"},
		check: checkUnmasked},
	{Rule: rule.Rule{ID: RuleUntagged, Category: rule.CategoryPII, Severity: rule.Warning,
		Purpose: "a field that looks like personal data (Detector) is new, or lost its PII tag, and carries no PII or SENSITIVE tag",
		Source:  "Charter issue 4 §5; tags as in Confluent data contracts (confluent:tags, confluent.field_meta, metadata.tags)"},
		check: checkUntagged},
}

// Rules returns the PII policy rules in ID order.
func Rules() []rule.Rule {
	out := make([]rule.Rule, 0, len(policyRules))
	for _, r := range policyRules {
		out = append(out, r.Rule)
	}
	return out
}

// lookupRule returns the PII policy rule with the given ID.
func lookupRule(id string) (policyRule, bool) {
	for _, r := range policyRules {
		if r.ID == id {
			return r, true
		}
	}
	return policyRule{}, false
}

// Config is a subject's PII policy. The zero value is the default policy.
type Config struct {
	// Severity overrides rule severities by rule ID: "error", "warning"
	// (or "warn"), "notice", or "off" to switch the rule off (as
	// rule.ParseSeverity reads them).
	Severity map[string]string `json:"severity,omitempty"`
	// PIITags are the tags that mark a field as personal data; default
	// PII and SENSITIVE. Compared without regard to case.
	PIITags []string `json:"piiTags,omitempty"`
	// MinConfidence is the least detector confidence that counts as
	// likely personal data; default Medium (so a city alone, Low, does
	// not).
	MinConfidence Confidence `json:"minConfidence,omitempty"`
	// AllFields makes PII_UNTAGGED look at every field, not only new
	// ones (an audit of a whole schema).
	AllFields bool `json:"allFields,omitempty"`
	// MaskTags are the tags whose fields must carry a masking marker
	// (PII_UNMASKED). Empty, the default: no field must.
	MaskTags []string `json:"maskTags,omitempty"`
	// MaskingRuleTypes are the ruleSet rule types that protect a field
	// their tags cover: default ENCRYPT, ENCRYPT_PAYLOAD (covers every
	// field), REDACT, MASK and TOKENIZE. Add CEL_FIELD when your
	// CEL_FIELD transforms mask.
	MaskingRuleTypes []string `json:"maskingRuleTypes,omitempty"`
	// MaskingProps are field properties whose presence marks the field
	// masked (any value but "", "none" or "false"): default
	// confluent:masking, masking, x-masking.
	MaskingProps []string `json:"maskingProps,omitempty"`
	// MaskingTags are tags that say the field holds an encrypted, masked
	// or tokenized value: default ENCRYPTED, MASKED, REDACTED, TOKENIZED.
	MaskingTags []string `json:"maskingTags,omitempty"`
	// Detector finds likely personal data; nil means DefaultDetector.
	Detector *Detector `json:"-"`
}

// Default values of Config.
var (
	DefaultPIITags          = []string{"PII", "SENSITIVE"}
	DefaultMaskingRuleTypes = []string{"ENCRYPT", "ENCRYPT_PAYLOAD", "REDACT", "MASK", "TOKENIZE"}
	DefaultMaskingProps     = []string{"confluent:masking", "masking", "x-masking"}
	DefaultMaskingTags      = []string{"ENCRYPTED", "MASKED", "REDACTED", "TOKENIZED"}
)

// SeverityOf returns the severity of a rule under c and whether the rule
// is on: its configured severity, else its default; off for an unknown
// rule or a severity that does not parse.
func (c Config) SeverityOf(ruleID string) (rule.Severity, bool) {
	r, ok := lookupRule(ruleID)
	if !ok {
		return rule.Notice, false
	}
	if s, ok := c.Severity[ruleID]; ok {
		sev, on, err := rule.ParseSeverity(s)
		return sev, on && err == nil
	}
	return r.Severity, !r.Off
}

// Validate reports unknown rule IDs and severities and an out-of-range
// MinConfidence.
func (c Config) Validate() error {
	var errs []error
	for id, s := range c.Severity {
		if _, ok := lookupRule(id); !ok {
			errs = append(errs, fmt.Errorf("unknown PII rule %q", id))
		}
		if _, _, err := rule.ParseSeverity(s); err != nil {
			errs = append(errs, fmt.Errorf("rule %s: %w", id, err))
		}
	}
	if c.MinConfidence > High {
		errs = append(errs, fmt.Errorf("minConfidence %d is out of range", c.MinConfidence))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("invalid PII policy: %w", err)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if len(c.PIITags) == 0 {
		c.PIITags = DefaultPIITags
	}
	if c.MinConfidence == 0 {
		c.MinConfidence = Medium
	}
	if len(c.MaskingRuleTypes) == 0 {
		c.MaskingRuleTypes = DefaultMaskingRuleTypes
	}
	if len(c.MaskingProps) == 0 {
		c.MaskingProps = DefaultMaskingProps
	}
	if len(c.MaskingTags) == 0 {
		c.MaskingTags = DefaultMaskingTags
	}
	if c.Detector == nil {
		c.Detector = DefaultDetector()
	}
	return c
}

// Dismissal is a reviewed false positive: the field (its Path or its
// FullName) is not personal data, so PII_UNTAGGED and
// PII_NEW_FIELD_WITH_CONSUMERS stop reporting it as likely personal data.
// Tags still count: a dismissed field that is tagged PII is PII.
type Dismissal struct {
	Field string `json:"field"`
	// PatternID limits the dismissal to one detector pattern; empty
	// dismisses every pattern.
	PatternID string `json:"patternId,omitempty"`
	By        string `json:"by"`
	Reason    string `json:"reason"`
}

// Input is what a PII policy evaluation looks at. Fields come from
// compat.Fields.
type Input struct {
	// Previous are the fields of the subject's latest version; nil for a
	// subject's first version.
	Previous []compat.Field `json:"previous,omitempty"`
	// Current are the fields of the schema being registered.
	Current []compat.Field `json:"current"`
	// PreviousMetadata is the latest version's metadata (its tags count
	// for Previous); Metadata and RuleSet are the new version's.
	PreviousMetadata Metadata `json:"previousMetadata,omitzero"`
	Metadata         Metadata `json:"metadata,omitzero"`
	RuleSet          RuleSet  `json:"ruleSet,omitzero"`
	// Consumers are the teams or applications reading the subject, as
	// the caller knows them (lineage, when it exists).
	Consumers  []string    `json:"consumers,omitempty"`
	Dismissals []Dismissal `json:"dismissals,omitempty"`
}

// Evaluate runs every PII policy rule that cfg does not switch off and
// returns the findings, by rule ID and then in field order. A field that
// several paths reach (a named type used twice) is reported once, at its
// first path. Evaluate is a pure function of its arguments.
func Evaluate(in Input, cfg Config) []rule.Finding {
	e := newEvaluation(in, cfg.withDefaults())
	var out []rule.Finding
	for _, r := range policyRules {
		sev, on := e.cfg.SeverityOf(r.ID)
		if !on {
			continue
		}
		for _, f := range r.check(e) {
			f.RuleID, f.Severity = r.ID, sev
			out = append(out, f)
		}
	}
	return out
}

// evaluation holds what the rules share: resolved tags, previous paths,
// detections.
type evaluation struct {
	in       Input
	cfg      Config
	current  []fieldInfo // one per declaration (FullName), first path
	prevPath map[string]compat.Field
	prevTags map[string][]string // by path
}

type fieldInfo struct {
	f        compat.Field // at its first path
	tags     []string     // effective tags
	paths    []string     // every path to the declaration, in order
	newPaths []string     // the paths that are not in Previous
	best     *Match       // the most confident detector match not dismissed, if likely
}

func (fi fieldInfo) isNew() bool { return len(fi.newPaths) > 0 }

// where names the field for a finding: at its first new path when newOnly
// (or else its first path), with how many other paths reach it.
func (fi fieldInfo) where(newOnly bool) (path, text string) {
	paths := fi.paths
	if newOnly && fi.isNew() {
		paths = fi.newPaths
	}
	path = paths[0]
	others := len(fi.paths) - 1
	switch {
	case others == 0:
		text = "field " + path
	case others == 1:
		other := fi.paths[0]
		if other == path {
			other = fi.paths[1]
		}
		text = fmt.Sprintf("field %s (also at %s)", path, other)
	default:
		text = fmt.Sprintf("field %s (and %d other paths)", path, others)
	}
	return path, text
}

func newEvaluation(in Input, cfg Config) *evaluation {
	e := &evaluation{in: in, cfg: cfg, prevPath: map[string]compat.Field{}, prevTags: map[string][]string{}}
	prevRes := NewTagResolver(in.PreviousMetadata)
	for _, f := range in.Previous {
		e.prevPath[f.Path] = f
		e.prevTags[f.Path] = prevRes.Tags(f)
	}
	res := NewTagResolver(in.Metadata)
	byDecl := map[string]int{}
	for _, f := range in.Current {
		key := f.FullName
		if key == "" {
			key = "path:" + f.Path
		}
		i, ok := byDecl[key]
		if !ok {
			i = len(e.current)
			byDecl[key] = i
			e.current = append(e.current, fieldInfo{f: f, tags: res.Tags(f)})
		}
		fi := &e.current[i]
		fi.paths = append(fi.paths, f.Path)
		if _, seen := e.prevPath[f.Path]; in.Previous == nil || !seen {
			fi.newPaths = append(fi.newPaths, f.Path)
		}
	}
	for i := range e.current {
		e.current[i].best = e.likely(e.current[i].f)
	}
	return e
}

// likely returns the most confident detector match of f that reaches
// MinConfidence and is not dismissed.
func (e *evaluation) likely(f compat.Field) *Match {
	for _, m := range e.cfg.Detector.Detect(f) {
		if m.Confidence < e.cfg.MinConfidence {
			return nil // sorted by confidence
		}
		if !e.dismissed(f, m.PatternID) {
			return &m
		}
	}
	return nil
}

func (e *evaluation) dismissed(f compat.Field, patternID string) bool {
	for _, d := range e.in.Dismissals {
		if (d.Field == f.Path || (f.FullName != "" && d.Field == f.FullName)) && (d.PatternID == "" || d.PatternID == patternID) {
			return true
		}
	}
	return false
}

func tagHint(f compat.Field, tag string) string {
	return fmt.Sprintf(`tag it %s: inline ("confluent:tags": [%q] in Avro and JSON Schema, [(confluent.field_meta).tags = %q] in Protobuf) or in metadata.tags ({%q: [%q]}); if it is not personal data, record a dismissal with a reason`,
		tag, tag, tag, ConfluentName(f), tag)
}

// joinOr joins words as "a, b or c".
func joinOr(ws []string) string {
	if len(ws) < 2 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1]
}

// checkUntagged: PII_UNTAGGED.
func checkUntagged(e *evaluation) []rule.Finding {
	var out []rule.Finding
	for _, fi := range e.current {
		if hasAnyTag(fi.tags, e.cfg.PIITags) {
			continue
		}
		if pt := e.previousTags(fi); hasAnyTag(pt, e.cfg.PIITags) {
			path, where := fi.where(false)
			out = append(out, rule.Finding{Path: path,
				Message: fmt.Sprintf("%s was tagged %s in the previous version and carries no %s tag now", where, strings.Join(pt, ", "), joinOr(e.cfg.PIITags)),
				Hint:    tagHint(fi.f, firstTag(pt, e.cfg.PIITags))})
			continue
		}
		if fi.best == nil || !(fi.isNew() || e.cfg.AllFields) {
			continue
		}
		adj := "new "
		if !fi.isNew() {
			adj = ""
		}
		path, where := fi.where(true)
		out = append(out, rule.Finding{Path: path,
			Message: fmt.Sprintf("%s%s looks like personal data (%s, %s confidence: %s) but has no %s tag", adj, where, fi.best.PatternID, fi.best.Confidence, fi.best.Reason, joinOr(e.cfg.PIITags)),
			Hint:    tagHint(fi.f, e.cfg.PIITags[0])})
	}
	return out
}

// previousTags returns the tags the previous version gave the field at
// any of its paths.
func (e *evaluation) previousTags(fi fieldInfo) []string {
	var out []string
	for _, p := range fi.paths {
		out = append(out, e.prevTags[p]...)
	}
	if len(out) > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// firstTag returns the first tag of tags that is in want.
func firstTag(tags, want []string) string {
	for _, t := range tags {
		if hasAnyTag([]string{t}, want) {
			return t
		}
	}
	return want[0]
}

// checkUnmasked: PII_UNMASKED.
func checkUnmasked(e *evaluation) []rule.Finding {
	if len(e.cfg.MaskTags) == 0 {
		return nil
	}
	var out []rule.Finding
	for _, fi := range e.current {
		if !hasAnyTag(fi.tags, e.cfg.MaskTags) || e.masked(fi) {
			continue
		}
		path, where := fi.where(false)
		out = append(out, rule.Finding{Path: path,
			Message: fmt.Sprintf("%s is tagged %s, which this subject requires masked, and has no encryption, masking or tokenization marker", where, strings.Join(fi.tags, ", ")),
			Hint: fmt.Sprintf(`add a domain rule of type %s with tags [%q] to the ruleSet (mode WRITE or WRITEREAD), set the field property %q, or tag the field %s`,
				joinOr(e.cfg.MaskingRuleTypes), firstTag(fi.tags, e.cfg.MaskTags), e.cfg.MaskingProps[0], joinOr(e.cfg.MaskingTags))})
	}
	return out
}

// masked reports whether a field carries a masking marker: a masking tag,
// a masking property, or an enabled write-side ruleSet rule of a masking
// type whose tags cover the field's tags exactly as Confluent's executors
// compare them (a rule without tags, or ENCRYPT_PAYLOAD, covers every
// field).
func (e *evaluation) masked(fi fieldInfo) bool {
	if hasAnyTag(fi.tags, e.cfg.MaskingTags) {
		return true
	}
	for _, p := range e.cfg.MaskingProps {
		if v, ok := fi.f.Props[p]; ok {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "", "none", "false":
			default:
				return true
			}
		}
	}
	rules := append(slices.Clone(e.in.RuleSet.DomainRules), e.in.RuleSet.EncodingRules...)
	for _, r := range rules {
		if r.Disabled || !slices.Contains(e.cfg.MaskingRuleTypes, r.Type) {
			continue
		}
		if r.Kind != "" && r.Kind != "TRANSFORM" {
			continue
		}
		switch r.Mode {
		case "", "WRITE", "WRITEREAD":
		default:
			continue
		}
		if r.Type == "ENCRYPT_PAYLOAD" || len(r.Tags) == 0 {
			return true
		}
		for _, t := range r.Tags {
			if slices.Contains(fi.tags, t) {
				return true
			}
		}
	}
	return false
}

// checkNewWithConsumers: PII_NEW_FIELD_WITH_CONSUMERS.
func checkNewWithConsumers(e *evaluation) []rule.Finding {
	if e.in.Previous == nil {
		return nil
	}
	consumers := slices.Clone(e.in.Consumers)
	slices.Sort(consumers)
	consumers = slices.Compact(slices.DeleteFunc(consumers, func(s string) bool { return strings.TrimSpace(s) == "" }))
	if len(consumers) == 0 {
		return nil
	}
	var out []rule.Finding
	for _, fi := range e.current {
		if !fi.isNew() {
			continue
		}
		var why string
		switch {
		case hasAnyTag(fi.tags, e.cfg.PIITags):
			why = "is tagged " + strings.Join(fi.tags, ", ")
		case fi.best != nil:
			why = fmt.Sprintf("looks like personal data (%s)", fi.best.PatternID)
		default:
			continue
		}
		noun := "consumer"
		if len(consumers) > 1 {
			noun = "consumers"
		}
		path, where := fi.where(true)
		out = append(out, rule.Finding{Path: path,
			Message: fmt.Sprintf("new %s %s and will reach %d existing %s: %s", where, why, len(consumers), noun, strings.Join(consumers, ", ")),
			Hint:    "tell the consuming teams before they receive personal data, and check that each may process it"})
	}
	return out
}

package project

import (
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/rule"
)

// The project rules: what Check reports besides compatibility violations
// and the findings of its evaluators.
const (
	// RuleSchemaInvalid: a schema file of the working tree cannot be read,
	// parsed or named.
	RuleSchemaInvalid = "SCHEMA_INVALID"
	// RuleSubjectDuplicate: two files map to one subject.
	RuleSubjectDuplicate = "SUBJECT_DUPLICATE"
	// RuleSubjectFormatChanged: a subject's schema format differs from the
	// baseline's.
	RuleSubjectFormatChanged = "SUBJECT_FORMAT_CHANGED"
	// RuleSubjectRemoved: a subject of a tree baseline has no file any more.
	RuleSubjectRemoved = "SUBJECT_REMOVED"
	// RuleSubjectAdded: a subject the baseline does not have.
	RuleSubjectAdded = "SUBJECT_ADDED"
	// RuleBaselineInvalid: a baseline version cannot be parsed, so the
	// subject is not compared with it.
	RuleBaselineInvalid = "BASELINE_SCHEMA_INVALID"
	// RuleConfigPatternUnmatched: a files pattern of charter.yaml's
	// schemas matches no file of the working tree (a typo would silently
	// take schemas out of the gate).
	RuleConfigPatternUnmatched = "CONFIG_PATTERN_UNMATCHED"
)

// CategoryProject is the rule.Rule category of the project rules;
// CategoryCompat is the one findings of compat rules are listed under.
const (
	CategoryProject = "project"
	CategoryCompat  = "compatibility"
)

// projectRules are registered in the policy rule table.
var projectRules = []rule.Rule{
	{ID: RuleSchemaInvalid, Category: CategoryProject, Severity: rule.Error,
		Purpose: "Every schema file that charter.yaml maps must read, parse (with its references) and name a subject."},
	{ID: RuleSubjectDuplicate, Category: CategoryProject, Severity: rule.Error,
		Purpose: "Each subject is defined by one file: two files mapping to one subject would register over each other."},
	{ID: RuleSubjectFormatChanged, Category: CategoryProject, Severity: rule.Error,
		Purpose: "A subject keeps its schema format: data written as Avro cannot be read with a Protobuf or JSON schema.",
		Source:  "Confluent Schema Registry rejects a schemaType that differs from the subject's latest version as incompatible."},
	{ID: RuleSubjectRemoved, Category: CategoryProject, Severity: rule.Warning,
		Purpose: "A subject of the baseline has no file any more; the registry keeps it and its consumers until it is deleted there."},
	{ID: RuleSubjectAdded, Category: CategoryProject, Severity: rule.Notice,
		Purpose: "A subject the baseline does not have: nothing to compare yet; its first version sets the contract."},
	{ID: RuleBaselineInvalid, Category: CategoryProject, Severity: rule.Warning,
		Purpose: "A baseline version that does not parse cannot be compared with; the subject is reported unchecked."},
	{ID: RuleConfigPatternUnmatched, Category: CategoryProject, Severity: rule.Warning,
		Purpose: "Every files pattern of charter.yaml's schemas matches a file: a pattern that matches nothing (a typo, a moved directory) takes schemas out of the gate without a word. Set it to error in CI to fail on it."},
}

func init() { rule.RegisterRules(projectRules...) }

// RuleInfo is one row of `charter rules`: a compat or policy rule.
type RuleInfo struct {
	ID string `json:"id"`
	// Format is AVRO, PROTOBUF or JSON for compat rules, "" for rules of
	// every format.
	Format   compat.SchemaType `json:"format,omitempty"`
	Category string            `json:"category"`
	// Severity is the default severity of the rule's findings (once
	// switched on, for an Off rule).
	Severity rule.Severity `json:"severity"`
	// Off marks a rule that reports nothing unless configured
	// (rule.Rule.Off).
	Off     bool   `json:"off,omitempty"`
	Purpose string `json:"purpose"`
	Source  string `json:"source,omitempty"`
	// Profiles names the rule profiles that run a compat rule, for a
	// format whose rules come in profiles (Protobuf: CONFLUENT, WIRE,
	// WIRE_JSON; selected by protobuf_profile); empty: always run.
	Profiles []string `json:"profiles,omitempty"`
}

// DefaultSeverity is what the rule reports at by default: "off" for an
// Off rule, else its severity's name.
func (r RuleInfo) DefaultSeverity() string {
	if r.Off {
		return "off"
	}
	return r.Severity.String()
}

// Rules lists every rule a check can report: the compat rules of every
// format of compat/formats (severity error when a subject's level applies
// them) and every registered policy rule (this package's, and those of the
// governance packages linked into the binary), sorted by ID.
func Rules() []RuleInfo {
	var out []RuleInfo
	for _, e := range formats.All() {
		for _, r := range e.Rules() {
			out = append(out, compatRuleInfo(r))
		}
	}
	for _, r := range rule.Rules() {
		out = append(out, RuleInfo{ID: r.ID, Category: r.Category, Severity: r.Severity, Off: r.Off, Purpose: r.Purpose, Source: r.Source})
	}
	sortRules(out)
	return out
}

// compatRuleInfo is the row of a compat rule.
func compatRuleInfo(r compat.Rule) RuleInfo {
	return RuleInfo{ID: r.ID, Format: r.Format, Category: CategoryCompat, Severity: rule.Error,
		Purpose: r.Purpose, Source: r.Source, Profiles: r.Profiles}
}

func sortRules(rs []RuleInfo) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID })
}

// LookupRule finds a compat or policy rule by ID.
func LookupRule(id string) (RuleInfo, bool) {
	for _, e := range formats.All() {
		for _, r := range e.Rules() {
			if r.ID == id {
				return compatRuleInfo(r), true
			}
		}
	}
	if r, ok := rule.LookupRule(id); ok {
		return RuleInfo{ID: r.ID, Category: r.Category, Severity: r.Severity, Off: r.Off, Purpose: r.Purpose, Source: r.Source}, true
	}
	return RuleInfo{}, false
}

// splitHint splits a compat message of the form "what is wrong; how to
// fix it" (the style of every Charter format) into message and hint.
func splitHint(msg string) (string, string) {
	what, fix, ok := strings.Cut(msg, "; ")
	if !ok || fix == "" {
		return msg, ""
	}
	return what, fix
}

// directionHint is the hint of a compat finding whose message gives none.
func directionHint(d compat.Direction, level compat.Level) string {
	if d == compat.DirForward {
		return "consumers still on the earlier schema must read data written with the new one (level " + string(level) + "); make the change forward compatible or lower the subject's level in charter.yaml"
	}
	return "consumers on the new schema must read data written with the earlier one (level " + string(level) + "); make the change backward compatible or lower the subject's level in charter.yaml"
}

package project

import (
	"slices"
	"strings"

	"github.com/charter-dev/charter/compat"
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
	// baseline's (a notice: the gate's SCHEMA_TYPE_CHANGED refuses it
	// at levels other than NONE).
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

// projectRules are the rules Check fires itself.
var projectRules = []rule.Rule{
	{ID: RuleSchemaInvalid, Category: rule.CategoryProject, Severity: rule.Error,
		Purpose: "Every schema file that charter.yaml maps must read, parse (with its references) and name a subject."},
	{ID: RuleSubjectDuplicate, Category: rule.CategoryProject, Severity: rule.Error,
		Purpose: "Each subject is defined by one file: two files mapping to one subject would register over each other."},
	{ID: RuleSubjectFormatChanged, Category: rule.CategoryProject, Severity: rule.Notice,
		Purpose: "A subject's schema format changes: data written as Avro cannot be read with a Protobuf or JSON schema. Level NONE accepts it, as the registry does; at any other level the change is refused with SCHEMA_TYPE_CHANGED, as registration refuses it.",
		Source:  "Confluent Schema Registry accepts a schemaType that differs from the subject's earlier versions only at compatibility NONE."},
	{ID: RuleSubjectRemoved, Category: rule.CategoryProject, Severity: rule.Warning,
		Purpose: "A subject of the baseline has no file any more; the registry keeps it and its consumers until it is deleted there."},
	{ID: RuleSubjectAdded, Category: rule.CategoryProject, Severity: rule.Notice,
		Purpose: "A subject the baseline does not have: nothing to compare yet; its first version sets the contract."},
	{ID: RuleBaselineInvalid, Category: rule.CategoryProject, Severity: rule.Warning,
		Purpose: "A baseline version that does not parse cannot be compared with; the subject is reported unchecked."},
	{ID: RuleConfigPatternUnmatched, Category: rule.CategoryProject, Severity: rule.Warning,
		Purpose: "Every files pattern of charter.yaml's schemas matches a file: a pattern that matches nothing (a typo, a moved directory) takes schemas out of the gate without a word. Set it to error in CI to fail on it."},
}

// Rules returns the project rules: what Check reports about the working
// tree and charter.yaml itself (judge.go's judgeRules included).
func Rules() []rule.Rule { return slices.Concat(projectRules, judgeRules) }

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
// Against a registry the level is the registry's to lower (charter.yaml
// may only make it stricter); offline charter.yaml's.
func directionHint(d compat.Direction, s *Subject) string {
	where := "in charter.yaml"
	if s.registryLevel != "" {
		where = "in the registry (charter config set " + s.Name + " --level ...)"
	}
	level := string(s.Level)
	if d == compat.DirForward {
		return "consumers still on the earlier schema must read data written with the new one (level " + level + "); make the change forward compatible or lower the subject's level " + where
	}
	return "consumers on the new schema must read data written with the earlier one (level " + level + "); make the change backward compatible or lower the subject's level " + where
}

// AtLeastAsStrict reports whether level l judges every change that
// level reg judges: its directions include reg's, and it is transitive if
// reg is. Against a registry, charter.yaml's level applies only then;
// NONE is the weakest, FULL_TRANSITIVE the strictest.
func AtLeastAsStrict(l, reg compat.Level) bool {
	return (!reg.Backward() || l.Backward()) && (!reg.Forward() || l.Forward()) &&
		(!reg.Transitive() || l.Transitive())
}

package gate

import "github.com/charter-dev/charter/compat/rule"

// RuleSchemaTypeChanged is reported when an earlier version the level
// compares with is written in another schema language than the candidate:
// no reader of one language reads the other, so only NONE allows it.
const RuleSchemaTypeChanged = "SCHEMA_TYPE_CHANGED"

// Rules returns the rules the gate fires itself, beside those of the
// formats, package registry/governance and package contracts.
func Rules() []rule.Rule {
	return []rule.Rule{
		reservedRule,
		{ID: RuleSchemaTypeChanged, Category: rule.CategoryCompat, Severity: rule.Error,
			Purpose: "An earlier version the subject's level compares with has the candidate's schema type: only compatibility NONE allows changing it.",
			Source:  "Confluent Schema Registry rejects a schemaType that differs from the subject's earlier versions as incompatible."},
	}
}

package avro

import (
	"slices"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
)

// Rule IDs reported by CheckRead. The part after AVRO_ keeps the name Java
// and Python Avro's SchemaCompatibility give the same incompatibility, where
// there is one, so users can match Charter's findings to the ones Confluent
// reports. IDs never change once released.
const (
	// RuleReaderFieldMissingDefault: a reader field is absent from the
	// writer and has no default (Java: READER_FIELD_MISSING_DEFAULT_VALUE).
	RuleReaderFieldMissingDefault = "AVRO_READER_FIELD_MISSING_DEFAULT"
	// RuleTypeMismatch: the two types do not match and no promotion applies.
	RuleTypeMismatch = "AVRO_TYPE_MISMATCH"
	// RuleNameMismatch: two records, enums or fixeds have different simple
	// names and no reader alias names the writer's type.
	RuleNameMismatch = "AVRO_NAME_MISMATCH"
	// RuleFixedSizeMismatch: two fixeds differ in size.
	RuleFixedSizeMismatch = "AVRO_FIXED_SIZE_MISMATCH"
	// RuleMissingEnumSymbols: writer symbols are missing from a reader enum
	// that has no default.
	RuleMissingEnumSymbols = "AVRO_MISSING_ENUM_SYMBOLS"
	// RuleMissingUnionBranch: no branch of a reader union matches a writer
	// type.
	RuleMissingUnionBranch = "AVRO_MISSING_UNION_BRANCH"
	// RuleDecimalScaleMismatch: two decimals differ in scale (Charter's own;
	// Java and Python ignore logical types).
	RuleDecimalScaleMismatch = "AVRO_DECIMAL_SCALE_MISMATCH"
	// RuleDecimalPrecisionNarrowed: the reader decimal's precision is
	// smaller than the writer's (Charter's own).
	RuleDecimalPrecisionNarrowed = "AVRO_DECIMAL_PRECISION_NARROWED"
	// RuleLogicalTypeMismatch: both sides carry different logical types
	// over matching types, e.g. timestamp-millis read as timestamp-micros
	// (Charter's own).
	RuleLogicalTypeMismatch = "AVRO_LOGICAL_TYPE_MISMATCH"
)

const specResolution = `Avro 1.12 specification, "Schema Resolution"`

// Rules returns Charter's table of Avro rules, in the order of the
// constants above.
func Rules() []rule.Rule { return slices.Clone(rules) }

var rules = []rule.Rule{
	{
		ID:       RuleReaderFieldMissingDefault,
		Format:   compat.Avro,
		Category: rule.CategoryCompat,
		Severity: rule.Error,
		Purpose:  "A reader record field that the writer lacks must have a default to fill it.",
		Source:   specResolution + `, "if both are records": a reader field with no default and no writer field of the same name (or alias) is an error`,
	},
	{
		ID:       RuleTypeMismatch,
		Format:   compat.Avro,
		Category: rule.CategoryCompat,
		Severity: rule.Error,
		Purpose:  "Writer and reader types must match, or the writer's must promote to the reader's (int→long→float→double, string↔bytes).",
		Source:   specResolution + `: "It is an error if the two schemas do not match"; the promotion list`,
	},
	{
		ID:       RuleNameMismatch,
		Format:   compat.Avro,
		Category: rule.CategoryCompat,
		Severity: rule.Error,
		Purpose:  "Records, enums and fixeds must keep their simple name, or the reader must list the writer's full name in its aliases.",
		Source:   specResolution + ` (unqualified names match) and "Aliases" (reader aliases rename the writer's type)`,
	},
	{
		ID:       RuleFixedSizeMismatch,
		Format:   compat.Avro,
		Category: rule.CategoryCompat,
		Severity: rule.Error,
		Purpose:  "Fixed types must keep their size.",
		Source:   specResolution + `: "both schemas are fixed whose sizes and (unqualified) names match"`,
	},
	{
		ID:       RuleMissingEnumSymbols,
		Format:   compat.Avro,
		Category: rule.CategoryCompat,
		Severity: rule.Error,
		Purpose:  "A reader enum must contain every writer symbol unless it declares a default.",
		Source:   specResolution + `, "if both are enums": an unknown writer symbol takes the reader's default, else is an error`,
	},
	{
		ID:       RuleMissingUnionBranch,
		Format:   compat.Avro,
		Category: rule.CategoryCompat,
		Severity: rule.Error,
		Purpose:  "A reader union must have a branch that matches each type the writer can write.",
		Source:   specResolution + `, "if reader's is a union": the first matching branch is used; if none match, an error is signalled`,
	},
	{
		ID:       RuleDecimalScaleMismatch,
		Format:   compat.Avro,
		Category: rule.CategoryCompat,
		Severity: rule.Error,
		Purpose:  "Decimals must keep their scale: the same bytes read with another scale are a different number.",
		Source: `Avro 1.12 specification, "Logical Types" / "Decimal": decimals match only if their scales and precisions match. ` +
			`Java and Python Avro (so Confluent) ignore logical types here; Charter follows the specification`,
	},
	{
		ID:       RuleDecimalPrecisionNarrowed,
		Format:   compat.Avro,
		Category: rule.CategoryCompat,
		Severity: rule.Error,
		Purpose:  "A reader decimal must not have a smaller precision than the writer's, or stored values may not fit.",
		Source: `Avro 1.12 specification, "Logical Types" / "Decimal": decimals match only if their scales and precisions match. ` +
			`Charter allows a wider reader precision (every writer value still fits) and reports a narrower one; Java/Python/Confluent ignore both`,
	},
	{
		ID:       RuleLogicalTypeMismatch,
		Format:   compat.Avro,
		Category: rule.CategoryCompat,
		Severity: rule.Error,
		Purpose:  "A value must keep its logical type (e.g. timestamp-millis must not become timestamp-micros): the same stored number would mean something else.",
		Source: `Avro 1.12 specification, "Logical Types": each logical type fixes what its underlying value means ` +
			`(e.g. milliseconds vs microseconds from the epoch). Java/Python/Confluent ignore logical types; ` +
			`Charter reports a change between two different valid logical types, and allows adding or dropping one`,
	},
}

package jsonschema

import (
	"fmt"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
)

// RuleTypeChanged is reported when a reader part has another type than the
// writer's; it is also the rule of the violation CheckRead returns for
// schemas that were not parsed by this package.
const RuleTypeChanged = "JSON_TYPE_CHANGED"

// Rule IDs of the other incompatible changes CheckRead reports: JSON_
// followed by the name Confluent's differ gives the change
// (Difference.Type), so that findings match the ones Confluent reports.
// IDs never change once released.
const (
	RuleTypeNarrowed                                         = "JSON_TYPE_NARROWED"
	RuleSchemaAdded                                          = "JSON_SCHEMA_ADDED"
	RuleMaxLengthAdded                                       = "JSON_MAX_LENGTH_ADDED"
	RuleMaxLengthDecreased                                   = "JSON_MAX_LENGTH_DECREASED"
	RuleMinLengthAdded                                       = "JSON_MIN_LENGTH_ADDED"
	RuleMinLengthIncreased                                   = "JSON_MIN_LENGTH_INCREASED"
	RulePatternAdded                                         = "JSON_PATTERN_ADDED"
	RulePatternChanged                                       = "JSON_PATTERN_CHANGED"
	RuleMaximumAdded                                         = "JSON_MAXIMUM_ADDED"
	RuleMaximumDecreased                                     = "JSON_MAXIMUM_DECREASED"
	RuleMinimumAdded                                         = "JSON_MINIMUM_ADDED"
	RuleMinimumIncreased                                     = "JSON_MINIMUM_INCREASED"
	RuleExclusiveMaximumAdded                                = "JSON_EXCLUSIVE_MAXIMUM_ADDED"
	RuleExclusiveMaximumDecreased                            = "JSON_EXCLUSIVE_MAXIMUM_DECREASED"
	RuleExclusiveMinimumAdded                                = "JSON_EXCLUSIVE_MINIMUM_ADDED"
	RuleExclusiveMinimumIncreased                            = "JSON_EXCLUSIVE_MINIMUM_INCREASED"
	RuleMultipleOfAdded                                      = "JSON_MULTIPLE_OF_ADDED"
	RuleMultipleOfExpanded                                   = "JSON_MULTIPLE_OF_EXPANDED"
	RuleMultipleOfChanged                                    = "JSON_MULTIPLE_OF_CHANGED"
	RuleRequiredAttributeAdded                               = "JSON_REQUIRED_ATTRIBUTE_ADDED"
	RuleMaxPropertiesAdded                                   = "JSON_MAX_PROPERTIES_ADDED"
	RuleMaxPropertiesDecreased                               = "JSON_MAX_PROPERTIES_DECREASED"
	RuleMinPropertiesAdded                                   = "JSON_MIN_PROPERTIES_ADDED"
	RuleMinPropertiesIncreased                               = "JSON_MIN_PROPERTIES_INCREASED"
	RuleAdditionalPropertiesRemoved                          = "JSON_ADDITIONAL_PROPERTIES_REMOVED"
	RuleAdditionalPropertiesNarrowed                         = "JSON_ADDITIONAL_PROPERTIES_NARROWED"
	RuleDependencyArrayAdded                                 = "JSON_DEPENDENCY_ARRAY_ADDED"
	RuleDependencyArrayExtended                              = "JSON_DEPENDENCY_ARRAY_EXTENDED"
	RuleDependencyArrayChanged                               = "JSON_DEPENDENCY_ARRAY_CHANGED"
	RuleDependencySchemaAdded                                = "JSON_DEPENDENCY_SCHEMA_ADDED"
	RuleRequiredPropertyAddedToOpenContentModel              = "JSON_REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"
	RuleRequiredPropertyWithDefaultAddedToOpenContentModel   = "JSON_REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL"
	RuleOptionalPropertyAddedToOpenContentModel              = "JSON_OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"
	RuleRequiredPropertyAddedToUnopenContentModel            = "JSON_REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL"
	RulePropertyRemovedFromClosedContentModel                = "JSON_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"
	RulePropertyRemovedNotCoveredByPartiallyOpenContentModel = "JSON_PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
	RulePropertyAddedNotCoveredByPartiallyOpenContentModel   = "JSON_PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
	RuleUnevaluatedPropertiesRemoved                         = "JSON_UNEVALUATED_PROPERTIES_REMOVED"
	RuleUnevaluatedPropertiesNarrowed                        = "JSON_UNEVALUATED_PROPERTIES_NARROWED"
	RuleMaxItemsAdded                                        = "JSON_MAX_ITEMS_ADDED"
	RuleMaxItemsDecreased                                    = "JSON_MAX_ITEMS_DECREASED"
	RuleMinItemsAdded                                        = "JSON_MIN_ITEMS_ADDED"
	RuleMinItemsIncreased                                    = "JSON_MIN_ITEMS_INCREASED"
	RuleMaxContainsAdded                                     = "JSON_MAX_CONTAINS_ADDED"
	RuleMaxContainsDecreased                                 = "JSON_MAX_CONTAINS_DECREASED"
	RuleMinContainsAdded                                     = "JSON_MIN_CONTAINS_ADDED"
	RuleMinContainsIncreased                                 = "JSON_MIN_CONTAINS_INCREASED"
	RuleUniqueItemsAdded                                     = "JSON_UNIQUE_ITEMS_ADDED"
	RuleAdditionalItemsRemoved                               = "JSON_ADDITIONAL_ITEMS_REMOVED"
	RuleAdditionalItemsNarrowed                              = "JSON_ADDITIONAL_ITEMS_NARROWED"
	RuleUnevaluatedItemsRemoved                              = "JSON_UNEVALUATED_ITEMS_REMOVED"
	RuleUnevaluatedItemsNarrowed                             = "JSON_UNEVALUATED_ITEMS_NARROWED"
	RuleItemAddedToOpenContentModel                          = "JSON_ITEM_ADDED_TO_OPEN_CONTENT_MODEL"
	RuleItemRemovedFromClosedContentModel                    = "JSON_ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL"
	RuleItemRemovedNotCoveredByPartiallyOpenContentModel     = "JSON_ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
	RuleItemAddedNotCoveredByPartiallyOpenContentModel       = "JSON_ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"
	RuleEnumArrayNarrowed                                    = "JSON_ENUM_ARRAY_NARROWED"
	RuleEnumArrayChanged                                     = "JSON_ENUM_ARRAY_CHANGED"
	RuleCombinedTypeChanged                                  = "JSON_COMBINED_TYPE_CHANGED"
	RuleProductTypeExtended                                  = "JSON_PRODUCT_TYPE_EXTENDED"
	RuleSumTypeNarrowed                                      = "JSON_SUM_TYPE_NARROWED"
	RuleCombinedTypeSubschemasChanged                        = "JSON_COMBINED_TYPE_SUBSCHEMAS_CHANGED"
	RuleNotTypeExtended                                      = "JSON_NOT_TYPE_EXTENDED"
)

// RuleTooComplex is the only violation CheckRead reports when comparing
// the two schemas needs more work than the format's budget allows
// (Format.MaxComparisons, DefaultMaxComparisons by default).
const RuleTooComplex = "JSON_SCHEMA_TOO_COMPLEX"

// Sources cited by the rules.
const (
	srcConfluent = `Confluent Schema Registry JSON Schema differ (json/diff/SchemaDiff.java, Difference.Type %s): ` +
		`not in COMPATIBLE_CHANGES_STRICT`
	srcValidation = `JSON Schema Validation (draft 2020-12) §%s`
	srcCore       = `JSON Schema Core (draft 2020-12) §%s`
)

// ruleDef is one incompatible change type: its rule ID, the name
// Confluent's differ gives it, its purpose, where it comes from, whether
// LENIENT accepts it, and how to say it.
type ruleDef struct {
	id      string
	change  string // Confluent's Difference.Type, as change.typ holds it
	purpose string
	spec    string // the specification section behind the rule
	lenient bool   // in SchemaDiff.COMPATIBLE_CHANGES_LENIENT
	note    string // where Charter differs from Confluent, if it does
	msg     func(c change) string
}

// last returns the last token of a change's path, unescaped: the property
// name for property changes.
func last(c change) string {
	p := c.path
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		p = p[i+1:]
	}
	return strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
}

var ruleDefs = []ruleDef{
	{id: RuleTypeChanged, change: "TYPE_CHANGED", spec: fmt.Sprintf(srcValidation, "6.1.1 type"),
		purpose: "A schema must keep its type (object, array, string, number, boolean, null, enum, const, combination).",
		msg: func(c change) string {
			return fmt.Sprintf("the reader expects %s where the writer allows %s, so writer values of type %s fail validation; keep %s, or accept both with anyOf", c.to, c.from, c.from, c.from)
		}},
	{id: RuleTypeNarrowed, change: "TYPE_NARROWED", spec: fmt.Sprintf(srcValidation, "6.1.1 type"),
		purpose: "A number must not become an integer: writer values with a fraction would fail.",
		msg: func(c change) string {
			return "the reader narrows \"number\" to \"integer\", so writer values with a fractional part fail validation; keep \"type\": \"number\""
		}},
	{id: RuleSchemaAdded, change: "SCHEMA_ADDED", spec: fmt.Sprintf(srcCore, "10.3.1.2 items"),
		purpose: "A reader must not add a schema for values the writer left unconstrained (e.g. items).",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds a %s schema where the writer accepted any value, so writer values that do not match it fail validation; drop it or make it accept everything", c.to)
		}},
	{id: RuleMaxLengthAdded, change: "MAX_LENGTH_ADDED", spec: fmt.Sprintf(srcValidation, "6.3.1 maxLength"),
		purpose: "A reader must not add maxLength: longer writer strings would fail.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds maxLength %s, so longer writer strings fail validation; drop maxLength", c.to)
		}},
	{id: RuleMaxLengthDecreased, change: "MAX_LENGTH_DECREASED", spec: fmt.Sprintf(srcValidation, "6.3.1 maxLength"),
		purpose: "A reader must not lower maxLength.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader lowers maxLength from %s to %s, so writer strings longer than %s fail validation; keep maxLength at %s or more", c.from, c.to, c.to, c.from)
		}},
	{id: RuleMinLengthAdded, change: "MIN_LENGTH_ADDED", spec: fmt.Sprintf(srcValidation, "6.3.2 minLength"),
		purpose: "A reader must not add minLength: shorter writer strings would fail.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds minLength %s, so shorter writer strings fail validation; drop minLength", c.to)
		}},
	{id: RuleMinLengthIncreased, change: "MIN_LENGTH_INCREASED", spec: fmt.Sprintf(srcValidation, "6.3.2 minLength"),
		purpose: "A reader must not raise minLength.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader raises minLength from %s to %s, so writer strings shorter than %s fail validation; keep minLength at %s or less", c.from, c.to, c.to, c.from)
		}},
	{id: RulePatternAdded, change: "PATTERN_ADDED", spec: fmt.Sprintf(srcValidation, "6.3.3 pattern"),
		purpose: "A reader must not add a pattern the writer did not require.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds pattern %q, so writer strings that do not match it fail validation; drop the pattern", c.to)
		}},
	{id: RulePatternChanged, change: "PATTERN_CHANGED", spec: fmt.Sprintf(srcValidation, "6.3.3 pattern"),
		purpose: "A reader must not change a pattern (patterns are compared as text).",
		msg: func(c change) string {
			return fmt.Sprintf("the reader changes pattern %q to %q, so writer strings may no longer match; keep the writer's pattern or drop it", c.from, c.to)
		}},
	{id: RuleMaximumAdded, change: "MAXIMUM_ADDED", spec: fmt.Sprintf(srcValidation, "6.2.2 maximum"),
		purpose: "A reader must not add a maximum.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds maximum %s, so larger writer values fail validation; drop maximum", c.to)
		}},
	{id: RuleMaximumDecreased, change: "MAXIMUM_DECREASED", spec: fmt.Sprintf(srcValidation, "6.2.2 maximum"),
		purpose: "A reader must not lower a maximum.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader lowers maximum from %s to %s, so writer values above %s fail validation; keep maximum at %s or more", c.from, c.to, c.to, c.from)
		}},
	{id: RuleMinimumAdded, change: "MINIMUM_ADDED", spec: fmt.Sprintf(srcValidation, "6.2.4 minimum"),
		purpose: "A reader must not add a minimum.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds minimum %s, so smaller writer values fail validation; drop minimum", c.to)
		}},
	{id: RuleMinimumIncreased, change: "MINIMUM_INCREASED", spec: fmt.Sprintf(srcValidation, "6.2.4 minimum"),
		purpose: "A reader must not raise a minimum.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader raises minimum from %s to %s, so writer values below %s fail validation; keep minimum at %s or less", c.from, c.to, c.to, c.from)
		}},
	{id: RuleExclusiveMaximumAdded, change: "EXCLUSIVE_MAXIMUM_ADDED", spec: fmt.Sprintf(srcValidation, "6.2.3 exclusiveMaximum"),
		purpose: "A reader must not add an exclusiveMaximum.",
		note:    "Draft-04's boolean exclusiveMaximum is read as the exclusive limit it makes of maximum (Confluent ignores the boolean).",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds exclusiveMaximum %s, so writer values of %s or more fail validation; drop exclusiveMaximum", c.to, c.to)
		}},
	{id: RuleExclusiveMaximumDecreased, change: "EXCLUSIVE_MAXIMUM_DECREASED", spec: fmt.Sprintf(srcValidation, "6.2.3 exclusiveMaximum"),
		purpose: "A reader must not lower an exclusiveMaximum.",
		note:    "Compared with the writer's exclusiveMaximum; Confluent compares it with the reader's maximum and fails when there is none.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader lowers exclusiveMaximum from %s to %s, so writer values from %s up fail validation; keep exclusiveMaximum at %s or more", c.from, c.to, c.to, c.from)
		}},
	{id: RuleExclusiveMinimumAdded, change: "EXCLUSIVE_MINIMUM_ADDED", spec: fmt.Sprintf(srcValidation, "6.2.5 exclusiveMinimum"),
		purpose: "A reader must not add an exclusiveMinimum.",
		note:    "Draft-04's boolean exclusiveMinimum is read as the exclusive limit it makes of minimum (Confluent ignores the boolean).",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds exclusiveMinimum %s, so writer values of %s or less fail validation; drop exclusiveMinimum", c.to, c.to)
		}},
	{id: RuleExclusiveMinimumIncreased, change: "EXCLUSIVE_MINIMUM_INCREASED", spec: fmt.Sprintf(srcValidation, "6.2.5 exclusiveMinimum"),
		purpose: "A reader must not raise an exclusiveMinimum.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader raises exclusiveMinimum from %s to %s, so writer values up to %s fail validation; keep exclusiveMinimum at %s or less", c.from, c.to, c.to, c.from)
		}},
	{id: RuleMultipleOfAdded, change: "MULTIPLE_OF_ADDED", spec: fmt.Sprintf(srcValidation, "6.2.1 multipleOf"),
		purpose: "A reader must not add multipleOf.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds multipleOf %s, so writer values that are not multiples of %s fail validation; drop multipleOf", c.to, c.to)
		}},
	{id: RuleMultipleOfExpanded, change: "MULTIPLE_OF_EXPANDED", spec: fmt.Sprintf(srcValidation, "6.2.1 multipleOf"),
		purpose: "A reader's multipleOf must divide the writer's, not be a multiple of it.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader raises multipleOf from %s to %s, so writer multiples of %s that are not multiples of %s fail validation; use a divisor of %s", c.from, c.to, c.from, c.to, c.from)
		}},
	{id: RuleMultipleOfChanged, change: "MULTIPLE_OF_CHANGED", spec: fmt.Sprintf(srcValidation, "6.2.1 multipleOf"),
		purpose: "A reader's multipleOf must divide the writer's.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader changes multipleOf from %s to %s, which does not divide %s, so writer values fail validation; use a divisor of %s", c.from, c.to, c.from, c.from)
		}},
	{id: RuleRequiredAttributeAdded, change: "REQUIRED_ATTRIBUTE_ADDED", spec: fmt.Sprintf(srcValidation, "6.5.3 required"),
		purpose: "A reader must not make an existing optional property required unless it has a default.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader makes property %q required, so writer data without it fails validation; keep %q optional or give it a default", c.from, c.from)
		}},
	{id: RuleMaxPropertiesAdded, change: "MAX_PROPERTIES_ADDED", spec: fmt.Sprintf(srcValidation, "6.5.1 maxProperties"),
		purpose: "A reader must not add maxProperties.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds maxProperties %s, so writer objects with more properties fail validation; drop maxProperties", c.to)
		}},
	{id: RuleMaxPropertiesDecreased, change: "MAX_PROPERTIES_DECREASED", spec: fmt.Sprintf(srcValidation, "6.5.1 maxProperties"),
		purpose: "A reader must not lower maxProperties.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader lowers maxProperties from %s to %s, so writer objects with more than %s properties fail validation; keep it at %s or more", c.from, c.to, c.to, c.from)
		}},
	{id: RuleMinPropertiesAdded, change: "MIN_PROPERTIES_ADDED", spec: fmt.Sprintf(srcValidation, "6.5.2 minProperties"),
		purpose: "A reader must not add minProperties.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds minProperties %s, so writer objects with fewer properties fail validation; drop minProperties", c.to)
		}},
	{id: RuleMinPropertiesIncreased, change: "MIN_PROPERTIES_INCREASED", spec: fmt.Sprintf(srcValidation, "6.5.2 minProperties"),
		purpose: "A reader must not raise minProperties.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader raises minProperties from %s to %s, so writer objects with fewer than %s properties fail validation; keep it at %s or less", c.from, c.to, c.to, c.from)
		}},
	{id: RuleAdditionalPropertiesRemoved, change: "ADDITIONAL_PROPERTIES_REMOVED", spec: fmt.Sprintf(srcCore, "10.3.2.3 additionalProperties"), lenient: true,
		purpose: "A reader must not forbid additional properties the writer allowed.",
		msg: func(c change) string {
			return "the reader sets additionalProperties to false where the writer allows undeclared properties, so writer data carrying them fails validation; keep additional properties allowed"
		}},
	{id: RuleAdditionalPropertiesNarrowed, change: "ADDITIONAL_PROPERTIES_NARROWED", spec: fmt.Sprintf(srcCore, "10.3.2.3 additionalProperties"), lenient: true,
		purpose: "A reader must not constrain additional properties the writer left free.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader constrains additional properties to %s where the writer allows any value, so writer data with other undeclared values fails validation; keep additionalProperties open", c.to)
		}},
	{id: RuleDependencyArrayAdded, change: "DEPENDENCY_ARRAY_ADDED", spec: fmt.Sprintf(srcValidation, "6.5.4 dependentRequired"),
		purpose: "A reader must not add a property dependency (dependentRequired / dependencies array).",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds a dependency: when %q is present, %s must be too, so writer data without them fails validation; drop the dependency", last(c), quoteList(c.to))
		}},
	{id: RuleDependencyArrayExtended, change: "DEPENDENCY_ARRAY_EXTENDED", spec: fmt.Sprintf(srcValidation, "6.5.4 dependentRequired"),
		purpose: "A reader must not require more properties alongside a property than the writer did.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader extends the properties required with %q from %s to %s, so writer data without the new ones fails validation; keep %s", last(c), quoteList(c.from), quoteList(c.to), quoteList(c.from))
		}},
	{id: RuleDependencyArrayChanged, change: "DEPENDENCY_ARRAY_CHANGED", spec: fmt.Sprintf(srcValidation, "6.5.4 dependentRequired"),
		purpose: "A reader must not require other properties alongside a property than the writer did.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader changes the properties required with %q from %s to %s, so writer data may fail validation; require only a subset of %s", last(c), quoteList(c.from), quoteList(c.to), quoteList(c.from))
		}},
	{id: RuleDependencySchemaAdded, change: "DEPENDENCY_SCHEMA_ADDED", spec: fmt.Sprintf(srcCore, "10.2.2.4 dependentSchemas"),
		purpose: "A reader must not add a schema dependency (dependentSchemas / dependencies schema).",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds a schema that objects with %q must match, so writer data that does not match it fails validation; drop the dependency", last(c))
		}},
	{id: RuleRequiredPropertyAddedToOpenContentModel, change: "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", spec: fmt.Sprintf(srcValidation, "6.5.3 required"),
		purpose: "A reader must not add a required property without a default.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds required property %q without a default, so writer data without it fails validation (and the writer's open content model let %q carry any value); make it optional with an empty schema ({}), or lower the subject's compatibility level", c.to, c.to)
		}},
	{id: RuleRequiredPropertyWithDefaultAddedToOpenContentModel, change: "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL", spec: fmt.Sprintf(srcCore, "10.3.2.3 additionalProperties"), lenient: true,
		purpose: "A reader must not declare a property the writer's open content model let carry any value.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader declares property %q, but the writer's open content model let writer data carry %q with any value, which may fail the new schema; declare it with an empty schema ({}), which any writer value satisfies, or lower the subject's compatibility level", c.to, c.to)
		}},
	{id: RuleOptionalPropertyAddedToOpenContentModel, change: "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", spec: fmt.Sprintf(srcCore, "10.3.2.3 additionalProperties"), lenient: true,
		purpose: "A reader must not declare a property the writer's open content model let carry any value.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader declares property %q, but the writer's open content model let writer data carry %q with any value, which may fail the new schema; declare it with an empty schema ({}), which any writer value satisfies, or lower the subject's compatibility level", c.to, c.to)
		}},
	{id: RuleRequiredPropertyAddedToUnopenContentModel, change: "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", spec: fmt.Sprintf(srcValidation, "6.5.3 required"),
		purpose: "A reader must not add a required property without a default.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds required property %q without a default, so writer data, which never has it, fails validation; make %q optional or give it a default", c.to, c.to)
		}},
	{id: RulePropertyRemovedFromClosedContentModel, change: "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", spec: fmt.Sprintf(srcCore, "10.3.2.3 additionalProperties"), lenient: true,
		purpose: "A reader with a closed content model must keep every property the writer declares.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader removes property %q but allows no undeclared properties, so writer data carrying %q fails validation; keep %q (or allow additional properties)", c.from, c.from, c.from)
		}},
	{id: RulePropertyRemovedNotCoveredByPartiallyOpenContentModel, change: "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", spec: fmt.Sprintf(srcCore, "10.3.2.2 patternProperties, 10.3.2.3 additionalProperties"), lenient: true,
		purpose: "A property a reader removes must still be accepted by its patternProperties or additionalProperties schema.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader removes property %q, and the schema it gives undeclared properties does not accept the writer's %q values; keep %q or widen that schema", c.from, c.from, c.from)
		}},
	{id: RulePropertyAddedNotCoveredByPartiallyOpenContentModel, change: "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", spec: fmt.Sprintf(srcCore, "10.3.2.2 patternProperties, 10.3.2.3 additionalProperties"), lenient: true,
		purpose: "A property a reader adds must accept what the writer's patternProperties or additionalProperties schema allowed under that name.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader declares property %q with a schema that does not accept every value the writer allowed for undeclared properties, so writer data carrying %q may fail validation; widen the %q schema", c.to, c.to, c.to)
		}},
	{id: RuleUnevaluatedPropertiesRemoved, change: "UNEVALUATED_PROPERTIES_REMOVED", spec: fmt.Sprintf(srcCore, "11.3 unevaluatedProperties"), lenient: true,
		purpose: "A reader must not set unevaluatedProperties to false where the writer allowed them.",
		msg: func(c change) string {
			return "the reader sets unevaluatedProperties to false where the writer allows them, so writer data with unevaluated properties fails validation; keep them allowed"
		}},
	{id: RuleUnevaluatedPropertiesNarrowed, change: "UNEVALUATED_PROPERTIES_NARROWED", spec: fmt.Sprintf(srcCore, "11.3 unevaluatedProperties"), lenient: true,
		purpose: "A reader must not constrain unevaluated properties the writer left free.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader constrains unevaluated properties to %s where the writer allows any, so writer data may fail validation; keep unevaluatedProperties open", c.to)
		}},
	{id: RuleMaxItemsAdded, change: "MAX_ITEMS_ADDED", spec: fmt.Sprintf(srcValidation, "6.4.1 maxItems"),
		purpose: "A reader must not add maxItems.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds maxItems %s, so longer writer arrays fail validation; drop maxItems", c.to)
		}},
	{id: RuleMaxItemsDecreased, change: "MAX_ITEMS_DECREASED", spec: fmt.Sprintf(srcValidation, "6.4.1 maxItems"),
		purpose: "A reader must not lower maxItems.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader lowers maxItems from %s to %s, so writer arrays with more than %s items fail validation; keep maxItems at %s or more", c.from, c.to, c.to, c.from)
		}},
	{id: RuleMinItemsAdded, change: "MIN_ITEMS_ADDED", spec: fmt.Sprintf(srcValidation, "6.4.2 minItems"),
		purpose: "A reader must not add minItems.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds minItems %s, so shorter writer arrays fail validation; drop minItems", c.to)
		}},
	{id: RuleMinItemsIncreased, change: "MIN_ITEMS_INCREASED", spec: fmt.Sprintf(srcValidation, "6.4.2 minItems"),
		purpose: "A reader must not raise minItems.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader raises minItems from %s to %s, so writer arrays with fewer than %s items fail validation; keep minItems at %s or less", c.from, c.to, c.to, c.from)
		}},
	{id: RuleMaxContainsAdded, change: "MAX_CONTAINS_ADDED", spec: fmt.Sprintf(srcValidation, "6.4.4 maxContains"),
		purpose: "A reader must not add maxContains.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds maxContains %s, so writer arrays with more matching items fail validation; drop maxContains", c.to)
		}},
	{id: RuleMaxContainsDecreased, change: "MAX_CONTAINS_DECREASED", spec: fmt.Sprintf(srcValidation, "6.4.4 maxContains"),
		purpose: "A reader must not lower maxContains.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader lowers maxContains from %s to %s, so writer arrays with more matching items fail validation; keep maxContains at %s or more", c.from, c.to, c.from)
		}},
	{id: RuleMinContainsAdded, change: "MIN_CONTAINS_ADDED", spec: fmt.Sprintf(srcValidation, "6.4.5 minContains"),
		purpose: "A reader must not add minContains.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds minContains %s, so writer arrays with fewer matching items fail validation; drop minContains", c.to)
		}},
	{id: RuleMinContainsIncreased, change: "MIN_CONTAINS_INCREASED", spec: fmt.Sprintf(srcValidation, "6.4.5 minContains"),
		purpose: "A reader must not raise minContains (1 when absent and contains is present).",
		msg: func(c change) string {
			return fmt.Sprintf("the reader raises minContains from %s to %s, so writer arrays with fewer matching items fail validation; keep minContains at %s or less", c.from, c.to, c.from)
		}},
	{id: RuleUniqueItemsAdded, change: "UNIQUE_ITEMS_ADDED", spec: fmt.Sprintf(srcValidation, "6.4.3 uniqueItems"),
		purpose: "A reader must not require unique items where the writer did not.",
		msg: func(c change) string {
			return "the reader sets uniqueItems, so writer arrays with repeated items fail validation; drop uniqueItems"
		}},
	{id: RuleAdditionalItemsRemoved, change: "ADDITIONAL_ITEMS_REMOVED", spec: fmt.Sprintf(srcCore, "10.3.1.2 items / additionalItems"),
		purpose: "A reader must not forbid array items the writer allowed after its tuple.",
		msg: func(c change) string {
			return "the reader forbids items beyond its tuple (additionalItems, or items in 2020-12, set to false) where the writer allows them, so longer writer arrays fail validation; keep them allowed"
		}},
	{id: RuleAdditionalItemsNarrowed, change: "ADDITIONAL_ITEMS_NARROWED", spec: fmt.Sprintf(srcCore, "10.3.1.2 items / additionalItems"),
		purpose: "A reader must not constrain array items the writer left free after its tuple.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader constrains items beyond its tuple to %s where the writer allows any, so writer arrays may fail validation; keep them unconstrained", c.to)
		}},
	{id: RuleUnevaluatedItemsRemoved, change: "UNEVALUATED_ITEMS_REMOVED", spec: fmt.Sprintf(srcCore, "11.2 unevaluatedItems"),
		purpose: "A reader must not set unevaluatedItems to false where the writer allowed them.",
		msg: func(c change) string {
			return "the reader sets unevaluatedItems to false where the writer allows them, so writer arrays with unevaluated items fail validation; keep them allowed"
		}},
	{id: RuleUnevaluatedItemsNarrowed, change: "UNEVALUATED_ITEMS_NARROWED", spec: fmt.Sprintf(srcCore, "11.2 unevaluatedItems"),
		purpose: "A reader must not constrain unevaluated items the writer left free.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader constrains unevaluated items to %s where the writer allows any, so writer arrays may fail validation; keep unevaluatedItems open", c.to)
		}},
	{id: RuleItemAddedToOpenContentModel, change: "ITEM_ADDED_TO_OPEN_CONTENT_MODEL", spec: fmt.Sprintf(srcCore, "10.3.1.1 prefixItems / items"),
		purpose: "A reader must not add a tuple item where the writer allowed any value at that position.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds a %s tuple item at position %s where the writer allowed any value, so writer arrays may fail validation; make the new item accept everything", c.to, last(c))
		}},
	{id: RuleItemRemovedFromClosedContentModel, change: "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL", spec: fmt.Sprintf(srcCore, "10.3.1.1 prefixItems / items"),
		purpose: "A reader that forbids items after its tuple must keep every tuple item the writer has.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader drops tuple item %s but forbids items beyond its tuple, so writer arrays with that item fail validation; keep the item (or allow additional items)", last(c))
		}},
	{id: RuleItemRemovedNotCoveredByPartiallyOpenContentModel, change: "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", spec: fmt.Sprintf(srcCore, "10.3.1.2 items / additionalItems"),
		purpose: "A tuple item a reader drops must still be accepted by its schema for items beyond the tuple.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader drops tuple item %s (%s), and its schema for further items (%s) does not accept the writer's values; keep the item or widen that schema", last(c), c.from, c.to)
		}},
	{id: RuleItemAddedNotCoveredByPartiallyOpenContentModel, change: "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", spec: fmt.Sprintf(srcCore, "10.3.1.2 items / additionalItems"),
		purpose: "A tuple item a reader adds must accept what the writer's schema for further items allowed.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader adds tuple item %s (%s) that does not accept every value the writer allowed there (%s), so writer arrays may fail validation; widen the new item", last(c), c.to, c.from)
		}},
	{id: RuleEnumArrayNarrowed, change: "ENUM_ARRAY_NARROWED", spec: fmt.Sprintf(srcValidation, "6.1.2 enum"),
		purpose: "A reader must not drop enum values.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader narrows the enum from %s to %s, so writer values it dropped fail validation; keep every value of %s", c.from, c.to, c.from)
		}},
	{id: RuleEnumArrayChanged, change: "ENUM_ARRAY_CHANGED", spec: fmt.Sprintf(srcValidation, "6.1.2 enum, 6.1.3 const"),
		purpose: "A reader must keep every enum value (and the const value) of the writer.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader changes the allowed values from %s to %s, so writer values it lacks fail validation; keep every value of %s", c.from, c.to, c.from)
		}},
	{id: RuleCombinedTypeChanged, change: "COMBINED_TYPE_CHANGED", spec: fmt.Sprintf(srcCore, "10.2.1 allOf, anyOf, oneOf"),
		purpose: "A combination must not change to a stricter criterion (e.g. anyOf to oneOf or allOf).",
		msg: func(c change) string {
			return fmt.Sprintf("the reader changes %s to %s, which accepts fewer documents, so writer data may fail validation; keep %s, or change it to anyOf", c.from, c.to, c.from)
		}},
	{id: RuleProductTypeExtended, change: "PRODUCT_TYPE_EXTENDED", spec: fmt.Sprintf(srcCore, "10.2.1.1 allOf"),
		purpose: "A reader must not add subschemas to an allOf.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader's allOf has more distinct subschemas (%s) than the writer's (%s), and data must match every one, so writer data may fail validation; drop the added subschemas", c.to, c.from)
		}},
	{id: RuleSumTypeNarrowed, change: "SUM_TYPE_NARROWED", spec: fmt.Sprintf(srcCore, "10.2.1.2 anyOf, 10.2.1.3 oneOf"),
		purpose: "A reader must not drop alternatives from an anyOf or oneOf.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader's anyOf/oneOf has fewer distinct alternatives (%s) than the writer's (%s), so writer data matching a dropped one fails validation; keep every alternative", c.to, c.from)
		}},
	{id: RuleCombinedTypeSubschemasChanged, change: "COMBINED_TYPE_SUBSCHEMAS_CHANGED", spec: fmt.Sprintf(srcCore, "10.2.1 allOf, anyOf, oneOf"),
		purpose: "Every subschema of a combination must be matched by a compatible subschema on the other side.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader's %s does not accept everything the writer's %s does (no one-to-one pairing of their subschemas is compatible), so writer data may fail validation; keep each writer subschema, or a wider one, in the reader", c.to, c.from)
		}},
	{id: RuleNotTypeExtended, change: "NOT_TYPE_EXTENDED", spec: fmt.Sprintf(srcCore, "10.2.1.4 not"),
		purpose: "A reader's not must not exclude more than the writer's.",
		msg: func(c change) string {
			return fmt.Sprintf("the reader's not excludes %s where the writer's excludes only %s, so writer data may fail validation; keep the writer's not schema (or a narrower one)", c.to, c.from)
		}},
}

// Rules returns Charter's table of JSON Schema rules: one per change type
// Confluent's differ reports as incompatible, then JSON_SCHEMA_TOO_COMPLEX.
func Rules() []rule.Rule {
	out := make([]rule.Rule, 0, len(ruleDefs)+1)
	for _, r := range ruleDefs {
		src := fmt.Sprintf(srcConfluent, r.change)
		if r.lenient {
			src += " (accepted by COMPATIBLE_CHANGES_LENIENT)"
		}
		src += "; " + r.spec
		if r.note != "" {
			src += ". Charter: " + r.note
		}
		out = append(out, rule.Rule{ID: r.id, Format: compat.JSON, Category: rule.CategoryCompat, Severity: rule.Error, Purpose: r.purpose, Source: src})
	}
	return append(out, rule.Rule{ID: RuleTooComplex, Format: compat.JSON, Category: rule.CategoryCompat, Severity: rule.Error,
		Purpose: "Two versions must be comparable within the work budget: nested anyOf/oneOf alternatives are compared pairwise at every level.",
		Source: "Charter (no Confluent change type): a bound on the subschema comparisons of one check, " +
			"so that schemas under the registry's size limit cannot exhaust its CPU or memory"})
}

// ruleByChange finds the rule of a change type.
var ruleByChange = func() map[string]*ruleDef {
	m := make(map[string]*ruleDef, len(ruleDefs))
	for i := range ruleDefs {
		m[ruleDefs[i].change] = &ruleDefs[i]
	}
	return m
}()

// compatibleStrict is SchemaDiff.COMPATIBLE_CHANGES_STRICT.
var compatibleStrict = setOf(
	"ID_CHANGED", "DESCRIPTION_CHANGED", "TITLE_CHANGED", "DEFAULT_CHANGED", "SCHEMA_REMOVED", "TYPE_EXTENDED",
	"MAX_LENGTH_INCREASED", "MAX_LENGTH_REMOVED", "MIN_LENGTH_DECREASED", "MIN_LENGTH_REMOVED", "PATTERN_REMOVED",
	"MAXIMUM_INCREASED", "MAXIMUM_REMOVED", "MINIMUM_DECREASED", "MINIMUM_REMOVED",
	"EXCLUSIVE_MAXIMUM_INCREASED", "EXCLUSIVE_MAXIMUM_REMOVED", "EXCLUSIVE_MINIMUM_DECREASED", "EXCLUSIVE_MINIMUM_REMOVED",
	"MULTIPLE_OF_REDUCED", "MULTIPLE_OF_REMOVED",
	"REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED", "REQUIRED_ATTRIBUTE_REMOVED",
	"DEPENDENCY_ARRAY_NARROWED", "DEPENDENCY_ARRAY_REMOVED", "DEPENDENCY_SCHEMA_REMOVED",
	"MAX_PROPERTIES_INCREASED", "MAX_PROPERTIES_REMOVED", "MIN_PROPERTIES_DECREASED", "MIN_PROPERTIES_REMOVED",
	"ADDITIONAL_PROPERTIES_ADDED", "ADDITIONAL_PROPERTIES_EXTENDED",
	"UNEVALUATED_PROPERTIES_ADDED", "UNEVALUATED_PROPERTIES_EXTENDED",
	"PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL", "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL",
	"OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL",
	"PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL", "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
	"PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
	"MAX_ITEMS_INCREASED", "MAX_ITEMS_REMOVED", "MIN_ITEMS_DECREASED", "MIN_ITEMS_REMOVED",
	"MAX_CONTAINS_INCREASED", "MAX_CONTAINS_REMOVED", "MIN_CONTAINS_DECREASED", "MIN_CONTAINS_REMOVED",
	"UNIQUE_ITEMS_REMOVED", "ADDITIONAL_ITEMS_ADDED", "ADDITIONAL_ITEMS_EXTENDED",
	"UNEVALUATED_ITEMS_ADDED", "UNEVALUATED_ITEMS_EXTENDED",
	"ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL", "ITEM_ADDED_TO_CLOSED_CONTENT_MODEL",
	"ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL", "ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL",
	"ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
	"ENUM_ARRAY_EXTENDED", "COMBINED_TYPE_EXTENDED", "PRODUCT_TYPE_NARROWED", "SUM_TYPE_EXTENDED", "NOT_TYPE_NARROWED",
)

// compatibleLenient is SchemaDiff.COMPATIBLE_CHANGES_LENIENT.
var compatibleLenient = func() map[string]bool {
	m := setOf("ADDITIONAL_PROPERTIES_NARROWED", "ADDITIONAL_PROPERTIES_REMOVED",
		"UNEVALUATED_PROPERTIES_NARROWED", "UNEVALUATED_PROPERTIES_REMOVED",
		"REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL", "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
		"PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL", "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL",
		"PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL")
	for k := range compatibleStrict {
		m[k] = true
	}
	return m
}()

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func compatibleSet(p Policy) map[string]bool {
	if p == Lenient {
		return compatibleLenient
	}
	return compatibleStrict
}

// tooComplexMessage is the message of a JSON_SCHEMA_TOO_COMPLEX violation.
func tooComplexMessage(err error) string {
	return err.Error() + "; flatten the nested anyOf/oneOf, or check this subject at compatibility level NONE"
}

// violation renders an incompatible change.
func (c change) violation() compat.Violation {
	if r, ok := ruleByChange[c.typ]; ok {
		return compat.Violation{RuleID: r.id, Path: c.pointer(), Message: r.msg(c)}
	}
	// Unreachable: TestEveryIncompatibleChangeHasARule checks that every
	// change type the differ reports is compatible or has a rule.
	return compat.Violation{RuleID: RuleTypeChanged, Path: c.pointer(),
		Message: fmt.Sprintf("the reader differs from the writer (Confluent change type %s)", c.typ)}
}

func quoteList(s string) string {
	if s == "" || s == "(none)" {
		return "[]"
	}
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = fmt.Sprintf("%q", p)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

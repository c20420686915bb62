package contracts

import (
	"fmt"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
)

// Rule IDs. A rule's ID never changes once released.
const (
	RuleFieldMissing       = "CONTRACT_FIELD_MISSING"
	RuleTypeMismatch       = "CONTRACT_TYPE_MISMATCH"
	RuleRequiredDropped    = "CONTRACT_REQUIRED_DROPPED"
	RuleFieldOptional      = "CONTRACT_FIELD_OPTIONAL"
	RuleEnumValueRemoved   = "CONTRACT_ENUM_VALUE_REMOVED"
	RuleEnumValueUnmatched = "CONTRACT_ENUM_VALUE_UNMATCHED"
	RuleExampleUndecodable = "CONTRACT_EXAMPLE_UNDECODABLE"
	RuleContentsUnchecked  = "CONTRACT_CONTENTS_UNCHECKED"
	RuleFieldDeprecated    = "CONTRACT_FIELD_DEPRECATED"
	RuleFieldExpired       = "CONTRACT_FIELD_EXPIRED"
	RuleFieldExtended      = "CONTRACT_FIELD_EXTENDED"
)

// contractRule is one contract check: the rule (its severity says what a
// finding does to the verdict: an error breaks the contract, a warning and
// a notice are reported and pass) bound to the one unexported function
// that fires it: over one field the consumer reads (a site) or over one
// example message. CONTRACT_CONTENTS_UNCHECKED has neither: the verifier
// reports it for a message whose contents are not JSON.
type contractRule struct {
	rule.Rule
	site    func(*site) string
	example func(*view, any) []decodeProblem
}

// site is one field the consumer reads, met while walking an example
// message with the proposed schema.
type site struct {
	// consumer reading the field; now is the verification clock.
	consumer string
	now      time.Time
	// path is the field's schema path (the contract's own path when the
	// schema has no such field).
	path string
	// value is the example's value and rule the matching rule that
	// applies to it (nil: equality, Pact's default).
	value any
	rule  *MatchingRule
	// f is the schema field (nil when missing); element is true for an
	// array item or map value, which is not a named field.
	f       *field
	element bool
	// present is true when data always carries the field.
	present bool
	// baseline is true when a baseline schema was given, and
	// guaranteedBefore when it guaranteed the field (present, not null).
	baseline, guaranteedBefore bool
	// deprecated is the governance record, schemaDeprecated the schema's
	// own mark.
	dep              *Deprecation
	schemaDeprecated bool
}

var rules = []contractRule{
	{
		Rule: rule.Rule{
			ID:       RuleFieldMissing,
			Category: rule.CategoryContract,
			Purpose:  "A field the consumer reads exists in the proposed schema.",
			Severity: rule.Error,
			Source:   "Pact V3 'Semantics around body values': every key of the expected body must be present in the actual message.",
		},
		site: checkFieldMissing,
	},
	{
		Rule: rule.Rule{
			ID:       RuleTypeMismatch,
			Category: rule.CategoryContract,
			Purpose:  "Every value the proposed schema allows for a field the consumer reads is one its matchers accept.",
			Severity: rule.Error,
			Source:   "Pact V3/V4 'Supported matching rules' (type, integer, decimal, number, boolean, null, date/time, values); equality when no rule applies.",
		},
		site: checkTypeMismatch,
	},
	{
		Rule: rule.Rule{
			ID:       RuleRequiredDropped,
			Category: rule.CategoryContract,
			Purpose:  "A field the consumer relies on (non-null example, no null matcher) that the baseline schema guaranteed (always present, never null) is still guaranteed by the proposed schema.",
			Severity: rule.Error,
			Source:   "Pact V3 matching: an expected key must be present; null matches only the null matcher. Presence: Avro fields always, Protobuf fields except oneof members, JSON Schema 'required'; null: Avro unions, JSON Schema type null, Protobuf wrappers.",
		},
		site: checkRequiredDropped,
	},
	{
		Rule: rule.Rule{
			ID:       RuleFieldOptional,
			Category: rule.CategoryContract,
			Purpose:  "A field the consumer relies on (non-null example, no null matcher) may be absent or null under the proposed schema, and was not guaranteed by the baseline either (or no baseline was given).",
			Severity: rule.Warning,
			Source:   "As CONTRACT_REQUIRED_DROPPED; a warning because the schema never promised the value: the consumer should accept null or rely on a provider state.",
		},
		site: checkFieldOptional,
	},
	{
		Rule: rule.Rule{
			ID:       RuleEnumValueRemoved,
			Category: rule.CategoryContract,
			Purpose:  "An enum value a consumer example uses is still a value of the field's enumeration.",
			Severity: rule.Error,
			Source:   "Avro enum symbols, Protobuf enum value names (JSON mapping), JSON Schema enum/const.",
		},
		site: checkEnumValueRemoved,
	},
	{
		Rule: rule.Rule{
			ID:       RuleEnumValueUnmatched,
			Category: rule.CategoryContract,
			Purpose:  "Every value of an enumeration the consumer matches with a regex satisfies that regex.",
			Severity: rule.Error,
			Source:   "Pact V2+ regex matcher applied to each value the schema allows.",
		},
		site: checkEnumValueUnmatched,
	},
	{
		Rule: rule.Rule{
			ID:       RuleExampleUndecodable,
			Category: rule.CategoryContract,
			Purpose:  "Every example message decodes with the proposed schema's semantics.",
			Severity: rule.Error,
			Source:   "Avro: JSON form encoded with hamba/avro; Protobuf: proto3 JSON mapping (protojson into dynamicpb); JSON Schema: validation, missing required properties forgiven.",
		},
		example: checkExampleUndecodable,
	},
	{
		Rule: rule.Rule{
			ID:       RuleContentsUnchecked,
			Category: rule.CategoryContract,
			Purpose:  "Message contents that are not JSON (binary, base64 of another type) are reported as not checked.",
			Severity: rule.Warning,
			Source:   "Pact V4 'Bodies': contentType and encoded.",
		},
	},
	{
		Rule: rule.Rule{
			ID:       RuleFieldDeprecated,
			Category: rule.CategoryContract,
			Purpose:  "A field the consumer reads is deprecated and its TTL has not ended; reports the days left.",
			Severity: rule.Warning,
			Source:   "Charter governance deprecation records; Avro \"deprecated\", Protobuf deprecated option, JSON Schema deprecated keyword.",
		},
		site: checkFieldDeprecated,
	},
	{
		Rule: rule.Rule{
			ID:       RuleFieldExpired,
			Category: rule.CategoryContract,
			Purpose:  "A field the consumer reads is deprecated, its TTL has ended and the consumer holds no live extension.",
			Severity: rule.Error,
			Source:   "Charter governance deprecation records (TTL).",
		},
		site: checkFieldExpired,
	},
	{
		Rule: rule.Rule{
			ID:       RuleFieldExtended,
			Category: rule.CategoryContract,
			Purpose:  "A field the consumer reads has expired but the consumer holds a live extension; reports when it ends.",
			Severity: rule.Notice,
			Source:   "Charter governance deprecation records (extensions).",
		},
		site: checkFieldExtended,
	},
}

// Rules returns the contract rules in the order they run, as data for
// `charter rules` and the generated docs.
func Rules() []rule.Rule {
	out := make([]rule.Rule, len(rules))
	for i, r := range rules {
		out[i] = r.Rule
	}
	return out
}

// severityOf is the default severity of the contract rule id.
func severityOf(id string) rule.Severity {
	for _, r := range rules {
		if r.ID == id {
			return r.Severity
		}
	}
	return rule.Error
}

func displayPath(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// family is the kinds Pact's type matcher treats as the same type as an
// example of kind k: 100 and 100.01 are both numbers.
func family(k kinds) kinds {
	if k&(kInt|kNumber) != 0 {
		return kInt | kNumber
	}
	return k
}

// accepted returns the kinds of value the matching rule accepts at a site
// whose example value is v. With no rule, equality applies.
func accepted(r *MatchingRule, v any) kinds {
	vk := kindOf(v)
	if r == nil || len(r.Matchers) == 0 {
		return family(vk)
	}
	var acc kinds
	for i, m := range r.Matchers {
		var a kinds
		switch m.Type {
		case MatchInteger:
			a = kInt
		case MatchDecimal:
			a = kNumber
		case MatchNumber:
			a = kInt | kNumber
		case MatchBoolean:
			a = kBool
		case MatchNull:
			a = kNull
		case MatchDate, MatchTime, MatchTimestamp, MatchSemver, MatchContentType:
			a = kString
		case MatchValues, MatchEachKey, MatchArrayContains, MatchEachValue:
			// Collection matchers name the collection; cascaded to
			// its members they compare by type.
			if vk&(kObject|kArray) != 0 {
				a = vk
			} else {
				a = family(vk)
			}
		default: // equality, type (min/max), regex, include, notEmpty, eachValue, statusCode
			a = family(vk)
		}
		switch {
		case i == 0:
			acc = a
		case r.Combine == "OR":
			acc |= a
		default:
			acc &= a
		}
	}
	return acc
}

// matcherText describes the rule for messages: `type`, `integer`,
// `regex "^A$"`, `equality` when none applies.
func matcherText(r *MatchingRule) string {
	if r == nil || len(r.Matchers) == 0 {
		return "equality"
	}
	var parts []string
	for _, m := range r.Matchers {
		s := string(m.Type)
		switch {
		case m.Regex != "":
			s += fmt.Sprintf(" %q", m.Regex)
		case m.Format != "":
			s += fmt.Sprintf(" %q", m.Format)
		}
		parts = append(parts, s)
	}
	sep := " and "
	if r.Combine == "OR" {
		sep = " or "
	}
	return strings.Join(parts, sep)
}

// schemaKinds is what the schema lets the consumer see at the site: the
// node's kinds, or its alternative JSON form when the example uses it
// (Protobuf int64 as a string, enum as a number).
func (s *site) schemaKinds() kinds {
	vk := kindOf(s.value)
	if s.f.node.alt&vk != 0 {
		return s.f.node.alt | (s.f.node.kinds & kNull)
	}
	return s.f.node.kinds
}

func (s *site) what() string {
	if s.element {
		return "value at " + displayPath(s.path)
	}
	return "field " + displayPath(s.path)
}

func checkFieldMissing(s *site) string {
	if s.f != nil {
		return ""
	}
	return fmt.Sprintf("field %s, which the consumer reads, does not exist in the proposed schema", displayPath(s.path))
}

func checkTypeMismatch(s *site) string {
	if s.f == nil {
		return ""
	}
	sk := s.schemaKinds()
	if sk == kAny {
		return "" // unconstrained: nothing to compare
	}
	vk := kindOf(s.value)
	acc := accepted(s.rule, s.value)
	if vk == kNull && (s.rule == nil || acc&kNull != 0) {
		if sk&kNull == 0 {
			return fmt.Sprintf("%s is %s in the proposed schema and never null; the consumer expects null", s.what(), s.f.node.typeName())
		}
		return ""
	}
	bad := sk &^ kNull &^ acc
	if sk&^kNull == 0 {
		bad = sk &^ acc // a null-only position
	}
	if bad == 0 {
		return ""
	}
	return fmt.Sprintf("%s is %s in the proposed schema, which may hold %s; the consumer's matcher (%s, example %s) accepts %s",
		s.what(), s.f.node.typeName(), bad, matcherText(s.rule), describe(s.value), acc&^kNull)
}

// relies reports whether the consumer relies on a value at the site: a
// non-null example that no null matcher relaxes.
func (s *site) relies() bool {
	return kindOf(s.value) != kNull && accepted(s.rule, s.value)&kNull == 0
}

// guaranteed reports whether the proposed schema always gives the site a
// non-null value.
func (s *site) guaranteed() bool {
	return s.present && s.f.node.kinds&kNull == 0
}

// whyNot says why the proposed schema does not guarantee the site.
func (s *site) whyNot() string {
	if !s.present {
		return "is optional in the proposed schema (not required)"
	}
	return fmt.Sprintf("may be null in the proposed schema (%s)", s.f.node.typeName())
}

func checkRequiredDropped(s *site) string {
	if s.f == nil || !s.baseline || !s.guaranteedBefore || !s.relies() || s.guaranteed() {
		return ""
	}
	return fmt.Sprintf("%s %s, but the baseline schema guaranteed it and the consumer's matcher (%s) needs a value",
		s.what(), s.whyNot(), matcherText(s.rule))
}

func checkFieldOptional(s *site) string {
	if s.f == nil || (s.baseline && s.guaranteedBefore) || !s.relies() || s.guaranteed() {
		return ""
	}
	return fmt.Sprintf("%s %s, but the consumer's matcher (%s) needs a value; accept null in the contract or rely on a provider state",
		s.what(), s.whyNot(), matcherText(s.rule))
}

func checkEnumValueRemoved(s *site) string {
	if s.f == nil {
		return ""
	}
	vk := kindOf(s.value)
	if vk&(kObject|kArray|kNull) != 0 || s.f.node.alt&vk != 0 {
		return ""
	}
	vals, ok := s.f.node.enumValues()
	if !ok {
		return ""
	}
	t := enumText(s.value)
	for _, e := range vals {
		if e == t {
			return ""
		}
	}
	return fmt.Sprintf("%s is enum %s in the proposed schema without the value %s the consumer's example uses (values: %s)",
		s.what(), s.f.node.typeName(), t, strings.Join(vals, ", "))
}

func checkEnumValueUnmatched(s *site) string {
	if s.f == nil || s.rule == nil || s.rule.Combine == "OR" {
		return ""
	}
	vals, ok := s.f.node.enumValues()
	if !ok {
		return ""
	}
	for _, m := range s.rule.Matchers {
		if m.Type != MatchRegex || m.re == nil {
			continue
		}
		re := m.re
		var bad []string
		for _, e := range vals {
			str := strings.Trim(e, `"`)
			if loc := re.FindStringIndex(str); loc == nil || loc[0] != 0 || loc[1] != len(str) {
				// Pact regexes match the whole value (Java's matches()).
				bad = append(bad, e)
			}
		}
		if len(bad) > 0 {
			return fmt.Sprintf("%s is enum %s in the proposed schema with values the consumer's regex %q rejects: %s",
				s.what(), s.f.node.typeName(), m.Regex, strings.Join(bad, ", "))
		}
	}
	return ""
}

func (s *site) isDeprecated() bool {
	return !s.element && (s.dep != nil || s.schemaDeprecated)
}

func (s *site) expired() bool {
	return s.dep != nil && s.dep.Expired(s.now)
}

func checkFieldDeprecated(s *site) string {
	if s.f == nil || !s.isDeprecated() || s.expired() {
		return ""
	}
	msg := fmt.Sprintf("field %s, which the consumer reads, is deprecated", displayPath(s.path))
	if s.dep != nil && !s.dep.Expires.IsZero() {
		msg += fmt.Sprintf(" and expires on %s (%s left)", s.dep.Expires.UTC().Format(time.DateOnly), rule.Plural(daysLeft(s.now, s.dep.Expires), "day"))
	}
	if s.dep != nil && s.dep.Replacement != "" {
		msg += "; use " + s.dep.Replacement
	}
	return msg
}

func checkFieldExpired(s *site) string {
	if s.f == nil || !s.isDeprecated() || !s.expired() {
		return ""
	}
	if _, ok := s.dep.Extension(s.consumer, s.now); ok {
		return ""
	}
	msg := fmt.Sprintf("field %s, which the consumer reads, is deprecated and expired", displayPath(s.path))
	if !s.dep.Expires.IsZero() {
		msg += " on " + s.dep.Expires.UTC().Format(time.DateOnly)
	}
	if s.dep.Replacement != "" {
		msg += "; use " + s.dep.Replacement
	}
	return msg
}

func checkFieldExtended(s *site) string {
	if s.f == nil || !s.isDeprecated() || !s.expired() {
		return ""
	}
	end, ok := s.dep.Extension(s.consumer, s.now)
	if !ok {
		return ""
	}
	return fmt.Sprintf("field %s expired, but consumer %s holds an extension until %s (%s left)",
		displayPath(s.path), s.consumer, end.UTC().Format(time.DateOnly), rule.Plural(daysLeft(s.now, end), "day"))
}

// decodeProblem is one reason an example does not decode.
type decodeProblem struct {
	path, msg string
}

func checkExampleUndecodable(v *view, example any) []decodeProblem {
	if v.decode == nil {
		return nil
	}
	return v.decode(example)
}

// asViolation renders a finding's core in the shape compat uses.
func asViolation(id, path, msg string) compat.Violation {
	return compat.Violation{RuleID: id, Path: displayPath(path), Message: msg}
}

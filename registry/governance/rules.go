package governance

import (
	"slices"
	"strings"

	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/pii"
)

// Rule IDs. They never change once released.
const (
	RuleOwnerMissing             = "OWNER_MISSING"
	RuleDeprecationActive        = "DEPRECATION_ACTIVE"
	RuleDeprecationExpired       = "DEPRECATION_EXPIRED"
	RuleDeprecationInlineExpired = "DEPRECATION_INLINE_EXPIRED"
	RuleDeprecationExtended      = "DEPRECATION_EXTENDED"
	RuleRemovedFieldReused       = "REMOVED_FIELD_REUSED"
	RuleRemovedNumberReused      = "REMOVED_FIELD_NUMBER_REUSED"
	RuleSemverMajor              = "SEMVER_MAJOR"
	RuleEnvelopeIncomplete       = "EVENT_ENVELOPE_INCOMPLETE"
	RuleInlineBinary             = "EVENT_INLINE_BINARY"
)

const source = "Charter issue 4"

// rules is the governance rule table (with deprecation_rules.go's
// deprecationTableRules, the rules this package fires). Defaults: only DEPRECATION_EXPIRED
// (and contract_rules.go's DEPRECATION_REMOVAL_GUARDED) is an error, and it fires only for deprecations an operator declared
// through the governance API; every other rule warns, notes or is off, so
// an unmodified Confluent client is never refused by a rule it cannot know
// about.
var rules = []rule.Rule{
	{ID: RuleOwnerMissing, Category: rule.CategoryOwnership, Severity: rule.Warning, Source: source + " §1",
		Purpose: "Every subject has an owning team, a contact channel and a description (an ownership record, or an `owner` metadata property)."},
	{ID: RuleDeprecationActive, Category: rule.CategoryDeprecation, Severity: rule.Warning, Source: source + " §4",
		Purpose: "The new version keeps a field (or is a version) that is deprecated and counting down to its expiry."},
	{ID: RuleDeprecationExpired, Category: rule.CategoryDeprecation, Severity: rule.Error, Source: source + " §4",
		Purpose: "The new version keeps or reintroduces a field (or re-registers a version) whose deprecation, declared through the governance API, has expired, and no extension covers it."},
	{ID: RuleDeprecationInlineExpired, Category: rule.CategoryDeprecation, Severity: rule.Warning, Source: source + " §4",
		Purpose: "The new version keeps a field that the schema itself marks deprecated and whose TTL has run out (a warning by default: Confluent clients do not expect the mark to refuse them)."},
	{ID: RuleDeprecationExtended, Category: rule.CategoryDeprecation, Severity: rule.Notice, Source: source + " §4",
		Purpose: "The new version keeps an expired item that a running extension still allows; it names the consumers and the end of the extension."},
	{ID: RuleRemovedFieldReused, Category: rule.CategoryReserved, Severity: rule.Warning, Source: source + " §6",
		Purpose: "A field name that an earlier version removed comes back with another type (old data under that name would be misread). Raise it to error to refuse it in every format."},
	{ID: RuleRemovedNumberReused, Category: rule.CategoryReserved, Severity: rule.Warning, Source: source + " §6; Protobuf language guide, \"Deleting fields\"",
		Purpose: "A Protobuf field number that an earlier version removed is used again by another field or type (as if it were listed in `reserved`)."},
	{ID: RuleSemverMajor, Category: rule.CategorySemver, Severity: rule.Notice, Source: source + " §3",
		Purpose: "The new version is a major change: it breaks readers at the subject's compatibility level (NONE is judged as BACKWARD)."},
	{ID: RuleEnvelopeIncomplete, Category: rule.CategoryEvent, Severity: rule.Warning, Off: true, Source: source + " §7; CloudEvents 1.0 required attributes",
		Purpose: "An event's envelope carries an event ID, an event type, a schema version and an occurrence time (field names configurable)."},
	{ID: RuleInlineBinary, Category: rule.CategoryEvent, Severity: rule.Warning, Off: true, Source: source + " §7; the claim-check pattern",
		Purpose: "A `bytes` field carries a large payload inline; store it outside the event and carry a reference and a checksum (names such as *_sha256, *_url, *_key pass)."},
}

// Rules returns the rules this package fires, sorted by ID: ownership,
// deprecation, removed names, semantic versions and event design.
func Rules() []rule.Rule { return sortedRules(rules, deprecationTableRules) }

// policyRules are the rules a governance policy configures (PolicyConfig
// Rules): this package's and those of packages pii and contracts, which
// the registry runs too, sorted by ID.
var policyRules = sortedRules(rules, deprecationTableRules, pii.Rules(), contracts.Rules())

// PolicyRules returns every rule a governance policy configures, sorted
// by ID (GET /governance/rules).
func PolicyRules() []rule.Rule { return slices.Clone(policyRules) }

// LookupPolicyRule returns the rule of PolicyRules with the given ID.
func LookupPolicyRule(id string) (rule.Rule, bool) {
	i, ok := slices.BinarySearchFunc(policyRules, id, func(r rule.Rule, id string) int { return strings.Compare(r.ID, id) })
	if !ok {
		return rule.Rule{}, false
	}
	return policyRules[i], true
}

func sortedRules(tables ...[]rule.Rule) []rule.Rule {
	out := slices.Concat(tables...)
	slices.SortFunc(out, func(a, b rule.Rule) int { return strings.Compare(a.ID, b.ID) })
	return out
}

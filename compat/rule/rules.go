package rule

import (
	"errors"

	"github.com/charter-dev/charter/compat"
)

// ErrFailed is returned by a gate (`charter check`, `charter diff`) after it
// has reported a Report whose Failed is true; the CLI maps it to exit code 1.
// Match it with errors.Is.
var ErrFailed = errors.New("policy check failed")

// Rule is one rule of Charter: a stable SCREAMING_SNAKE ID that a
// Finding's RuleID carries (a named constant declared once, beside the
// code that fires it), a one-sentence purpose, where it comes from, its
// category and the severity it reports at unless configured otherwise.
// Each package that fires rules lists them in a Rules function; package
// action/rules is the catalog of them all.
type Rule struct {
	ID string `json:"id"`
	// Format is the schema language of a compatibility rule (AVRO,
	// PROTOBUF, JSON); "" for a rule of every format.
	Format compat.SchemaType `json:"format,omitempty"`
	// Category groups rules in listings (the Category constants).
	Category string `json:"category"`
	// Severity is the default severity of the rule's findings (once
	// switched on, for an Off rule).
	Severity Severity `json:"severity"`
	// Off marks a rule that is switched off unless configured: it
	// reports nothing by default, and at Severity once switched on.
	Off     bool   `json:"off,omitempty"`
	Purpose string `json:"purpose"`
	// Source cites where the rule comes from (a spec section, a
	// Confluent behaviour, a Charter issue), "" when it is Charter's own.
	Source string `json:"source,omitempty"`
	// Profiles names the rule profiles that run a compatibility rule,
	// for a format whose rules come in profiles (Protobuf: CONFLUENT,
	// WIRE, WIRE_JSON); nil when the rule always runs.
	Profiles []string `json:"profiles,omitempty"`
}

// DefaultSeverity is what the rule reports at by default: "off" for an
// Off rule, else its severity's name.
func (r Rule) DefaultSeverity() string {
	if r.Off {
		return "off"
	}
	return r.Severity.String()
}

// The categories of rules.
const (
	// CategoryCompat: a format's compatibility rules (AVRO_, PROTO_,
	// JSON_), errors when the subject's level applies them.
	CategoryCompat = "compatibility"
	// CategoryProject: the checks of a charter.yaml project.
	CategoryProject = "project"
	// CategoryContract: consumer contracts (CONTRACT_).
	CategoryContract = "contract"
	// CategoryPII: the PII policy (PII_).
	CategoryPII = "pii"
	// CategoryOwnership, CategoryDeprecation, CategoryReserved,
	// CategorySemver and CategoryEvent: the governance rules.
	CategoryOwnership   = "ownership"
	CategoryDeprecation = "deprecation"
	CategoryReserved    = "reserved"
	CategorySemver      = "semver"
	CategoryEvent       = "event"
)

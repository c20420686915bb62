package rule

import (
	"errors"
	"fmt"
	"sort"
	"sync"
)

// ErrFailed is returned by a gate (`charter check`, `charter diff`) after it
// has reported a Report whose Failed is true; the CLI maps it to exit code 1.
// Match it with errors.Is.
var ErrFailed = errors.New("policy check failed")

// Rule is one policy rule, listed by `charter rules` beside the compat
// rules: a stable SCREAMING_SNAKE ID that a Finding's RuleID carries, a
// one-sentence purpose and the severity it reports at unless a project
// overrides it. Packages that report findings (project checks, pii,
// contracts, deprecation, ownership) register their rules at init time.
type Rule struct {
	ID      string `json:"id"`
	Purpose string `json:"purpose"`
	// Category groups rules in listings: "project", "contract", "pii",
	// "deprecation", "ownership", "semver".
	Category string `json:"category"`
	// Severity is the default severity of the rule's findings.
	Severity Severity `json:"severity"`
	// Source cites where the rule comes from (a spec section, a
	// Confluent behaviour, a Charter design note), "" when it is Charter's
	// own.
	Source string `json:"source,omitempty"`
	// Off marks a rule that is switched off unless configured: it
	// reports nothing by default, and at Severity once switched on
	// (the event-design rules of package registry/governance).
	Off bool `json:"off,omitempty"`
}

var (
	rulesMu sync.RWMutex
	rules   = map[string]Rule{}
)

// RegisterRules adds rules to the table that `charter rules` and the docs
// read. It panics on an empty or duplicate ID: that is a programming error
// found at init time.
func RegisterRules(rs ...Rule) {
	rulesMu.Lock()
	defer rulesMu.Unlock()
	for _, r := range rs {
		if r.ID == "" {
			panic("policy: rule with an empty ID")
		}
		if _, dup := rules[r.ID]; dup {
			panic(fmt.Sprintf("policy: rule %s registered twice", r.ID))
		}
		rules[r.ID] = r
	}
}

// Rules returns every registered policy rule sorted by ID.
func Rules() []Rule {
	rulesMu.RLock()
	defer rulesMu.RUnlock()
	out := make([]Rule, 0, len(rules))
	for _, r := range rules {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// LookupRule returns the policy rule with the given ID.
func LookupRule(id string) (Rule, bool) {
	rulesMu.RLock()
	defer rulesMu.RUnlock()
	r, ok := rules[id]
	return r, ok
}

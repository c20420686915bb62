package compat

import (
	"fmt"
	"sort"
	"sync"
)

// Rule is one compatibility rule: a stable SCREAMING_SNAKE ID prefixed by
// its format (AVRO_, PROTO_, JSON_) and a one-line purpose. A rule's ID
// never changes once released.
type Rule struct {
	ID      string
	Format  SchemaType
	Purpose string
	// Source cites the specification section the rule comes from.
	Source string
}

var (
	rulesMu sync.RWMutex
	rules   = map[string]Rule{}
)

// RegisterRules adds a format's rules to the table that `charter rules`
// and the docs read. It panics on a duplicate ID: that is a programming
// error found at init time.
func RegisterRules(rs ...Rule) {
	rulesMu.Lock()
	defer rulesMu.Unlock()
	for _, r := range rs {
		if _, dup := rules[r.ID]; dup {
			panic(fmt.Sprintf("compat: rule %s registered twice", r.ID))
		}
		rules[r.ID] = r
	}
}

// Rules returns every registered rule sorted by ID.
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

// LookupRule returns the rule with the given ID.
func LookupRule(id string) (Rule, bool) {
	rulesMu.RLock()
	defer rulesMu.RUnlock()
	r, ok := rules[id]
	return r, ok
}

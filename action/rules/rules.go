// Package rules is the catalog of every rule Charter fires: the
// compatibility rules of each format (package compat/formats), the
// evidence rules that generated events prove (compat/evidence), the gate's
// own (action/gate) and the registry's (RESERVED_FIELD), the governance rules (registry/governance), the
// consumer contract rules (contracts), the PII policy (pii) and the
// project checks (action/project). Each of those packages declares its
// rules beside the code that fires them; this package only lists them,
// explicitly, so nothing depends on the order packages initialise in.
// `charter rules`, SARIF output and the docs read it.
package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charter-dev/charter/action/gate"
	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/pii"
	"github.com/charter-dev/charter/registry/governance"
)

// sources are the packages whose rules the catalog lists, each once.
func sources() [][]rule.Rule {
	out := [][]rule.Rule{gate.Rules(), governance.Rules(), contracts.Rules(), pii.Rules(), project.Rules(), evidence.Rules()}
	for _, f := range formats.All() {
		out = append(out, f.Rules())
	}
	return out
}

var catalog = build(sources()...)

// build concatenates tables, sorted by ID; a duplicate ID is a programming
// error.
func build(tables ...[]rule.Rule) []rule.Rule {
	out := slices.Concat(tables...)
	slices.SortFunc(out, func(a, b rule.Rule) int { return strings.Compare(a.ID, b.ID) })
	for i := 1; i < len(out); i++ {
		if out[i].ID == out[i-1].ID {
			panic(fmt.Sprintf("rules: rule %s is declared twice", out[i].ID))
		}
	}
	return out
}

// All returns every rule, sorted by ID.
func All() []rule.Rule { return slices.Clone(catalog) }

// Lookup returns the rule with the given ID.
func Lookup(id string) (rule.Rule, bool) {
	i, ok := slices.BinarySearchFunc(catalog, id, func(r rule.Rule, id string) int { return strings.Compare(r.ID, id) })
	if !ok {
		return rule.Rule{}, false
	}
	return catalog[i], true
}

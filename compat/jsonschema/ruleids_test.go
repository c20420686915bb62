package jsonschema

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"testing"
)

// TestEveryIncompatibleChangeHasARule reads the change types diff.go
// reports (its SCREAMING_SNAKE string literals) and checks that each one is
// either compatible under STRICT or has exactly one rule, never both, so
// that violation always finds the rule of a change.
func TestEveryIncompatibleChangeHasARule(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "diff.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	changeType := regexp.MustCompile(`^[A-Z][A-Z_]*[A-Z]$`)
	types := map[string]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil && changeType.MatchString(s) {
				types[s] = true
			}
		}
		return true
	})
	if len(types) < 100 {
		t.Fatalf("found %d change types in diff.go, want the ~130 of Confluent's differ", len(types))
	}
	for typ := range types {
		_, rule := ruleByChange[typ]
		if rule == compatibleStrict[typ] {
			t.Errorf("change type %s: has a rule %v, compatible under STRICT %v; want exactly one", typ, rule, compatibleStrict[typ])
		}
	}
}

// TestRuleTable: each rule ID is JSON_ followed by its change type, no two
// rules share a change type, and lenient marks exactly the rules that
// COMPATIBLE_CHANGES_LENIENT accepts.
func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range ruleDefs {
		if r.id != "JSON_"+r.change {
			t.Errorf("rule %s: change type %s, want the ID to be JSON_%s", r.id, r.change, r.change)
		}
		if seen[r.change] {
			t.Errorf("change type %s has two rules", r.change)
		}
		seen[r.change] = true
		if r.lenient != compatibleLenient[r.change] {
			t.Errorf("rule %s: lenient %v, COMPATIBLE_CHANGES_LENIENT has it: %v", r.id, r.lenient, compatibleLenient[r.change])
		}
		if r.purpose == "" || r.spec == "" || r.msg == nil {
			t.Errorf("rule %s: purpose, spec and msg are required", r.id)
		}
	}
}

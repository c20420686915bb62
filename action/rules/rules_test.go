package rules_test

import (
	"regexp"
	"slices"
	"testing"

	"github.com/charter-dev/charter/action/rules"
	"github.com/charter-dev/charter/compat/rule"
)

var idPattern = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`)

var categories = []string{rule.CategoryCompat, rule.CategoryProject, rule.CategoryContract, rule.CategoryPII,
	rule.CategoryOwnership, rule.CategoryDeprecation, rule.CategoryReserved, rule.CategorySemver, rule.CategoryEvent}

// TestCatalogIsWellFormed: every rule has a SCREAMING_SNAKE ID of its own,
// a purpose, a known category and a source (the project checks, Charter's
// own, may have none); All is sorted and Lookup finds each rule.
func TestCatalogIsWellFormed(t *testing.T) {
	all := rules.All()
	if len(all) == 0 {
		t.Fatal("empty catalog")
	}
	for i, r := range all {
		if !idPattern.MatchString(r.ID) {
			t.Errorf("%q is not a SCREAMING_SNAKE ID", r.ID)
		}
		if i > 0 && all[i-1].ID >= r.ID {
			t.Errorf("%s after %s: not sorted, or declared twice", r.ID, all[i-1].ID)
		}
		if r.Purpose == "" || !slices.Contains(categories, r.Category) {
			t.Errorf("%s: purpose %q, category %q", r.ID, r.Purpose, r.Category)
		}
		if r.Source == "" && r.Category != rule.CategoryProject {
			t.Errorf("%s: no source", r.ID)
		}
		if got, ok := rules.Lookup(r.ID); !ok || got.ID != r.ID {
			t.Errorf("Lookup(%s) = %s, %v", r.ID, got.ID, ok)
		}
	}
	if _, ok := rules.Lookup("NO_SUCH_RULE"); ok {
		t.Error("Lookup found NO_SUCH_RULE")
	}
}

// TestEveryRuleFires is the meta-test over the whole catalog: each rule
// has its own testdata case (see caseOf for where each kind of rule
// keeps it), running that case reports the rule, and reports it at the
// severity the catalog lists (what check and the registry report by
// default; a case that switches an Off rule on sets that severity).
func TestEveryRuleFires(t *testing.T) {
	for _, r := range rules.All() {
		t.Run(r.ID, func(t *testing.T) {
			t.Parallel()
			c := caseOf(r)
			got, err := c.run(t)
			if err != nil {
				t.Fatalf("rule %s: its case %s: %v", r.ID, c.path, err)
			}
			n := 0
			for _, f := range got {
				if f.id != r.ID {
					continue
				}
				n++
				if f.sev != r.Severity {
					t.Errorf("rule %s: its case %s reports it as %v, the catalog lists %v", r.ID, c.path, f.sev, r.Severity)
				}
			}
			if n == 0 {
				t.Errorf("rule %s: its case %s does not fire it (it reports %v)", r.ID, c.path, got)
			}
		})
	}
}

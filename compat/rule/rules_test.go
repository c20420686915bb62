package rule_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/charter-dev/charter/compat/rule"
)

func TestRegisterRules(t *testing.T) {
	rule.RegisterRules(
		rule.Rule{ID: "ZZ_TEST_B", Purpose: "b", Category: "test", Severity: rule.Warning},
		rule.Rule{ID: "ZZ_TEST_A", Purpose: "a", Category: "test", Severity: rule.Error},
	)
	r, ok := rule.LookupRule("ZZ_TEST_A")
	if !ok || r.Purpose != "a" || r.Severity != rule.Error {
		t.Fatalf("LookupRule(ZZ_TEST_A) = %+v, %v", r, ok)
	}
	if _, ok := rule.LookupRule("ZZ_TEST_MISSING"); ok {
		t.Error("LookupRule found an unregistered rule")
	}
	var ids []string
	for _, r := range rule.Rules() {
		if r.Category == "test" {
			ids = append(ids, r.ID)
		}
	}
	if fmt.Sprint(ids) != "[ZZ_TEST_A ZZ_TEST_B]" {
		t.Errorf("Rules() test entries = %v, want sorted [ZZ_TEST_A ZZ_TEST_B]", ids)
	}
	for _, bad := range []rule.Rule{{ID: "ZZ_TEST_A"}, {ID: ""}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterRules(%+v) did not panic", bad)
				}
			}()
			rule.RegisterRules(bad)
		}()
	}
}

func TestErrFailedWraps(t *testing.T) {
	err := fmt.Errorf("check: %w", rule.ErrFailed)
	if !errors.Is(err, rule.ErrFailed) {
		t.Error("wrapped ErrFailed does not match")
	}
}

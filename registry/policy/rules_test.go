package policy_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/charter-dev/charter/registry/policy"
)

func TestRegisterRules(t *testing.T) {
	policy.RegisterRules(
		policy.Rule{ID: "ZZ_TEST_B", Purpose: "b", Category: "test", Severity: policy.Warning},
		policy.Rule{ID: "ZZ_TEST_A", Purpose: "a", Category: "test", Severity: policy.Error},
	)
	r, ok := policy.LookupRule("ZZ_TEST_A")
	if !ok || r.Purpose != "a" || r.Severity != policy.Error {
		t.Fatalf("LookupRule(ZZ_TEST_A) = %+v, %v", r, ok)
	}
	if _, ok := policy.LookupRule("ZZ_TEST_MISSING"); ok {
		t.Error("LookupRule found an unregistered rule")
	}
	var ids []string
	for _, r := range policy.Rules() {
		if r.Category == "test" {
			ids = append(ids, r.ID)
		}
	}
	if fmt.Sprint(ids) != "[ZZ_TEST_A ZZ_TEST_B]" {
		t.Errorf("Rules() test entries = %v, want sorted [ZZ_TEST_A ZZ_TEST_B]", ids)
	}
	for _, bad := range []policy.Rule{{ID: "ZZ_TEST_A"}, {ID: ""}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterRules(%+v) did not panic", bad)
				}
			}()
			policy.RegisterRules(bad)
		}()
	}
}

func TestErrFailedWraps(t *testing.T) {
	err := fmt.Errorf("check: %w", policy.ErrFailed)
	if !errors.Is(err, policy.ErrFailed) {
		t.Error("wrapped ErrFailed does not match")
	}
}

package governance_test

import (
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry/governance"
)

// TestPolicyRefusesCompatibilityRules: a compatibility rule ID in a
// policy is not "unknown": the error says that the subject's level sets
// compatibility rules, and how to set it.
func TestPolicyRefusesCompatibilityRules(t *testing.T) {
	for _, id := range []string{"AVRO_TYPE_MISMATCH", "PROTO_FIELD_SCALAR_KIND_CHANGED", "JSON_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", "SCHEMA_TYPE_CHANGED"} {
		err := governance.PolicyConfig{Rules: map[string]string{id: "warning"}}.Validate()
		if err == nil {
			t.Errorf("%s: policy accepted", id)
			continue
		}
		for _, s := range []string{id + " is a compatibility rule", "set by the subject's compatibility level, not by the policy", "charter config set SUBJECT --level"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q lacks %q", id, err, s)
			}
		}
		if strings.Contains(err.Error(), "unknown rule") {
			t.Errorf("%s: error %q calls it unknown", id, err)
		}
	}
	if err := (governance.PolicyConfig{Rules: map[string]string{"NOPE": "warning"}}).Validate(); err == nil || !strings.Contains(err.Error(), `unknown rule "NOPE"`) {
		t.Errorf("NOPE: %v", err)
	}
}

package registry

import (
	"encoding/json"
	"testing"
)

// TestWithoutRules: rulesToRemove drops the named rules from every list
// of a rule set and keeps the others in order.
func TestWithoutRules(t *testing.T) {
	in := json.RawMessage(`{"domainRules":[{"name":"a","kind":"CONDITION"},{"name":"b","kind":"CONDITION"}],"migrationRules":[{"name":"a","kind":"TRANSFORM"}]}`)
	got := string(withoutRules(in, []string{"a"}))
	want := `{"domainRules":[{"kind":"CONDITION","name":"b"}]}`
	if got != want {
		t.Errorf("withoutRules = %s, want %s", got, want)
	}
	if got := string(withoutRules(in, nil)); got != string(in) {
		t.Errorf("withoutRules(nil) = %s, want the rule set unchanged", got)
	}
}

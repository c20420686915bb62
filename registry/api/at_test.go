package api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestStateAsOf: GET .../state?at= and POST .../check?at= judge as of
// that moment: a deprecation, an extension and a dismissal made later are
// not in the state then; a bad or out-of-range at is 400.
func TestStateAsOf(t *testing.T) {
	e := newEnv(t)
	const subject = "at-value"
	schema := `{"type":"record","name":"A","fields":[{"name":"id","type":"string"},{"name":"email","type":"string","default":""}]}`
	e.mustDo("POST", "/subjects/"+subject+"/versions", schemaBody(schema))
	e.mustDo("POST", "/governance/subjects/"+subject+"/deprecations", `{"path":".email","ttlDays":30,"reason":"r"}`)
	e.mustDo("PUT", "/governance/subjects/"+subject+"/consumers/billing", `{"fields":[".email"],"range":{"from":1}}`)
	e.mustDo("POST", "/governance/subjects/"+subject+"/dismissals", `{"field":".email","patternId":"PII_EMAIL","reason":"a test address"}`)
	now := time.Now().UTC()
	state := func(at time.Time) (deps, dismissals int, readers []string) {
		t.Helper()
		var st struct {
			Deprecations []json.RawMessage   `json:"deprecations"`
			Dismissals   []json.RawMessage   `json:"dismissals"`
			Readers      map[string][]string `json:"readers"`
		}
		body := e.mustDo("GET", "/governance/subjects/"+subject+"/state?at="+at.Format(time.RFC3339), "")
		if err := json.Unmarshal([]byte(body), &st); err != nil {
			t.Fatalf("state: %v: %s", err, body)
		}
		return len(st.Deprecations), len(st.Dismissals), st.Readers["billing"]
	}
	if d, dm, r := state(now.Add(-24 * time.Hour)); d != 0 || dm != 0 || len(r) != 0 {
		t.Errorf("state a day before: %d deprecations, %d dismissals, billing reads %v; want none", d, dm, r)
	}
	if d, dm, r := state(now.Add(time.Hour)); d != 1 || dm != 1 || len(r) != 1 {
		t.Errorf("state in an hour: %d deprecations, %d dismissals, billing reads %v; want 1, 1, [.email]", d, dm, r)
	}
	later := e.mustDo("POST", "/governance/subjects/"+subject+"/check?at="+now.Add(40*24*time.Hour).Format(time.DateOnly), schemaBody(schema))
	if !strings.Contains(later, `"ruleId":"DEPRECATION_EXPIRED_READ"`) || !strings.Contains(later, "billing") {
		t.Errorf("check in 40 days: %s", later)
	}
	before := e.mustDo("POST", "/governance/subjects/"+subject+"/check?at="+now.Add(-24*time.Hour).Format(time.RFC3339), schemaBody(schema))
	if strings.Contains(before, "DEPRECATION_") {
		t.Errorf("check a day before the deprecation: %s", before)
	}
	for _, at := range []string{"0001-01-01", "2027-13-01", "tomorrow", "10000-01-01"} {
		code, _, body := e.do("GET", "/governance/subjects/"+subject+"/state?at="+at, "")
		if code != 400 || !strings.Contains(body, "Invalid at") {
			t.Errorf("at=%s: %d %s, want 400 Invalid at", at, code, body)
		}
	}
}

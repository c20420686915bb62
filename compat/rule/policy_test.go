package rule_test

import (
	"encoding/json"
	"testing"

	"github.com/charter-dev/charter/compat/rule"
)

func TestParseSeverity(t *testing.T) {
	tests := []struct {
		in      string
		want    rule.Severity
		enabled bool
		wantErr bool
	}{
		{"error", rule.Error, true, false},
		{"WARN", rule.Warning, true, false},
		{"warning", rule.Warning, true, false},
		{"notice", rule.Notice, true, false},
		{"off", rule.Notice, false, false},
		{"fatal", rule.Notice, false, true},
	}
	for _, tt := range tests {
		got, enabled, err := rule.ParseSeverity(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want || enabled != tt.enabled {
			t.Errorf("ParseSeverity(%q) = %v, %v, %v; want %v, %v, err %v", tt.in, got, enabled, err, tt.want, tt.enabled, tt.wantErr)
		}
	}
}

func TestReportFailedAndJSON(t *testing.T) {
	r := rule.Report{Findings: []rule.Finding{
		{RuleID: "OWNER_MISSING", Severity: rule.Warning, Subject: "orders-value", Message: "subject has no owner"},
	}}
	if r.Failed() {
		t.Fatal("a report with only warnings must pass")
	}
	r.Findings = append(r.Findings, rule.Finding{RuleID: "AVRO_TYPE_MISMATCH", Severity: rule.Error, Subject: "orders-value", Path: ".id", Message: "long cannot be read as int"})
	if !r.Failed() || r.Count(rule.Error) != 1 || r.Count(rule.Warning) != 1 {
		t.Fatalf("Failed=%v errors=%d warnings=%d", r.Failed(), r.Count(rule.Error), r.Count(rule.Warning))
	}
	b, err := json.Marshal(r.Findings[1])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ruleId":"AVRO_TYPE_MISMATCH","severity":"error","subject":"orders-value","path":".id","message":"long cannot be read as int"}`
	if string(b) != want {
		t.Fatalf("JSON = %s\nwant  %s", b, want)
	}
	var back rule.Finding
	if err := json.Unmarshal(b, &back); err != nil || back.Severity != rule.Error {
		t.Fatalf("round trip: %v %v", back.Severity, err)
	}
}

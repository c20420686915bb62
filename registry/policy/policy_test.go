package policy_test

import (
	"encoding/json"
	"testing"

	"github.com/charter-dev/charter/registry/policy"
)

func TestParseSeverity(t *testing.T) {
	tests := []struct {
		in      string
		want    policy.Severity
		enabled bool
		wantErr bool
	}{
		{"error", policy.Error, true, false},
		{"WARN", policy.Warning, true, false},
		{"warning", policy.Warning, true, false},
		{"notice", policy.Notice, true, false},
		{"off", policy.Notice, false, false},
		{"fatal", policy.Notice, false, true},
	}
	for _, tt := range tests {
		got, enabled, err := policy.ParseSeverity(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want || enabled != tt.enabled {
			t.Errorf("ParseSeverity(%q) = %v, %v, %v; want %v, %v, err %v", tt.in, got, enabled, err, tt.want, tt.enabled, tt.wantErr)
		}
	}
}

func TestReportFailedAndJSON(t *testing.T) {
	r := policy.Report{Findings: []policy.Finding{
		{RuleID: "OWNER_MISSING", Severity: policy.Warning, Subject: "orders-value", Message: "subject has no owner"},
	}}
	if r.Failed() {
		t.Fatal("a report with only warnings must pass")
	}
	r.Findings = append(r.Findings, policy.Finding{RuleID: "AVRO_TYPE_MISMATCH", Severity: policy.Error, Subject: "orders-value", Path: ".id", Message: "long cannot be read as int"})
	if !r.Failed() || r.Count(policy.Error) != 1 || r.Count(policy.Warning) != 1 {
		t.Fatalf("Failed=%v errors=%d warnings=%d", r.Failed(), r.Count(policy.Error), r.Count(policy.Warning))
	}
	b, err := json.Marshal(r.Findings[1])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ruleId":"AVRO_TYPE_MISMATCH","severity":"error","subject":"orders-value","path":".id","message":"long cannot be read as int"}`
	if string(b) != want {
		t.Fatalf("JSON = %s\nwant  %s", b, want)
	}
	var back policy.Finding
	if err := json.Unmarshal(b, &back); err != nil || back.Severity != policy.Error {
		t.Fatalf("round trip: %v %v", back.Severity, err)
	}
}

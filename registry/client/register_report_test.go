package client_test

import (
	"testing"

	"github.com/charter-dev/charter/registry/client"
)

func TestParseFindingHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want client.HeaderFinding
	}{
		{"warning DEPRECATION_ACTIVE .carrier_code: field carrier_code is deprecated: 90 days left",
			client.HeaderFinding{Severity: "warning", RuleID: "DEPRECATION_ACTIVE", Path: ".carrier_code", Message: "field carrier_code is deprecated: 90 days left"}},
		{"warning OWNER_MISSING: subject a has no owner: no team",
			client.HeaderFinding{Severity: "warning", RuleID: "OWNER_MISSING", Message: "subject a has no owner: no team"}},
		{"notice X .a<b c>.d: m", client.HeaderFinding{Severity: "notice", RuleID: "X", Path: ".a<b c>.d", Message: "m"}},
		{"no shape here", client.HeaderFinding{Message: "no shape here"}},
		{"single: word", client.HeaderFinding{Message: "single: word"}},
	} {
		if got := client.ParseFindingHeader(tc.in); got != tc.want {
			t.Errorf("ParseFindingHeader(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// TestRegisterVersionReport: the registration's findings and semantic
// version come back from the real handler; the reads that follow the
// POST do not replace them.
func TestRegisterVersionReport(t *testing.T) {
	t.Parallel()
	c := clockClient(t, day0)
	ctx := t.Context()
	r, err := c.RegisterVersionReport(ctx, "shipments-value", client.NewSchema{Text: shipV1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != 1 || r.SemVer != "1.0.0" || len(r.Findings) != 1 || r.Findings[0].RuleID != "OWNER_MISSING" {
		t.Fatalf("first registration = %+v", r)
	}
	if _, err := c.SetOwner(ctx, "shipments-value", "t", "c", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Deprecate(ctx, "shipments-value", client.DeprecateRequest{Path: ".carrier_code", TTLDays: 90}); err != nil {
		t.Fatal(err)
	}
	r, err = c.RegisterVersionReport(ctx, "shipments-value", client.NewSchema{Text: shipV2})
	if err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, f := range r.Findings {
		rules = append(rules, f.Severity+" "+f.RuleID+" "+f.Path)
	}
	want := []string{"warning DEPRECATION_ACTIVE .carrier_code", "warning PII_UNTAGGED .customer_email"}
	if r.Version != 2 || r.SemVer != "1.1.0" || len(rules) != 2 || rules[0] != want[0] || rules[1] != want[1] {
		t.Errorf("second registration: version %d, semver %s, findings %q; want 2, 1.1.0, %q", r.Version, r.SemVer, rules, want)
	}
}

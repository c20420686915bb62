package client_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/governance"
)

// mirrors checks that the JSON of server decodes strictly (no
// unknown member) into mirror and that mirror encodes back to the same
// JSON members and values.
func mirrors(t *testing.T, name string, server, mirror any) {
	t.Helper()
	raw, err := json.Marshal(server)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(mirror); err != nil {
		t.Fatalf("%s: the server's %s does not decode strictly: %v", name, raw, err)
	}
	back, err := json.Marshal(mirror)
	if err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(back, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: the mirror loses or changes members:\nserver %s\nmirror %s", name, raw, back)
	}
}

// TestRuleStatusMirrorsServer: every rule of GET /governance/rules, under
// a policy that switches one rule on and one off, decodes into
// client.RuleStatus and back unchanged.
func TestRuleStatusMirrorsServer(t *testing.T) {
	pol := governance.PolicyConfig{Rules: map[string]string{governance.RuleInlineBinary: "error", governance.RuleOwnerMissing: "off"}}
	statuses := governance.RuleStatuses(pol)
	if len(statuses) != len(governance.PolicyRules()) {
		t.Fatalf("%d statuses for %d rules", len(statuses), len(governance.PolicyRules()))
	}
	for _, s := range statuses {
		var c client.RuleStatus
		mirrors(t, s.ID, s, &c)
		if c.ID != s.ID || c.Severity != s.Severity.String() || c.Effective != s.Effective {
			t.Errorf("%s: decoded as %+v", s.ID, c)
		}
	}
}

// TestContractFindingMirrorsServer: a contract finding with every member
// set decodes into client.ContractFinding and back unchanged.
func TestContractFindingMirrorsServer(t *testing.T) {
	end := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	f := contracts.Finding{
		Violation: compat.Violation{RuleID: contracts.RuleFieldExtended, Path: ".carrier_code", Message: "field .carrier_code expired"},
		Severity:  rule.Notice, Consumer: "billing", ConsumerVersion: "1.4.0", Branch: "main", Subject: "shipments-value",
		Interaction: "a shipment event", Pending: true, Expires: &end,
	}
	var c client.ContractFinding
	mirrors(t, "contract finding", f, &c)
	if c.Severity != "notice" || c.Expires == nil || !c.Expires.Equal(end) {
		t.Errorf("decoded as %+v", c)
	}
}

// TestFindingMirrorsServer: findings with every member set, at each
// severity, decode into client.Finding and back unchanged.
func TestFindingMirrorsServer(t *testing.T) {
	for _, sev := range []rule.Severity{rule.Error, rule.Warning, rule.Notice} {
		f := rule.Finding{RuleID: governance.RuleDeprecationRemovalGuarded, Severity: sev, Subject: "shipments-value",
			File: "schemas/shipment.avsc", Line: 7, Path: ".carrier_code", Message: "billing still reads it", Hint: "keep the field",
			Consumer: "billing", Version: 3, Direction: "BACKWARD"}
		var c client.Finding
		mirrors(t, sev.String(), f, &c)
		if c.Severity != sev.String() || c.Line != 7 {
			t.Errorf("decoded as %+v", c)
		}
	}
}

package governance_test

import (
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/pii"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/governance"
)

func TestMergePolicy(t *testing.T) {
	global := governance.PolicyConfig{
		Rules:              map[string]string{"OWNER_MISSING": "error", "PII_UNTAGGED": "warning"},
		DeprecationTTLDays: 60,
		Envelope:           &governance.Envelope{EventID: []string{"eid"}, Path: ".header"},
		PII:                &governance.PIIPolicy{MaskTags: []string{"PII"}, MinConfidence: "high"},
	}
	subject := governance.PolicyConfig{
		Rules:    map[string]string{"PII_UNTAGGED": "error"},
		Envelope: &governance.Envelope{EventType: []string{"kind"}},
		PII:      &governance.PIIPolicy{AllowList: []string{"mailbox"}},
	}
	m := governance.MergePolicy(global, subject)
	if m.Rules["OWNER_MISSING"] != "error" || m.Rules["PII_UNTAGGED"] != "error" {
		t.Errorf("rules %v", m.Rules)
	}
	if global.Rules["PII_UNTAGGED"] != "warning" {
		t.Error("MergePolicy changed the global rules")
	}
	if m.TTLDays() != 60 || m.Envelope.Path != ".header" || m.Envelope.EventID[0] != "eid" || m.Envelope.EventType[0] != "kind" {
		t.Errorf("merged %+v %+v", m, m.Envelope)
	}
	if m.PII.MinConfidence != "high" || m.PII.MaskTags[0] != "PII" || m.PII.AllowList[0] != "mailbox" {
		t.Errorf("pii %+v", m.PII)
	}
	if (governance.PolicyConfig{}).TTLDays() != governance.DefaultTTLDays {
		t.Error("default TTL")
	}
}

func TestPolicySeverity(t *testing.T) {
	var c governance.PolicyConfig
	for id, want := range map[string]struct {
		sev rule.Severity
		on  bool
	}{
		"OWNER_MISSING":               {rule.Warning, true},
		"DEPRECATION_EXPIRED":         {rule.Error, true},
		"DEPRECATION_EXTENDED":        {rule.Notice, true},
		"DEPRECATION_REMOVAL_GUARDED": {rule.Error, true},
		"EVENT_ENVELOPE_INCOMPLETE":   {rule.Warning, false},
		"PII_UNTAGGED":                {rule.Warning, true},
		"NO_SUCH_RULE":                {rule.Notice, false},
	} {
		sev, on := c.Severity(id)
		if sev != want.sev || on != want.on {
			t.Errorf("%s: %v %v, want %v %v", id, sev, on, want.sev, want.on)
		}
	}
	c.Rules = map[string]string{"OWNER_MISSING": "off", "EVENT_ENVELOPE_INCOMPLETE": "ERROR"}
	if _, on := c.Severity("OWNER_MISSING"); on {
		t.Error("off is on")
	}
	if sev, on := c.Severity("EVENT_ENVELOPE_INCOMPLETE"); !on || sev != rule.Error {
		t.Errorf("raised: %v %v", sev, on)
	}
}

func TestPolicyValidate(t *testing.T) {
	ok := governance.PolicyConfig{Rules: map[string]string{"OWNER_MISSING": "warn"}, DeprecationTTLDays: 30,
		PII: &governance.PIIPolicy{MinConfidence: "LOW"}, Envelope: &governance.Envelope{Path: ".h"}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	if n := ok.Normalize(); n.Rules["OWNER_MISSING"] != "warning" {
		t.Errorf("normalized %v", n.Rules)
	}
	bad := governance.PolicyConfig{Rules: map[string]string{"NOPE": "error", "OWNER_MISSING": "loud"}, DeprecationTTLDays: 99999,
		PII: &governance.PIIPolicy{MinConfidence: "sure"}, Envelope: &governance.Envelope{Path: "h"}}
	err := bad.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, s := range []string{`unknown rule "NOPE"`, "OWNER_MISSING", "deprecationTtlDays 99999", "minConfidence", "envelope path"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}

// TestRuleTable: the policy configures every rule of this package and of
// packages pii and contracts, each with the declaration's own severity;
// only DEPRECATION_EXPIRED and DEPRECATION_REMOVAL_GUARDED (both only for
// deprecations declared through the governance API) and the contract
// rules that break a published contract refuse by default; the event
// rules are off.
func TestRuleTable(t *testing.T) {
	want := len(governance.Rules()) + len(pii.Rules()) + len(contracts.Rules())
	rs := governance.PolicyRules()
	if len(rs) != want || len(governance.Rules()) != 14 {
		t.Fatalf("%d policy rules, want %d (14 of governance)", len(rs), want)
	}
	var p governance.PolicyConfig
	for _, r := range rs {
		if r.ID == "" || r.Purpose == "" || r.Category == "" {
			t.Errorf("incomplete rule %+v", r)
		}
		if got, ok := governance.LookupPolicyRule(r.ID); !ok || got.ID != r.ID {
			t.Errorf("LookupPolicyRule(%s) = %v, %v", r.ID, got.ID, ok)
		}
		if sev, on := p.Severity(r.ID); sev != r.Severity || on == r.Off {
			t.Errorf("%s: default policy severity %v (on %v), declared %v (off %v)", r.ID, sev, on, r.Severity, r.Off)
		}
		contract := r.Category == rule.CategoryContract
		if r.Severity == rule.Error && !r.Off && !contract && r.ID != governance.RuleDeprecationExpired && r.ID != governance.RuleDeprecationRemovalGuarded {
			t.Errorf("%s refuses registrations by default", r.ID)
		}
		off := r.ID == governance.RuleEnvelopeIncomplete || r.ID == governance.RuleInlineBinary
		if r.Off != off {
			t.Errorf("%s: Off = %v", r.ID, r.Off)
		}
	}
}

func TestParseItem(t *testing.T) {
	for in, want := range map[string]string{
		"version:3": "version:3", "field:.a.b": "field:.a.b", ".a.b": "field:.a.b", "a.b": "field:.a.b",
	} {
		it, err := governance.ParseItem(in)
		if err != nil || it.Key() != want {
			t.Errorf("ParseItem(%q) = %v, %v; want %s", in, it.Key(), err, want)
		}
	}
	for _, bad := range []string{"", ".", "version:0", "version:x"} {
		if _, err := governance.ParseItem(bad); err == nil {
			t.Errorf("ParseItem(%q) accepted it", bad)
		}
	}
}

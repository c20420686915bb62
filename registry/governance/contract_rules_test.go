package governance_test

import (
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/governance"
)

// TestRemovalGuard is issue 5 §7 on the pure rule: carrier_code,
// deprecated through the API on day 0 for 90 days, removed by
// shipmentsV3; readers come from published contracts.
func TestRemovalGuard(t *testing.T) {
	var fields []string
	for _, f := range compat.Fields(mustParse(t, avro.Format{}, shipmentsV3)) {
		fields = append(fields, f.Path)
	}
	var kept []string
	for _, f := range compat.Fields(mustParse(t, avro.Format{}, shipmentsV2)) {
		kept = append(kept, f.Path)
	}
	ext := func(c string, until int) governance.Extension {
		return governance.Extension{Consumer: c, Until: day(until), Reason: "r", Approver: "a"}
	}
	readers := map[string][]string{"billing": {".id", ".carrier_code"}, "tracking": {".carrier_code"}, "audit": {".id"}}
	tests := []struct {
		name    string
		now     int
		source  governance.Source
		exts    []governance.Extension
		readers map[string][]string
		fields  []string
		// noPrevious: a first version or a re-registration (nothing removed).
		noPrevious bool
		want       string // "consumer: message fragments" or "" for no finding
		contains   []string
	}{
		{name: "before expiry: refused, all readers", now: 30, readers: readers, want: "billing",
			contains: []string{"field carrier_code", "before it expires on 2026-04-05", "60 days left", "billing, tracking"}},
		{name: "before expiry, readers extended: still refused", now: 30, readers: readers, exts: []governance.Extension{ext("billing", 120), ext("tracking", 120)},
			want: "billing", contains: []string{"billing, tracking"}},
		{name: "after expiry with readers: refused, names them", now: 90, readers: readers, want: "billing",
			contains: []string{"expired on 2026-04-05", "without a running extension: billing, tracking"}},
		{name: "after expiry, one reader extended: names the other", now: 95, readers: readers, exts: []governance.Extension{ext("billing", 120)},
			want: "tracking", contains: []string{"without a running extension: tracking"}},
		{name: "after expiry, all readers extended: passes", now: 95, readers: readers, exts: []governance.Extension{ext("billing", 120), ext("tracking", 100)}},
		{name: "extensions ended: refused", now: 121, readers: readers, exts: []governance.Extension{ext("billing", 120), ext("tracking", 100)},
			want: "billing", contains: []string{"billing, tracking"}},
		{name: "no readers: passes", now: 30, readers: map[string][]string{"audit": {".id"}}},
		{name: "field kept: passes", now: 30, readers: readers, fields: kept},
		{name: "re-registration of a version without it: not a removal", now: 30, readers: readers, noPrevious: true},
		{name: "inline deprecation: not guarded", now: 30, readers: readers, source: governance.SourceSchema},
		{name: "reader of a field under it", now: 30, readers: map[string][]string{"ops": {".carrier_code.raw"}}, want: "ops"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := governance.SourceAPI
			if tc.source != "" {
				src = tc.source
			}
			d := governance.NewDeprecation("shipments", governance.FieldItem(".carrier_code"), day(0), 90, src)
			d.Extensions = tc.exts
			prev := kept
			if tc.noPrevious {
				prev = nil
			}
			fs := fields
			if tc.fields != nil {
				fs = tc.fields
			}
			got := governance.RemovalGuard(governance.RemovalGuardInput{Subject: "shipments", Now: day(tc.now),
				Deprecations: []governance.Deprecation{d}, Previous: prev, Fields: fs, Readers: tc.readers})
			if tc.want == "" {
				if len(got) != 0 {
					t.Fatalf("findings %+v, want none", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("findings %+v, want one", got)
			}
			f := got[0]
			if f.RuleID != governance.RuleDeprecationRemovalGuarded || f.Severity != rule.Error || f.Path != ".carrier_code" || f.Consumer != tc.want {
				t.Fatalf("finding %s %s %s %s", f.Severity, f.RuleID, f.Path, f.Consumer)
			}
			for _, s := range tc.contains {
				if !strings.Contains(f.Message, s) {
					t.Errorf("message %q lacks %q", f.Message, s)
				}
			}
		})
	}
}

// TestRemovalGuardRegistered: the rule is in the governance and policy
// tables, an error by default.
func TestRemovalGuardRegistered(t *testing.T) {
	r, ok := governance.LookupRule(governance.RuleDeprecationRemovalGuarded)
	if !ok || r.Severity != rule.Error || r.Off || r.Category != governance.CategoryDeprecation {
		t.Fatalf("governance rule %+v %v", r, ok)
	}
	if _, ok := rule.LookupRule(governance.RuleDeprecationRemovalGuarded); !ok {
		t.Fatal("not in the policy table")
	}
}

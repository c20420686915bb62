package governance_test

import (
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/governance"
)

// TestDeprecationTable is issue 10 §3 on the pure engine: carrier_code,
// deprecated on day 0 for 90 days; a new version keeps it (shipmentsV2)
// or removes it (shipmentsV3), read by consumers through contracts or
// declared lineage (State.Readers). Every row names the one finding of a
// deprecation rule, or none, and what the message must say.
func TestDeprecationTable(t *testing.T) {
	ext := func(c string, until int) governance.Extension {
		return governance.Extension{Consumer: c, Until: day(until), Reason: "r", Approver: "a"}
	}
	readers := map[string][]string{"billing": {".id", ".carrier_code"}, "tracking": {".carrier_code"}, "audit": {".id"}}
	tests := []struct {
		name     string
		now      int
		remove   bool
		source   governance.Source
		exts     []governance.Extension
		readers  map[string][]string
		existing bool
		level    compat.Level
		latest   string // the latest version (default shipmentsV2)
		wantRule string // "" for no deprecation finding
		wantSev  rule.Severity
		contains []string
	}{
		{name: "keep before expiry", now: 30, readers: readers, wantRule: governance.RuleDeprecationActive, wantSev: rule.Warning,
			contains: []string{"60 days left", "read by billing, tracking"}},
		{name: "keep on the last day", now: 89, readers: readers, wantRule: governance.RuleDeprecationActive, wantSev: rule.Warning,
			contains: []string{"1 day left"}},
		{name: "keep before expiry, nobody reads", now: 30, wantRule: governance.RuleDeprecationActive, wantSev: rule.Warning,
			contains: []string{"nobody reads"}},
		{name: "remove before expiry, read: refused", now: 30, remove: true, readers: readers,
			wantRule: governance.RuleDeprecationRemovalGuarded, wantSev: rule.Error, contains: []string{"before it expires on 2026-04-05", "billing, tracking", "keep field carrier_code (that is allowed)"}},
		{name: "remove before expiry, readers extended: still refused", now: 30, remove: true, readers: readers,
			exts: []governance.Extension{ext("billing", 120), ext("tracking", 120)}, wantRule: governance.RuleDeprecationRemovalGuarded, wantSev: rule.Error,
			contains: []string{"billing (extended until 2026-05-05, approved by a), tracking (extended until 2026-05-05, approved by a)"}},
		{name: "remove before expiry, nobody reads: warning", now: 30, remove: true, readers: map[string][]string{"audit": {".id"}},
			wantRule: governance.RuleDeprecationRemovedEarly, wantSev: rule.Warning, contains: []string{"60 days left", "nobody reads it"}},
		{name: "keep after expiry, all readers extended: notice", now: 95, readers: readers,
			exts: []governance.Extension{ext("billing", 120), ext("tracking", 100)}, wantRule: governance.RuleDeprecationExtended, wantSev: rule.Notice,
			contains: []string{"billing (extended until 2026-05-05, approved by a), tracking (extended until 2026-04-15, approved by a)"}},
		{name: "keep after expiry, one without extension: warning naming it", now: 95, readers: readers,
			exts: []governance.Extension{ext("billing", 120)}, wantRule: governance.RuleDeprecationExpiredRead, wantSev: rule.Warning,
			contains: []string{"without a running extension still read it: tracking", "keep field carrier_code for now"}},
		{name: "keep after expiry, nobody reads: refused", now: 90, readers: map[string][]string{"audit": {".id"}},
			wantRule: governance.RuleDeprecationExpired, wantSev: rule.Error, contains: []string{"nobody reads it", "remove field carrier_code"}},
		{name: "remove after expiry, read with extensions: refused naming all", now: 95, remove: true, readers: readers,
			exts: []governance.Extension{ext("billing", 120)}, wantRule: governance.RuleDeprecationRemovalGuarded, wantSev: rule.Error,
			contains: []string{"after it expired on 2026-04-05", "billing (extended until 2026-05-05, approved by a), tracking"}},
		{name: "remove after expiry, nobody reads: allowed", now: 90, remove: true},
		{name: "extensions ended, keep: warning for both", now: 121, readers: readers,
			exts: []governance.Extension{ext("billing", 120), ext("tracking", 100)}, wantRule: governance.RuleDeprecationExpiredRead, wantSev: rule.Warning,
			contains: []string{"billing, tracking"}},
		{name: "reader of a field under it blocks removal", now: 30, remove: true, readers: map[string][]string{"ops": {".carrier_code.raw"}},
			wantRule: governance.RuleDeprecationRemovalGuarded, wantSev: rule.Error, contains: []string{"ops"}},
		{name: "re-registration after expiry, nobody reads: refused", now: 90, existing: true,
			wantRule: governance.RuleDeprecationExpired, wantSev: rule.Error},
		{name: "inline deprecation removed while read: not refused", now: 30, remove: true, readers: readers, source: governance.SourceSchema},
		{name: "extension held by a non-reader: not a reader, removal after expiry allowed", now: 95, remove: true,
			exts: []governance.Extension{ext("ghost", 200)}},
		{name: "extension held by a non-reader: keep after expiry refused, nobody reads", now: 95,
			exts: []governance.Extension{ext("ghost", 200)}, wantRule: governance.RuleDeprecationExpired, wantSev: rule.Error},
		{name: "keep after expiry, nobody reads, FULL, no default: warning, the way out", now: 95, level: compat.Full,
			wantRule: governance.RuleDeprecationExpiredUnremovable, wantSev: rule.Warning, contains: []string{"level FULL", "give it a default in this version"}},
		{name: "keep after expiry, nobody reads, FULL_TRANSITIVE: warning", now: 95, level: compat.FullTransitive,
			wantRule: governance.RuleDeprecationExpiredUnremovable, wantSev: rule.Warning, contains: []string{"can never be removed"}},
		{name: "keep after expiry, nobody reads, FULL, latest has a default: refused", now: 95, level: compat.Full, latest: shipmentsV2Default,
			wantRule: governance.RuleDeprecationExpired, wantSev: rule.Error},
		{name: "keep after expiry, nobody reads, BACKWARD: refused", now: 95, level: compat.Backward,
			wantRule: governance.RuleDeprecationExpired, wantSev: rule.Error},
		{name: "inline deprecation kept after expiry: warning", now: 95, readers: readers, source: governance.SourceSchema,
			wantRule: governance.RuleDeprecationInlineExpired, wantSev: rule.Warning},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := governance.SourceAPI
			if tc.source != "" {
				src = tc.source
			}
			d := governance.NewDeprecation("shipments", governance.FieldItem(".carrier_code"), day(0), 90, src)
			d.Extensions = tc.exts
			st := owned("shipments")
			st.Deprecations = []governance.Deprecation{d}
			st.Readers = tc.readers
			cand := shipmentsV2
			if tc.remove {
				cand = shipmentsV3
			}
			in := governance.Input{Now: day(tc.now), Format: avro.Format{}, Level: tc.level, State: st, Existing: tc.existing,
				Candidate: governance.Version{Version: 3, Schema: mustParse(t, avro.Format{}, cand)}}
			if !tc.existing {
				latest := shipmentsV2
				if tc.latest != "" {
					latest = tc.latest
				}
				in.Previous = &governance.Version{Version: 2, Schema: mustParse(t, avro.Format{}, latest)}
			} else {
				in.Candidate.Version = 2
			}
			var got []rule.Finding
			for _, f := range governance.Evaluate(in).Findings {
				if strings.HasPrefix(f.RuleID, "DEPRECATION_") {
					got = append(got, f)
				}
			}
			if tc.wantRule == "" {
				if len(got) != 0 {
					t.Fatalf("findings %+v, want none", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("findings %+v, want one %s", got, tc.wantRule)
			}
			f := got[0]
			if f.RuleID != tc.wantRule || f.Severity != tc.wantSev || f.Path != ".carrier_code" {
				t.Fatalf("finding %s %s %s, want %s %s .carrier_code", f.Severity, f.RuleID, f.Path, tc.wantSev, tc.wantRule)
			}
			for _, s := range tc.contains {
				if !strings.Contains(f.Message+" | "+f.Hint, s) {
					t.Errorf("message %q | hint %q lacks %q", f.Message, f.Hint, s)
				}
			}
		})
	}
}

// shipmentsV2Default is shipmentsV2 with a default for carrier_code.
const shipmentsV2Default = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
	`{"name":"id","type":"string"},{"name":"carrier_code","type":"string","default":""},` +
	`{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`

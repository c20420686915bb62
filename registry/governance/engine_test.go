package governance_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/compat/protobuf"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/governance"
)

const (
	shipmentsV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`
	// shipmentsV2 adds the carrier record that replaces carrier_code, and
	// keeps carrier_code.
	shipmentsV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"string"},{"name":"carrier_code","type":"string"},` +
		`{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`
	// shipmentsV3 drops carrier_code.
	shipmentsV3 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"string"},` +
		`{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`
)

// owned is a state with an owner, so OWNER_MISSING stays quiet.
func owned(subject string) governance.SubjectState {
	return governance.SubjectState{Subject: subject, Owner: &governance.Owner{Subject: subject, Team: "logistics", Contact: "#logistics"}}
}

func avroInput(t *testing.T, st governance.SubjectState, now time.Time, prev, cur string) governance.Input {
	t.Helper()
	in := governance.Input{Now: now, Format: avro.Format{}, Level: compat.Backward, State: st,
		Candidate: governance.Version{Version: 3, Schema: mustParse(t, avro.Format{}, cur)}}
	if prev != "" {
		in.Previous = &governance.Version{Version: 2, Schema: mustParse(t, avro.Format{}, prev)}
	}
	return in
}

// brief renders findings as "severity RULE path" lines.
func brief(fs []rule.Finding) string {
	var lines []string
	for _, f := range fs {
		lines = append(lines, fmt.Sprintf("%s %s %s", f.Severity, f.RuleID, f.Path))
	}
	return strings.Join(lines, "\n")
}

// TestDeprecationAcceptance is the acceptance scenario of issue 4: on a
// shipments subject carrier_code is deprecated on day 0 with a 90-day TTL
// in favour of the carrier record. A registration that keeps it passes
// with a warning on days 0 and 89, is refused on days 90 and 120 with a
// message naming the field, the expiry date and the replacement, and
// passes with a notice while an extension granted to a consumer team
// runs.
func TestDeprecationAcceptance(t *testing.T) {
	dep := governance.NewDeprecation("shipments-value", governance.FieldItem(".carrier_code"), day(0), 90, governance.SourceAPI)
	dep.Replacement = ".carrier"
	dep.Reason = "carriers are records now"
	ext := governance.Extension{Consumer: "billing", Until: day(125), Reason: "billing reads carrier_code until its Q2 release",
		Approver: "alice", GrantedAt: day(80)}
	expired := "2026-04-05" // day 90

	tests := []struct {
		name     string
		now      int
		ext      bool
		migrated bool // billing, holding the extension, no longer reads the field
		cur      string
		want     string // brief of the findings
		failed   bool
		contains []string
	}{
		{name: "day 0 keeps it: warning", now: 0, cur: shipmentsV2,
			want:     "warning DEPRECATION_ACTIVE .carrier_code",
			contains: []string{"90 days left", "expires on " + expired, "use carrier instead"}},
		{name: "day 89 keeps it: warning, last day", now: 89, cur: shipmentsV2,
			want:     "warning DEPRECATION_ACTIVE .carrier_code",
			contains: []string{"1 day left", "expires on " + expired}},
		{name: "day 90 keeps it: refused", now: 90, cur: shipmentsV2, failed: true,
			want:     "error DEPRECATION_EXPIRED .carrier_code",
			contains: []string{"field carrier_code", "expired on " + expired, "use carrier instead", "nobody reads it"}},
		{name: "day 120 keeps it: refused", now: 120, cur: shipmentsV2, failed: true,
			want:     "error DEPRECATION_EXPIRED .carrier_code",
			contains: []string{"field carrier_code", "expired on " + expired, "use carrier instead"}},
		{name: "day 120 without the field: passes", now: 120, cur: shipmentsV3, want: ""},
		{name: "day 90 with an extension: notice", now: 90, ext: true, cur: shipmentsV2,
			want:     "notice DEPRECATION_EXTENDED .carrier_code",
			contains: []string{"expired on " + expired, "billing (extended until 2026-05-10", "approved by alice"}},
		{name: "day 120 with an extension: notice", now: 120, ext: true, cur: shipmentsV2,
			want: "notice DEPRECATION_EXTENDED .carrier_code"},
		{name: "day 125 the extension has ended, billing still reads it: warning naming it", now: 125, ext: true, cur: shipmentsV2,
			want:     "warning DEPRECATION_EXPIRED_READ .carrier_code",
			contains: []string{"without a running extension still read it: billing"}},
		{name: "day 125 the extension has ended, billing migrated: refused", now: 125, ext: true, migrated: true, cur: shipmentsV2, failed: true,
			want:     "error DEPRECATION_EXPIRED .carrier_code",
			contains: []string{"the extension for billing ended on 2026-05-10"}},
		{name: "day 100 an extension held by a consumer that does not read it: refused", now: 100, ext: true, migrated: true, cur: shipmentsV2, failed: true,
			want: "error DEPRECATION_EXPIRED .carrier_code", contains: []string{"nobody reads it"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := owned("shipments-value")
			d := dep
			if tc.ext {
				d.Extensions = []governance.Extension{ext}
				if !tc.migrated {
					st.Readers = map[string][]string{"billing": {".id", ".carrier_code"}}
				}
			}
			st.Deprecations = []governance.Deprecation{d}
			res := governance.Evaluate(avroInput(t, st, day(tc.now), shipmentsV2, tc.cur))
			if got := brief(res.Findings); got != tc.want {
				t.Fatalf("findings:\n%s\nwant:\n%s\n(%v)", got, tc.want, res.Findings)
			}
			if res.Failed() != tc.failed {
				t.Errorf("Failed() = %v, want %v", res.Failed(), tc.failed)
			}
			for _, s := range tc.contains {
				if !strings.Contains(res.Findings[0].Message, s) {
					t.Errorf("message %q lacks %q", res.Findings[0].Message, s)
				}
			}
		})
	}
}

// TestDeprecationStatus: the states and countdown of a deprecation.
func TestDeprecationStatus(t *testing.T) {
	d := governance.NewDeprecation("s", governance.FieldItem(".a"), day(0), 90, governance.SourceAPI)
	d.Extensions = []governance.Extension{
		{Consumer: "early", Until: day(100)},
		{Consumer: "late", Until: day(130)},
	}
	tests := []struct {
		now      int
		state    governance.State
		left     int
		extended string
		who      []string
	}{
		{0, governance.StateDeprecated, 90, "2026-05-15", []string{"late", "early"}},
		{89, governance.StateDeprecated, 1, "2026-05-15", []string{"late", "early"}},
		{90, governance.StateExpired, 0, "2026-05-15", []string{"late", "early"}},
		{120, governance.StateExpired, 0, "2026-05-15", []string{"late"}},
		{130, governance.StateExpired, 0, "", nil},
	}
	for _, tc := range tests {
		st := d.Status(day(tc.now))
		ext := ""
		if st.ExtendedUntil != nil {
			ext = st.ExtendedUntil.Format("2006-01-02")
		}
		if st.State != tc.state || st.DaysLeft != tc.left || ext != tc.extended || fmt.Sprint(st.Consumers) != fmt.Sprint(tc.who) {
			t.Errorf("day %d: %s, %d days left, extended until %q for %v; want %s, %d, %q, %v",
				tc.now, st.State, st.DaysLeft, ext, st.Consumers, tc.state, tc.left, tc.extended, tc.who)
		}
	}
}

// TestVersionDeprecation: re-registering a deprecated version runs the
// deprecation rules only; an expired version is refused.
func TestVersionDeprecation(t *testing.T) {
	d := governance.NewDeprecation("shipments-value", governance.VersionItem(3), day(0), 30, governance.SourceAPI)
	st := owned("shipments-value")
	st.Deprecations = []governance.Deprecation{d}
	for _, tc := range []struct {
		now  int
		want string
	}{{10, "warning DEPRECATION_ACTIVE "}, {30, "error DEPRECATION_EXPIRED "}} {
		in := avroInput(t, st, day(tc.now), "", shipmentsV2)
		in.Existing = true
		res := governance.Evaluate(in)
		if got := brief(res.Findings); got != tc.want {
			t.Errorf("day %d: %q, want %q", tc.now, got, tc.want)
		}
		if res.SemVer != "" || res.Classification != nil {
			t.Errorf("a re-registration got a classification: %q %v", res.SemVer, res.Classification)
		}
	}
}

// TestInlineDeprecation: a field the schema marks deprecated gets a
// deprecation with the subject's TTL; once it expires, keeping it is a
// warning (DEPRECATION_INLINE_EXPIRED), unless the operator raises it.
func TestInlineDeprecation(t *testing.T) {
	cur := strings.Replace(shipmentsV2, `{"name":"carrier_code","type":"string"}`, `{"name":"carrier_code","type":"string","deprecated":"use carrier"}`, 1)
	st := owned("shipments-value")
	st.Policy.DeprecationTTLDays = 30
	res := governance.Evaluate(avroInput(t, st, day(0), shipmentsV2, cur))
	if len(res.NewDeprecations) != 1 {
		t.Fatalf("new deprecations %v, want one", res.NewDeprecations)
	}
	d := res.NewDeprecations[0]
	if d.Path != ".carrier_code" || d.TTLDays != 30 || d.Source != governance.SourceSchema || d.Reason != "use carrier" || d.SinceVersion != 3 || !d.ExpiresAt.Equal(day(30)) {
		t.Errorf("new deprecation %+v", d)
	}
	if got := brief(res.Findings); got != "warning DEPRECATION_ACTIVE .carrier_code" {
		t.Errorf("findings %q", got)
	}
	st.Deprecations = []governance.Deprecation{d}
	res = governance.Evaluate(avroInput(t, st, day(40), cur, cur))
	if got := brief(res.Findings); got != "warning DEPRECATION_INLINE_EXPIRED .carrier_code" {
		t.Errorf("day 40: %q", got)
	}
	st.Policy.Rules = map[string]string{governance.RuleDeprecationInlineExpired: "error"}
	if res := governance.Evaluate(avroInput(t, st, day(40), cur, cur)); !res.Failed() {
		t.Errorf("raised to error, day 40 passes: %v", res.Findings)
	}
}

// TestOwnerMissing: a warning by default, an error when the operator
// says so, silent with an owner record or an owner metadata property.
func TestOwnerMissing(t *testing.T) {
	st := governance.SubjectState{Subject: "orders-value"}
	res := governance.Evaluate(avroInput(t, st, day(0), "", shipmentsV1))
	if got := brief(res.Findings); got != "warning OWNER_MISSING " {
		t.Fatalf("findings %q", got)
	}
	if !strings.Contains(res.Findings[0].Hint, "charter owners orders-value") {
		t.Errorf("hint %q", res.Findings[0].Hint)
	}
	// A subject a shell would split or expand is quoted as one word, and
	// escaped in the REST path.
	spaced := governance.SubjectState{Subject: "my order's-value"}
	res = governance.Evaluate(avroInput(t, spaced, day(0), "", shipmentsV1))
	if h := res.Findings[0].Hint; !strings.Contains(h, `charter owners 'my order'\''s-value' --team`) || !strings.Contains(h, "/governance/subjects/my%20order%27s-value/owner") {
		t.Errorf("hint for a subject with a space and a quote: %q", h)
	}
	st.Policy.Rules = map[string]string{governance.RuleOwnerMissing: "error"}
	if res := governance.Evaluate(avroInput(t, st, day(0), "", shipmentsV1)); !res.Failed() {
		t.Error("OWNER_MISSING at error does not fail")
	}
	in := avroInput(t, st, day(0), "", shipmentsV1)
	in.Candidate.Metadata = []byte(`{"properties":{"owner":"logistics"}}`)
	if res := governance.Evaluate(in); len(res.Findings) != 0 {
		t.Errorf("owner property: %v", res.Findings)
	}
	st.Owner = &governance.Owner{Team: "logistics", Contact: "#logistics"}
	if res := governance.Evaluate(avroInput(t, st, day(0), "", shipmentsV1)); len(res.Findings) != 0 {
		t.Errorf("owner record: %v", res.Findings)
	}
}

// TestRemovedMeansReserved: in every format, a removed field that comes
// back with another type is reported; Protobuf numbers too.
func TestRemovedMeansReserved(t *testing.T) {
	tests := []struct {
		name       string
		format     compat.Format
		v1, v2, v3 string
		want       string
	}{
		{"avro", avro.Format{},
			`{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"qty","type":"int"}]}`,
			`{"type":"record","name":"R","fields":[{"name":"id","type":"string"}]}`,
			`{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"qty","type":"string","default":""}]}`,
			"warning REMOVED_FIELD_REUSED .qty"},
		{"avro nullable is the same type", avro.Format{},
			`{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"qty","type":"int"}]}`,
			`{"type":"record","name":"R","fields":[{"name":"id","type":"string"}]}`,
			`{"type":"record","name":"R","fields":[{"name":"id","type":"string"},{"name":"qty","type":["null","int"],"default":null}]}`,
			""},
		{"json", jsonschema.Format{},
			`{"type":"object","properties":{"id":{"type":"string"},"qty":{"type":"integer"}}}`,
			`{"type":"object","properties":{"id":{"type":"string"}}}`,
			`{"type":"object","properties":{"id":{"type":"string"},"qty":{"type":"string"}}}`,
			"warning REMOVED_FIELD_REUSED .qty"},
		{"protobuf name", protobuf.Format{},
			"syntax = \"proto3\";\nmessage R {\n  string id = 1;\n  int32 qty = 2;\n}\n",
			"syntax = \"proto3\";\nmessage R {\n  string id = 1;\n}\n",
			"syntax = \"proto3\";\nmessage R {\n  string id = 1;\n  string qty = 3;\n}\n",
			"warning REMOVED_FIELD_REUSED .R.qty"},
		{"protobuf number", protobuf.Format{},
			"syntax = \"proto3\";\nmessage R {\n  string id = 1;\n  int32 qty = 2;\n}\n",
			"syntax = \"proto3\";\nmessage R {\n  string id = 1;\n}\n",
			"syntax = \"proto3\";\nmessage R {\n  string id = 1;\n  string note = 2;\n}\n",
			"warning REMOVED_FIELD_NUMBER_REUSED .R.note"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v1, v2, v3 := mustParse(t, tc.format, tc.v1), mustParse(t, tc.format, tc.v2), mustParse(t, tc.format, tc.v3)
			removed := governance.Removals("s", v1, v2, 2, day(0))
			if len(removed) != 1 || removed[0].RemovedInVersion != 2 {
				t.Fatalf("removals %+v", removed)
			}
			st := owned("s")
			st.Removed = removed
			in := governance.Input{Now: day(1), Format: tc.format, Level: compat.None, State: st,
				Previous:  &governance.Version{Version: 2, Schema: v2},
				Candidate: governance.Version{Version: 3, Schema: v3}}
			res := governance.Evaluate(in)
			var got []string
			for _, f := range res.Findings {
				if f.RuleID == governance.RuleRemovedFieldReused || f.RuleID == governance.RuleRemovedNumberReused {
					got = append(got, fmt.Sprintf("%s %s %s", f.Severity, f.RuleID, f.Path))
				}
			}
			if strings.Join(got, "\n") != tc.want {
				t.Errorf("findings %v, want %q", got, tc.want)
			}
			st.Policy.Rules = map[string]string{governance.RuleRemovedFieldReused: "error", governance.RuleRemovedNumberReused: "error"}
			in.State = st
			if res := governance.Evaluate(in); res.Failed() != (tc.want != "") {
				t.Errorf("at error: Failed() = %v", res.Failed())
			}
		})
	}
}

// TestPIIAcceptance: a new customer_email without a PII tag is flagged;
// tagged (inline, by metadata.tags or by a governance tag) it passes; a
// dismissal silences it; its severity is configurable per subject.
func TestPIIAcceptance(t *testing.T) {
	v1 := `{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"string"}]}`
	v2 := `{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"string"},{"name":"customer_email","type":"string","default":""}]}`
	tagged := strings.Replace(v2, `"name":"customer_email","type":"string"`, `"name":"customer_email","type":"string","confluent:tags":["PII"]`, 1)
	pii := func(res governance.Result) string {
		var out []string
		for _, f := range res.Findings {
			if strings.HasPrefix(f.RuleID, "PII_") {
				out = append(out, fmt.Sprintf("%s %s %s", f.Severity, f.RuleID, f.Path))
			}
		}
		return strings.Join(out, "\n")
	}
	st := owned("orders-value")
	if got := pii(governance.Evaluate(avroInput(t, st, day(0), v1, v2))); got != "warning PII_UNTAGGED .customer_email" {
		t.Errorf("untagged: %q", got)
	}
	if got := pii(governance.Evaluate(avroInput(t, st, day(0), v1, tagged))); got != "" {
		t.Errorf("inline tag: %q", got)
	}
	in := avroInput(t, st, day(0), v1, v2)
	in.Candidate.Metadata = []byte(`{"tags":{"**.customer_email":["PII"]}}`)
	if got := pii(governance.Evaluate(in)); got != "" {
		t.Errorf("metadata.tags: %q", got)
	}
	gt := st
	gt.Tags = map[string][]string{"shop.Order.customer_email": {"PII"}}
	if got := pii(governance.Evaluate(avroInput(t, gt, day(0), v1, v2))); got != "" {
		t.Errorf("governance tag: %q", got)
	}
	ds := st
	ds.Dismissals = []governance.Dismissal{{Field: ".customer_email", By: "bob", Reason: "a shared mailbox, not a person"}}
	if got := pii(governance.Evaluate(avroInput(t, ds, day(0), v1, v2))); got != "" {
		t.Errorf("dismissed: %q", got)
	}
	per := st
	per.Policy = governance.MergePolicy(governance.PolicyConfig{}, governance.PolicyConfig{Rules: map[string]string{"PII_UNTAGGED": "error"}})
	res := governance.Evaluate(avroInput(t, per, day(0), v1, v2))
	if got := pii(res); got != "error PII_UNTAGGED .customer_email" || !res.Failed() {
		t.Errorf("per-subject error: %q", got)
	}
	per.Policy.Rules["PII_UNTAGGED"] = "off"
	if got := pii(governance.Evaluate(avroInput(t, per, day(0), v1, v2))); got != "" {
		t.Errorf("off: %q", got)
	}
}

// TestEventRules: off by default; on, the envelope must carry the four
// roles (configurable names) and bytes fields need a reference or
// checksum name.
func TestEventRules(t *testing.T) {
	event := `{"type":"record","name":"ParcelScanned","fields":[` +
		`{"name":"event_id","type":"string"},{"name":"eventType","type":"string"},` +
		`{"name":"occurred_at","type":"long"},{"name":"label_pdf","type":"bytes"},{"name":"label_pdf_sha256","type":"bytes"}]}`
	st := owned("parcels-value")
	if res := governance.Evaluate(avroInput(t, st, day(0), "", event)); len(res.Findings) != 0 {
		t.Fatalf("off by default: %v", res.Findings)
	}
	st.Policy.Rules = map[string]string{governance.RuleEnvelopeIncomplete: "warning", governance.RuleInlineBinary: "warning"}
	res := governance.Evaluate(avroInput(t, st, day(0), "", event))
	if got := brief(res.Findings); got != "warning EVENT_ENVELOPE_INCOMPLETE \nwarning EVENT_INLINE_BINARY .label_pdf" {
		t.Fatalf("findings:\n%s", got)
	}
	if !strings.Contains(res.Findings[0].Message, "lacks a schema version") {
		t.Errorf("envelope message %q", res.Findings[0].Message)
	}
	st.Policy.Envelope = &governance.Envelope{SchemaVersion: []string{"event_id"}}
	res = governance.Evaluate(avroInput(t, st, day(0), "", event))
	if got := brief(res.Findings); got != "warning EVENT_INLINE_BINARY .label_pdf" {
		t.Errorf("configured names: %s", got)
	}
	nested := `{"type":"object","properties":{"header":{"type":"object","properties":{"id":{"type":"string"},"type":{"type":"string"},"specversion":{"type":"string"},"time":{"type":"string"}}},"data":{"type":"string","contentEncoding":"base64"}}}`
	st.Policy.Envelope = &governance.Envelope{Path: ".header"}
	in := governance.Input{Now: day(0), Format: jsonschema.Format{}, State: st, Candidate: governance.Version{Version: 1, Schema: mustParse(t, jsonschema.Format{}, nested)}}
	if got := brief(governance.Evaluate(in).Findings); got != "warning EVENT_INLINE_BINARY .data" {
		t.Errorf("JSON envelope under .header: %s", got)
	}
}

// TestSemVerProgression: the engine numbers versions from the state's
// latest semantic version.
func TestSemVerProgression(t *testing.T) {
	st := owned("shipments-value")
	res := governance.Evaluate(avroInput(t, st, day(0), "", shipmentsV1))
	if res.SemVer != "1.0.0" || res.Classification != nil {
		t.Fatalf("first version: %q %v", res.SemVer, res.Classification)
	}
	st.LatestSemVer = "1.2.3"
	res = governance.Evaluate(avroInput(t, st, day(0), shipmentsV1, shipmentsV2))
	if res.SemVer != "1.3.0" || res.Classification == nil || res.Classification.Bump != governance.BumpMinor {
		t.Fatalf("minor: %q %+v", res.SemVer, res.Classification)
	}
	in := avroInput(t, st, day(0), shipmentsV2, strings.Replace(shipmentsV2, `{"name":"id","type":"string"}`, `{"name":"id","type":"int"}`, 1))
	in.Level = compat.None
	res = governance.Evaluate(in)
	if res.SemVer != "2.0.0" || brief(res.Findings) != "notice SEMVER_MAJOR " {
		t.Fatalf("major: %q %s", res.SemVer, brief(res.Findings))
	}
	if len(res.Removed) != 0 {
		t.Errorf("removed %v", res.Removed)
	}
	res = governance.Evaluate(avroInput(t, st, day(0), shipmentsV2, shipmentsV3))
	if len(res.Removed) != 1 || res.Removed[0].Path != ".carrier_code" || res.Removed[0].Type != "string" {
		t.Errorf("removed %+v", res.Removed)
	}
}

package dump_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry/dump"
)

// TestEncodeOrder: Encode sorts every list, writes empty lists as [] and
// times in UTC, keeps <, > and & as they are, and Read gives back a dump
// that encodes to the same bytes.
func TestEncodeOrder(t *testing.T) {
	d := &dump.Dump{
		Format: dump.Format, ExportedAt: time.Date(2026, 1, 5, 10, 30, 0, 0, time.FixedZone("CET", 3600)), MaxSchemaID: 9,
		Schemas: []dump.Schema{{ID: 9, Type: "AVRO", Text: `"a<b>&"`}, {ID: 2, Type: "JSON", Text: `{}`, Metadata: []byte(`{"properties":{"a":"b"}}`)}},
		Subjects: []dump.Subject{{Subject: "b", Versions: []dump.Version{{Version: 2, ID: 9}, {Version: 1, ID: 2, Deleted: true}}},
			{Subject: "a", Mode: "READONLY"}},
		Records: []dump.Record{{Kind: "owner", Subject: "b", Body: []byte(`{"team":"t"}`)}, {Kind: "policy", Body: []byte(`{}`)},
			{Kind: "deprecation", Subject: "b", Key: "field:.z", Body: []byte(`1`)}, {Kind: "deprecation", Subject: "b", Key: "field:.a", Body: []byte(`2`)}},
		Audit: []dump.AuditEntry{{ID: 5, Time: time.Unix(2, 5).UTC(), Actor: "x", Action: "b", Before: []byte(`null`)}, {ID: 3, Time: time.Unix(1, 0), Actor: "x", Action: "a"}},
	}
	b, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, w := range []string{`"exportedAt": "2026-01-05T09:30:00Z"`, `"schema": "\"a<b>&\""`, `"mode": "READONLY",
      "versions": []`, `"before": null`} {
		if !strings.Contains(s, w) {
			t.Errorf("encoded dump lacks %s:\n%s", w, s)
		}
	}
	order := []string{`"id": 2,`, `"id": 9,`, `"subject": "a"`, `"subject": "b"`, `"version": 1,`, `"version": 2,`,
		`"kind": "policy"`, `"key": "field:.a"`, `"key": "field:.z"`, `"kind": "owner"`, `"id": 3,`, `"id": 5,`}
	at := 0
	for _, w := range order {
		i := strings.Index(s[at:], w)
		if i < 0 {
			t.Fatalf("%s not after position %d:\n%s", w, at, s)
		}
		at += i
	}
	back, err := dump.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	again, err := back.Encode()
	if err != nil || !bytes.Equal(again, b) {
		t.Errorf("Read then Encode:\n%s\nwant\n%s (%v)", again, b, err)
	}
	if string(back.Audit[1].Before) != "null" {
		t.Errorf("before %q, want null kept", back.Audit[1].Before)
	}
}

// TestReadErrors: a newer format says so, an unknown one names the known
// ones, unknown members and inconsistencies are refused.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "  ", "the dump is empty"},
		{"not UTF-8", "{\"format\":\"charter-registry-dump/v3\",\"mode\":\"\xff\"}", "not valid UTF-8"},
		{"no format", `{"schemas":[]}`, `no "format" member`},
		{"newer", `{"format":"charter-registry-dump/v4"}`, `format "charter-registry-dump/v4": the dump was written by a newer Charter, which reads formats v1 to v3; upgrade charter`},
		{"unknown", `{"format":"confluent"}`, `unknown format "confluent"; want "charter-registry-dump/v3"`},
		{"unknown member", `{"format":"charter-registry-dump/v3","extra":1}`, `unknown field "extra"`},
		{"unknown v2 member", `{"format":"charter-registry-dump/v2","extra":1}`, `unknown field "extra"`},
		{"v1 with governance", `{"format":"charter-registry-dump/v1","governance":{"subjects":[]}}`, `has no governance data`},
		{"missing schema", `{"format":"charter-registry-dump/v3","maxSchemaId":3,"schemas":[],"subjects":[{"subject":"a","versions":[{"version":1,"id":3}]}]}`,
			`subject "a" version 1 uses schema id 3, which the dump does not hold`},
		{"above the mark", `{"format":"charter-registry-dump/v3","maxSchemaId":2,"schemas":[{"id":3,"schemaType":"AVRO","schema":"\"int\""}]}`,
			`schema id 3 is above maxSchemaId 2`},
		{"duplicate record", `{"format":"charter-registry-dump/v3","records":[{"kind":"owner","subject":"a","key":"","body":{}},{"kind":"owner","subject":"a","key":"","body":{}}]}`,
			`the owner record "" of subject "a" is listed twice`},
		{"config not an object", `{"format":"charter-registry-dump/v3","config":[1]}`, `the global config is not a JSON object`},
		{"duplicate audit", `{"format":"charter-registry-dump/v3","audit":[{"id":1,"action":"a","time":"2026-01-01T00:00:00Z","actor":"x"},{"id":1,"action":"a","time":"2026-01-01T00:00:00Z","actor":"x"}]}`,
			`audit entry 1 is listed twice`},
	} {
		_, err := dump.Read([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if tc.name == "newer" && !errors.Is(err, dump.ErrNewerFormat) {
			t.Errorf("newer: %v does not wrap ErrNewerFormat", err)
		}
	}
}

// TestReadV1: a v1 dump becomes v3 with the mark at its largest ID, the
// global config and mode it holds, and no records.
func TestReadV1(t *testing.T) {
	d, err := dump.Read([]byte(`{"format":"charter-registry-dump/v1","config":{"compatibilityLevel":"FULL"},"mode":"READWRITE",
"schemas":[{"id":4,"schema":"\"string\""}],"subjects":[{"subject":"a","config":{"compatibilityLevel":"NONE"},"versions":[{"version":1,"id":4}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.ReadFrom != dump.FormatV1 || d.Format != dump.Format || d.MaxSchemaID != 4 || string(d.Config) != `{"compatibilityLevel":"FULL"}` ||
		d.Mode != "READWRITE" || d.Schemas[0].Type != "AVRO" || string(d.Subjects[0].Config) != `{"compatibilityLevel":"NONE"}` || len(d.Records) != 0 {
		t.Errorf("converted v1 dump: %+v", d)
	}
	if n := d.Counts(); n != (dump.Counts{Schemas: 1, Subjects: 1, Versions: 1, Configs: 2, Modes: 1}) {
		t.Errorf("counts %+v", n)
	}
}

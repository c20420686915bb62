package avro_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
)

// TestFields runs every testdata/fields/<case>: schema.avsc, with the
// schemas in refs/ (file name = reference name, in name order) as its
// references, must list exactly the fields in want.json.
func TestFields(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "fields", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fields cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			text, err := os.ReadFile(filepath.Join(dir, "schema.avsc"))
			if err != nil {
				t.Fatal(err)
			}
			var deps []compat.Dependency
			refs, _ := filepath.Glob(filepath.Join(dir, "refs", "*.avsc"))
			for _, r := range refs {
				b, err := os.ReadFile(r)
				if err != nil {
					t.Fatal(err)
				}
				deps = append(deps, compat.Dependency{Name: strings.TrimSuffix(filepath.Base(r), ".avsc"), Text: string(b)})
			}
			s, err := avro.Format{}.Parse(string(text), deps)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			checkFieldsGolden(t, compat.Fields(s), filepath.Join(dir, "want.json"))
		})
	}
}

// checkFieldsGolden compares fields with the JSON in wantPath (rewritten
// with -update).
func checkFieldsGolden(t *testing.T, got []compat.Field, wantPath string) {
	t.Helper()
	if got == nil {
		got = []compat.Field{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(wantPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatal(err)
	}
	var want []compat.Field
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("%s: %v", wantPath, err)
	}
	if len(got) != len(want) {
		t.Errorf("got %d fields, want %d; got:\n%s", len(got), len(want), buf.String())
	}
	for i := 0; i < len(got) && i < len(want); i++ {
		g, w := mustJSON(t, got[i]), mustJSON(t, want[i])
		if g != w {
			t.Errorf("field %d:\n got: %s\nwant: %s", i, g, w)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFieldsPropertiesTable pins the reading of single properties on a
// one-field record.
func TestFieldsPropertiesTable(t *testing.T) {
	tests := []struct {
		name  string
		field string
		want  compat.Field
	}{
		{"no default is required", `{"name":"f","type":"string"}`,
			compat.Field{Path: ".f", Name: "f", FullName: "R.f", Type: "string", Required: true, Line: 1}},
		{"null default", `{"name":"f","type":["null","string"],"default":null}`,
			compat.Field{Path: ".f", Name: "f", FullName: "R.f", Type: "union{null,string}", HasDefault: true, Line: 1}},
		{"tags sorted and deduplicated", `{"name":"f","type":"int","confluent:tags":["b","a","b",""]}`,
			compat.Field{Path: ".f", Name: "f", FullName: "R.f", Type: "int", Required: true, Tags: []string{"a", "b"}, Line: 1}},
		{"non-string tag elements ignored", `{"name":"f","type":"int","confluent:tags":[1,"PII",null]}`,
			compat.Field{Path: ".f", Name: "f", FullName: "R.f", Type: "int", Required: true, Tags: []string{"PII"}, Line: 1}},
		{"only string props", `{"name":"f","type":"int","x-mask":"yes","n":1,"o":{"a":"b"},"l":["c"]}`,
			compat.Field{Path: ".f", Name: "f", FullName: "R.f", Type: "int", Required: true, Props: map[string]string{"x-mask": "yes"}, Line: 1}},
		{"deprecated reason kept in props", `{"name":"f","type":"int","deprecated":"gone"}`,
			compat.Field{Path: ".f", Name: "f", FullName: "R.f", Type: "int", Required: true, Deprecated: true, Props: map[string]string{"deprecated": "gone"}, Line: 1}},
		{"doc", `{"name":"f","type":"int","doc":"the f"}`,
			compat.Field{Path: ".f", Name: "f", FullName: "R.f", Type: "int", Required: true, Doc: "the f", Line: 1}},
		{"map of arrays", `{"name":"f","type":{"type":"map","values":{"type":"array","items":"long"}}}`,
			compat.Field{Path: ".f", Name: "f", FullName: "R.f", Type: "map<array<long>>", Required: true, Line: 1}},
		{"invalid logical type ignored", `{"name":"f","type":{"type":"string","logicalType":"date"}}`,
			compat.Field{Path: ".f", Name: "f", FullName: "R.f", Type: "string", Required: true, Line: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := avro.Parse(`{"type":"record","name":"R","fields":[`+tt.field+`]}`, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := s.Fields()
			if len(got) != 1 {
				t.Fatalf("got %d fields, want 1: %v", len(got), got)
			}
			if g, w := mustJSON(t, got[0]), mustJSON(t, tt.want); g != w {
				t.Errorf("\n got: %s\nwant: %s", g, w)
			}
		})
	}
}

// TestFieldsPrimitiveRoot: a schema without records has no fields.
func TestFieldsPrimitiveRoot(t *testing.T) {
	for _, text := range []string{`"string"`, `{"type":"map","values":"int"}`, `["null","long"]`} {
		s, err := avro.Parse(text, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Fields(); len(got) != 0 {
			t.Errorf("%s: got %v, want no fields", text, got)
		}
	}
	var nilSchema *avro.Schema
	if got := nilSchema.Fields(); got != nil {
		t.Errorf("nil schema: got %v", got)
	}
}

// TestFieldsLinesCountNewlinesOnly: the line is the line of the field's
// "name", however the JSON is laid out (CRLF counts once).
func TestFieldsLinesCountNewlinesOnly(t *testing.T) {
	text := "{\"type\":\"record\",\r\n\"name\":\"R\",\r\n\"fields\":[\r\n{\"type\":\"int\",\r\n\r\n\"name\":\"a\"},\n\t{\"name\":\"b\",\"type\":\"int\"}]}"
	s, err := avro.Parse(text, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Fields()
	if len(got) != 2 || got[0].Line != 6 || got[1].Line != 7 {
		t.Errorf("got %+v, want lines 6 and 7", got)
	}
}

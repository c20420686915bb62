package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/jsonschema"
)

// TestFields runs every testdata/fields/<case>: schema.json, with the
// files in refs/ as its references (Name = file name, the $ref URL), must
// list exactly the fields in want.json.
func TestFields(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "fields", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fields cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			text, err := os.ReadFile(filepath.Join(dir, "schema.json"))
			if err != nil {
				t.Fatal(err)
			}
			var deps []compat.Dependency
			refs, _ := filepath.Glob(filepath.Join(dir, "refs", "*.json"))
			for _, r := range refs {
				b, err := os.ReadFile(r)
				if err != nil {
					t.Fatal(err)
				}
				deps = append(deps, compat.Dependency{Name: filepath.Base(r), Text: string(b)})
			}
			s, err := jsonschema.Format{}.Parse(string(text), deps)
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
		g, _ := json.Marshal(got[i])
		w, _ := json.Marshal(want[i])
		if !bytes.Equal(g, w) {
			t.Errorf("field %d:\n got: %s\nwant: %s", i, g, w)
		}
	}
}

// TestFieldsNoObjects: schemas without properties list nothing.
func TestFieldsNoObjects(t *testing.T) {
	for _, text := range []string{`true`, `{}`, `{"type":"string"}`, `{"type":"array","items":{"type":"integer"}}`} {
		s, err := jsonschema.Parse(text, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Fields(); len(got) != 0 {
			t.Errorf("%s: got %v", text, got)
		}
	}
	var nilSchema *jsonschema.Schema
	if got := nilSchema.Fields(); got != nil {
		t.Errorf("nil schema: %v", got)
	}
}

// TestFieldsLines: Line is the line of the property's name; only "\n"
// ends a line (CRLF counts once, an escaped "\n" in a string not at all),
// properties reached through a $ref into $defs have the line of their
// definition, and those of a referenced schema have none.
func TestFieldsLines(t *testing.T) {
	text := "{\"type\":\"object\",\r\n\"description\":\"two\\nlines\",\r\n\"properties\":{\r\n" +
		"\"a\":{\"type\":\"string\"},\n\n\t\"b\":{\"$ref\":\"#/$defs/B\"},\"c\":{\"$ref\":\"other.json\"}},\n" +
		"\"$defs\":{\"B\":{\"type\":\"object\",\"properties\":{\n\"inner\":{\"type\":\"integer\"}}}}}"
	other := `{"type":"object","properties":{"far":{"type":"string"}}}`
	s, err := jsonschema.Parse(text, []compat.Dependency{{Name: "other.json", Text: other}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Fields() {
		got = append(got, fmt.Sprintf("%s:%d", f.Path, f.Line))
	}
	want := []string{".a:4", ".b:6", ".b.inner:8", ".c:6", ".c.far:0"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

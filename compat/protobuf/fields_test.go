package protobuf_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
)

// TestFields runs every testdata/fields/<case>: schema.proto, with the
// files under refs/ as its references (Name = path under refs/), must list
// exactly the fields in want.json.
func TestFields(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "fields", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fields cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			text, err := os.ReadFile(filepath.Join(dir, "schema.proto"))
			if err != nil {
				t.Fatal(err)
			}
			var deps []compat.Dependency
			refDir := filepath.Join(dir, "refs")
			if _, err := os.Stat(refDir); err == nil {
				for _, rel := range protoFiles(t, refDir) {
					b, err := os.ReadFile(filepath.Join(refDir, rel))
					if err != nil {
						t.Fatal(err)
					}
					deps = append(deps, compat.Dependency{Name: rel, Text: string(b)})
				}
			}
			s, err := protobuf.Format{}.Parse(string(text), deps)
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
		g, w := fieldJSON(t, got[i]), fieldJSON(t, want[i])
		if g != w {
			t.Errorf("field %d:\n got: %s\nwant: %s", i, g, w)
		}
	}
}

func fieldJSON(t *testing.T, f compat.Field) string {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFieldsCommentsTable pins which comment becomes a field's Doc.
func TestFieldsCommentsTable(t *testing.T) {
	tests := []struct {
		name, decl, want string
	}{
		{"line comments joined", "  // one\n  // two\n  string f = 1;\n", "one\ntwo"},
		{"detached block dropped", "  // detached\n\n  string f = 1;\n", ""},
		{"only the adjacent block", "  // far\n\n  // near\n  string f = 1;\n", "near"},
		{"trailing when no leading", "  string f = 1; // after\n", "after"},
		{"leading wins over trailing", "  // before\n  string f = 1; // after\n", "before"},
		{"block comment", "  /* a\n   * b\n   */\n  string f = 1;\n", "a\nb"},
		{"previous field's trailing comment is not ours", "  string e = 2; // about e\n  string f = 1;\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "syntax = \"proto3\";\nmessage M {\n" + tt.decl + "}\n"
			s, err := protobuf.Parse(text, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range s.Fields() {
				if f.Name == "f" {
					if f.Doc != tt.want {
						t.Errorf("doc = %q, want %q", f.Doc, tt.want)
					}
					return
				}
			}
			t.Fatal("field f not listed")
		})
	}
}

// TestFieldsEmptyAndNil: a file without messages lists nothing.
func TestFieldsEmptyAndNil(t *testing.T) {
	s, err := protobuf.Parse("syntax = \"proto3\";\nenum E { E_UNSPECIFIED = 0; }\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Fields(); len(got) != 0 {
		t.Errorf("got %v, want no fields", got)
	}
	var nilSchema *protobuf.Schema
	if got := nilSchema.Fields(); got != nil {
		t.Errorf("nil schema: got %v", got)
	}
}

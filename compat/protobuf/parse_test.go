package protobuf_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/fuzztest"
	"github.com/charter-dev/charter/compat/protobuf"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		deps []compat.Dependency
		want string
	}{
		{"syntax error", "syntax = \"proto3\";\nmessage A {\n  int32 x = 1\n}\n", nil, "schema.proto:4:1: syntax error: expecting ';'"},
		{"empty", "", nil, ""},
		{"unknown syntax", `syntax = "proto4";`, nil, `schema.proto:1:10: syntax value must be "proto2" or "proto3"`},
		{"unresolved import", "syntax = \"proto3\";\nimport \"nope.proto\";\n", nil, `schema.proto:2:8: could not resolve path "nope.proto": file does not exist`},
		{"unknown type", "syntax = \"proto3\";\nmessage A {\n  Missing m = 1;\n}\n", nil, `schema.proto:3:3: field A.m: unknown type Missing`},
		{"duplicate number", "syntax = \"proto3\";\nmessage A { int32 x = 1; int32 y = 1; }\n", nil, `schema.proto:2:36: message A: fields x and y both have the same tag 1`},
		{"proto3 enum must start at zero", "syntax = \"proto3\";\nenum E { A = 1; }\n", nil, `schema.proto:2:14: enum E: proto3 requires that first value of enum have numeric value zero`},
		{"cyclic imports", "syntax = \"proto3\";\nimport \"a.proto\";\n", []compat.Dependency{
			{Name: "b.proto", Text: "syntax = \"proto3\";\nimport \"a.proto\";\n"},
			{Name: "a.proto", Text: "syntax = \"proto3\";\nimport \"b.proto\";\n"},
		}, `cycle found in imports`},
		{"error in a reference", "syntax = \"proto3\";\nimport \"a.proto\";\n", []compat.Dependency{
			{Name: "a.proto", Text: "syntax = \"proto3\";\nmessage {\n"},
		}, `a.proto:2:9: syntax error`},
		{"reference without name", "syntax = \"proto3\";\n", []compat.Dependency{{Text: "x"}}, "a reference has an empty name"},
		{"huge", strings.Repeat(" ", 5<<20), nil, "more than the 4194304 allowed"},
		{"binary junk", "\x00\xff\xfe syntax", nil, "schema.proto:1:1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := protobuf.Format{}.Parse(tc.text, tc.deps)
			if tc.want == "" {
				// An empty file is a valid (proto2) file with no messages.
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if _, err := s.(*protobuf.Schema).MessageName(nil); err == nil {
					t.Error("a file without messages resolved message index [0]")
				}
				return
			}
			if err == nil {
				t.Fatalf("Parse succeeded, want error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestParseImports(t *testing.T) {
	t.Run("well-known and Confluent imports need no reference", func(t *testing.T) {
		text := `syntax = "proto3";
import "google/protobuf/timestamp.proto";
import "confluent/meta.proto";
import "confluent/type/decimal.proto";
message Payment {
  option (confluent.message_meta).doc = "a payment";
  google.protobuf.Timestamp at = 1;
  confluent.type.Decimal amount = 2 [(confluent.field_meta).params = {key: "precision", value: "8"}];
}
`
		s, err := protobuf.Parse(text, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(s.Normalized(), "(confluent.field_meta) = {") {
			t.Errorf("custom option missing from normalized text:\n%s", s.Normalized())
		}
	})
	t.Run("a reference overrides an embedded file", func(t *testing.T) {
		deps := []compat.Dependency{{Name: "confluent/meta.proto", Text: "syntax = \"proto3\";\npackage confluent;\nmessage Own { string x = 1; }\n"}}
		if _, err := protobuf.Parse("syntax = \"proto3\";\nimport \"confluent/meta.proto\";\nmessage A { confluent.Own o = 1; }\n", deps); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a reference named like the schema file", func(t *testing.T) {
		deps := []compat.Dependency{{Name: "schema.proto", Text: "syntax = \"proto3\";\npackage dep;\nmessage D { string x = 1; }\n"}}
		s, err := protobuf.Parse("syntax = \"proto3\";\nimport \"schema.proto\";\nmessage A { dep.D d = 1; }\n", deps)
		if err != nil {
			t.Fatal(err)
		}
		if name, _ := s.MessageName([]int{0}); name != "A" {
			t.Errorf("first message is %q, want A", name)
		}
	})
}

// TestEmbeddedConfluentFiles: the embedded copies are the Apache-2.0 files
// of the conformance corpus plus an attribution header.
func TestEmbeddedConfluentFiles(t *testing.T) {
	dir := sharedDir(t, filepath.Join("conformance", "confluent", "protobuf"))
	for _, name := range []string{"confluent/meta.proto", "confluent/type/decimal.proto"} {
		upstream, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		ours, err := os.ReadFile(filepath.Join("include", name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(ours), "Apache License, Version 2.0") {
			t.Errorf("%s lacks its attribution", name)
		}
		if !strings.Contains(string(ours), strings.TrimSpace(string(upstream))) {
			t.Errorf("%s differs from upstream", name)
		}
	}
}

// FuzzParse: no input panics or takes more CPU than fuzztest.Bound
// allows; every accepted file's Canonical and Normalized texts parse
// again, Canonical is a fixed point, and its Fields can be listed.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*", "*.proto"))
	more, _ := filepath.Glob(filepath.Join("testdata", "*", "*", "*.proto"))
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("syntax = \"proto2\";\nmessage A { optional group G = 1 { optional int32 x = 2; } extensions 10 to max; }\n")
	f.Fuzz(func(t *testing.T, text string) {
		var s *protobuf.Schema
		var err error
		fuzztest.Bound(t, len(text), func() { s, err = protobuf.Parse(text, nil) })
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("error is not one line: %q", err)
			}
			return
		}
		c, err := protobuf.Parse(s.Canonical(), nil)
		if err != nil {
			t.Fatalf("canonical text does not parse: %v\n%s", err, s.Canonical())
		}
		if c.Canonical() != s.Canonical() {
			t.Fatalf("canonical text is not a fixed point:\n%s\n----\n%s", s.Canonical(), c.Canonical())
		}
		n, err := protobuf.Parse(s.Normalized(), nil)
		if err != nil {
			t.Fatalf("normalized text does not parse: %v\n%s", err, s.Normalized())
		}
		if n.Normalized() != s.Normalized() {
			t.Fatalf("normalized text is not a fixed point:\n%s\n----\n%s", s.Normalized(), n.Normalized())
		}
		fuzztest.Bound(t, len(text), func() { compat.Fields(s) })
	})
}

// FuzzCheckRead: no pair of files panics the checker in any profile or
// takes more CPU than fuzztest.Bound allows, and every violation has a
// rule ID, a path and a one-line message.
func FuzzCheckRead(f *testing.F) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "*", "reader.proto"))
	more, _ := filepath.Glob(filepath.Join("testdata", "*", "*", "reader.proto"))
	for _, r := range append(dirs, more...) {
		a, err1 := os.ReadFile(r)
		b, err2 := os.ReadFile(filepath.Join(filepath.Dir(r), "writer.proto"))
		if err1 == nil && err2 == nil {
			f.Add(string(a), string(b))
		}
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		r, err1 := protobuf.Parse(a, nil)
		w, err2 := protobuf.Parse(b, nil)
		if err1 != nil || err2 != nil {
			return
		}
		for _, p := range []protobuf.Profile{protobuf.ProfileRegistry, protobuf.ProfileRegistryJSON, protobuf.ProfileWire, protobuf.ProfileWireJSON} {
			var vs []compat.Violation
			fuzztest.Bound(t, len(a)+len(b), func() { vs = (protobuf.Format{Profile: p}).CheckRead(r, w) })
			for _, v := range vs {
				if !isRule(v.RuleID) || v.Path == "" || v.Message == "" || strings.ContainsAny(v.Message, "\n\r") {
					t.Errorf("bad violation %+v", v)
				}
			}
		}
		if vs := (protobuf.Format{}).CheckRead(r, r); len(vs) != 0 {
			t.Errorf("a schema cannot read itself: %v", vs)
		}
	})
}

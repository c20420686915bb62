package formats_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/compat/protobuf"
)

// TestTable: every format has a type name, lower-case extensions that no
// other format claims, and a rule table of its own.
func TestTable(t *testing.T) {
	want := map[compat.SchemaType][]string{compat.Avro: {".avsc"}, compat.Protobuf: {".proto"}, compat.JSON: {".json"}}
	got := map[compat.SchemaType][]string{}
	ruleIDs := map[string]compat.SchemaType{}
	for _, e := range formats.All() {
		got[e.Type] = e.Extensions
		if e.Format.Type() != e.Type || e.Name() != strings.ToLower(string(e.Type)) {
			t.Errorf("%s: Format.Type() %s, Name %q", e.Type, e.Format.Type(), e.Name())
		}
		rules := e.Rules()
		if len(rules) == 0 {
			t.Errorf("%s: no rules", e.Type)
		}
		for _, r := range rules {
			if r.Format != e.Type {
				t.Errorf("rule %s of %s says format %s", r.ID, e.Type, r.Format)
			}
			if other, dup := ruleIDs[r.ID]; dup {
				t.Errorf("rule %s listed by %s and %s", r.ID, other, e.Type)
			}
			ruleIDs[r.ID] = e.Type
		}
	}
	if len(got) != len(want) {
		t.Errorf("formats %v, want %v", got, want)
	}
	for typ, exts := range want {
		if !slices.Equal(got[typ], exts) {
			t.Errorf("%s: extensions %v, want %v", typ, got[typ], exts)
		}
	}
	if !slices.Equal(formats.All()[1].Profiles(), []string{"CONFLUENT", "WIRE", "WIRE_JSON"}) || formats.All()[0].Profiles() != nil {
		t.Errorf("profiles: Avro %v, Protobuf %v", formats.All()[0].Profiles(), formats.All()[1].Profiles())
	}
}

// TestParseMinimal parses testdata/minimal.* with the format their
// extension names: every format is in testdata, and parses.
func TestParseMinimal(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "minimal.*"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[compat.SchemaType]bool{}
	for _, file := range files {
		e, ok := formats.ByExtension(filepath.Ext(file))
		if !ok {
			t.Errorf("%s: no format for its extension", file)
			continue
		}
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s, err := e.Format.Parse(string(text), nil)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if s.Type() != e.Type || s.Canonical() == "" {
			t.Errorf("%s: parsed as %s, canonical %q", file, s.Type(), s.Canonical())
		}
		seen[e.Type] = true
	}
	for _, e := range formats.All() {
		if !seen[e.Type] {
			t.Errorf("%s: no testdata/minimal%s", e.Type, e.Extensions[0])
		}
	}
}

func TestByExtension(t *testing.T) {
	for _, tc := range []struct {
		ext  string
		want compat.SchemaType
	}{
		{".avsc", compat.Avro},
		{".AVSC", compat.Avro},
		{".Proto", compat.Protobuf},
		{".json", compat.JSON},
		{".JSON", compat.JSON},
		{".avro", ""}, // an Avro data file, not a schema
		{"avsc", ""},
		{".yaml", ""},
		{"", ""},
	} {
		e, ok := formats.ByExtension(tc.ext)
		if e.Type != tc.want || ok != (tc.want != "") {
			t.Errorf("ByExtension(%q) = %s, %v; want %q", tc.ext, e.Type, ok, tc.want)
		}
	}
	for file, want := range map[string]compat.SchemaType{
		"schemas/orders.avsc": compat.Avro, "proto/Shop.PROTO": compat.Protobuf, "a.schema.json": compat.JSON,
		"data/orders.avro": "", "README": "", "dir.avsc/file": "",
	} {
		if got := formats.OfFile(file); got != want {
			t.Errorf("OfFile(%q) = %q, want %q", file, got, want)
		}
	}
}

func TestParseType(t *testing.T) {
	for name, want := range map[string]compat.SchemaType{
		"avro": compat.Avro, "AVRO": compat.Avro, "Protobuf": compat.Protobuf, "json": compat.JSON,
		"avsc": "", "xml": "", "": "",
	} {
		got, ok := formats.ParseType(name)
		if got != want || ok != (want != "") {
			t.Errorf("ParseType(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		typ     compat.SchemaType
		profile string
		want    compat.Format
		err     string
	}{
		{compat.Protobuf, "", protobuf.Format{}, ""},
		{compat.Protobuf, "CONFLUENT", protobuf.Format{Profile: protobuf.ProfileRegistry}, ""},
		{compat.Protobuf, "WIRE", protobuf.Format{Profile: protobuf.ProfileWire}, ""},
		{compat.Protobuf, "wire_json", protobuf.Format{Profile: protobuf.ProfileWireJSON}, ""},
		{compat.Protobuf, "STRICT", nil, `unknown Protobuf profile "STRICT": want CONFLUENT, WIRE, WIRE_JSON`},
		{compat.Avro, "WIRE", nil, `AVRO has no rule profiles (asked for "WIRE")`},
		{"XML", "", nil, `unknown schema type "XML"`},
	} {
		f, err := formats.Lookup(tc.typ, tc.profile)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("Lookup(%s, %q): error %v, want %q", tc.typ, tc.profile, err, tc.err)
			}
			continue
		}
		if err != nil || f != tc.want {
			t.Errorf("Lookup(%s, %q) = %#v, %v; want %#v", tc.typ, tc.profile, f, err, tc.want)
		}
	}
	if f, err := formats.Lookup(compat.Avro, ""); err != nil || f.Type() != compat.Avro {
		t.Errorf("Lookup(AVRO, \"\") = %v, %v", f, err)
	}
}

// TestDefaults: the registry's formats give Confluent's verdicts: Protobuf
// with the CONFLUENT profile, JSON Schema with the STRICT policy.
func TestDefaults(t *testing.T) {
	got := map[compat.SchemaType]compat.Format{}
	for _, f := range formats.Formats() {
		got[f.Type()] = f
	}
	if len(got) != 3 || got[compat.Avro] == nil {
		t.Fatalf("Formats() = %v, want AVRO, PROTOBUF and JSON", got)
	}
	if f, ok := got[compat.Protobuf].(protobuf.Format); !ok || f.Profile != protobuf.ProfileRegistry {
		t.Errorf("Protobuf format = %#v, want protobuf.Format with ProfileRegistry", got[compat.Protobuf])
	}
	if f, ok := got[compat.JSON].(jsonschema.Format); !ok || (f.Policy != "" && f.Policy != jsonschema.Strict) {
		t.Errorf("JSON Schema format = %#v, want jsonschema.Format with the STRICT policy", got[compat.JSON])
	}
}

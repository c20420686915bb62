package avro_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
)

func mustParse(tb testing.TB, text string, deps ...compat.Dependency) compat.Schema {
	tb.Helper()
	s, err := avro.Format{}.Parse(text, deps)
	if err != nil {
		tb.Fatalf("parse %s: %v", text, err)
	}
	return s
}

// TestCanonicalGolden compares Canonical and Normalized of every
// testdata/canonical/<case>/input.avsc with its golden files, and checks
// that both re-parse to themselves.
func TestCanonicalGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "canonical", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no canonical cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(dir, "input.avsc"))
			if err != nil {
				t.Fatal(err)
			}
			s := mustParse(t, string(in))
			for _, g := range []struct{ file, got string }{
				{"canonical.golden", s.Canonical()},
				{"normalized.golden", s.Normalized()},
			} {
				path := filepath.Join(dir, g.file)
				if *update {
					if err := os.WriteFile(path, []byte(g.got+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if g.got != strings.TrimSuffix(string(want), "\n") {
					t.Errorf("%s:\n got: %s\nwant: %s", g.file, g.got, want)
				}
				// Stored text must parse back to the same text.
				again := mustParse(t, g.got)
				if g.file == "canonical.golden" && again.Canonical() != g.got {
					t.Errorf("canonical text is not a fixed point:\n1st: %s\n2nd: %s", g.got, again.Canonical())
				}
				if again.Normalized() != s.Normalized() {
					t.Errorf("%s re-parsed normalizes differently:\n1st: %s\n2nd: %s", g.file, s.Normalized(), again.Normalized())
				}
			}
		})
	}
}

func TestCanonicalEqual(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want string // Canonical of both
	}{
		{
			name: "whitespace around a primitive",
			a:    `{"type":"string"}`,
			b:    "{ \"type\" :\n \"string\" }",
			want: `"string"`,
		},
		{
			name: "bare and object primitive",
			a:    `"long"`,
			b:    `{"type": "long"}`,
			want: `"long"`,
		},
		{
			name: "inherited namespace equals explicit same namespace",
			a:    `{"type":"record","name":"A","namespace":"ex","fields":[{"name":"b","type":{"type":"record","name":"B","fields":[]}}]}`,
			b:    `{"type":"record","name":"A","namespace":"ex","fields":[{"name":"b","type":{"type":"record","name":"B","namespace":"ex","fields":[]}}]}`,
			want: `{"type":"record","name":"A","namespace":"ex","fields":[{"name":"b","type":{"type":"record","name":"B","fields":[]}}]}`,
		},
		{
			name: "full name equals name plus namespace",
			a:    `{"type":"fixed","name":"ex.F","size":4}`,
			b:    `{"size":4,"namespace":"ex","name":"F","type":"fixed"}`,
			want: `{"type":"fixed","name":"F","namespace":"ex","size":4}`,
		},
		{
			name: "key order of attributes does not matter, defaults are kept",
			a:    `{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":0,"doc":"x"}]}`,
			b:    `{"fields":[{"doc":"x","default":0,"type":"int","name":"a"}],"name":"R","type":"record"}`,
			want: `{"type":"record","name":"R","fields":[{"name":"a","type":"int","doc":"x","default":0}]}`,
		},
		{
			name: "escaped and literal characters",
			a:    `{"type":"enum","name":"E","doc":"caf\u00e9","symbols":["A"]}`,
			b:    `{"type":"enum","name":"E","doc":"café","symbols":["A"]}`,
			want: `{"type":"enum","name":"E","doc":"café","symbols":["A"]}`,
		},
		{
			name: "explicit ascending order is the default",
			a:    `{"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"ascending"}]}`,
			b:    `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`,
			want: `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`,
		},
		{
			name: "double default spelled two ways",
			a:    `{"type":"record","name":"R","fields":[{"name":"a","type":"double","default":1.0}]}`,
			b:    `{"type":"record","name":"R","fields":[{"name":"a","type":"double","default":1.00e0}]}`,
			want: `{"type":"record","name":"R","fields":[{"name":"a","type":"double","default":1.0}]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := mustParse(t, tc.a), mustParse(t, tc.b)
			if a.Canonical() != tc.want {
				t.Errorf("Canonical(a) = %s, want %s", a.Canonical(), tc.want)
			}
			if b.Canonical() != tc.want {
				t.Errorf("Canonical(b) = %s, want %s", b.Canonical(), tc.want)
			}
			if a.Normalized() != b.Normalized() {
				t.Errorf("Normalized differs:\n%s\n%s", a.Normalized(), b.Normalized())
			}
		})
	}
}

// TestCanonicalDiffers lists changes that must give a new schema ID:
// Canonical keeps everything a user or a reader can see.
func TestCanonicalDiffers(t *testing.T) {
	base := `{"type":"record","name":"R","namespace":"ex","doc":"d","fields":[{"name":"a","type":"int","default":1,"aliases":["x"],"p":1}]}`
	tests := map[string]string{
		"default":        `{"type":"record","name":"R","namespace":"ex","doc":"d","fields":[{"name":"a","type":"int","default":2,"aliases":["x"],"p":1}]}`,
		"no default":     `{"type":"record","name":"R","namespace":"ex","doc":"d","fields":[{"name":"a","type":"int","aliases":["x"],"p":1}]}`,
		"doc":            `{"type":"record","name":"R","namespace":"ex","doc":"e","fields":[{"name":"a","type":"int","default":1,"aliases":["x"],"p":1}]}`,
		"field alias":    `{"type":"record","name":"R","namespace":"ex","doc":"d","fields":[{"name":"a","type":"int","default":1,"aliases":["y"],"p":1}]}`,
		"custom prop":    `{"type":"record","name":"R","namespace":"ex","doc":"d","fields":[{"name":"a","type":"int","default":1,"aliases":["x"],"p":2}]}`,
		"namespace":      `{"type":"record","name":"R","namespace":"ey","doc":"d","fields":[{"name":"a","type":"int","default":1,"aliases":["x"],"p":1}]}`,
		"field order":    `{"type":"record","name":"R","namespace":"ex","doc":"d","fields":[{"name":"a","type":"int","default":1,"aliases":["x"],"p":1,"order":"ignore"}]}`,
		"type":           `{"type":"record","name":"R","namespace":"ex","doc":"d","fields":[{"name":"a","type":"long","default":1,"aliases":["x"],"p":1}]}`,
		"logical type":   `{"type":"record","name":"R","namespace":"ex","doc":"d","fields":[{"name":"a","type":{"type":"int","logicalType":"date"},"default":1,"aliases":["x"],"p":1}]}`,
		"confluent tags": `{"type":"record","name":"R","namespace":"ex","doc":"d","fields":[{"name":"a","type":"int","default":1,"aliases":["x"],"p":1,"confluent:tags":["PII"]}]}`,
	}
	b := mustParse(t, base)
	for name, text := range tests {
		s := mustParse(t, text)
		if s.Canonical() == b.Canonical() {
			t.Errorf("%s: Canonical equal to base: %s", name, s.Canonical())
		}
		if s.Normalized() == b.Normalized() {
			t.Errorf("%s: Normalized equal to base: %s", name, s.Normalized())
		}
	}
}

// TestNormalizedEqual lists differences Canonical keeps (Java keeps them)
// but Normalized removes.
func TestNormalizedEqual(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{
			"property order",
			`{"type":"record","name":"R","fields":[],"x":1,"y":{"b":1,"a":2}}`,
			`{"type":"record","name":"R","fields":[],"y":{"a":2,"b":1},"x":1}`,
		},
		{
			"alias order and qualification",
			`{"type":"record","name":"R","namespace":"ex","aliases":["B","ex.A"],"fields":[]}`,
			`{"type":"record","name":"R","namespace":"ex","aliases":["A","ex.B"],"fields":[]}`,
		},
		{
			"decimal scale 0 and logical attribute order",
			`{"type":"bytes","logicalType":"decimal","precision":4,"scale":0}`,
			`{"precision":4,"type":"bytes","logicalType":"decimal"}`,
		},
		{
			"default object key order",
			`{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":"int"},"default":{"a":1,"b":2}}]}`,
			`{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":"int"},"default":{"b":2,"a":1}}]}`,
		},
		{
			"field property order",
			`{"type":"record","name":"R","fields":[{"name":"a","type":"int","x":1,"confluent:tags":["PII"]}]}`,
			`{"type":"record","name":"R","fields":[{"name":"a","type":"int","confluent:tags":["PII"],"x":1}]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := mustParse(t, tc.a), mustParse(t, tc.b)
			if a.Canonical() == b.Canonical() {
				t.Errorf("Canonical unexpectedly equal (the case tests Normalized only): %s", a.Canonical())
			}
			if a.Normalized() != b.Normalized() {
				t.Errorf("Normalized differs:\n%s\n%s", a.Normalized(), b.Normalized())
			}
		})
	}
}

// TestReferences parses a schema using a named type from a dependency.
func TestReferences(t *testing.T) {
	address := compat.Dependency{
		Name: "com.example.Address",
		Text: `{"type":"record","name":"Address","namespace":"com.example","fields":[{"name":"city","type":"string"}]}`,
	}
	country := compat.Dependency{
		Name: "com.example.Country",
		Text: `{"type":"enum","name":"com.example.Country","symbols":["NL","BE"]}`,
	}
	text := `{"type":"record","name":"Customer","namespace":"com.example","fields":[
		{"name":"home","type":"Address"},
		{"name":"work","type":["null","com.example.Address"],"default":null},
		{"name":"country","type":"Country"}]}`
	s := mustParse(t, text, address, country)
	wantCanonical := `{"type":"record","name":"Customer","namespace":"com.example","fields":[` +
		`{"name":"home","type":"Address"},{"name":"work","type":["null","Address"],"default":null},{"name":"country","type":"Country"}]}`
	if s.Canonical() != wantCanonical {
		t.Errorf("Canonical = %s\nwant        %s", s.Canonical(), wantCanonical)
	}
	wantNormalized := `{"name":"com.example.Customer","type":"record","fields":[` +
		`{"name":"home","type":"com.example.Address"},{"name":"work","type":["null","com.example.Address"],"default":null},` +
		`{"name":"country","type":"com.example.Country"}]}`
	if s.Normalized() != wantNormalized {
		t.Errorf("Normalized = %s\nwant         %s", s.Normalized(), wantNormalized)
	}

	// Without the dependency the name is unknown.
	if _, err := (avro.Format{}).Parse(text, []compat.Dependency{address}); err == nil ||
		!strings.Contains(err.Error(), `unknown type "Country"`) {
		t.Errorf("missing reference: err = %v", err)
	}
	// A broken dependency is named in the error.
	_, err := avro.Format{}.Parse(text, []compat.Dependency{{Name: "com.example.Address", Text: `{"type":"record"}`}})
	if err == nil || !strings.HasPrefix(err.Error(), `reference "com.example.Address": `) {
		t.Errorf("broken reference: err = %v", err)
	}

	// The checker follows referenced types: the new Address adds a field
	// without a default.
	address2 := compat.Dependency{
		Name: address.Name,
		Text: `{"type":"record","name":"Address","namespace":"com.example","fields":[{"name":"city","type":"string"},{"name":"zip","type":"string"}]}`,
	}
	s2 := mustParse(t, text, address2, country)
	got := avro.Format{}.CheckRead(s2, s)
	if len(got) != 2 || got[0].Path != ".home.zip" || got[1].Path != ".work<com.example.Address>.zip" ||
		got[0].RuleID != avro.RuleReaderFieldMissingDefault || got[1].RuleID != avro.RuleReaderFieldMissingDefault {
		t.Errorf("CheckRead through references = %v", got)
	}
}

// TestSeparateCaches parses two versions of one record name: each Parse has
// its own names, so the second does not see (or collide with) the first.
func TestSeparateCaches(t *testing.T) {
	v1 := mustParse(t, `{"type":"record","name":"ex.R","fields":[{"name":"a","type":"int"}]}`)
	v2 := mustParse(t, `{"type":"record","name":"ex.R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}`)
	if v1.Canonical() == v2.Canonical() {
		t.Fatal("two versions of ex.R share canonical text")
	}
	got := avro.Format{}.CheckRead(v2, v1)
	if len(got) != 1 || got[0].Path != ".b" {
		t.Errorf("CheckRead(v2, v1) = %v", got)
	}
	hs := v2.(*avro.Schema).Hamba()
	if hs == nil || !strings.Contains(hs.String(), `"b"`) {
		t.Errorf("hamba schema of v2 = %v", hs)
	}
}

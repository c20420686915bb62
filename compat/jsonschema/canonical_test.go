package jsonschema_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCanonicalGolden checks Canonical and Normalized of every
// testdata/canonical/<case>/input.json against canonical.json and
// normalized.json (rewrite with -update), and that both texts parse back to
// themselves.
func TestCanonicalGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "canonical", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no canonical cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			s := mustParseFile(t, filepath.Join(dir, "input.json"))
			for _, g := range []struct{ file, got string }{
				{"canonical.json", s.Canonical()},
				{"normalized.json", s.Normalized()},
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
					t.Errorf("%s:\n got  %s\n want %s", g.file, g.got, want)
				}
			}
			again := mustParse(t, s.Canonical())
			if again.Canonical() != s.Canonical() || again.Normalized() != s.Normalized() {
				t.Errorf("canonical text does not read back to itself:\n%s\n%s", s.Canonical(), again.Canonical())
			}
			if n := mustParse(t, s.Normalized()); n.Normalized() != s.Normalized() {
				t.Errorf("normalized text is not a fixed point:\n%s\n%s", s.Normalized(), n.Normalized())
			}
		})
	}
}

// TestNormalizedEquivalence checks that schemas equal in meaning share a
// Normalized text (and so an ID under normalize=true), and that schemas
// that differ in meaning, or in order that tools rely on, do not.
func TestNormalizedEquivalence(t *testing.T) {
	same := [][2]string{
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`,
			"{\n  \"properties\": {\"b\": {\"type\": \"integer\"}, \"a\": {\"type\": \"string\"}},\n  \"type\": \"object\"\n}"},
		{`{"required":["a","b"],"properties":{"a":{},"b":{}}}`, `{"properties":{"a":{},"b":{}},"required":["b","a"]}`},
		{`{"type":["string","null"]}`, `{"type":["null","string"]}`},
		{`{"type":"number","maximum":10,"multipleOf":0.5}`, `{"type":"number","maximum":10.0,"multipleOf":5E-1}`},
		{`{"type":"string","$comment":"why"}`, `{"type":"string"}`},
		{`{"dependentRequired":{"a":["c","b"]}}`, `{"dependentRequired":{"a":["b","c"]}}`},
		{`{"default":{"x":1,"y":2}}`, `{"default":{"y":2,"x":1}}`},
	}
	for _, p := range same {
		a, b := mustParse(t, p[0]), mustParse(t, p[1])
		if a.Normalized() != b.Normalized() {
			t.Errorf("want one normalized text:\n %s -> %s\n %s -> %s", p[0], a.Normalized(), p[1], b.Normalized())
		}
	}
	differ := [][2]string{
		{`{"enum":["a","b"]}`, `{"enum":["b","a"]}`},
		{`{"anyOf":[{"type":"string"},{"type":"null"}]}`, `{"anyOf":[{"type":"null"},{"type":"string"}]}`},
		{`{"properties":{"required":{"enum":["b","a"]}}}`, `{"properties":{"required":{"enum":["a","b"]}}}`},
		{`{"const":["b","a"]}`, `{"const":["a","b"]}`},
		{`{"title":"x"}`, `{"title":"y"}`},
	}
	for _, p := range differ {
		a, b := mustParse(t, p[0]), mustParse(t, p[1])
		if a.Normalized() == b.Normalized() {
			t.Errorf("want different normalized texts: %s and %s both give %s", p[0], p[1], a.Normalized())
		}
	}
}

package jsonschema_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/fuzztest"
	"github.com/charter-dev/charter/compat/jsonschema"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		deps []compat.Dependency
		want []string // substrings of the one-line error
	}{
		{name: "unterminated", text: `{"type": "object"`,
			want: []string{"invalid JSON at line 1, column 18", "want ',' or '}'"}},
		{name: "bad literal with position", text: "{\n  \"a\": 1,\n  \"b\": tru\n}",
			want: []string{"invalid JSON at line 3, column 8"}},
		{name: "trailing text", text: `{} {}`, want: []string{"line 1, column 4", "after the JSON value"}},
		{name: "array root", text: `[1, 2]`, want: []string{"must be an object or a boolean, not an array"}},
		{name: "string root", text: `"x"`, want: []string{"must be an object or a boolean, not a string"}},
		{name: "unknown type", text: `{"type": "strin"}`, want: []string{"invalid JSON schema", "at #/type", "must be one of"}},
		{name: "negative length", text: `{"properties": {"a": {"minLength": -1}}}`,
			want: []string{"at #/properties/a/minLength", "got -1, want 0"}},
		{name: "properties not an object", text: `{"properties": 5}`, want: []string{"at #/properties: got number, want object"}},
		{name: "required not an array", text: `{"required": "foo"}`, want: []string{"at #/required: got string, want array"}},
		{name: "draft-06 exclusiveMinimum boolean", text: `{"$schema": "http://json-schema.org/draft-06/schema#", "exclusiveMinimum": true}`,
			want: []string{"at #/exclusiveMinimum: got boolean, want number"}},
		{name: "invalid regex", text: `{"properties": {"a": {"pattern": "([a-z"}}}`,
			want: []string{"at #/properties/a/pattern", "not valid regex"}},
		{name: "pointer not found", text: `{"$ref": "#/definitions/missing"}`, want: []string{`"#/definitions/missing" not found`}},
		// A chain of references that loops without reaching a schema
		// validates nothing a validator can decide; read as any schema it
		// would make a compatibility verdict up.
		{name: "self reference", text: `{"$ref": "#"}`, want: []string{"the references # → # loop without reaching a schema"}},
		{name: "reference loop", text: `{"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}, "properties": {"x": {"$ref": "#/definitions/a"}}}`,
			want: []string{"#/definitions/a", "#/definitions/b", "loop without reaching a schema"}},
		{name: "remote ref refused", text: `{"$ref": "http://example.com/x.json"}`,
			want: []string{`unresolved reference "http://example.com/x.json"`, "never loads schemas over the network"}},
		{name: "missing reference", text: `{"properties": {"a": {"$ref": "address.json"}}}`,
			want: []string{`unresolved reference "address.json"`}},
		{name: "invalid reference", text: `{"properties": {"a": {"$ref": "address.json"}}}`,
			deps: []compat.Dependency{{Name: "address.json", Text: `{"type": "strin"}`}},
			want: []string{`invalid JSON schema (reference "address.json")`, "at #/type"}},
		{name: "reference not JSON", text: `{}`,
			deps: []compat.Dependency{{Name: "address.json", Text: `{"type"`}},
			want: []string{`reference "address.json": invalid JSON at line 1, column 8`}},
		{name: "reference given twice", text: `{}`,
			deps: []compat.Dependency{{Name: "a.json", Text: `{}`}, {Name: "a.json", Text: `{}`}},
			want: []string{`reference "a.json": given twice`}},
		{name: "huge exponent", text: `{"minimum": 1e99999}`, want: []string{"exponent out of range"}},
		{name: "deep nesting", text: strings.Repeat(`{"not":`, 600) + `{}` + strings.Repeat(`}`, 600),
			want: []string{"nesting deeper than 512 levels"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := jsonschema.Parse(tc.text, tc.deps)
			if err == nil {
				t.Fatalf("Parse = %q, want an error", s.Canonical())
			}
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") {
				t.Errorf("error is not one line: %q", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		draft int
	}{
		{name: "no $schema is draft-07", text: `{"type": "string"}`, draft: 7},
		{name: "boolean schema", text: `true`, draft: 7},
		{name: "draft-04", text: `{"$schema": "http://json-schema.org/draft-04/schema#", "id": "x", "minimum": 1, "exclusiveMinimum": true}`, draft: 4},
		{name: "unversioned $schema is draft-04 (Confluent)", text: `{"$schema": "http://json-schema.org/schema#", "type": "string"}`, draft: 4},
		{name: "draft-06", text: `{"$schema": "http://json-schema.org/draft-06/schema#", "const": 1}`, draft: 6},
		{name: "draft-07 https", text: `{"$schema": "https://json-schema.org/draft-07/schema", "if": {}, "then": {}}`, draft: 7},
		{name: "2019-09", text: `{"$schema": "https://json-schema.org/draft/2019-09/schema", "dependentRequired": {"a": ["b"]}}`, draft: 2019},
		{name: "2020-12", text: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "prefixItems": [{"type": "string"}], "items": false}`, draft: 2020},
		{name: "unknown $schema is draft-07 (Confluent)", text: `{"$schema": "http://example.com/my-dialect", "type": "string"}`, draft: 7},
		{name: "confluent:tags and unknown keywords", text: `{"type": "object", "properties": {"ssn": {"type": "string", "confluent:tags": ["PII"]}}, "x-owner": {"team": "payments"}, "connect.type": "bytes"}`, draft: 7},
		{name: "ECMA lookbehind pattern", text: `{"type": "string", "pattern": "(?<=x)y"}`, draft: 7},
		{name: "ECMA backreference in patternProperties", text: `{"patternProperties": {"^(a)\\1$": {}}}`, draft: 7},
		{name: "meta-schema reference", text: `{"$ref": "http://json-schema.org/draft-07/schema#"}`, draft: 7},
		{name: "recursion through a schema", text: `{"type": "object", "properties": {"next": {"$ref": "#"}}}`, draft: 7},
		{name: "anchor by $id", text: `{"properties": {"home": {"$ref": "#Address"}}, "definitions": {"Address": {"$id": "#Address", "type": "object"}}}`, draft: 7},
		{name: "dynamicRef", text: `{"$schema": "https://json-schema.org/draft/2020-12/schema", "$dynamicRef": "#meta", "$defs": {"x": {"$dynamicAnchor": "meta", "type": "string"}}}`, draft: 2020},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := jsonschema.Parse(tc.text, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Draft() != tc.draft {
				t.Errorf("Draft() = %d, want %d", s.Draft(), tc.draft)
			}
			if v := (jsonschema.Format{}).CheckRead(s, s); len(v) != 0 {
				t.Errorf("schema cannot read itself: %v", v)
			}
		})
	}
}

// TestReferences checks that $refs to schema references resolve (also
// through a root $id, across nested references and into definitions of a
// reference with its own $id), and that changes inside a reference are
// found at the path of the referring property.
func TestReferences(t *testing.T) {
	address := func(street string) compat.Dependency {
		return compat.Dependency{Name: "address.json", Text: `{"type": "object", "properties": {"street": ` + street + `}, "additionalProperties": false}`}
	}
	const person = `{"type": "object", "properties": {"name": {"type": "string"}, "home": {"$ref": "address.json"}}, "additionalProperties": false}`
	v1 := mustParse(t, person, address(`{"type": "string"}`))
	v2 := mustParse(t, person, address(`{"type": "string", "maxLength": 20}`))
	got := jsonschema.Format{}.CheckRead(v2, v1)
	if len(got) != 1 || got[0].RuleID != "JSON_MAX_LENGTH_ADDED" || got[0].Path != "#/properties/home/properties/street/maxLength" {
		t.Errorf("reference change: got %v", got)
	}
	if got := (jsonschema.Format{}).CheckRead(v1, v2); len(got) != 0 {
		t.Errorf("relaxed reference: got %v", got)
	}

	// A root $id moves the base; references are registered against it.
	withID := `{"$id": "https://example.com/schemas/order.json", "type": "object", "properties": {"ship": {"$ref": "address.json"}}}`
	country := func(t string) compat.Dependency { return compat.Dependency{Name: "country.json", Text: t} }
	nested := func(c string) []compat.Dependency {
		return []compat.Dependency{country(c), {Name: "address.json", Text: `{"type": "object", "properties": {"country": {"$ref": "country.json"}}}`}}
	}
	a := mustParse(t, withID, nested(`{"type": "string"}`)...)
	b := mustParse(t, withID, nested(`{"type": "integer"}`)...)
	got = jsonschema.Format{}.CheckRead(b, a)
	if len(got) != 1 || got[0].RuleID != jsonschema.RuleTypeChanged || got[0].Path != "#/properties/ship/properties/country" {
		t.Errorf("nested reference change: got %v", got)
	}

	// A fragment into a reference that declares its own $id.
	defs := func(t string) compat.Dependency {
		return compat.Dependency{Name: "common.json", Text: `{"$id": "https://other.example/common.json", "definitions": {"Code": ` + t + `}}`}
	}
	const useDef = `{"type": "object", "properties": {"code": {"$ref": "common.json#/definitions/Code"}}}`
	c1 := mustParse(t, useDef, defs(`{"type": "string", "enum": ["A", "B"]}`))
	c2 := mustParse(t, useDef, defs(`{"type": "string", "enum": ["A"]}`))
	got = jsonschema.Format{}.CheckRead(c2, c1)
	// {"type", "enum"} is two parts held by an allOf, as in Confluent.
	if len(got) != 1 || got[0].RuleID != "JSON_COMBINED_TYPE_SUBSCHEMAS_CHANGED" || got[0].Path != "#/properties/code" ||
		!strings.Contains(got[0].Message, `writer's enum ["A","B"] with string`) {
		t.Errorf("definition in a reference: got %v", got)
	}
}

// TestRecursiveSchemas checks the cycle guard: recursive definitions are
// compared to the end of the first cycle, and a change inside the cycle is
// found.
func TestRecursiveSchemas(t *testing.T) {
	tree := func(name string) string {
		return `{"$ref": "#/definitions/Node", "definitions": {"Node": {"type": "object", "properties": {"name": ` + name +
			`, "children": {"type": "array", "items": {"$ref": "#/definitions/Node"}}}}}}`
	}
	v1 := mustParse(t, tree(`{"type": "string"}`))
	v2 := mustParse(t, tree(`{"type": "string", "maxLength": 5}`))
	got := jsonschema.Format{}.CheckRead(v2, v1)
	var paths []string
	for _, v := range got {
		paths = append(paths, v.RuleID+" "+v.Path)
	}
	// The change is reported where the cycle is first entered and, as
	// Confluent's fixpoint does, where it re-enters.
	want := []string{"JSON_MAX_LENGTH_ADDED #/properties/name/maxLength",
		"JSON_MAX_LENGTH_ADDED #/properties/children/items/properties/name/maxLength"}
	if !slices.Equal(paths, want) {
		t.Errorf("got %v, want %v", paths, want)
	}
	// Mutually recursive definitions reached from two properties.
	mutual := func(leaf string) string {
		return `{"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}, "b": {"$ref": "#/definitions/B"}},
			"definitions": {"A": {"type": "object", "properties": {"b": {"$ref": "#/definitions/B"}, "v": ` + leaf + `}},
			"B": {"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}}}}}`
	}
	m1, m2 := mustParse(t, mutual(`{"type": "number"}`)), mustParse(t, mutual(`{"type": "integer"}`))
	got = jsonschema.Format{}.CheckRead(m2, m1)
	if len(got) == 0 {
		t.Fatal("narrowing inside mutually recursive definitions not found")
	}
	for _, v := range got {
		if v.RuleID != "JSON_TYPE_NARROWED" || !strings.HasSuffix(v.Path, "/properties/v") {
			t.Errorf("unexpected violation %v", v)
		}
	}
	if got := (jsonschema.Format{}).CheckRead(m1, m2); len(got) != 0 {
		t.Errorf("widening inside recursive definitions: %v", got)
	}
}

// seedSchemas returns every schema in testdata, for the fuzz corpora.
func seedSchemas(tb testing.TB) []string {
	tb.Helper()
	var out []string
	for _, pattern := range []string{"testdata/*/*.json", "testdata/*/*/*.json"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			tb.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "want.json") || strings.HasSuffix(f, "case.json") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, string(b))
		}
	}
	return out
}

// FuzzParse: Parse never panics or takes more CPU than fuzztest.Bound
// allows, errors are one line, Canonical and Normalized read back to
// themselves, and the Fields of a schema can be listed.
func FuzzParse(f *testing.F) {
	for _, s := range seedSchemas(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var s *jsonschema.Schema
		var err error
		fuzztest.Bound(t, len(text), func() { s, err = jsonschema.Parse(text, nil) })
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("error is not one line: %q", err)
			}
			return
		}
		again, err := jsonschema.Parse(s.Canonical(), nil)
		if err != nil {
			t.Fatalf("canonical text does not parse: %v\ninput: %s\ncanonical: %s", err, text, s.Canonical())
		}
		if again.Canonical() != s.Canonical() {
			t.Fatalf("canonical not a fixed point:\n1st: %s\n2nd: %s", s.Canonical(), again.Canonical())
		}
		norm, err := jsonschema.Parse(s.Normalized(), nil)
		if err != nil {
			t.Fatalf("normalized text does not parse: %v\nnormalized: %s", err, s.Normalized())
		}
		if norm.Normalized() != s.Normalized() {
			t.Fatalf("normalized not a fixed point:\n1st: %s\n2nd: %s", s.Normalized(), norm.Normalized())
		}
		if v := (jsonschema.Format{}).CheckRead(s, s); len(v) != 0 {
			t.Fatalf("schema cannot read itself: %v\n%s", v, text)
		}
		fuzztest.Bound(t, len(text), func() { compat.Fields(s) })
	})
}

// FuzzCheckRead: CheckRead never panics on any pair of valid schemas, in
// either direction, nor takes more CPU than fuzztest.Bound allows, and
// every violation names a registered rule, a JSON pointer and a one-line
// message.
func FuzzCheckRead(f *testing.F) {
	seeds := seedSchemas(f)
	for i := 0; i+1 < len(seeds); i++ {
		f.Add(seeds[i], seeds[i+1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ra, err := jsonschema.Parse(a, nil)
		if err != nil {
			return
		}
		rb, err := jsonschema.Parse(b, nil)
		if err != nil {
			return
		}
		for _, p := range []jsonschema.Policy{jsonschema.Strict, jsonschema.Lenient} {
			f := jsonschema.Format{Policy: p}
			var ab, ba []compat.Violation
			fuzztest.Bound(t, len(a)+len(b), func() { ab, ba = f.CheckRead(ra, rb), f.CheckRead(rb, ra) })
			for _, vs := range [][]compat.Violation{ab, ba} {
				for _, v := range vs {
					if !isRule(v.RuleID) || !strings.HasPrefix(v.Path, "#/") ||
						v.Message == "" || strings.ContainsAny(v.Message, "\n\r") {
						t.Fatalf("bad violation %+v", v)
					}
				}
			}
		}
	})
}

package avro_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/fuzztest"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"empty", ``, "invalid JSON at line 1, column 1: unexpected end of input"},
		{"bare name", `string`, "invalid JSON at line 1, column 1"},
		{"syntax error position", "{\n  \"type\": \"record\",\n  \"fields\": [}\n", "invalid JSON at line 3, column 14"},
		{"trailing text", `"int" x`, `unexpected 'x' after the schema`},
		{"deep nesting", strings.Repeat("[", 600), "nested deeper than 512 levels"},
		{"JSON null", `null`, "a schema must be a JSON string, object or array"},
		{"number", `1`, "a schema must be a JSON string, object or array"},
		{"unknown type", `{"type":"recrd"}`, `unknown type "recrd"`},
		{"no type", `{"name":"R"}`, `schema object has no "type"`},
		{"record without name", `{"type":"record","fields":[]}`, `record has no "name"`},
		{"record without fields", `{"type":"record","name":"R"}`, `record "R" must have an array of fields`},
		{"invalid name", `{"type":"record","name":"1R","fields":[]}`, `invalid name "1R"`},
		{"invalid namespace", `{"type":"record","name":"R","namespace":"a..b","fields":[]}`, `invalid name "a..b": empty part`},
		{"primitive redefined", `{"type":"fixed","name":"int","size":1}`, `may not redefine the primitive type "int"`},
		{"duplicate field", `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]}`, `record "R" has two fields named "a"`},
		{"duplicate type", `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"R","fields":[]}}]}`, `type "R" is defined twice`},
		{"unknown reference", `{"type":"record","name":"R","fields":[{"name":"a","type":"Missing"}]}`, `record "R" field 0: field "a": unknown type "Missing"`},
		{"field without type", `{"type":"record","name":"R","fields":[{"name":"a"}]}`, `field "a" has no type`},
		{"bad order", `{"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"up"}]}`, `order must be "ascending", "descending" or "ignore"`},
		{"duplicate symbol", `{"type":"enum","name":"E","symbols":["A","A"]}`, `enum "E" has symbol "A" twice`},
		{"enum default not a symbol", `{"type":"enum","name":"E","symbols":["A"],"default":"B"}`, `default must be one of its symbols`},
		{"array without items", `{"type":"array"}`, `array has no "items"`},
		{"map without values", `{"type":"map","items":"int"}`, `map has no "values"`},
		{"duplicate union branch", `["int","int"]`, `union contains int more than once`},
		{"union of logical and plain long", `["long",{"type":"long","logicalType":"timestamp-millis"}]`, `union contains long more than once`},
		{"nested union", `["null",["int"]]`, `may not immediately contain another union`},
		{"negative fixed size", `{"type":"fixed","name":"F","size":-1}`, `non-negative integer size`},
		{"huge fixed size", `{"type":"fixed","name":"F","size":99999999999}`, `size 99999999999 is larger than 16777216`},
		{"string default for int", `{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]}`, `field "a": default "x" is not a valid int`},
		{"fractional int default", `{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":1.5}]}`, `default 1.5 is not a valid int`},
		{"int default out of range", `{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":3000000000}]}`, `default 3000000000 is not a valid int`},
		{"union default not first branch", `{"type":"record","name":"R","fields":[{"name":"a","type":["null","int"],"default":1}]}`, `default 1 is not a valid value of the union's first branch (null)`},
		{"record default missing field", `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"S","fields":[{"name":"x","type":"int"}]},"default":{}}]}`, `default {} is not a valid S`},
		// Java Avro falls back to the null namespace for a simple name that
		// is not in the enclosing one; hamba/avro does not, and a
		// null-namespace type cannot be named from inside a namespace any
		// other way, so Charter rejects what hamba cannot read (known gap).
		{"null namespace fallback (hamba)", `{"type":"record","name":"Top","fields":[{"name":"i","type":{"type":"record","name":"ex.In","fields":[` +
			`{"name":"t","type":["null","Top"],"default":null}]}}]}`, `invalid Avro schema: unknown type: Top`},
		{"invalid UTF-8 in doc", "{\"type\":\"record\",\"name\":\"R\",\"doc\":\"a\xffb\",\"fields\":[]}", "invalid JSON at line 1, column 37: invalid UTF-8 in string (byte 0xFF)"},
		{"invalid UTF-8 in a key", "{\"type\":\"int\",\"p\xc3\":1}", "invalid UTF-8 in string (byte 0xC3)"},
		{"invalid UTF-8 after an escape", "{\"type\":\"int\",\"doc\":\"\\n\xe2\x82\"}", "invalid UTF-8 in string (byte 0xE2)"},
		{"enum defaults too costly", enumArrayDefault(5000), "the enum values in the schema's defaults take more than 10000000 symbol comparisons"},
		{"bytes default beyond 0-255 (hamba)", `{"type":"record","name":"R","fields":[{"name":"a","type":"bytes","default":"€"}]}`, `invalid Avro schema: invalid default for field a`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := avro.Format{}.Parse(tc.text, nil)
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

func TestParseAccepts(t *testing.T) {
	tests := map[string]string{
		"error record": `{"type":"error","name":"Oops","fields":[{"name":"msg","type":"string"}]}`,
		"record default filled by field default": `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"S","fields":[` +
			`{"name":"x","type":"int","default":1},{"name":"y","type":"string"}]},"default":{"y":"z"}}]}`,
		"duplicate JSON key, last wins": `{"type":"int","type":"long"}`,
		"union as type attribute":       `{"type":["null","string"]}`,
		"reference through type attr":   `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"S","fields":[]}},{"name":"b","type":{"type":"S"}}]}`,
		"unicode escapes":               `{"type":"enum","name":"E","symbols":["A"],"doc":"\ud83d\ude00 \u00e9"}`,
		"raw UTF-8":                     `{"type":"enum","name":"E","symbols":["A"],"doc":"😀 é, \n ü"}`,
		"enum defaults within bound":    enumArrayDefault(3000),
	}
	for name, text := range tests {
		if _, err := (avro.Format{}).Parse(text, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCheckReadForeignSchema(t *testing.T) {
	s := mustParse(t, `"int"`)
	got := avro.Format{}.CheckRead(s, foreign{})
	if len(got) != 1 || got[0].RuleID != avro.RuleTypeMismatch || got[0].Path != "." {
		t.Errorf("CheckRead with a non-Avro schema = %v", got)
	}
}

type foreign struct{}

func (foreign) Type() compat.SchemaType { return compat.JSON }
func (foreign) Canonical() string       { return "{}" }
func (foreign) Normalized() string      { return "{}" }

// seedSchemas returns every .avsc in testdata.
func seedSchemas(tb testing.TB) []string {
	tb.Helper()
	var out []string
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".avsc") {
			return err
		}
		b, err := os.ReadFile(path)
		out = append(out, string(b))
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// FuzzParse: no input panics or takes more CPU than fuzztest.Bound
// allows, every accepted schema's Canonical text parses back to itself
// (the registry stores and re-parses it), and its Fields can be listed.
func FuzzParse(f *testing.F) {
	for _, s := range seedSchemas(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var s *avro.Schema
		var err error
		fuzztest.Bound(t, len(text), func() { s, err = avro.Parse(text, nil) })
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("error is not one line: %q", err)
			}
			return
		}
		again, err := avro.Parse(s.Canonical(), nil)
		if err != nil {
			t.Fatalf("canonical text does not parse: %v\ninput: %s\ncanonical: %s", err, text, s.Canonical())
		}
		if again.Canonical() != s.Canonical() {
			t.Fatalf("canonical not a fixed point:\n1st: %s\n2nd: %s", s.Canonical(), again.Canonical())
		}
		norm, err := avro.Parse(s.Normalized(), nil)
		if err != nil {
			t.Fatalf("normalized text does not parse: %v\nnormalized: %s", err, s.Normalized())
		}
		if norm.Normalized() != s.Normalized() {
			t.Fatalf("normalized not a fixed point:\n1st: %s\n2nd: %s", s.Normalized(), norm.Normalized())
		}
		if v := (avro.Format{}).CheckRead(s, again); len(v) != 0 {
			t.Fatalf("a schema cannot read its own canonical form: %v", v)
		}
		fuzztest.Bound(t, len(text), func() { compat.Fields(s) })
	})
}

// FuzzCheckRead: no pair of schemas panics the checker or takes more CPU
// than fuzztest.Bound allows, and every violation carries a registered
// rule, a path and a message.
func FuzzCheckRead(f *testing.F) {
	seeds := seedSchemas(f)
	for i := 0; i+1 < len(seeds); i += 2 {
		f.Add(seeds[i], seeds[i+1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ra, err := avro.Parse(a, nil)
		if err != nil {
			return
		}
		rb, err := avro.Parse(b, nil)
		if err != nil {
			return
		}
		var ab, ba []compat.Violation
		fuzztest.Bound(t, len(a)+len(b), func() {
			ab, ba = avro.Format{}.CheckRead(ra, rb), avro.Format{}.CheckRead(rb, ra)
		})
		for _, vs := range [][]compat.Violation{ab, ba} {
			for _, v := range vs {
				if !isRule(v.RuleID) || v.Path == "" || v.Message == "" {
					t.Fatalf("bad violation %+v", v)
				}
			}
		}
		if v := (avro.Format{}).CheckRead(ra, ra); len(v) != 0 {
			t.Fatalf("schema cannot read itself: %v\n%s", v, a)
		}
	})
}

// enumArrayDefault returns a record whose field l, an array of an enum of
// n symbols, defaults to every symbol in reverse order: validating it costs
// hamba/avro n(n+1)/2 symbol comparisons.
func enumArrayDefault(n int) string {
	syms := make([]string, n)
	rev := make([]string, n)
	for i := range syms {
		syms[i] = fmt.Sprintf(`"S%d"`, i)
		rev[n-1-i] = syms[i]
	}
	return `{"type":"record","name":"R","fields":[{"name":"e","type":{"type":"enum","name":"E","symbols":[` + strings.Join(syms, ",") +
		`]}},{"name":"l","type":{"type":"array","items":"E"},"default":[` + strings.Join(rev, ",") + `]}]}`
}

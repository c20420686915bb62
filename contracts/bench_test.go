package contracts_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/contracts"
)

// benchFields is the width of the generated schemas: 100 fields, 90 at the
// top level (strings, longs, doubles, booleans, an enum) and 10 inside a
// nested record held in an array.
const benchTop = 90

func benchKind(i int) string {
	switch i % 5 {
	case 0:
		return "string"
	case 1:
		return "long"
	case 2:
		return "double"
	case 3:
		return "boolean"
	}
	return "enum"
}

func benchAvro() string {
	var fs []string
	for i := 0; i < benchTop; i++ {
		t := `"` + benchKind(i) + `"`
		if benchKind(i) == "enum" {
			t = fmt.Sprintf(`{"type": "enum", "name": "E%d", "symbols": ["A", "B", "C"]}`, i)
		}
		fs = append(fs, fmt.Sprintf(`{"name": "f%d", "type": %s}`, i, t))
	}
	var line []string
	for i := 0; i < 10; i++ {
		line = append(line, fmt.Sprintf(`{"name": "g%d", "type": "string"}`, i))
	}
	fs = append(fs, `{"name": "lines", "type": {"type": "array", "items": {"type": "record", "name": "Line", "fields": [`+strings.Join(line, ", ")+`]}}}`)
	return `{"type": "record", "name": "Wide", "namespace": "bench", "fields": [` + strings.Join(fs, ", ") + `]}`
}

func benchProto() string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage bench;\nenum E { A = 0; B = 1; C = 2; }\nmessage Wide {\n")
	for i := 0; i < benchTop; i++ {
		t := map[string]string{"string": "string", "long": "int64", "double": "double", "boolean": "bool", "enum": "E"}[benchKind(i)]
		fmt.Fprintf(&b, "  %s f%d = %d;\n", t, i, i+1)
	}
	fmt.Fprintf(&b, "  repeated Line lines = %d;\n}\nmessage Line {\n", benchTop+1)
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "  string g%d = %d;\n", i, i+1)
	}
	b.WriteString("}\n")
	return b.String()
}

func benchJSONSchema() string {
	props := map[string]any{}
	var req []string
	for i := 0; i < benchTop; i++ {
		t := map[string]any{"type": map[string]string{"string": "string", "long": "integer", "double": "number", "boolean": "boolean"}[benchKind(i)]}
		if benchKind(i) == "enum" {
			t = map[string]any{"enum": []string{"A", "B", "C"}}
		}
		props[fmt.Sprintf("f%d", i)] = t
		req = append(req, fmt.Sprintf("f%d", i))
	}
	line := map[string]any{}
	for i := 0; i < 10; i++ {
		line[fmt.Sprintf("g%d", i)] = map[string]any{"type": "string"}
	}
	props["lines"] = map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": line}}
	b, _ := json.Marshal(map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": props, "required": req})
	return string(b)
}

// benchPact is a V4 pact of 10 interactions, each reading 20 top-level
// fields and 3 fields of an array item, with type, integer, decimal,
// boolean, regex and eachLike matchers.
func benchPact(tb testing.TB, consumer int) *contracts.Contract {
	tb.Helper()
	var inters []string
	for k := 0; k < 10; k++ {
		content := map[string]any{}
		rules := map[string]any{}
		for j := 0; j < 20; j++ {
			i := (consumer*7 + k*11 + j*13) % benchTop
			name := fmt.Sprintf("f%d", i)
			var v any
			var m map[string]any
			switch benchKind(i) {
			case "string":
				v, m = "text", map[string]any{"match": "type"}
			case "long":
				v, m = 42, map[string]any{"match": "integer"}
			case "double":
				v, m = 1.5, map[string]any{"match": "number"}
			case "boolean":
				v, m = true, map[string]any{"match": "boolean"}
			default:
				v, m = "B", map[string]any{"match": "regex", "regex": "A|B|C"}
			}
			content[name] = v
			rules["$."+name] = map[string]any{"matchers": []any{m}}
		}
		content["lines"] = []any{map[string]any{"g1": "x", "g2": "y", "g3": "z"}}
		rules["$.lines"] = map[string]any{"matchers": []any{map[string]any{"match": "type", "min": 1}}}
		rules["$.lines[*].*"] = map[string]any{"matchers": []any{map[string]any{"match": "type"}}}
		in, _ := json.Marshal(map[string]any{
			"type": "Asynchronous/Messages", "description": fmt.Sprintf("message %d", k),
			"contents":      map[string]any{"contentType": "application/json", "encoded": false, "content": content},
			"matchingRules": map[string]any{"body": rules},
		})
		inters = append(inters, string(in))
	}
	doc := fmt.Sprintf(`{"consumer": {"name": "consumer-%d"}, "provider": {"name": "wide"}, "interactions": [%s], "metadata": {"pactSpecification": {"version": "4.0"}}}`,
		consumer, strings.Join(inters, ","))
	p, err := contracts.ParsePact([]byte(doc))
	if err != nil {
		tb.Fatal(err)
	}
	return &contracts.Contract{Pact: p, Subject: "wide"}
}

func benchVerify(b *testing.B, t compat.SchemaType, text string, pacts int) {
	s, err := contracts.ParseSchema(text, t)
	if err != nil {
		b.Fatal(err)
	}
	if n := len(compat.Fields(s)); n != 0 && n < 100 {
		b.Fatalf("schema has %d fields, want at least 100", n)
	}
	cs := make([]*contracts.Contract, pacts)
	for i := range cs {
		cs[i] = benchPact(b, i)
	}
	// The generated contracts hold: a benchmark of failures would
	// measure message formatting.
	rep, err := contracts.Verify(cs, s, contracts.Options{Now: testNow})
	if err != nil {
		b.Fatal(err)
	}
	if rep.Broken() {
		b.Fatalf("generated contracts break: %v", rep.Findings()[0])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := contracts.Verify(cs, s, contracts.Options{Now: testNow}); err != nil {
			b.Fatal(err)
		}
	}
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp/float64(pacts*10)/1e3, "µs/interaction")
	b.ReportMetric(float64(pacts*10)/(perOp/1e9), "interactions/s")
}

// BenchmarkVerify50x10 verifies 50 pacts of 10 interactions each against
// one 100-field schema per format (view built once per call).
func BenchmarkVerify50x10(b *testing.B) {
	b.Run("avro", func(b *testing.B) { benchVerify(b, compat.Avro, benchAvro(), 50) })
	b.Run("protobuf", func(b *testing.B) { benchVerify(b, compat.Protobuf, benchProto(), 50) })
	b.Run("jsonschema", func(b *testing.B) { benchVerify(b, compat.JSON, benchJSONSchema(), 50) })
}

// BenchmarkVerify200x10 is issue 5's acceptance figure: 200 contracts of
// 10 interactions against one proposed Avro schema.
func BenchmarkVerify200x10(b *testing.B) {
	benchVerify(b, compat.Avro, benchAvro(), 200)
}

// BenchmarkParsePact parses one 10-interaction V4 pact.
func BenchmarkParsePact(b *testing.B) {
	c := benchPact(b, 1)
	doc := mustMarshalPact(b, c)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := contracts.ParsePact(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// mustMarshalPact writes a contract's pact back as a V4 file.
func mustMarshalPact(tb testing.TB, c *contracts.Contract) []byte {
	tb.Helper()
	var inters []any
	for _, in := range c.Pact.Interactions {
		rules := map[string]any{}
		for _, r := range in.Rules {
			var ms []any
			for _, m := range r.Matchers {
				mm := map[string]any{"match": string(m.Type)}
				if m.Regex != "" {
					mm["regex"] = m.Regex
				}
				if m.Min >= 0 {
					mm["min"] = m.Min
				}
				ms = append(ms, mm)
			}
			rules[r.Path] = map[string]any{"matchers": ms}
		}
		inters = append(inters, map[string]any{
			"type": "Asynchronous/Messages", "description": in.Description,
			"contents":      map[string]any{"contentType": "application/json", "encoded": false, "content": in.Contents},
			"matchingRules": map[string]any{"body": rules},
		})
	}
	b, err := json.Marshal(map[string]any{"consumer": map[string]any{"name": c.Pact.Consumer}, "provider": map[string]any{"name": c.Pact.Provider},
		"interactions": inters, "metadata": map[string]any{"pactSpecification": map[string]any{"version": "4.0"}}})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

package jsonschema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/jsonschema"
)

// wideSchema returns a closed object schema with n properties of mixed
// kinds (bounded strings, integers, enums, arrays, nested objects and
// $refs), plus extra optional properties named extra0…
func wideSchema(n, extra int) string {
	var sb strings.Builder
	sb.WriteString(`{"$schema":"http://json-schema.org/draft-07/schema#","title":"Wide","type":"object","properties":{`)
	for i := 0; i < n+extra; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		name := fmt.Sprintf("p%03d", i)
		if i >= n {
			name = fmt.Sprintf("extra%d", i-n)
		}
		switch i % 6 {
		case 0:
			fmt.Fprintf(&sb, `%q:{"type":"string","maxLength":%d,"description":"field %d"}`, name, 16+i, i)
		case 1:
			fmt.Fprintf(&sb, `%q:{"type":"integer","minimum":0,"maximum":%d}`, name, 1000+i)
		case 2:
			fmt.Fprintf(&sb, `%q:{"type":"string","enum":["A","B","C%d"]}`, name, i)
		case 3:
			fmt.Fprintf(&sb, `%q:{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"},"maxItems":%d}`, name, 10+i)
		case 4:
			fmt.Fprintf(&sb, `%q:{"type":"object","properties":{"x":{"type":"number"},"y":{"type":["number","null"]}},"required":["x"],"additionalProperties":false}`, name)
		case 5:
			fmt.Fprintf(&sb, `%q:{"$ref":"#/definitions/Money"}`, name)
		}
	}
	sb.WriteString(`},"required":["p000","p001"],"additionalProperties":false,`)
	sb.WriteString(`"definitions":{"Money":{"type":"object","properties":{"amount":{"type":"number","multipleOf":0.01},"currency":{"type":"string","pattern":"^[A-Z]{3}$"}},"required":["amount","currency"]}}}`)
	return sb.String()
}

// BenchmarkCheckRead300 checks v2 of a 300-property schema (one optional
// property added to the closed model) against v1, in the BACKWARD
// direction: the work of one registration at BACKWARD.
func BenchmarkCheckRead300(b *testing.B) {
	v1 := mustParse(b, wideSchema(300, 0))
	v2 := mustParse(b, wideSchema(300, 1))
	if vs := (jsonschema.Format{}).CheckRead(v2, v1); len(vs) != 0 {
		b.Fatalf("v2 should read v1: %v", vs)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		jsonschema.Format{}.CheckRead(v2, v1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/300, "ns/property")
}

// BenchmarkParse300 parses (and validates against the draft-07
// meta-schema) the 300-property schema.
func BenchmarkParse300(b *testing.B) {
	text := wideSchema(300, 0)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsonschema.Parse(text, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckFullTransitive1000 runs compat.Check at FULL_TRANSITIVE for
// a new version of a small schema against 1,000 earlier versions (each
// differing in descriptions and relaxed bounds, all compatible both
// ways): 2,000 CheckRead calls.
func BenchmarkCheckFullTransitive1000(b *testing.B) {
	small := func(v int) string {
		return fmt.Sprintf(`{"type":"object","description":"version %d","properties":{"id":{"type":"string","maxLength":64},`+
			`"qty":{"type":"integer","minimum":0},"status":{"enum":["NEW","PAID","SHIPPED"]},"note":{"type":["string","null"],"title":"v%d"}},`+
			`"required":["id"],"additionalProperties":false}`, v, v)
	}
	prev := make([]compat.Previous, 1000)
	for i := range prev {
		prev[i] = compat.Previous{Version: i + 1, Schema: mustParse(b, small(i+1))}
	}
	next := mustParse(b, small(1001))
	if res := compat.Check(jsonschema.Format{}, compat.FullTransitive, next, prev); !res.Compatible() {
		b.Fatalf("history should be compatible: %v", res.Findings[:1])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		compat.Check(jsonschema.Format{}, compat.FullTransitive, next, prev)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2000, "ns/checkread")
}

package avro_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
)

var benchTypes = []string{`"string"`, `"long"`, `"int"`, `["null","string"]`, `"double"`,
	`{"type":"array","items":"string"}`, `{"type":"map","values":"long"}`, `"boolean"`}

// wideRecord returns a record with n fields of mixed types and, if extra,
// one more field with a default.
func wideRecord(n int, extra bool) string {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"Wide","namespace":"com.example.bench","fields":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"field_%d","type":%s,"doc":"field number %d"}`, i, benchTypes[i%len(benchTypes)], i)
	}
	if extra {
		b.WriteString(`,{"name":"added","type":"string","default":""}`)
	}
	b.WriteString(`]}`)
	return b.String()
}

// BenchmarkCheckRead500Fields reads a 500-field record with a reader that
// adds one field with a default (the common BACKWARD evolution).
func BenchmarkCheckRead500Fields(b *testing.B) {
	writer := mustParse(b, wideRecord(500, false))
	reader := mustParse(b, wideRecord(500, true))
	f := avro.Format{}
	b.ReportAllocs()
	for b.Loop() {
		if v := f.CheckRead(reader, writer); len(v) != 0 {
			b.Fatal(v)
		}
	}
}

// BenchmarkParse500Fields parses a 500-field record (hamba validation,
// Charter's model, Canonical and Normalized text).
func BenchmarkParse500Fields(b *testing.B) {
	text := wideRecord(500, true)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := avro.Parse(text, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckFullTransitive1000 registers a new version of a small
// record against 1,000 earlier versions at FULL_TRANSITIVE (2,000 reader /
// writer checks), with every version already parsed, as the registry's
// cache has them. The registry's budget is 50 ms per registration.
func BenchmarkCheckFullTransitive1000(b *testing.B) {
	prev := make([]compat.Previous, 1000)
	for i := range prev {
		// Each version adds an optional field: all versions stay FULL
		// compatible with each other.
		var fields []string
		fields = append(fields, `{"name":"id","type":"string"}`, `{"name":"amount","type":"double","default":0}`)
		for j := range i % 8 {
			fields = append(fields, fmt.Sprintf(`{"name":"opt_%d","type":["null","string"],"default":null}`, j))
		}
		text := `{"type":"record","name":"Payment","namespace":"com.example","fields":[` + strings.Join(fields, ",") + `]}`
		prev[i] = compat.Previous{Version: i + 1, Schema: mustParse(b, text)}
	}
	next := mustParse(b, `{"type":"record","name":"Payment","namespace":"com.example","fields":[`+
		`{"name":"id","type":"string"},{"name":"amount","type":"double","default":0},`+
		`{"name":"currency","type":"string","default":"EUR"}]}`)
	f := avro.Format{}
	b.ReportAllocs()
	for b.Loop() {
		if res := compat.Check(f, compat.FullTransitive, next, prev); !res.Compatible() {
			b.Fatal(res.Findings)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/register")
}

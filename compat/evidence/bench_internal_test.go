package evidence

import (
	"context"
	"fmt"
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/protobuf"
)

// The cost of evidence against a baseline: decoding the same events with
// the reader (and nothing else: no generation, no comparison, no
// shrinking). Issue 17's budget is 50 ms for 100 events on a 50-field
// Avro record and on a 200-message Protobuf file.

const benchEvents = 100

// record50 is an Avro record of 50 fields of every kind, and the same
// record with a field added (with a default) for the reader.
func record50() (reader, writer string) {
	kinds := []string{`"string"`, `"int"`, `"long"`, `"double"`, `"boolean"`, `"bytes"`, `["null","string"]`,
		`{"type":"array","items":"long"}`, `{"type":"map","values":"string"}`, `{"type":"enum","name":"E%d","symbols":["A","B","C","D"]}`}
	var fields []string
	for i := range 50 {
		k := kinds[i%len(kinds)]
		if strings.Contains(k, "%d") {
			k = fmt.Sprintf(k, i)
		}
		fields = append(fields, fmt.Sprintf(`{"name":"f%d","type":%s}`, i, k))
	}
	writer = `{"type":"record","name":"R","namespace":"bench","fields":[` + strings.Join(fields, ",") + `]}`
	reader = strings.Replace(writer, `"fields":[`, `"fields":[{"name":"added","type":"int","default":0},`, 1)
	return reader, writer
}

// file200 is a .proto file of 200 messages (20 chains of 10, each
// message using the next), and the same file with a field added to every
// message for the reader.
func file200(added bool) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage bench;\nenum Status { STATUS_UNSPECIFIED = 0; STATUS_OK = 1; STATUS_FAILED = 2; }\n")
	for i := range 200 {
		fmt.Fprintf(&b, "message M%d {\n  string id = 1;\n  int64 n = 2;\n  repeated string tags = 3;\n  Status status = 5;\n  bytes blob = 6;\n  map<string, int32> counts = 7;\n", i)
		if (i+1)%10 != 0 {
			fmt.Fprintf(&b, "  M%d child = 4;\n", i+1)
		}
		if added {
			b.WriteString("  string added = 8;\n")
		}
		b.WriteString("}\n")
	}
	return b.String()
}

func avroPair(tb testing.TB) (*avro.Schema, *avro.Schema) {
	r, w := record50()
	rs, err := avro.Parse(r, nil)
	if err != nil {
		tb.Fatal(err)
	}
	ws, err := avro.Parse(w, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return rs, ws
}

func protoPair(tb testing.TB) (*protobuf.Schema, *protobuf.Schema) {
	rs, err := protobuf.Parse(file200(true), nil)
	if err != nil {
		tb.Fatal(err)
	}
	ws, err := protobuf.Parse(file200(false), nil)
	if err != nil {
		tb.Fatal(err)
	}
	return rs, ws
}

func BenchmarkEvidenceAvro50Fields(b *testing.B) {
	r, w := avroPair(b)
	for b.Loop() {
		res, err := Read(context.Background(), r, w, Options{Events: benchEvents})
		if err != nil || res.Events != benchEvents {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkBaselineAvro50Fields decodes the same 100 events with hamba's
// resolution of the reader against the writer.
func BenchmarkBaselineAvro50Fields(b *testing.B) {
	r, w := avroPair(b)
	e, _ := newAvroEngine(context.Background(), r, w)
	var data [][]byte
	for i := range benchEvents {
		g := &avroGen{ch: newChooser(1, i), unions: map[*hamba.UnionSchema]map[int]bool{}, enums: map[*hamba.EnumSchema]map[string]bool{}}
		v, _ := g.value(w.Hamba(), "", 0)
		d, err := e.writerAPI.Marshal(w.Hamba(), v)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
	}
	for b.Loop() {
		for _, d := range data {
			var out any
			if err := e.fullAPI.Unmarshal(e.full, d, &out); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkEvidenceAvro50FieldsBreaking: the reader lacks a symbol of
// every enum and reads the longs as ints' promotion target float, so
// events break and their counterexamples are shrunk.
func BenchmarkEvidenceAvro50FieldsBreaking(b *testing.B) {
	_, w := avroPair(b)
	_, wtext := record50()
	rtext := strings.ReplaceAll(wtext, `"symbols":["A","B","C","D"]`, `"symbols":["A","B","C"]`)
	rtext = strings.ReplaceAll(rtext, `"type":"int"}`, `"type":"float"}`)
	r, err := avro.Parse(rtext, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := Read(context.Background(), r, w, Options{Events: benchEvents})
		if err != nil || res.Events != benchEvents || len(res.Outcomes) == 0 {
			b.Fatal(res, err)
		}
	}
}

func BenchmarkEvidenceProtobuf200Messages(b *testing.B) {
	r, w := protoPair(b)
	for b.Loop() {
		res, err := Read(context.Background(), r, w, Options{Events: benchEvents})
		if err != nil || res.Events != benchEvents {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkEvidenceProtobuf200MessagesBreaking: the reader reads every
// message's repeated tags as one string and its int64 as int32, so events
// lose values (PROTO_REPEATED_TO_SINGULAR, numbers truncated) and their
// counterexamples are shrunk.
func BenchmarkEvidenceProtobuf200MessagesBreaking(b *testing.B) {
	_, w := protoPair(b)
	rtext := strings.ReplaceAll(file200(true), "repeated string tags = 3;", "string tags = 3;")
	rtext = strings.ReplaceAll(rtext, "int64 n = 2;", "int32 n = 2;")
	r, err := protobuf.Parse(rtext, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := Read(context.Background(), r, w, Options{Events: benchEvents})
		if err != nil || res.Events != benchEvents || len(res.Outcomes) == 0 {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkBaselineProtobuf200Messages unmarshals the same 100 events
// with the reader's descriptors.
func BenchmarkBaselineProtobuf200Messages(b *testing.B) {
	r, w := protoPair(b)
	e, _ := newProtoEngine(r, w)
	type ev struct {
		root int
		data []byte
	}
	var evs []ev
	for i := range benchEvents {
		root := i % e.roots()
		m := dynamicpb.NewMessage(e.rootMsgs[root])
		protoGen{ch: newChooser(1, i/e.roots())}.fill(m, e.msgPath(e.rootMsgs[root]), 0)
		d, err := proto.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		evs = append(evs, ev{root, d})
	}
	for b.Loop() {
		for _, x := range evs {
			if err := proto.Unmarshal(x.data, dynamicpb.NewMessage(e.readers[x.root])); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestEvidenceCost runs the benchmarks once each and logs the figures and
// the ratio to the baseline. It fails only far above issue 17's 50 ms
// target (a loaded CI machine varies), at 500 ms.
func TestEvidenceCost(t *testing.T) {
	if testing.Short() {
		t.Skip("benchmarks run without -short")
	}
	for _, c := range []struct {
		name               string
		evidence, baseline func(*testing.B)
	}{
		{"Avro record of 50 fields", BenchmarkEvidenceAvro50Fields, BenchmarkBaselineAvro50Fields},
		{"Avro record of 50 fields, breaking (outcomes shrunk)", BenchmarkEvidenceAvro50FieldsBreaking, BenchmarkBaselineAvro50Fields},
		{"Protobuf file of 200 messages", BenchmarkEvidenceProtobuf200Messages, BenchmarkBaselineProtobuf200Messages},
		{"Protobuf file of 200 messages, breaking (outcomes shrunk)", BenchmarkEvidenceProtobuf200MessagesBreaking, BenchmarkBaselineProtobuf200Messages},
	} {
		ev := testing.Benchmark(c.evidence)
		base := testing.Benchmark(c.baseline)
		evMs := float64(ev.NsPerOp()) / 1e6
		baseMs := float64(base.NsPerOp()) / 1e6
		t.Logf("%s, %d events: evidence %.2f ms (%d allocs), plain decode %.3f ms: ratio %.0f×", c.name, benchEvents, evMs, ev.AllocsPerOp(), baseMs, evMs/baseMs)
		if evMs > 500 {
			t.Errorf("%s: evidence takes %.0f ms for %d events", c.name, evMs, benchEvents)
		}
	}
}

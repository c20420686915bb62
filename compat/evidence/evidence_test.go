package evidence_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/formats"
)

func mustParse(t testing.TB, typ compat.SchemaType, text string) compat.Schema {
	t.Helper()
	e, _ := formats.ByType(typ)
	s, err := e.Format.Parse(text, nil)
	if err != nil {
		t.Fatalf("parse %s: %v", text, err)
	}
	return s
}

func read(t testing.TB, typ compat.SchemaType, reader, writer string, opts evidence.Options) evidence.Result {
	t.Helper()
	res, err := evidence.Read(context.Background(), mustParse(t, typ, reader), mustParse(t, typ, writer), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const shipment = `{"type":"record","name":"Shipment","namespace":"acme","fields":[
 {"name":"id","type":"string"},
 {"name":"weight","type":"int"},
 {"name":"carrier","type":{"type":"enum","name":"Carrier","symbols":["DHL","UPS","FEDEX"]}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[{"name":"sku","type":"string"},{"name":"qty","type":"long"}]}}},
 {"name":"attrs","type":{"type":"map","values":"bytes"}}]}`

func TestAvroSameSchemaReadsEqual(t *testing.T) {
	res := read(t, compat.Avro, shipment, shipment, evidence.Options{})
	if res.Events != evidence.DefaultEvents || res.Equal != res.Events || len(res.Outcomes) != 0 {
		t.Fatalf("same schema: %+v", res)
	}
}

func TestAvroDefaultIsCounted(t *testing.T) {
	reader := strings.Replace(shipment, `{"name":"id","type":"string"},`, `{"name":"id","type":"string"},{"name":"priority","type":"int","default":3},`, 1)
	res := read(t, compat.Avro, reader, shipment, evidence.Options{Events: 20})
	if res.Defaulted != 20 || res.Verdict() != evidence.Defaulted || len(res.Outcomes) != 0 {
		t.Fatalf("added field with default: %+v", res)
	}
}

// An enum symbol the reader lacks (no enum default) refuses exactly the
// events that carry it: the others are read, datum by datum, as the
// specification resolves them.
func TestAvroEnumSymbolRemovedRefusesOnlyItsEvents(t *testing.T) {
	reader := strings.Replace(shipment, `"symbols":["DHL","UPS","FEDEX"]`, `"symbols":["DHL","UPS"]`, 1)
	res := read(t, compat.Avro, reader, shipment, evidence.Options{})
	if res.Refused == 0 || res.Equal == 0 || res.Refused+res.Equal != res.Events {
		t.Fatalf("counts: %+v", res)
	}
	if len(res.Outcomes) != 1 {
		t.Fatalf("outcomes: %+v", res.Outcomes)
	}
	o := res.Outcomes[0]
	var ev map[string]any
	if err := json.Unmarshal(o.Event, &ev); err != nil {
		t.Fatal(err)
	}
	if o.Class != evidence.Refused || o.Path != ".carrier" || ev["carrier"] != "FEDEX" {
		t.Errorf("outcome: %+v", o)
	}
	// Minimal: every other field holds its smallest value.
	if ev["id"] != "" || ev["weight"] != float64(0) || ev["note"] != nil || len(ev["lines"].([]any)) != 0 {
		t.Errorf("counterexample not minimal: %s", o.Event)
	}
}

// int → float is a promotion the specification allows, but 2147483647
// does not survive it.
func TestAvroPromotionLosesPrecision(t *testing.T) {
	reader := strings.Replace(shipment, `{"name":"weight","type":"int"}`, `{"name":"weight","type":"float"}`, 1)
	res := read(t, compat.Avro, reader, shipment, evidence.Options{})
	if res.Lossy == 0 || res.Refused != 0 {
		t.Fatalf("counts: %+v", res)
	}
	o := res.Outcomes[0]
	if o.Path != ".weight" || o.Kind != "changed" || !strings.Contains(string(o.Event), `"weight":2147483647`) &&
		!strings.Contains(string(o.Event), `"weight":-2147483648`) {
		t.Errorf("outcome: %+v %s", o, o.Event)
	}
}

// hamba cannot resolve a writer union ["int","long"] read as "long" (it
// builds a union with two longs); per-event resolution reads every event.
func TestAvroWriterUnionIntoPromotedType(t *testing.T) {
	w := `{"type":"record","name":"R","fields":[{"name":"n","type":["int","long"]}]}`
	r := `{"type":"record","name":"R","fields":[{"name":"n","type":"long"}]}`
	res := read(t, compat.Avro, r, w, evidence.Options{Events: 30})
	if res.Equal != 30 {
		t.Fatalf("counts: %+v %+v", res, res.Outcomes)
	}
}

func TestDeterministic(t *testing.T) {
	reader := strings.Replace(shipment, `"symbols":["DHL","UPS","FEDEX"]`, `"symbols":["DHL","UPS"]`, 1)
	a := read(t, compat.Avro, reader, shipment, evidence.Options{Seed: 7})
	b := read(t, compat.Avro, reader, shipment, evidence.Options{Seed: 7})
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatalf("two runs with one seed differ:\n%s\n%s", ja, jb)
	}
}

func TestContextEndsWork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := evidence.Read(ctx, mustParse(t, compat.Avro, shipment), mustParse(t, compat.Avro, shipment), evidence.Options{Events: 1000})
	if err != nil || !res.Partial || res.Events != 0 {
		t.Fatalf("cancelled: %+v %v", res, err)
	}
}

func TestCheckPairsAndCounterexample(t *testing.T) {
	prev := mustParse(t, compat.Avro, shipment)
	next := mustParse(t, compat.Avro, strings.Replace(shipment, `"symbols":["DHL","UPS","FEDEX"]`, `"symbols":["DHL","UPS"]`, 1))
	e, _ := formats.ByType(compat.Avro)
	ver := compat.Check(e.Format, compat.Full, next, []compat.Previous{{Version: 1, Schema: prev}})
	rep, err := evidence.Check(context.Background(), compat.Full, next, []compat.Previous{{Version: 1, Schema: prev}}, evidence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pairs) != 2 {
		t.Fatalf("pairs: %+v", rep.Pairs)
	}
	back, _ := rep.Pair(compat.DirBackward, 1)
	fwd, _ := rep.Pair(compat.DirForward, 1)
	if back.Refused == 0 || fwd.Refused != 0 || fwd.Equal != fwd.Events {
		t.Fatalf("backward %+v forward %+v", back, fwd)
	}
	if len(ver.Findings) == 0 {
		t.Fatal("the rules accept a removed enum symbol")
	}
	for _, f := range ver.Findings {
		o, ok := rep.Counterexample(f)
		if !ok || o.Path != ".carrier" {
			t.Errorf("finding %v: counterexample %+v %v", f, o, ok)
		}
	}
}

// A recursive writer is read with the writer unrolled to each event
// (hamba's Resolve does not terminate on it): a symbol the reader lacks
// is refused where the event holds it, however deep.
func TestAvroRecursiveWriter(t *testing.T) {
	w := `{"type":"record","name":"Node","namespace":"acme","fields":[
 {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["LEAF","BRANCH","ROOT"]}},
 {"name":"next","type":["null","Node"],"default":null},
 {"name":"alt","type":["null","string","Node"],"default":null}]}`
	tree := `{"type":"record","name":"Tree","fields":[{"name":"children","type":{"type":"array","items":"Tree"}}]}`
	if _, err := evidence.Read(context.Background(), mustParse(t, compat.Avro, tree), mustParse(t, compat.Avro, tree), evidence.Options{}); !errors.Is(err, evidence.ErrUnsupported) {
		t.Errorf("recursion through an array: %v", err)
	}
	same := read(t, compat.Avro, w, w, evidence.Options{})
	if same.Events != evidence.DefaultEvents || same.Equal != same.Events {
		t.Fatalf("same recursive schema: %+v %+v", same, same.Outcomes)
	}
	added := strings.Replace(w, `{"name":"next"`, `{"name":"label","type":"string","default":"x"},{"name":"next"`, 1)
	def := read(t, compat.Avro, added, w, evidence.Options{})
	if def.Defaulted != def.Events {
		t.Fatalf("field added with a default: %+v %+v", def, def.Outcomes)
	}
	r := strings.Replace(w, `,"ROOT"`, "", 1)
	res := read(t, compat.Avro, r, w, evidence.Options{})
	if res.Refused == 0 || res.Equal == 0 || len(res.Outcomes) == 0 {
		t.Fatalf("symbol removed: %+v %+v", res, res.Outcomes)
	}
	for _, o := range res.Outcomes {
		if o.Class != evidence.Refused || !strings.Contains(string(o.Event), `"ROOT"`) || !strings.HasSuffix(o.Path, ".kind") {
			t.Errorf("outcome %+v %s", o, o.Event)
		}
	}
}

// A writer restricted to an event's union branches may drop the branch
// that defines a named type used again later: the later use then
// defines it, and the event is read.
func TestAvroPrunedBranchDefinedLater(t *testing.T) {
	w := `{"type":"record","name":"R","namespace":"acme","fields":[
 {"name":"u","type":["null","string",{"type":"enum","name":"E","symbols":["X","Y"]}]},
 {"name":"b","type":"E"}]}`
	r := `{"type":"record","name":"R","namespace":"acme","fields":[
 {"name":"u","type":["null",{"type":"enum","name":"E","symbols":["X","Y"]}]},
 {"name":"b","type":"E"}]}`
	res := read(t, compat.Avro, r, w, evidence.Options{})
	if res.Events != evidence.DefaultEvents || res.Refused == 0 || res.Equal == 0 || res.Refused+res.Equal != res.Events {
		t.Fatalf("counts: %+v", res)
	}
	if len(res.Outcomes) != 1 || res.Outcomes[0].Path != ".u" || string(res.Outcomes[0].Event) != `{"b":"X","u":{"string":""}}` {
		t.Fatalf("outcomes: %+v", res.Outcomes)
	}
}

// Protobuf messages and maps are compared in declaration and key order
// (dynamicpb ranges over Go maps): one seed, one answer.
func TestProtobufDeterministic(t *testing.T) {
	w := `syntax = "proto3"; package p;
message Line { repeated string tags = 1; repeated string notes = 2; }
message Order { map<string, Line> lines = 1; repeated string a = 2; repeated string b = 3; }`
	r := `syntax = "proto3"; package p;
message Line { string tags = 1; string notes = 2; }
message Order { map<string, Line> lines = 1; string a = 2; string b = 3; }`
	first := read(t, compat.Protobuf, r, w, evidence.Options{MaxOutcomes: 2})
	want, _ := json.Marshal(first)
	if len(first.Outcomes) != 2 || first.Outcomes[0].Path != ".Order.lines{}.notes" || first.Outcomes[1].Path != ".Order.b" {
		t.Fatalf("outcomes: %s", want)
	}
	for range 10 {
		got, _ := json.Marshal(read(t, compat.Protobuf, r, w, evidence.Options{MaxOutcomes: 2}))
		if string(got) != string(want) {
			t.Fatalf("two runs differ:\n%s\n%s", want, got)
		}
	}
}

// A document that fails several properties is refused at the first of
// them by location (the validator lists its causes in Go map order):
// one seed, one answer.
func TestJSONDeterministic(t *testing.T) {
	w := `{"type":"object","properties":{"id":{"type":"string"},"email":{"type":"string"},"birth_date":{"type":"string"}},"required":["id"]}`
	r := `{"type":"object","properties":{"id":{"type":"integer"},"email":{"type":"string"},"tier":{"type":"string"}},"required":["id","tier"]}`
	first := read(t, compat.JSON, r, w, evidence.Options{})
	want, _ := json.Marshal(first)
	if first.Refused != first.Events || len(first.Outcomes) < 2 || first.Outcomes[1].Path != "#/properties/id" {
		t.Fatalf("outcomes: %s", want)
	}
	for range 20 {
		got, _ := json.Marshal(read(t, compat.JSON, r, w, evidence.Options{}))
		if string(got) != string(want) {
			t.Fatalf("two runs differ:\n%s\n%s", want, got)
		}
	}
}

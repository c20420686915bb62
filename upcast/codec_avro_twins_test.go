package upcast

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"

	"github.com/charter-dev/charter/compat/avro"
)

// Fingerprint twins: schemas that differ only in what hamba's codec cache
// key leaves out (defaults, nested defaults, enum defaults, doc, aliases;
// logical types are in the key but are listed too). hamba keeps the
// encoders and decoders it builds in the frozen config, keyed by that
// fingerprint, so with one config shared by twins (hamba.Marshal's
// DefaultConfig) the second twin a process uses gets the first one's
// codec. Each twinCase runs every Avro codec path for both twins, in both
// orders, in one process, and compares each result with the one a fresh
// hamba config (no cache) gives.

// twinRecord is an Avro record U with the given fields; with fixed, it
// also has a fixed field, which puts the schema outside the compiled
// decoders' subset, so that hamba decodes it.
func twinRecord(fixed bool, fields ...string) string {
	if fixed {
		fields = append(fields, `{"name":"fx","type":{"type":"fixed","name":"FX","size":1}}`)
	}
	return `{"type":"record","name":"U","fields":[` + strings.Join(fields, ",") + `]}`
}

type twinCase struct {
	name string
	// a and b are the twins, as lists of fields.
	a, b []string
	// writer is the fields payloads are written with (decoded as a or b).
	writer []string
	// written is a value of writer; value a value of a and b to encode,
	// which may leave out fields with a default.
	written, value map[string]any
}

var twinCases = []twinCase{
	{
		name:    "default added",
		a:       []string{`{"name":"a","type":"string"}`, `{"name":"b","type":"string"}`},
		b:       []string{`{"name":"a","type":"string"}`, `{"name":"b","type":"string","default":"x"}`},
		writer:  []string{`{"name":"a","type":"string"}`, `{"name":"b","type":"string"}`},
		written: map[string]any{"a": "s", "b": "w"},
		value:   map[string]any{"a": "s"},
	},
	{
		name:    "default changed",
		a:       []string{`{"name":"a","type":"string"}`, `{"name":"b","type":"string","default":"x"}`},
		b:       []string{`{"name":"a","type":"string"}`, `{"name":"b","type":"string","default":"y"}`},
		writer:  []string{`{"name":"a","type":"string"}`},
		written: map[string]any{"a": "s"},
		value:   map[string]any{"a": "s"},
	},
	{
		name:    "default of a long changed",
		a:       []string{`{"name":"a","type":"string"}`, `{"name":"n","type":"long","default":1}`},
		b:       []string{`{"name":"a","type":"string"}`, `{"name":"n","type":"long","default":2}`},
		writer:  []string{`{"name":"a","type":"string"}`},
		written: map[string]any{"a": "s"},
		value:   map[string]any{"a": "s"},
	},
	{
		name: "nested default changed",
		a: []string{`{"name":"a","type":"string"}`,
			`{"name":"r","type":{"type":"record","name":"R","fields":[{"name":"x","type":"int"},{"name":"y","type":"string","default":"p"}]}}`},
		b: []string{`{"name":"a","type":"string"}`,
			`{"name":"r","type":{"type":"record","name":"R","fields":[{"name":"x","type":"int"},{"name":"y","type":"string","default":"q"}]}}`},
		writer: []string{`{"name":"a","type":"string"}`,
			`{"name":"r","type":{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}}`},
		written: map[string]any{"a": "s", "r": map[string]any{"x": 1}},
		value:   map[string]any{"a": "s", "r": map[string]any{"x": 1}},
	},
	{
		name: "record default changed",
		a: []string{`{"name":"a","type":"string"}`,
			`{"name":"r","type":{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]},"default":{"x":1}}`},
		b: []string{`{"name":"a","type":"string"}`,
			`{"name":"r","type":{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]},"default":{"x":2}}`},
		writer:  []string{`{"name":"a","type":"string"}`},
		written: map[string]any{"a": "s"},
		value:   map[string]any{"a": "s"},
	},
	{
		name:    "enum default changed",
		a:       []string{`{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"],"default":"A"}}`},
		b:       []string{`{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"],"default":"B"}}`},
		writer:  []string{`{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C","D"]}}`},
		written: map[string]any{"e": "D"},
		value:   map[string]any{"e": "C"},
	},
	{
		name: "doc",
		a:    []string{`{"name":"a","type":"string"}`, `{"name":"b","type":"string","default":"x"}`},
		b: []string{`{"name":"a","type":"string","doc":"the a"}`,
			`{"name":"b","type":{"type":"string"},"default":"x","doc":"the b"}`},
		writer:  []string{`{"name":"a","type":"string"}`},
		written: map[string]any{"a": "s"},
		value:   map[string]any{"a": "s"},
	},
	{
		name: "field alias",
		a:    []string{`{"name":"a","type":"string"}`, `{"name":"c","type":"string","default":"z"}`},
		b:    []string{`{"name":"a","type":"string"}`, `{"name":"c","type":"string","default":"z","aliases":["b"]}`},
		writer: []string{`{"name":"a","type":"string"}`,
			`{"name":"b","type":"string"}`},
		written: map[string]any{"a": "s", "b": "w"},
		value:   map[string]any{"a": "s"},
	},
	{
		name:    "logical type",
		a:       []string{`{"name":"a","type":"string"}`, `{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":6,"scale":2},"default":"\u0000"}`},
		b:       []string{`{"name":"a","type":"string"}`, `{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":6,"scale":3},"default":"\u0000"}`},
		writer:  []string{`{"name":"a","type":"string"}`},
		written: map[string]any{"a": "s"},
		value:   map[string]any{"a": "s", "d": big.NewRat(3, 2)},
	},
}

// twinResults is what the Avro codec paths give for one schema.
type twinResults struct {
	encoded   []byte         // encode(value)
	encodeErr string         //
	self      map[string]any // decoder(v, v) of encoded
	converted map[string]any // converter(v, v)(value)
	convErr   string         //
	read      map[string]any // decoder(writer, v) of written
	readErr   string         //
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func twinVersion(t *testing.T, num int, text string) *version {
	t.Helper()
	s, err := avro.Parse(text, nil)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	v := &version{subject: "u", num: num, schema: s, codec: avroCodec{}}
	if err := (avroCodec{}).prepare(v, nil); err != nil {
		t.Fatal(err)
	}
	return v
}

func copyValue(v map[string]any) map[string]any { return copyDecoded(v).(map[string]any) }

// twinRun runs the codec paths for the schema text.
func twinRun(t *testing.T, text, writerText string, tc twinCase) twinResults {
	t.Helper()
	c := avroCodec{}
	v, w := twinVersion(t, 2, text), twinVersion(t, 1, writerText)
	var r twinResults
	b, err := c.encode(copyValue(tc.value), v)
	r.encoded, r.encodeErr = b, errText(err)
	if err == nil {
		dec, err := c.decoder(v, v)
		if err != nil {
			t.Fatal(err)
		}
		if r.self, err = dec(b); err != nil {
			t.Fatalf("decode what was encoded: %v", err)
		}
	}
	conv, err := c.converter(v, v)
	if err != nil {
		t.Fatal(err)
	}
	r.converted, err = conv(copyValue(tc.value))
	r.convErr = errText(err)
	payload, err := avro.UncachedAPI.Marshal(hambaOf(w), tc.written)
	if err != nil {
		t.Fatalf("encode the written value: %v", err)
	}
	dec, err := c.decoder(w, v)
	if err != nil {
		t.Fatalf("decoder(writer, %s): %v", tc.name, err)
	}
	r.read, err = dec(payload)
	r.readErr = errText(err)
	return r
}

// freshDecode decodes payload written with writer as reader with a
// config without a cache.
func freshDecode(t *testing.T, reader, writer hamba.Schema, payload []byte) (map[string]any, string) {
	t.Helper()
	s := reader
	if writer != nil {
		rs, err := hamba.NewSchemaCompatibility().Resolve(reader, writer)
		if err != nil {
			t.Fatal(err)
		}
		s = rs
	}
	r := hamba.NewReader(nil, 0, hamba.WithReaderConfig(avro.UncachedAPI)).Reset(payload)
	var out any
	r.ReadVal(s, &out)
	if r.Error != nil {
		return nil, r.Error.Error()
	}
	return out.(map[string]any), ""
}

// twinFresh computes twinRun's results with fresh hamba configs.
func twinFresh(t *testing.T, text, writerText string, tc twinCase) twinResults {
	t.Helper()
	vs, err := avro.Parse(text, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := avro.Parse(writerText, nil)
	if err != nil {
		t.Fatal(err)
	}
	var r twinResults
	b, err := avro.UncachedAPI.Marshal(vs.Hamba(), tc.value)
	r.encoded, r.encodeErr = b, errText(err)
	r.convErr = r.encodeErr // the converter encodes first
	if err == nil {
		r.self, _ = freshDecode(t, vs.Hamba(), nil, b)
		r.converted = r.self
	}
	payload, err := avro.UncachedAPI.Marshal(ws.Hamba(), tc.written)
	if err != nil {
		t.Fatal(err)
	}
	r.read, r.readErr = freshDecode(t, vs.Hamba(), ws.Hamba(), payload)
	return r
}

func compareTwin(t *testing.T, got, want twinResults) {
	t.Helper()
	if fmt.Sprint(got.encoded) != fmt.Sprint(want.encoded) {
		t.Errorf("encode: got %v, want %v (fresh config)", got.encoded, want.encoded)
	}
	if got.encodeErr != want.encodeErr {
		t.Errorf("encode error: got %q, want %q (fresh config)", got.encodeErr, want.encodeErr)
	}
	if !Equal(got.self, want.self) {
		t.Errorf("decode of the encoding: got %v, want %v (fresh config)", got.self, want.self)
	}
	if !Equal(got.converted, want.converted) || (got.convErr == "") != (want.convErr == "") || !strings.Contains(got.convErr, want.convErr) {
		t.Errorf("converter: got %v (%q), want %v (%q) (fresh config)", got.converted, got.convErr, want.converted, want.convErr)
	}
	if !Equal(got.read, want.read) || got.readErr != want.readErr {
		t.Errorf("decode as reader of the writer: got %v (%q), want %v (%q) (fresh config)", got.read, got.readErr, want.read, want.readErr)
	}
}

// TestAvroFingerprintTwins runs each case's twins in both orders in one
// process, through compiled decoders and through hamba's (fixed), and
// checks every result against a fresh hamba config's.
func TestAvroFingerprintTwins(t *testing.T) {
	for _, tc := range twinCases {
		for _, fixed := range []bool{false, true} {
			name := tc.name
			if fixed {
				name += "/hamba-decoded"
			}
			t.Run(name, func(t *testing.T) {
				a, b, w := twinRecord(fixed, tc.a...), twinRecord(fixed, tc.b...), twinRecord(fixed, tc.writer...)
				val, written := tc.value, tc.written
				if fixed {
					tc.value, tc.written = copyValue(val), copyValue(written)
					tc.value["fx"], tc.written["fx"] = [1]byte{7}, [1]byte{7}
				}
				if fixed {
					if _, ok := compileAvroDecoder(twinVersion(t, 1, a).state.(*avroState).schema); ok {
						t.Fatal("the fixed field should leave decoding to hamba")
					}
				}
				for _, order := range [][2]string{{a, b}, {b, a}} {
					for _, text := range order {
						compareTwin(t, twinRun(t, text, w, tc), twinFresh(t, text, w, tc))
					}
				}
			})
		}
	}
}

// TestAvroFingerprintTwinsDiffer checks that the table is worth running:
// in most cases the twins' fresh results differ, so that a codec shared
// between them would give one twin a wrong result.
func TestAvroFingerprintTwinsDiffer(t *testing.T) {
	same := map[string]bool{"doc": true, "field alias": false}
	for _, tc := range twinCases {
		w := twinRecord(false, tc.writer...)
		ra := twinFresh(t, twinRecord(false, tc.a...), w, tc)
		rb := twinFresh(t, twinRecord(false, tc.b...), w, tc)
		differ := fmt.Sprint(ra.encoded) != fmt.Sprint(rb.encoded) || ra.convErr != rb.convErr ||
			!Equal(ra.read, rb.read) || ra.readErr != rb.readErr
		if differ == same[tc.name] {
			t.Errorf("%s: twins differ: %v, want %v", tc.name, differ, !same[tc.name])
		}
	}
}

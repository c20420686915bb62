package upcast

import (
	"math/rand/v2"
	"testing"

	"github.com/charter-dev/charter/compat/avro"
)

// TestBoxedValuesStay decodes many more strings and longs than a slab
// holds (with failed, truncated decodes in between, which use slots too),
// keeps every value, and only then compares each with hamba's decode: a
// later decode must never change an earlier event's values.
func TestBoxedValuesStay(t *testing.T) {
	s := mustParse(decoderSchemas["primitives"])
	rd, ok := compileAvroDecoder(s)
	if !ok {
		t.Fatal("compileAvroDecoder: schema left to hamba, want compiled")
	}
	rng := rand.New(rand.NewPCG(3, 5))
	const n = 5 * boxSlabLen
	payloads := make([][]byte, n)
	got := make([]map[string]any, n)
	for i := range n {
		b, err := avro.UncachedAPI.Marshal(s, genAvro(rng, s))
		if err != nil {
			t.Fatalf("value %d: marshal: %v", i, err)
		}
		payloads[i] = b
		if got[i], err = rd.decode(b); err != nil {
			t.Fatalf("value %d: compiled: %v", i, err)
		}
		if _, err := rd.decode(b[:len(b)-1]); err == nil {
			t.Fatalf("value %d: a truncated payload decoded", i)
		}
	}
	for i, b := range payloads {
		want, err := hambaReference(s, b)
		if err != nil {
			t.Fatalf("value %d: hamba: %v", i, err)
		}
		if err := sameDecoded(got[i], want); err != nil {
			t.Fatalf("value %d, checked after %d later decodes: %v", i, n-1-i, err)
		}
		if _, ok := got[i]["s"].(string); !ok {
			t.Fatalf("value %d: s is %T, want string", i, got[i]["s"])
		}
		if _, ok := got[i]["l"].(int64); !ok {
			t.Fatalf("value %d: l is %T, want int64", i, got[i]["l"])
		}
	}
}

// TestBoxes checks a boxed value's type and value, and that a slab's
// slots are not shared.
func TestBoxes(t *testing.T) {
	var b boxSlabs
	var strs, longs []any
	for i := range 3 * boxSlabLen {
		strs = append(strs, b.str(string(rune('a'+i%26))+"x"))
		longs = append(longs, b.long(int64(i)-boxSlabLen))
	}
	for i := range 3 * boxSlabLen {
		if s, ok := strs[i].(string); !ok || s != string(rune('a'+i%26))+"x" {
			t.Fatalf("string %d: %#v", i, strs[i])
		}
		if l, ok := longs[i].(int64); !ok || l != int64(i)-boxSlabLen {
			t.Fatalf("long %d: %#v", i, longs[i])
		}
		if strs[i] == any(int64(0)) || longs[i] != any(int64(i)-boxSlabLen) {
			t.Fatalf("%d: boxed values compare wrongly", i)
		}
	}
}

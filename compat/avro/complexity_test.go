package avro_test

// Families of schema pairs whose comparison could grow faster than the
// schemas (the JSON Schema engine's fresh-user report F1/F2, checked here
// for Avro): named records reused by many fields, deep nesting, wide
// unions. Tests check verdicts and finding counts; the benchmarks print
// the time per size. Helpers carry an avroCx prefix so that they cannot
// clash with the package's other tests.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
)

// avroCxChain returns records D0…Dn: D0 has an int field x (and, with
// extra, a string field y without a default), and every D(i) has fields a,
// b and c of type D(i-1) (defined at a, referred to by name at b and c),
// so 3^n field paths reach D0. The top-level schema is Dn.
func avroCxChain(n int, extra bool) string {
	d := `{"type":"record","name":"D0","fields":[{"name":"x","type":"int"}`
	if extra {
		d += `,{"name":"y","type":"string"}`
	}
	d += `]}`
	for i := 1; i <= n; i++ {
		d = fmt.Sprintf(`{"type":"record","name":"D%d","fields":[{"name":"a","type":%s},{"name":"b","type":"D%d"},{"name":"c","type":"D%d"}]}`, i, d, i-1, i-1)
	}
	return d
}

// avroCxNested returns records nested depth levels deep through arrays
// and maps alternately, the innermost record holding field x (int, or
// long when widened: a compatible promotion, or string when changed).
func avroCxNested(depth int, leaf string) string {
	t := fmt.Sprintf(`{"type":"record","name":"Leaf","fields":[{"name":"x","type":%q}]}`, leaf)
	for i := 0; i < depth; i++ {
		if i%2 == 0 {
			t = fmt.Sprintf(`{"type":"array","items":%s}`, t)
		} else {
			t = fmt.Sprintf(`{"type":"map","values":%s}`, t)
		}
	}
	return fmt.Sprintf(`{"type":"record","name":"Top","fields":[{"name":"v","type":%s}]}`, t)
}

// avroCxUnion returns a record whose field u is a union of k records
// R0…R(k-1), in reverse order when reversed.
func avroCxUnion(k int, reversed bool) string {
	bs := make([]string, k)
	for i := range bs {
		j := i
		if reversed {
			j = k - 1 - i
		}
		bs[i] = fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"f","type":"int"}]}`, j)
	}
	return `{"type":"record","name":"Top","fields":[{"name":"u","type":[` + strings.Join(bs, ",") + `]}]}`
}

func avroCxParse(tb testing.TB, text string) compat.Schema {
	tb.Helper()
	s, err := avro.Format{}.Parse(text, nil)
	if err != nil {
		tb.Fatalf("parse: %v", err)
	}
	return s
}

// TestAvroChainedRecords: a field without a default added to D0, which
// 3^n paths reach, is reported once per path up to the engine's bound of
// 10,000 violations, and the work (allocations, deterministic) stays
// linear in n plus that bound.
func TestAvroChainedRecords(t *testing.T) {
	allocs := map[int]float64{}
	for _, n := range []int{8, 12, 20, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			w, r := avroCxParse(t, avroCxChain(n, false)), avroCxParse(t, avroCxChain(n, true))
			got := avro.Format{}.CheckRead(r, w)
			want := 10000
			if n == 8 {
				want = 6561 // 3^8
			}
			if len(got) != want {
				t.Fatalf("%d violations, want %d", len(got), want)
			}
			first := "." + strings.Repeat("a.", n) + "y"
			if got[0].RuleID != avro.RuleReaderFieldMissingDefault || got[0].Path != first {
				t.Errorf("first violation %v, want %s at %s", got[0], avro.RuleReaderFieldMissingDefault, first)
			}
			if vs := (avro.Format{}).CheckRead(w, r); len(vs) != 0 {
				t.Errorf("FORWARD: %d violations, want none", len(vs))
			}
			allocs[n] = testing.AllocsPerRun(2, func() { avro.Format{}.CheckRead(r, w) })
		})
	}
	// Exponential work would multiply by 3^20 from 20 to 40 levels.
	if allocs[40] > 3*allocs[20] {
		t.Errorf("allocations per check: %v at 20 levels, %v at 40; want them bounded", allocs[20], allocs[40])
	}
}

// TestAvroNested: 250 levels of arrays and maps (the parser's limit is 512
// JSON levels) compare with one finding for a changed leaf and none for a
// promoted one.
func TestAvroNested(t *testing.T) {
	const depth = 250
	w := avroCxParse(t, avroCxNested(depth, "int"))
	if vs := (avro.Format{}).CheckRead(avroCxParse(t, avroCxNested(depth, "long")), w); len(vs) != 0 {
		t.Errorf("int → long: %v", vs)
	}
	vs := avro.Format{}.CheckRead(avroCxParse(t, avroCxNested(depth, "string")), w)
	if len(vs) != 1 || vs[0].RuleID != avro.RuleTypeMismatch {
		t.Errorf("int → string: %v, want one %s", vs, avro.RuleTypeMismatch)
	}
}

// TestAvroReorderedUnion: reordering a union's records is compatible.
func TestAvroReorderedUnion(t *testing.T) {
	w, r := avroCxParse(t, avroCxUnion(300, false)), avroCxParse(t, avroCxUnion(300, true))
	if vs := (avro.Format{}).CheckRead(r, w); len(vs) != 0 {
		t.Errorf("%v", vs[0])
	}
}

func BenchmarkAvroChainedRecords(b *testing.B) {
	for _, n := range []int{8, 12, 20, 40} {
		b.Run(fmt.Sprintf("levels=%d", n), func(b *testing.B) {
			w, r := avroCxParse(b, avroCxChain(n, false)), avroCxParse(b, avroCxChain(n, true))
			b.ReportAllocs()
			for b.Loop() {
				avro.Format{}.CheckRead(r, w)
			}
		})
	}
}

// BenchmarkAvroReorderedUnion reads a union of k records with the
// branches reversed: each writer branch looks for its reader branch.
func BenchmarkAvroReorderedUnion(b *testing.B) {
	for _, k := range []int{1000, 4000, 16000} {
		text := avroCxUnion(k, false)
		b.Run(fmt.Sprintf("branches=%d/bytes=%d", k, len(text)), func(b *testing.B) {
			w, r := avroCxParse(b, text), avroCxParse(b, avroCxUnion(k, true))
			b.ReportAllocs()
			for b.Loop() {
				avro.Format{}.CheckRead(r, w)
			}
		})
	}
}

package registry

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/jsonschema"
)

type sizedSchema struct{ text string }

func (s sizedSchema) Type() compat.SchemaType { return compat.Avro }
func (s sizedSchema) Canonical() string       { return s.text }
func (s sizedSchema) Normalized() string      { return s.text }

// TestParsedCacheBudget: the cache keeps its estimated bytes within the
// budget, evicting the least recently used schema first.
func TestParsedCacheBudget(t *testing.T) {
	one := parsedSize(sizedSchema{strings.Repeat("x", 100)})
	c := newParsedCache(1000, 3*one)
	for id := int64(1); id <= 3; id++ {
		c.put(k(id), sizedSchema{strings.Repeat("x", 100)})
	}
	if _, ok := c.get(k(1)); !ok { // 1 is now the most recent
		t.Fatal("schema 1 missing before the budget was passed")
	}
	c.put(k(4), sizedSchema{strings.Repeat("x", 100)})
	if _, ok := c.get(k(2)); ok {
		t.Error("schema 2, the least recently used, was kept past the budget")
	}
	for _, id := range []int64{1, 3, 4} {
		if _, ok := c.get(k(id)); !ok {
			t.Errorf("schema %d evicted, want only 2 evicted", id)
		}
	}
	if n, b := c.stats(); n != 3 || b > 3*one {
		t.Errorf("stats = %d entries, %d bytes; want 3, <= %d", n, b, 3*one)
	}
	c.put(k(5), sizedSchema{strings.Repeat("x", 400)}) // larger than the budget
	if _, ok := c.get(k(5)); ok {
		t.Error("a schema larger than the whole budget was kept")
	}
	c.remove(k(3))
	c.clear()
	if n, b := c.stats(); n != 0 || b != 0 {
		t.Errorf("after clear: %d entries, %d bytes", n, b)
	}
	// A scan (putIfRoom) fills the room left and evicts nothing: a
	// second scan over the same five finds the two that fit.
	scan := newParsedCache(1000, 2*one)
	for round := range 2 {
		hits := 0
		for id := int64(1); id <= 5; id++ {
			if _, ok := scan.get(k(id)); ok {
				hits++
				continue
			}
			scan.putIfRoom(k(id), sizedSchema{strings.Repeat("x", 100)})
		}
		if want := []int{0, 2}[round]; hits != want {
			t.Errorf("scan %d: %d hits, want %d", round+1, hits, want)
		}
	}
	cnt := newParsedCache(2, 1<<30)
	for id := int64(1); id <= 3; id++ {
		cnt.put(k(id), sizedSchema{"x"})
	}
	if n, _ := cnt.stats(); n != 2 {
		t.Errorf("count bound 2 holds %d entries", n)
	}
}

// TestParsedSizeFactor measures the heap bytes of parsed schemas per byte
// of canonical text and fails if it passes parsedBytesPerTextByte, the
// estimate the cache's byte budget uses.
func TestParsedSizeFactor(t *testing.T) {
	record := func(fields int) string {
		var b strings.Builder
		b.WriteString(`{"type":"record","name":"Grow","fields":[{"name":"id","type":"long"}`)
		for i := 0; i < fields; i++ {
			fmt.Fprintf(&b, `,{"name":"f%d","type":["null","string"],"default":null}`, i)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	json := func(props int) string {
		var b strings.Builder
		b.WriteString(`{"type":"object","properties":{"id":{"type":"integer"}`)
		for i := 0; i < props; i++ {
			fmt.Fprintf(&b, `,"p%d":{"type":"string","maxLength":%d}`, i, i+1)
		}
		b.WriteString(`}}`)
		return b.String()
	}
	for _, tc := range []struct {
		name string
		f    compat.Format
		text func(int) string
	}{{"avro record", avro.Format{}, record}, {"json schema", jsonschema.Format{}, json}} {
		for _, n := range []int{10, 100, 1000} {
			text := tc.text(n)
			const copies = 20
			kept := make([]compat.Schema, copies)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			canon := 0
			for i := range kept {
				s, err := tc.f.Parse(text, nil)
				if err != nil {
					t.Fatal(err)
				}
				kept[i] = s
				canon += len(s.Canonical())
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			factor := float64(after.HeapAlloc-before.HeapAlloc) / float64(canon)
			t.Logf("%s, %d fields: %.1f heap bytes per byte of canonical text", tc.name, n, factor)
			if factor > parsedBytesPerTextByte {
				t.Errorf("%s, %d fields: %.1f bytes per byte, above parsedBytesPerTextByte (%d)", tc.name, n, factor, parsedBytesPerTextByte)
			}
			runtime.KeepAlive(kept)
		}
	}
}

// k is the key of default-context schema id.
func k(id int64) SchemaKey { return SchemaKey{ID: id} }

// TestParsedCacheContexts: two contexts' schema 1 are two entries.
func TestParsedCacheContexts(t *testing.T) {
	c := newParsedCache(10, 1<<20)
	c.put(SchemaKey{ID: 1}, sizedSchema{"default"})
	c.put(SchemaKey{Context: ".a", ID: 1}, sizedSchema{"a"})
	for key, want := range map[SchemaKey]string{{ID: 1}: "default", {Context: ".a", ID: 1}: "a"} {
		if got, ok := c.get(key); !ok || got.Canonical() != want {
			t.Errorf("get(%v) = %v, %v; want %q", key, got, ok, want)
		}
	}
	c.remove(SchemaKey{Context: ".a", ID: 1})
	if _, ok := c.get(SchemaKey{ID: 1}); !ok {
		t.Error("removing .a's schema 1 removed the default context's")
	}
}

package api

import (
	"testing"

	"github.com/charter-dev/charter/registry"
)

// TestViewComparesBodies: two lookups whose body hashes collide (here
// forced by giving both the same key) never share an answer; the kept
// answer is served only to the very body it answered.
func TestViewComparesBodies(t *testing.T) {
	v := newView(1 << 20)
	key := "POST /subjects/orders?\x00\x00" + bodyKey([]byte("a"))
	v.put(key, registry.Generation{Local: 7}, []byte(`{"schema":"a"}`), []byte(`{"id":1}`))
	for _, tc := range []struct {
		name string
		req  string
		gen  registry.Generation
		want string
	}{
		{"the same body", `{"schema":"a"}`, registry.Generation{Local: 7}, `{"id":1}`},
		{"another body under the same key", `{"schema":"b"}`, registry.Generation{Local: 7}, ""},
		{"a prefix of the body", `{"schema":"a"`, registry.Generation{Local: 7}, ""},
		{"an empty body", ``, registry.Generation{Local: 7}, ""},
	} {
		got, ok := v.get(key, tc.gen, []byte(tc.req))
		if string(got) != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: get = %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
	for _, g := range []registry.Generation{{Local: 8}, {Local: 7, Store: 1}} {
		v.put(key, registry.Generation{Local: 7}, []byte(`{"schema":"a"}`), []byte(`{"id":1}`))
		if _, ok := v.get(key, g, []byte(`{"schema":"a"}`)); ok {
			t.Errorf("an answer of generation {7 0} was served at generation %v", g)
		}
	}
}

// TestViewBudgetCountsRequestBodies: a kept lookup's request body counts
// against the byte budget, so large bodies evict as large answers do.
func TestViewBudgetCountsRequestBodies(t *testing.T) {
	v := newView(64 << 10)
	req := make([]byte, 6<<10)
	for i := range 20 {
		req[0] = byte(i)
		v.put(string(rune('a'+i)), registry.Generation{Local: 1}, append([]byte(nil), req...), []byte(`{"id":1}`))
	}
	if v.used > v.budget {
		t.Fatalf("used %d bytes of a %d-byte budget", v.used, v.budget)
	}
	if n := len(v.m); n >= 20 || n < 5 {
		t.Fatalf("%d of 20 entries of 6 KiB kept in 64 KiB; want fewer than 20 and at least 5", n)
	}
}

package api_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/charter-dev/charter/registry/api"
)

// viewReads are the read paths the view answers, with their variants.
var viewReads = []struct{ method, path, body string }{
	{"GET", "/subjects", ""},
	{"GET", "/subjects?deleted=true", ""},
	{"GET", "/subjects?deletedOnly=true", ""},
	{"GET", "/subjects?subjectPrefix=or", ""},
	{"GET", "/subjects/orders/versions", ""},
	{"GET", "/subjects/orders/versions?deleted=true", ""},
	{"GET", "/subjects/orders/versions?deletedOnly=true", ""},
	{"GET", "/subjects/orders/versions?deletedAsNegative=true", ""},
	{"GET", "/subjects/orders/versions/latest", ""},
	{"GET", "/subjects/orders/versions/-1", ""},
	{"GET", "/subjects/orders/versions/latest?deleted=true", ""},
	{"GET", "/subjects/orders/versions/1", ""},
	{"GET", "/subjects/orders/versions/2", ""},
	{"GET", "/subjects/orders/versions/2?deleted=true", ""},
	{"GET", "/subjects/orders/versions/latest/schema", ""},
	{"GET", "/subjects/nickname/versions/latest", ""},
	{"GET", "/subjects/nickname/versions", ""},
	{"POST", "/subjects/orders", schemaBody(viewV1)},
	{"POST", "/subjects/orders?deleted=true", schemaBody(viewV2)},
	{"POST", "/subjects/orders", schemaBody(viewV2)},
	{"POST", "/subjects/orders?normalize=true", schemaBody(viewV1Spaced)},
	{"POST", "/subjects/nickname", schemaBody(viewV1)},
	{"GET", "/config", ""},
	{"GET", "/config/orders", ""},
	{"GET", "/config/orders?defaultToGlobal=true", ""},
	{"GET", "/config/nickname", ""},
	{"GET", "/mode", ""},
	{"GET", "/mode/orders", ""},
	{"GET", "/mode/orders?defaultToGlobal=true", ""},
}

const (
	viewV1       = `{"type":"record","name":"Order","fields":[{"name":"id","type":"long"}]}`
	viewV1Spaced = `{"type": "record", "name": "Order", "fields": [{"name": "id", "type": "long"}]}`
	viewV2       = `{"type":"record","name":"Order","fields":[{"name":"id","type":"long"},{"name":"note","type":"string","default":""}]}`
	viewV3       = `{"type":"record","name":"Order","fields":[{"name":"id","type":"long"},{"name":"note","type":"string","default":""},{"name":"n","type":"int","default":0}]}`
)

// TestViewIsExact applies the same writes to an API with the view and to
// one without, and after each write compares every read path (each read
// twice, so that the second is a view hit where it can be): a write
// through the process is visible to the next read, on every cached path
// and variant (soft-deleted versions, deleted=true, normalize, aliases,
// config, mode, the owner in latest's metadata).
func TestViewIsExact(t *testing.T) {
	t.Parallel()
	viewed := newEnv(t)
	direct := newEnv(t, func(o *api.Options) { o.CacheBytes = -1 })
	writes := []struct{ method, path, body string }{
		{"POST", "/subjects/orders/versions", schemaBody(viewV1)},
		{"POST", "/subjects/orders/versions", schemaBody(viewV2)},
		{"PUT", "/config/nickname", `{"alias":"orders"}`},
		{"PUT", "/config/orders", `{"compatibility":"FULL"}`},
		{"PUT", "/governance/subjects/orders/owner", `{"team":"logistics","contact":"#logistics"}`},
		{"POST", "/subjects/orders/versions", schemaBody(viewV3)},
		{"DELETE", "/subjects/orders/versions/3", ""},
		{"DELETE", "/subjects/orders/versions/2", ""},
		{"PUT", "/mode/orders", `{"mode":"READONLY"}`},
		{"PUT", "/mode/orders", `{"mode":"READWRITE"}`},
		{"PUT", "/config", `{"compatibility":"NONE"}`},
		{"DELETE", "/config/orders", ""},
		{"DELETE", "/subjects/orders/versions/2?permanent=true", ""},
		{"POST", "/subjects/orders/versions", schemaBody(viewV2)},
		{"PUT", "/mode", `{"mode":"READONLY"}`},
		{"DELETE", "/mode", ""},
		{"DELETE", "/subjects/orders", ""},
		{"DELETE", "/subjects/orders?permanent=true", ""},
		{"POST", "/subjects/orders/versions", schemaBody(viewV3)},
	}
	compare := func(after string) {
		t.Helper()
		for _, r := range viewReads {
			for i := range 2 {
				vs, _, vb := viewed.do(r.method, r.path, r.body)
				ds, _, db := direct.do(r.method, r.path, r.body)
				if vs != ds || vb != db {
					t.Errorf("after %s, %s %s (read %d): with the view %d %s, without %d %s", after, r.method, r.path, i+1, vs, vb, ds, db)
				}
			}
		}
	}
	compare("nothing")
	for _, w := range writes {
		vs, _, vb := viewed.do(w.method, w.path, w.body)
		ds, _, db := direct.do(w.method, w.path, w.body)
		if vs != ds || (vb != db && !strings.Contains(vb, "updatedAt")) {
			t.Fatalf("%s %s: with the view %d %s, without %d %s", w.method, w.path, vs, vb, ds, db)
		}
		compare(w.method + " " + w.path)
	}
}

// TestViewNoStaleLatest registers versions while readers hammer latest,
// the version list and a lookup: once a registration is answered, the
// next read shows it.
func TestViewNoStaleLatest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.mustDo("PUT", "/config/grow", `{"compatibility":"NONE"}`)
	record := func(n int) string {
		var f []string
		for i := range n {
			f = append(f, fmt.Sprintf(`{"name":"f%d","type":"int","default":0}`, i))
		}
		return `{"type":"record","name":"G","fields":[` + strings.Join(f, ",") + `]}`
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					e.do("GET", "/subjects/grow/versions/latest", "")
					e.do("GET", "/subjects/grow/versions", "")
					e.do("POST", "/subjects/grow", schemaBody(record(3)))
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	for n := 1; n <= 30; n++ {
		e.mustDo("POST", "/subjects/grow/versions", schemaBody(record(n)))
		if got := e.mustDo("GET", "/subjects/grow/versions/latest", ""); !strings.Contains(got, `"version":`+strconv.Itoa(n)+`,`) {
			t.Fatalf("latest after registering version %d: %s", n, got)
		}
		if got := e.mustDo("GET", "/subjects/grow/versions", ""); !strings.HasSuffix(got, ","+strconv.Itoa(n)+"]") && n > 1 {
			t.Fatalf("versions after registering version %d: %s", n, got)
		}
		if n >= 3 {
			if status, _, got := e.do("POST", "/subjects/grow", schemaBody(record(3))); status != http.StatusOK || !strings.Contains(got, `"version":3,`) {
				t.Fatalf("lookup of version 3 after registering version %d: %d %s", n, status, got)
			}
		}
	}
}

// TestViewServesRepeatedReads: a read path asked again with nothing
// written between is answered from the view, not the store (each answer
// carries Cache-Control and X-Xss-Protection, which are the content's
// own headers, not a handler's reason to keep it out of the view).
func TestViewServesRepeatedReads(t *testing.T) {
	e := newEnv(t)
	if code, _, body := e.do("POST", "/subjects/orders/versions", schemaBody(viewV1)); code != http.StatusOK {
		t.Fatalf("register: %d %s", code, body)
	}
	reads := func() int {
		t.Helper()
		_, _, body := e.do("GET", "/metrics", "")
		for _, line := range strings.Split(body, "\n") {
			if strings.HasPrefix(line, `charter_store_transaction_duration_seconds_count{kind="read",operation="get version"}`) {
				f := strings.Fields(line)
				n, err := strconv.Atoi(f[len(f)-1])
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
		return 0
	}
	before := reads()
	var first string
	for i := range 5 {
		code, _, body := e.do("GET", "/subjects/orders/versions/latest", "")
		if code != http.StatusOK || (i > 0 && body != first) {
			t.Fatalf("read %d: %d %s", i+1, code, body)
		}
		first = body
	}
	if got := reads() - before; got != 1 {
		t.Fatalf("5 reads of latest read the store %d times, want 1 (the rest from the view)", got)
	}
}

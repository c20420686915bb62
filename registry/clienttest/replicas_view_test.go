package clienttest

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry/postgres/pgtest"
)

// TestReplicaViewIsExact: each read path that a replica answers from its
// view of encoded answers (latest and numbered versions, version lists,
// /subjects, lookups, config and mode) is read through replica B until B
// keeps the answer, then changed by a write through replica A; the first
// read through B after A answered shows the write (B checks the store's
// write count on every read, registry.Service.ReadGeneration).
func TestReplicaViewIsExact(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := startServerDB(t, dsn), startServerDB(t, dsn)
	a.mustDo(t, http.MethodPut, "/config/seen", map[string]string{"compatibility": "NONE"}, http.StatusOK)
	schema := func(v int) map[string]string { return map[string]string{"schema": eventSchema(5000+v, 0)} }
	a.mustDo(t, http.MethodPost, "/subjects/seen/versions", schema(1), http.StatusOK)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	read := func(method, path string, body any) (int, string) {
		t.Helper()
		r, err := b.do(ctx, client, method, path, body)
		if err != nil {
			t.Fatal(err)
		}
		return r.Status, string(r.Body)
	}
	field := func(body, name string) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			return body
		}
		out, _ := json.Marshal(m[name])
		return string(out)
	}
	for i, tc := range []struct {
		name         string
		method, path string
		body         any
		write        func()
		// seen says the answer shows the write.
		seen func(status int, body string) bool
	}{
		{"latest", "GET", "/subjects/seen/versions/latest", nil,
			func() { a.mustDo(t, http.MethodPost, "/subjects/seen/versions", schema(2), http.StatusOK) },
			func(st int, body string) bool { return st == 200 && field(body, "version") == "2" }},
		{"version list", "GET", "/subjects/seen/versions", nil,
			func() { a.mustDo(t, http.MethodPost, "/subjects/seen/versions", schema(3), http.StatusOK) },
			func(st int, body string) bool { return st == 200 && body == "[1,2,3]" }},
		{"numbered version", "GET", "/subjects/seen/versions/1", nil,
			func() { a.mustDo(t, http.MethodDelete, "/subjects/seen/versions/1", nil, http.StatusOK) },
			func(st int, _ string) bool { return st == 404 }},
		{"subjects", "GET", "/subjects", nil,
			func() { a.mustDo(t, http.MethodPost, "/subjects/other/versions", schema(4), http.StatusOK) },
			func(st int, body string) bool { return st == 200 && body == `["other","seen"]` }},
		{"lookup", "POST", "/subjects/seen", schema(5),
			func() { a.mustDo(t, http.MethodPost, "/subjects/seen/versions", schema(5), http.StatusOK) },
			func(st int, body string) bool { return st == 200 && field(body, "version") == "4" }},
		{"config", "GET", "/config/seen", nil,
			func() {
				a.mustDo(t, http.MethodPut, "/config/seen", map[string]string{"compatibility": "FULL"}, http.StatusOK)
			},
			func(st int, body string) bool { return st == 200 && field(body, "compatibilityLevel") == `"FULL"` }},
		{"mode", "GET", "/mode/seen", nil,
			func() {
				a.mustDo(t, http.MethodPut, "/mode/seen", map[string]string{"mode": "READONLY"}, http.StatusOK)
			},
			func(st int, body string) bool { return st == 200 && field(body, "mode") == `"READONLY"` }},
	} {
		// Three reads: the first fills B's view, the others come from it.
		var before string
		for range 3 {
			st, body := read(tc.method, tc.path, tc.body)
			if tc.seen(st, body) {
				t.Fatalf("case %d (%s): %s %s shows the write before it: %d %s", i, tc.name, tc.method, tc.path, st, body)
			}
			before = body
		}
		tc.write()
		if st, body := read(tc.method, tc.path, tc.body); !tc.seen(st, body) {
			t.Errorf("%s: the first %s %s through B after A answered the write: %d %s (before: %s)", tc.name, tc.method, tc.path, st, body, before)
		}
	}
}

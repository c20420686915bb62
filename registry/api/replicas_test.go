package api_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/sqlite"
)

// sharedStore is a store that other processes share: a SQLite store
// whose invalidations the test sends by hand, and whose reads can be made
// to fail.
type sharedStore struct {
	*sqlite.Store
	subs []func(registry.Invalidation)
	down atomic.Bool
}

func (s *sharedStore) OnInvalidate(fn func(registry.Invalidation)) { s.subs = append(s.subs, fn) }

func (s *sharedStore) invalidate(inv registry.Invalidation) {
	for _, fn := range s.subs {
		fn(inv)
	}
}

func (s *sharedStore) View(ctx context.Context, fn func(registry.Tx) error) error {
	if s.down.Load() {
		return errors.New("connection refused")
	}
	return s.Store.View(ctx, fn)
}

// replicaPair returns two APIs over one SQLite file: a, whose store is
// shared (it takes invalidations), and b, "another replica".
func replicaPair(t *testing.T) (a http.Handler, shared *sharedStore, b http.Handler) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "charter.db")
	open := func() *sqlite.Store {
		// Shared: two stores own one file only in a test (a real
		// second process is refused).
		st, err := sqlite.OpenWith(t.Context(), path, sqlite.Options{Shared: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = st.Close() })
		return st
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	formats := []compat.Format{avro.Format{}}
	shared = &sharedStore{Store: open()}
	a = api.New(registry.NewService(shared, formats, registry.WithLogger(log)), api.Options{Logger: log})
	b = api.New(registry.NewService(open(), formats, registry.WithLogger(log)), api.Options{Logger: log})
	return a, shared, b
}

func call(t *testing.T, h http.Handler, method, path, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// TestInvalidationEvictsByID: GET /schemas/ids/{id} is cached; once
// another replica forgot the schema, the store's Invalidation (the IDs,
// or "drop everything") evicts the cached answer.
func TestInvalidationEvictsByID(t *testing.T) {
	for _, tc := range []struct {
		name string
		inv  registry.Invalidation
	}{
		{"forgotten ids", registry.Invalidation{Forgotten: []int64{1}}},
		{"all", registry.Invalidation{All: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, shared, b := replicaPair(t)
			if code, body := call(t, a, "POST", "/subjects/s/versions", `{"schema":"\"string\""}`); code != 200 || body != `{"id":1}` {
				t.Fatalf("register: %d %s", code, body)
			}
			if code, _ := call(t, a, "GET", "/schemas/ids/1", ""); code != 200 {
				t.Fatalf("GET /schemas/ids/1: %d", code)
			}
			for _, req := range []string{"/subjects/s/versions/1", "/subjects/s/versions/1?permanent=true"} {
				if code, body := call(t, b, "DELETE", req, ""); code != 200 {
					t.Fatalf("DELETE %s through the other replica: %d %s", req, code, body)
				}
			}
			if code, _ := call(t, a, "GET", "/schemas/ids/1", ""); code != 200 {
				t.Fatalf("before the invalidation the cached answer stands, got %d", code)
			}
			shared.invalidate(tc.inv)
			if code, body := call(t, a, "GET", "/schemas/ids/1", ""); code != 404 || !strings.Contains(body, "40403") {
				t.Errorf("GET /schemas/ids/1 after the invalidation: %d %s, want 404 40403", code, body)
			}
		})
	}
}

// TestReadyReflectsStore: /health/ready is 200 UP while the store
// answers, 503 DOWN (no detail) when it does not; /health/live stays UP.
func TestReadyReflectsStore(t *testing.T) {
	a, shared, _ := replicaPair(t)
	if code, body := call(t, a, "GET", "/health/ready", ""); code != 200 || body != `{"status":"UP"}` {
		t.Errorf("ready: %d %s", code, body)
	}
	shared.down.Store(true)
	if code, body := call(t, a, "GET", "/health/ready", ""); code != 503 || body != `{"status":"DOWN"}` {
		t.Errorf("ready with the store down: %d %s, want 503 {\"status\":\"DOWN\"}", code, body)
	}
	if code, _ := call(t, a, "GET", "/health/live", ""); code != 200 {
		t.Errorf("live with the store down: %d, want 200", code)
	}
}

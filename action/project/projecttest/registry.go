package projecttest

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/sqlite"
)

// Registry runs the real registry handler (as `charter serve` builds it)
// over a fresh SQLite file in a temporary directory, and returns a client
// of it and its URL. The server stops when the test ends.
func Registry(tb testing.TB) (*client.Client, string) {
	tb.Helper()
	store, err := sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "charter.db"))
	if err != nil {
		tb.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewServer(api.New(registry.NewService(store, formats.Formats(), registry.WithLogger(log)), api.Options{Logger: log}))
	tb.Cleanup(func() {
		srv.Close()
		if err := store.Close(); err != nil {
			tb.Errorf("close store: %v", err)
		}
	})
	c, err := client.New(srv.URL)
	if err != nil {
		tb.Fatal(err)
	}
	return c, srv.URL
}

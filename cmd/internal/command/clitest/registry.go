package clitest

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/sqlite"
)

// Day0 is the test clock's day 0: 2026-01-05 09:30 UTC.
var Day0 = time.Date(2026, 1, 5, 9, 30, 0, 0, time.UTC)

// Clock is a registry test clock, safe to set while the server reads it.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// Now returns the clock's time; pass it to registry.WithClock.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Set sets the clock to t.
func (c *Clock) Set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

// Day sets the clock to Day0 plus n days of 24 hours.
func (c *Clock) Day(n int) { c.Set(Day0.Add(time.Duration(n) * 24 * time.Hour)) }

// NewRegistry runs the real registry handler over a fresh SQLite file with
// the Avro, Protobuf and JSON Schema formats and a Clock on Day0, and
// returns the service, the server's URL and the clock. The server stops
// when the test ends.
func NewRegistry(tb testing.TB) (*registry.Service, string, *Clock) {
	tb.Helper()
	clk := &Clock{now: Day0}
	svc, url := RegistryWith(tb, clk.Now, formats.Formats()...)
	return svc, url, clk
}

// RegistryWith runs the real registry handler over a fresh SQLite file in
// tb's temporary directory with only the formats fs and the clock now, logs
// discarded, and returns the service and the server's URL. The server
// stops when the test ends.
func RegistryWith(tb testing.TB, now func() time.Time, fs ...compat.Format) (*registry.Service, string) {
	tb.Helper()
	store, err := sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "charter.db"))
	if err != nil {
		tb.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := registry.NewService(store, fs, registry.WithLogger(log), registry.WithClock(now))
	srv := httptest.NewServer(api.New(svc, api.Options{Logger: log}))
	tb.Cleanup(func() {
		srv.Close()
		_ = store.Close()
	})
	return svc, srv.URL
}

// Register registers schema (no schema type given: Avro) under subject
// through svc, failing tb on error.
func Register(tb testing.TB, svc *registry.Service, subject, schema string) {
	tb.Helper()
	if _, err := svc.Register(tb.Context(), subject, registry.RegisterRequest{Schema: schema}); err != nil {
		tb.Fatalf("register %s: %v", subject, err)
	}
}

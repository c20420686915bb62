package extend_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/clitest"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/compat/protobuf"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/sqlite"
)

// TestExtend: the acceptance scenario's extension, granted, shown by the
// registry's refusal and acceptance, and revoked.
func TestExtend(t *testing.T) {
	svc, url, clk := newRegistry(t)
	register(t, svc, "shipments-value", shipV1)
	register(t, svc, "shipments-value", shipV2)
	got := transcript(t, url,
		ok("deprecate", "shipments-value", ".carrier_code", "--replacement", ".carrier"),
		fail("extend", "shipments-value", ".carrier_code", "--days", "30", "--reason", "Q2", "--approver", "bob"),
		fail("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--days", "30", "--reason", "Q2"),
		fail("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--until", "2025-01-01", "--reason", "Q2", "--approver", "bob"),
		fail("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--until", "next week", "--reason", "Q2", "--approver", "bob"),
		fail("extend", "shipments-value", ".id", "--consumer", "billing", "--days", "30", "--reason", "Q2", "--approver", "bob"),
		fail("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--days", "999999999", "--reason", "r", "--approver", "a"),
		fail("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--days", "0", "--reason", "r", "--approver", "a"),
		fail("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--days", "3"),
		ok("extend", "shipments-value", ".carrier_code", "--consumer", "early", "--days", "10", "--reason", "r", "--approver", "a"),
		ok("extend", "shipments-value", ".carrier_code", "--consumer", "early", "--revoke"),
		ok("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--until", "2026-05-10", "--reason", "billing reads carrier_code until its Q2 release", "--approver", "bob"),
		ok("extend", "shipments-value", "field:.carrier_code", "--consumer", "audit", "--days", "100", "--reason", "yearly report", "--approver", "carol", "-o", "json"),
		ok("deprecate", "--list", "shipments-value"),
	)
	clk.day(120)
	got += transcript(t, url,
		ok("extend", "shipments-value", ".carrier_code", "--consumer", "audit", "--revoke"),
		fail("extend", "shipments-value", ".carrier_code", "--consumer", "audit", "--revoke"),
		ok("deprecate", "--list", "shipments-value"),
	)
	clitest.Golden(t, "extend.golden", got, url, "$REGISTRY")
}

// clock is the registry's test clock, settable to day n.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

var day0 = time.Date(2026, 1, 5, 9, 30, 0, 0, time.UTC)

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *clock) day(n int) {
	c.mu.Lock()
	c.now = day0.Add(time.Duration(n) * 24 * time.Hour)
	c.mu.Unlock()
}

// newRegistry runs the real registry handler over SQLite with a test
// clock on day 0.
func newRegistry(t *testing.T) (*registry.Service, string, *clock) {
	t.Helper()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{now: day0}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := registry.NewService(store, []compat.Format{avro.Format{}, protobuf.Format{}, jsonschema.Format{}},
		registry.WithLogger(log), registry.WithClock(clk.Now))
	srv := httptest.NewServer(api.New(svc, api.Options{Logger: log}))
	t.Cleanup(func() {
		srv.Close()
		_ = store.Close()
	})
	return svc, srv.URL, clk
}

// step is one command line and the exit code it must return.
type step struct {
	args []string
	code int
}

func ok(args ...string) step   { return step{args, cli.ExitOK} }
func fail(args ...string) step { return step{args, cli.ExitError} }

// transcript runs steps against url as alice and returns what they
// printed: "$ charter …", stdout, stderr and the exit code when not 0.
func transcript(t *testing.T, url string, steps ...step) string {
	t.Helper()
	t.Setenv("CHARTER_ACTOR", "alice")
	var b strings.Builder
	for _, s := range steps {
		r := clitest.Run(t, append([]string{"--registry", url}, s.args...)...)
		fmt.Fprintf(&b, "$ charter %s\n%s", strings.Join(s.args, " "), r.Stdout)
		if r.Stderr != "" {
			fmt.Fprintf(&b, "stderr: %s", r.Stderr)
		}
		if r.Code != 0 {
			fmt.Fprintf(&b, "exit %d\n", r.Code)
		}
		b.WriteString("\n")
		if r.Code != s.code {
			t.Errorf("charter %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(s.args, " "), r.Code, s.code, r.Stdout, r.Stderr)
		}
		if r.Code == cli.ExitError && (!strings.HasPrefix(r.Stderr, "charter: ") || strings.Count(r.Stderr, "\n") != 1) {
			t.Errorf("charter %s: stderr %q, want one line", strings.Join(s.args, " "), r.Stderr)
		}
	}
	return b.String()
}

// register registers an Avro schema through the service.
func register(t *testing.T, svc *registry.Service, subject, schema string) {
	t.Helper()
	if _, err := svc.Register(t.Context(), subject, registry.RegisterRequest{Schema: schema}); err != nil {
		t.Fatalf("register %s: %v", subject, err)
	}
}

const (
	shipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`
	shipV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier_code","type":"string"},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`
	shipV3 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},{"name":"customer_email","type":"string","default":"","confluent:tags":["PII"]}]}`
)

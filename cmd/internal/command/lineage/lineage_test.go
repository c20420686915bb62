package lineage_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/clitest"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/sqlite"
)

var day0 = time.Date(2026, 1, 5, 9, 30, 0, 0, time.UTC)

const (
	shipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"},` +
		`{"name":"customer_email","type":"string","default":"","confluent:tags":["PII"]}]}`
	pactBilling = `{"consumer":{"name":"billing"},"provider":{"name":"fulfillment"},"messages":[{"description":"a shipment",` +
		`"contents":{"id":"s-1","carrier_code":"DHL"}}],"metadata":{"pactSpecification":{"version":"3.0.0"}}}`
)

// newRegistry runs the real registry handler over SQLite on day 0 with
// shipments-value v1, a producer, billing's contract (reads .id and
// .carrier_code) and crm's declared read of the PII field.
func newRegistry(t *testing.T) string {
	t.Helper()
	url, _ := newRegistryClock(t, func() time.Time { return day0 })
	return url
}

// newRegistryClock is newRegistry on the clock now, returning the
// service too.
func newRegistryClock(t *testing.T, now func() time.Time) (string, *registry.Service) {
	t.Helper()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := registry.NewService(store, []compat.Format{avro.Format{}}, registry.WithLogger(log), registry.WithClock(now))
	srv := httptest.NewServer(api.New(svc, api.Options{Logger: log}))
	t.Cleanup(func() {
		srv.Close()
		_ = store.Close()
	})
	ctx := t.Context()
	const s = "shipments-value"
	if _, err := svc.Register(ctx, s, registry.RegisterRequest{Schema: shipV1}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetProducer(ctx, lineage.Producer{Service: "fulfillment", Subject: s, Versions: []int{1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.PublishContract(ctx, registry.PublishContractRequest{Subject: s, ConsumerVersion: "2.0.1", Branch: "main", Pact: json.RawMessage(pactBilling)}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.DeclareConsumer(ctx, lineage.Consumer{Service: "crm", Subject: s, Fields: []string{".id", ".customer_email"}, Range: lineage.VersionRange{From: 1}}); err != nil {
		t.Fatal(err)
	}
	return srv.URL, svc
}

type step struct {
	args []string
	code int
}

func ok(args ...string) step   { return step{args, cli.ExitOK} }
func fail(args ...string) step { return step{args, cli.ExitError} }

// transcript runs the steps against url and returns "$ charter …",
// stdout, stderr and the exit code when not 0; errors must be one line.
func transcript(t *testing.T, url string, steps ...step) string {
	t.Helper()
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
			t.Errorf("charter %s: exit %d, want %d\n%s%s", strings.Join(s.args, " "), r.Code, s.code, r.Stdout, r.Stderr)
		}
		if r.Code == cli.ExitError && (!strings.HasPrefix(r.Stderr, "charter: ") || strings.Count(r.Stderr, "\n") != 1) {
			t.Errorf("charter %s: stderr %q, want one line", strings.Join(s.args, " "), r.Stderr)
		}
	}
	return b.String()
}

// TestImpact: who reads a field, in text and JSON, with the errors a
// person meets.
func TestImpact(t *testing.T) {
	url := newRegistry(t)
	got := transcript(t, url,
		ok("lineage", "impact", "--subject", "shipments-value", "--field", ".carrier_code"),
		ok("lineage", "impact", "--subject", "shipments-value", "--field", ".id", "--change", "rename"),
		ok("lineage", "impact", "--subject", "shipments-value", "--field", ".customer_email", "--change", "deprecate", "-o", "json"),
		fail("lineage", "impact", "--subject", "shipments-value"),
		fail("lineage", "impact", "--subject", "shipments-value", "--field", ".nope"),
		fail("lineage", "impact", "--subject", "shipments-value", "--field", ".id", "--change", "explode"),
		fail("lineage", "impact", "--subject", "parcels-value", "--field", ".id"),
	)
	clitest.Golden(t, "impact.golden", got, url, "$REGISTRY")
}

// TestPII: who reads PII fields, since when.
func TestPII(t *testing.T) {
	url := newRegistry(t)
	got := transcript(t, url,
		ok("lineage", "pii"),
		ok("lineage", "pii", "--subject", "shipments-value", "-o", "json"),
		ok("lineage", "pii", "--tag", "GDPR"),
		fail("lineage", "pii", "-o", "yaml"),
	)
	clitest.Golden(t, "pii.golden", got, url, "$REGISTRY")
}

// TestDeprecations: the migration status of carrier_code, deprecated on
// day 0 for 30 days (billing's contract and ops read it; audit reads it
// and moves off it on day 5), on day 10 and on day 35 after billing got a
// 20-day extension; then the errors.
func TestDeprecations(t *testing.T) {
	now := day0
	url, svc := newRegistryClock(t, func() time.Time { return now })
	ctx := registry.WithActor(t.Context(), "alice")
	const s = "shipments-value"
	for _, c := range []string{"audit", "ops"} {
		if _, err := svc.DeclareConsumer(ctx, lineage.Consumer{Service: c, Subject: s, Fields: []string{".id", ".carrier_code"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Deprecate(ctx, s, registry.DeprecateRequest{Item: governance.FieldItem(".carrier_code"), TTLDays: 30,
		Replacement: ".carrier", Reason: "carriers are records"}); err != nil {
		t.Fatal(err)
	}
	before := transcript(t, url, ok("lineage", "deprecations", "--subject", s))
	now = day0.Add(5 * 24 * time.Hour)
	if _, err := svc.DeclareConsumer(ctx, lineage.Consumer{Service: "audit", Subject: s, Fields: []string{".id"}}); err != nil {
		t.Fatal(err)
	}
	now = day0.Add(10 * 24 * time.Hour)
	got := before + transcript(t, url, ok("lineage", "deprecations", "--subject", s))
	now = day0.Add(35 * 24 * time.Hour)
	if _, err := svc.GrantExtension(ctx, s, governance.FieldItem(".carrier_code"), registry.ExtensionRequest{
		Consumer: "billing", Days: 20, Reason: "Q2 release", Approver: "fulfillment-lead"}); err != nil {
		t.Fatal(err)
	}
	got += transcript(t, url,
		ok("lineage", "deprecations", "--subject", s, "--field", ".carrier_code"),
		ok("lineage", "deprecations", "--subject", s, "-o", "json"),
		fail("lineage", "deprecations"),
		fail("lineage", "deprecations", "--subject", s, "--field", ".id"),
		fail("lineage", "deprecations", "--subject", "parcels-value"),
	)
	clitest.Golden(t, "deprecations.golden", got, url, "$REGISTRY")
}

// TestGraph: the graph in each format, as of a time, and bad flags.
func TestGraph(t *testing.T) {
	url := newRegistry(t)
	got := transcript(t, url,
		ok("lineage", "graph", "--subject", "shipments-value"),
		ok("lineage", "graph", "--subject", "shipments-value", "--format", "mermaid"),
		ok("lineage", "graph", "--at", "2026-01-01T00:00:00Z", "--format", "json"),
		fail("lineage", "graph", "--format", "svg"),
		fail("lineage", "graph", "--at", "yesterday"),
		fail("lineage", "graph", "--subject", "parcels-value"),
	)
	clitest.Golden(t, "graph.golden", got, url, "$REGISTRY")
}

// TestHelp: every sub-command's help has an example.
func TestHelp(t *testing.T) {
	for _, sub := range []string{"impact", "pii", "deprecations", "graph"} {
		r := clitest.Run(t, "lineage", sub, "--help")
		if r.Code != 0 || !strings.Contains(r.Stdout, "Examples:\n  charter lineage "+sub) {
			t.Errorf("lineage %s --help (exit %d):\n%s", sub, r.Code, r.Stdout)
		}
	}
}

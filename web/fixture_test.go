package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/auth"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/sqlite"
	"github.com/charter-dev/charter/web"
)

// day0 is the fixtures' day 0: 2026-01-05 09:30 UTC, as in the CLI's
// worked example.
var day0 = time.Date(2026, 1, 5, 9, 30, 0, 0, time.UTC)

// clock is a test clock, safe to move while the server reads it.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Day(n int) {
	c.mu.Lock()
	c.now = day0.Add(time.Duration(n) * 24 * time.Hour)
	c.mu.Unlock()
}

// newService is a registry over SQLite in tb's temporary directory on a
// clock at day 0.
func newService(tb testing.TB) (*registry.Service, *clock) {
	tb.Helper()
	store, err := sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "charter.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = store.Close() })
	clk := &clock{now: day0}
	svc := registry.NewService(store, formats.Formats(), registry.WithLogger(quiet()), registry.WithClock(clk.Now))
	return svc, clk
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// handler is what charter serve runs: the API with the UI mounted.
func handler(tb testing.TB, svc *registry.Service, a *auth.Authenticator) http.Handler {
	tb.Helper()
	ui, err := web.New(svc, web.Options{Auth: a, Logger: quiet()})
	if err != nil {
		tb.Fatal(err)
	}
	return web.Mount(api.New(svc, api.Options{Logger: quiet(), Auth: a}), ui)
}

// The worked example (issue 10 §3, issue 12's acceptance): the logistics
// team's shipments-value deprecates carrier_code with a 90-day TTL on day
// 0; 12 consumer teams read the subject, 5 of them carrier_code (3 by
// published pact, 2 declared in the lineage).
var (
	pactReaders     = []string{"billing", "returns", "tracking"}
	declaredReaders = []string{"analytics", "customs"}
	otherConsumers  = []string{"finance", "fraud", "notifications", "pricing", "search", "support", "warehouse"}
)

const (
	shipments = "shipments-value"
	orders    = "orders-value"
	customers = "customers-value"
)

func avroShipment(extra ...string) string {
	fields := []string{
		`{"name":"id","type":"string","doc":"shipment ID"}`,
		`{"name":"carrier_code","type":"string","default":""}`,
		`{"name":"recipient_email","type":"string","default":"","confluent:tags":["PII"]}`,
		`{"name":"phone","type":"string","default":""}`,
	}
	fields = append(fields, extra...)
	return `{"type":"record","name":"Shipment","namespace":"acme.logistics","fields":[` + strings.Join(fields, ",") + `]}`
}

// musts returns a function failing tb on the error of a call's two
// results: musts(t)(svc.Register(…)).
func musts(tb testing.TB) func(any, error) {
	return func(_ any, err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// pact is a V3 message pact of consumer reading fields.
func pact(consumer string, fields ...string) json.RawMessage {
	var contents, rules []string
	for _, f := range fields {
		contents = append(contents, fmt.Sprintf("%q: \"v\"", f))
		rules = append(rules, fmt.Sprintf(`"$.%s": {"matchers": [{"match": "type"}]}`, f))
	}
	return json.RawMessage(`{"consumer": {"name": "` + consumer + `"}, "provider": {"name": "shipments"},
  "messages": [{"description": "a shipment", "contents": {` + strings.Join(contents, ", ") + `},
    "matchingRules": {"body": {` + strings.Join(rules, ", ") + `}}}],
  "metadata": {"pactSpecification": {"version": "3.0.0"}}}`)
}

// seed plays the worked example on day 0, plus an orders subject in
// Protobuf and a customers subject in JSON Schema, and leaves the clock
// on day 0.
func seed(tb testing.TB, svc *registry.Service, clk *clock) {
	tb.Helper()
	ctx := registry.WithActor(tb.Context(), "ci-bot")
	gov, lin, cr := svc.Governance(), svc.Lineage(), svc.ContractRegistry()
	must := musts(tb)
	clk.Day(-30)
	must(svc.Register(ctx, shipments, registry.RegisterRequest{Schema: avroShipment()}))
	must(gov.SetOwner(ctx, shipments, governance.Owner{Team: "logistics", Contact: "#logistics", Description: "parcels on their way"}))
	must(lin.SetProducer(ctx, lineage.Producer{Service: "dispatch", Subject: shipments}))
	clk.Day(-10)
	must(svc.Register(ctx, shipments, registry.RegisterRequest{Schema: avroShipment(`{"name":"carrier","type":{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"},{"name":"name","type":"string","default":""}]},"default":{"code":""}}`)}))
	for _, p := range pactReaders {
		must(cr.PublishContract(ctx, registry.PublishContractRequest{Subject: shipments, Consumer: p, ConsumerVersion: "1.4.0", Pact: pact(p, "id", "carrier_code")}))
	}
	for _, d := range declaredReaders {
		must(lin.DeclareConsumer(ctx, lineage.Consumer{Service: d, Subject: shipments, Fields: []string{".carrier_code"}, Source: lineage.SourceDeclared}))
	}
	for _, o := range otherConsumers {
		must(lin.DeclareConsumer(ctx, lineage.Consumer{Service: o, Subject: shipments, Fields: []string{".id", ".carrier.code"}, Source: lineage.SourceDeclared}))
	}
	must(gov.Dismiss(ctx, shipments, governance.Dismissal{Field: ".phone", PatternID: "PII_PHONE", Reason: "the depot's phone line, not a person's"}))

	must(svc.Register(ctx, orders, registry.RegisterRequest{Type: compat.Protobuf, Schema: "syntax = \"proto3\";\npackage acme.orders;\n\n// An order placed in the shop.\nmessage Order {\n  int64 id = 1;\n  string customer_name = 2;\n  repeated string skus = 3;\n}\n"}))
	must(gov.SetOwner(ctx, orders, governance.Owner{Team: "shop", Contact: "shop@acme.example"}))
	must(lin.DeclareConsumer(ctx, lineage.Consumer{Service: "billing", Subject: orders, Fields: []string{".Order.id", ".Order.customer_name"}, Source: lineage.SourceDeclared}))
	must(svc.Register(ctx, customers, registry.RegisterRequest{Type: compat.JSON, Schema: `{"type":"object","properties":{"id":{"type":"string"},"email":{"type":"string","confluent:tags":["PII"]},"birth_date":{"type":"string"}},"required":["id"]}`}))
	// Level NONE lets version 2 break readers: the comparison shows what.
	none := string(compat.None)
	must(svc.SetConfig(ctx, customers, registry.ConfigUpdate{Compatibility: &none}))
	must(svc.Register(ctx, customers, registry.RegisterRequest{Type: compat.JSON, Schema: `{"type":"object","properties":{"id":{"type":"integer"},"email":{"type":"string","confluent:tags":["PII"]},"tier":{"type":"string"}},"required":["id","tier"]}`}))

	clk.Day(0)
	must(gov.Deprecate(ctx, shipments, registry.DeprecateRequest{Item: governance.FieldItem(".carrier_code"), TTLDays: 90,
		Replacement: ".carrier.code", Reason: "carriers are records now"}))
	must(gov.Deprecate(ctx, orders, registry.DeprecateRequest{Item: governance.FieldItem(".Order.skus"), TTLDays: 30, Reason: "line items replace SKUs"}))
}

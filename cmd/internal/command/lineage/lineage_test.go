package lineage_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/command/clitest"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
)

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
	url, _ := newRegistryClock(t, func() time.Time { return clitest.Day0 })
	return url
}

// newRegistryClock is newRegistry on the clock now, returning the
// service too.
func newRegistryClock(t *testing.T, now func() time.Time) (string, *registry.Service) {
	t.Helper()
	svc, url := clitest.RegistryWith(t, now, avro.Format{})
	ctx := t.Context()
	const s = "shipments-value"
	if _, err := svc.Register(ctx, s, registry.RegisterRequest{Schema: shipV1}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Lineage().SetProducer(ctx, lineage.Producer{Service: "fulfillment", Subject: s, Versions: []int{1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ContractRegistry().PublishContract(ctx, registry.PublishContractRequest{Subject: s, ConsumerVersion: "2.0.1", Branch: "main", Pact: json.RawMessage(pactBilling)}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Lineage().DeclareConsumer(ctx, lineage.Consumer{Service: "crm", Subject: s, Fields: []string{".id", ".customer_email"}, Range: lineage.VersionRange{From: 1}}); err != nil {
		t.Fatal(err)
	}
	return url, svc
}

// TestImpact: who reads a field, in text and JSON, with the errors a
// person meets.
func TestImpact(t *testing.T) {
	url := newRegistry(t)
	got := clitest.Transcript(t, url,
		clitest.OK("lineage", "impact", "--subject", "shipments-value", "--field", ".carrier_code"),
		clitest.OK("lineage", "impact", "--subject", "shipments-value", "--field", ".id", "--change", "rename"),
		clitest.OK("lineage", "impact", "--subject", "shipments-value", "--field", ".customer_email", "--change", "deprecate", "-o", "json"),
		clitest.Fail("lineage", "impact", "--subject", "shipments-value"),
		clitest.Fail("lineage", "impact", "--subject", "shipments-value", "--field", ".nope"),
		clitest.Fail("lineage", "impact", "--subject", "shipments-value", "--field", ".id", "--change", "explode"),
		clitest.Fail("lineage", "impact", "--subject", "parcels-value", "--field", ".id"),
	)
	clitest.Golden(t, "impact.golden", got, url, "$REGISTRY")
}

// TestPII: who reads PII fields, since when.
func TestPII(t *testing.T) {
	url := newRegistry(t)
	got := clitest.Transcript(t, url,
		clitest.OK("lineage", "pii"),
		clitest.OK("lineage", "pii", "--subject", "shipments-value", "-o", "json"),
		clitest.OK("lineage", "pii", "--tag", "GDPR"),
		clitest.Fail("lineage", "pii", "-o", "yaml"),
	)
	clitest.Golden(t, "pii.golden", got, url, "$REGISTRY")
}

// TestDeprecations: the migration status of carrier_code, deprecated on
// day 0 for 30 days (billing's contract and ops read it; audit reads it
// and moves off it on day 5), on day 10 and on day 35 after billing got a
// 20-day extension; then the errors.
func TestDeprecations(t *testing.T) {
	clk := &clitest.Clock{}
	clk.Day(0)
	url, svc := newRegistryClock(t, clk.Now)
	ctx := registry.WithActor(t.Context(), "alice")
	const s = "shipments-value"
	for _, c := range []string{"audit", "ops"} {
		if _, err := svc.Lineage().DeclareConsumer(ctx, lineage.Consumer{Service: c, Subject: s, Fields: []string{".id", ".carrier_code"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Governance().Deprecate(ctx, s, registry.DeprecateRequest{Item: governance.FieldItem(".carrier_code"), TTLDays: 30,
		Replacement: ".carrier", Reason: "carriers are records"}); err != nil {
		t.Fatal(err)
	}
	before := clitest.Transcript(t, url, clitest.OK("lineage", "deprecations", "--subject", s))
	clk.Day(5)
	if _, err := svc.Lineage().DeclareConsumer(ctx, lineage.Consumer{Service: "audit", Subject: s, Fields: []string{".id"}}); err != nil {
		t.Fatal(err)
	}
	clk.Day(10)
	got := before + clitest.Transcript(t, url, clitest.OK("lineage", "deprecations", "--subject", s))
	clk.Day(35)
	if _, err := svc.Governance().GrantExtension(ctx, s, governance.FieldItem(".carrier_code"), registry.ExtensionRequest{
		Consumer: "billing", Days: 20, Reason: "Q2 release", Approver: "fulfillment-lead"}); err != nil {
		t.Fatal(err)
	}
	got += clitest.Transcript(t, url,
		clitest.OK("lineage", "deprecations", "--subject", s, "--field", ".carrier_code"),
		clitest.OK("lineage", "deprecations", "--subject", s, "-o", "json"),
		clitest.Fail("lineage", "deprecations"),
		clitest.Fail("lineage", "deprecations", "--subject", s, "--field", ".id"),
		clitest.Fail("lineage", "deprecations", "--subject", "parcels-value"),
	)
	clitest.Golden(t, "deprecations.golden", got, url, "$REGISTRY")
}

// TestGraph: the graph in each format, as of a time, and bad flags.
func TestGraph(t *testing.T) {
	url := newRegistry(t)
	got := clitest.Transcript(t, url,
		clitest.OK("lineage", "graph", "--subject", "shipments-value"),
		clitest.OK("lineage", "graph", "--subject", "shipments-value", "--format", "mermaid"),
		clitest.OK("lineage", "graph", "--at", "2026-01-01T00:00:00Z", "--format", "json"),
		clitest.Fail("lineage", "graph", "--format", "svg"),
		clitest.Fail("lineage", "graph", "--at", "yesterday"),
		clitest.Fail("lineage", "graph", "--subject", "parcels-value"),
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

// TestSameSecond: versions and declarations made within one second.
// `lineage pii` dates a reader from when the field appeared, not from an
// earlier declaration, and `lineage graph --at` keeps the fraction of a
// second and leaves out versions registered after --at.
func TestSameSecond(t *testing.T) {
	const s = "shipments-value"
	clk := &clitest.Clock{}
	at := func(ms int) time.Time { return clitest.Day0.Add(time.Duration(ms) * time.Millisecond) }
	svc, url := clitest.RegistryWith(t, clk.Now, avro.Format{})
	ctx := t.Context()
	step := func(ms int, what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s at +%dms: %v", what, ms, err)
		}
	}
	clk.Set(at(100))
	_, err := svc.Register(ctx, s, registry.RegisterRequest{Schema: `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`})
	step(100, "register v1", err)
	clk.Set(at(300))
	_, err = svc.Lineage().DeclareConsumer(ctx, lineage.Consumer{Service: "crm", Subject: s, Fields: []string{".id", ".customer_email"}, Range: lineage.VersionRange{From: 1}})
	step(300, "declare crm", err)
	clk.Set(at(500))
	_, err = svc.Register(ctx, s, registry.RegisterRequest{Schema: shipV1})
	step(500, "register v2 with .customer_email", err)
	clk.Set(at(700))
	_, err = svc.Lineage().DeclareConsumer(ctx, lineage.Consumer{Service: "audit", Subject: s, Fields: []string{".customer_email"}, Range: lineage.VersionRange{From: 1}})
	step(700, "declare audit", err)

	r := clitest.Run(t, "--registry", url, "lineage", "pii", "-o", "json")
	if r.Code != 0 {
		t.Fatalf("lineage pii: exit %d: %s", r.Code, r.Stderr)
	}
	var exp []lineage.Exposure
	if err := json.Unmarshal([]byte(r.Stdout), &exp); err != nil {
		t.Fatalf("lineage pii -o json: %v\n%s", err, r.Stdout)
	}
	since := map[string]time.Time{}
	for _, e := range exp {
		for _, rd := range e.Readers {
			since[e.Path+" "+rd.Service] = rd.Since
		}
	}
	for key, want := range map[string]time.Time{
		// crm declared .customer_email at +300ms; the field came at +500ms.
		".customer_email crm":   at(500),
		".customer_email audit": at(700),
	} {
		if got := since[key]; !got.Equal(want) {
			t.Errorf("pii reader %s since %s, want %s", key, got.Format(time.RFC3339Nano), want.Format(time.RFC3339Nano))
		}
	}

	for _, tc := range []struct {
		at                 time.Time
		versions, services []string
	}{
		{at(50), nil, nil},
		{at(200), []string{"version:" + s + "@1"}, nil},
		{at(400), []string{"version:" + s + "@1"}, []string{"service:crm"}},
		{at(500), []string{"version:" + s + "@1", "version:" + s + "@2"}, []string{"service:crm"}},
		{at(699), []string{"version:" + s + "@1", "version:" + s + "@2"}, []string{"service:crm"}},
		{at(800), []string{"version:" + s + "@1", "version:" + s + "@2"}, []string{"service:audit", "service:crm"}},
	} {
		when := tc.at.Format(time.RFC3339Nano)
		r := clitest.Run(t, "--registry", url, "lineage", "graph", "--subject", s, "--at", when, "--format", "json")
		if r.Code != 0 {
			t.Fatalf("lineage graph --at %s: exit %d: %s", when, r.Code, r.Stderr)
		}
		var g lineage.Graph
		if err := json.Unmarshal([]byte(r.Stdout), &g); err != nil {
			t.Fatalf("lineage graph --at %s: %v\n%s", when, err, r.Stdout)
		}
		var versions, services []string
		for _, n := range g.Nodes {
			switch n.Kind {
			case lineage.KindVersion:
				versions = append(versions, n.ID)
			case lineage.KindService:
				services = append(services, n.ID)
			}
		}
		if strings.Join(versions, " ") != strings.Join(tc.versions, " ") || strings.Join(services, " ") != strings.Join(tc.services, " ") {
			t.Errorf("graph --at %s: versions %v services %v, want %v and %v", when, versions, services, tc.versions, tc.services)
		}
	}
}

// TestDeclared: producers and consumers declared, listed and removed
// through the CLI, as the registry then answers them.
func TestDeclared(t *testing.T) {
	url := newRegistry(t)
	const s = "shipments-value"
	got := clitest.Transcript(t, url,
		clitest.OK("lineage", "producers", "list", s),
		clitest.OK("lineage", "producers", "set", s, "returns", "--versions", "1"),
		clitest.OK("lineage", "producers", "list", s, "-o", "json"),
		clitest.OK("lineage", "producers", "remove", s, "fulfillment"),
		clitest.OK("lineage", "producers", "list", s),
		clitest.Fail("lineage", "producers", "remove", s, "nobody"),
		clitest.Fail("lineage", "producers", "set", s, "returns", "--versions", "0"),
		clitest.OK("lineage", "consumers", "list", s),
		clitest.OK("lineage", "consumers", "set", s, "audit", "--fields", ".id,.carrier_code", "--from", "1"),
		clitest.OK("lineage", "consumers", "set", s, "audit", "--fields", ".id", "-o", "json"),
		clitest.OK("lineage", "consumers", "list", s, "-o", "json"),
		clitest.OK("lineage", "consumers", "rm", s, "crm"),
		clitest.OK("lineage", "consumers", "list", s),
		clitest.Fail("lineage", "consumers", "set", s, "audit"),
		clitest.Fail("lineage", "consumers", "set", s, "audit", "--fields", "id"),
		clitest.Fail("lineage", "consumers", "list", "parcels-value"),
		clitest.Fail("lineage", "consumers", "lst", s),
	)
	clitest.Golden(t, "declared.golden", got, url, "$REGISTRY")
}

package deprecate_test

import (
	"encoding/json"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/clitest"
	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry"
)

// TestDeprecate: deprecate a field and a version, list them on day 0 and
// day 90, withdraw one; the errors a person meets.
func TestDeprecate(t *testing.T) {
	svc, url, clk := clitest.NewRegistry(t)
	clitest.Register(t, svc, "shipments-value", shipV1)
	clitest.Register(t, svc, "shipments-value", shipV2)
	got := clitest.TranscriptAs(t, "alice", url,
		clitest.OK("deprecate", "--list"),
		clitest.OK("deprecate", "shipments-value", ".carrier_code", "--replacement", ".carrier", "--reason", "carriers are records now"),
		clitest.OK("deprecate", "shipments-value", "version:1", "--ttl-days", "30", "--reason", "superseded"),
		clitest.Fail("deprecate", "shipments-value", ".no_such_field"),
		clitest.Fail("deprecate", "shipments-value", "version:0"),
		clitest.Fail("deprecate", "shipments-value", ".carrier_code", "--ttl-days", "99999"),
		clitest.Fail("deprecate", "shipments-value"),
		clitest.OK("deprecate", "--list", "shipments-value"),
	)
	clk.Day(90)
	got += clitest.TranscriptAs(t, "alice", url,
		clitest.OK("deprecate", "--list"),
		clitest.OK("deprecate", "--list", "shipments-value", "-o", "json"),
		clitest.OK("deprecate", "--undo", "shipments-value", "version:1"),
		clitest.Fail("deprecate", "--undo", "shipments-value", "version:1"),
		clitest.OK("deprecate", "--list", "shipments-value"),
	)
	clitest.Golden(t, "deprecate.golden", got, url, "$REGISTRY")
}

const (
	shipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`
	shipV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier_code","type":"string"},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`
	shipV3 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},{"name":"customer_email","type":"string","default":"","confluent:tags":["PII"]}]}`
)

// TestCalendar: the coming expiries, soonest first, with the consumers
// that still read each field (by pact or declared) and the extensions,
// on day 0, 20 and 29 of the registry's clock; --within, --subject, JSON
// and the errors a person meets.
func TestCalendar(t *testing.T) {
	svc, url, clk := clitest.NewRegistry(t)
	clitest.Register(t, svc, "shipments-value", shipV1)
	clitest.Register(t, svc, "shipments-value", shipV2)
	clitest.Register(t, svc, "parcels-value", `{"type":"record","name":"Parcel","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"legacy_ref","type":"string"}]}`)
	ctx := t.Context()
	pact := `{"consumer":{"name":"billing"},"provider":{"name":"fulfillment"},"messages":[{"description":"a shipment",` +
		`"contents":{"id":"s-1","carrier_code":"DHL"}}],"metadata":{"pactSpecification":{"version":"3.0.0"}}}`
	if _, err := svc.ContractRegistry().PublishContract(ctx, registry.PublishContractRequest{Subject: "shipments-value", ConsumerVersion: "2.0.1", Pact: json.RawMessage(pact)}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Lineage().DeclareConsumer(ctx, lineage.Consumer{Service: "crm", Subject: "shipments-value", Fields: []string{".id", ".carrier_code"}, Range: lineage.VersionRange{From: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Lineage().DeclareConsumer(ctx, lineage.Consumer{Service: "search", Subject: "shipments-value", Fields: []string{".id"}, Range: lineage.VersionRange{From: 1}}); err != nil {
		t.Fatal(err)
	}
	got := clitest.TranscriptAs(t, "alice", url,
		clitest.OK("deprecate", "--calendar"),
		clitest.OK("deprecate", "shipments-value", ".carrier_code", "--replacement", ".carrier"),
		clitest.OK("deprecate", "shipments-value", "version:1", "--ttl-days", "30"),
		clitest.OK("deprecate", "parcels-value", ".legacy_ref", "--ttl-days", "10"),
		clitest.OK("extend", "shipments-value", ".carrier_code", "--consumer", "audit", "--until", "2026-05-10", "--reason", "yearly report", "--approver", "carol"),
		clitest.OK("extend", "shipments-value", ".carrier_code", "--consumer", "crm", "--until", "2026-04-20", "--reason", "Q2", "--approver", "carol"),
		clitest.OK("deprecate", "--calendar"),
		clitest.OK("deprecate", "--calendar", "--within", "30"),
		clitest.OK("deprecate", "--calendar", "--within", "5"),
		clitest.OK("deprecate", "--calendar", "--subject", "shipments-value", "-o", "json"),
		clitest.Fail("deprecate", "--calendar", "shipments-value"),
		clitest.Fail("deprecate", "--list", "--within", "3"),
		clitest.Fail("deprecate", "--calendar", "--within", "-1"),
		clitest.Fail("deprecate", "--calendar", "--list"),
	)
	clk.Day(20)
	got += clitest.TranscriptAs(t, "alice", url, clitest.OK("deprecate", "--calendar"))
	clk.Day(29)
	got += clitest.TranscriptAs(t, "alice", url, clitest.OK("deprecate", "--calendar", "--within", "1"))
	clitest.Golden(t, "calendar.golden", got, url, "$REGISTRY")
}

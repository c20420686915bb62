package deprecate_test

import (
	"encoding/json"
	"testing"
	"time"

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
		clitest.Fail("deprecate", "--calendar", "--subject", "nosuch-value"),
	)
	clk.Day(20)
	got += clitest.TranscriptAs(t, "alice", url, clitest.OK("deprecate", "--calendar"))
	clk.Day(29)
	got += clitest.TranscriptAs(t, "alice", url, clitest.OK("deprecate", "--calendar", "--within", "1"))
	clitest.Golden(t, "calendar.golden", got, url, "$REGISTRY")
}

// TestDeprecateAgainKeepsOmitted: deprecating an item again changes only
// the flags given; the start, reason, replacement and TTL otherwise stay.
func TestDeprecateAgainKeepsOmitted(t *testing.T) {
	svc, url, clk := clitest.NewRegistry(t)
	clitest.Register(t, svc, "shipments-value", shipV2)
	for i, tc := range []struct {
		flags               []string
		reason, replacement string
		ttl                 int
		expires             string
	}{
		{[]string{"--reason", "records now", "--replacement", ".carrier", "--ttl-days", "30"}, "records now", ".carrier", 30, "2026-02-04"},
		{[]string{"--ttl-days", "60"}, "records now", ".carrier", 60, "2026-03-06"},
		{[]string{"--reason", "carriers are records"}, "carriers are records", ".carrier", 60, "2026-03-06"},
		{nil, "carriers are records", ".carrier", 60, "2026-03-06"},
	} {
		clk.Day(2 * i)
		args := append([]string{"--registry", url, "deprecate", "shipments-value", ".carrier_code", "-o", "json"}, tc.flags...)
		r := clitest.Run(t, args...)
		var got []struct {
			Reason, Replacement string
			TTLDays             int
			ExpiresAt           time.Time
		}
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &got) != nil || len(got) != 1 {
			t.Fatalf("deprecate %v: exit %d\n%s%s", tc.flags, r.Code, r.Stdout, r.Stderr)
		}
		if g := got[0]; g.Reason != tc.reason || g.Replacement != tc.replacement || g.TTLDays != tc.ttl || g.ExpiresAt.Format("2006-01-02") != tc.expires {
			t.Errorf("deprecate %v: %+v, want reason %q replacement %q ttl %d expiring %s", tc.flags, g, tc.reason, tc.replacement, tc.ttl, tc.expires)
		}
	}
}

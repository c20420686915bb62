package owners_test

import (
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/clitest"
)

// TestOwners: list, set, show, delete owners, with the errors a person
// meets; text and JSON.
func TestOwners(t *testing.T) {
	svc, url, _ := clitest.NewRegistry(t)
	clitest.Register(t, svc, "shipments-value", shipV1)
	got := clitest.TranscriptAs(t, "alice", url,
		clitest.OK("owners"),
		clitest.Fail("owners", "shipments-value"),
		clitest.OK("owners", "shipments-value", "--team", "logistics", "--contact", "#logistics", "--description", "parcels on their way"),
		clitest.OK("owners", "orders-value", "--team", "shop", "--contact", "shop@example.com", "--actor", "bob"),
		clitest.OK("owners"),
		clitest.OK("owners", "--team", "shop", "-o", "json"),
		clitest.OK("owners", "shipments-value"),
		clitest.Fail("owners", "shipments-value", "--team", "logistics"),
		clitest.Fail("owners", "--delete"),
		clitest.OK("owners", "orders-value", "--delete"),
		clitest.Fail("owners", "orders-value", "--delete"),
		clitest.Fail("owners", "-o", "yaml"),
	)
	clitest.Golden(t, "owners.golden", got, url, "$REGISTRY")
}

const (
	shipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`
	shipV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier_code","type":"string"},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`
	shipV3 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},{"name":"customer_email","type":"string","default":"","confluent:tags":["PII"]}]}`
)

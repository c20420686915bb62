package tags_test

import (
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/clitest"
)

// TestTags: field tags by source, governance tags set and cleared.
func TestTags(t *testing.T) {
	svc, url, _ := clitest.NewRegistry(t)
	clitest.Register(t, svc, "shipments-value", shipV1)
	clitest.Register(t, svc, "shipments-value", shipV2)
	clitest.Register(t, svc, "shipments-value", shipV3)
	got := clitest.TranscriptAs(t, "alice", url,
		clitest.OK("tags", "shipments-value"),
		clitest.OK("tags", "shipments-value", "--set", "**.code=CARRIER", "--set", "acme.Shipment.id=INTERNAL,KEY"),
		clitest.OK("tags", "shipments-value", "-o", "json"),
		clitest.Fail("tags", "shipments-value", "--set", "nope"),
		clitest.Fail("tags", "shipments-value", "--set", "**.id=A", "--clear"),
		clitest.OK("tags", "shipments-value", "--clear"),
		clitest.Fail("tags", "shipments-value", "--clear"),
		clitest.OK("tags", "nothing-here"),
	)
	clitest.Golden(t, "tags.golden", got, url, "$REGISTRY")
}

const (
	shipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`
	shipV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier_code","type":"string"},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`
	shipV3 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},{"name":"customer_email","type":"string","default":"","confluent:tags":["PII"]}]}`
)

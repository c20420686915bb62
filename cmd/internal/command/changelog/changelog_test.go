package changelog_test

import (
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/clitest"
)

// TestChangelog: a subject's changelog in text, markdown and JSON, with a
// deprecation and an extension declared through the registry.
func TestChangelog(t *testing.T) {
	svc, url, clk := clitest.NewRegistry(t)
	clitest.Register(t, svc, "shipments-value", shipV1)
	clitest.Register(t, svc, "shipments-value", shipV2)
	got := clitest.TranscriptAs(t, "alice", url,
		clitest.OK("deprecate", "shipments-value", ".carrier_code", "--replacement", ".carrier.code", "--reason", "carriers are records now"),
		clitest.OK("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--days", "120", "--reason", "Q2 release", "--approver", "bob"),
	)
	// Removed once expired and the extension has ended: nobody reads it.
	clk.Day(130)
	clitest.Register(t, svc, "shipments-value", shipV3)
	got += clitest.TranscriptAs(t, "alice", url,
		clitest.OK("changelog", "shipments-value"),
		clitest.OK("changelog", "shipments-value", "-o", "markdown"),
		clitest.OK("changelog", "shipments-value", "-o", "json"),
		clitest.Fail("changelog", "nope"),
		clitest.Fail("changelog", "shipments-value", "-o", "sarif"),
	)
	clitest.Golden(t, "changelog.golden", got, url, "$REGISTRY")
}

const (
	shipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`
	shipV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier_code","type":"string"},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`
	shipV3 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},{"name":"customer_email","type":"string","default":"","confluent:tags":["PII"]}]}`
)

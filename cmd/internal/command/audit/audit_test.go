package audit_test

import (
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/clitest"
)

// TestAudit: the audit log of a few governance changes, filtered.
func TestAudit(t *testing.T) {
	svc, url, clk := clitest.NewRegistry(t)
	clitest.Register(t, svc, "shipments-value", shipV1)
	got := clitest.TranscriptAs(t, "alice", url,
		clitest.OK("owners", "shipments-value", "--team", "logistics", "--contact", "#logistics"),
		clitest.OK("deprecate", "shipments-value", ".carrier_code", "--actor", "bob"),
	)
	clk.Day(3)
	got += clitest.TranscriptAs(t, "alice", url,
		clitest.OK("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--days", "120", "--reason", "Q2 release", "--approver", "carol"),
		clitest.OK("audit"),
		clitest.OK("audit", "--subject", "shipments-value", "--action", "deprecation.", "-o", "json"),
		clitest.OK("audit", "--by", "bob"),
		clitest.OK("audit", "--since", "2026-01-06"),
		clitest.OK("audit", "--after", "2", "--limit", "1"),
		clitest.OK("audit", "--subject", "nope"),
		clitest.Fail("audit", "--since", "yesterday"),
	)
	clitest.Golden(t, "audit.golden", got, url, "$REGISTRY")
}

const (
	shipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`
	shipV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier_code","type":"string"},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`
	shipV3 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},{"name":"customer_email","type":"string","default":"","confluent:tags":["PII"]}]}`
)

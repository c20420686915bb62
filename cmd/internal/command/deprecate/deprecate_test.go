package deprecate_test

import (
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/clitest"
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

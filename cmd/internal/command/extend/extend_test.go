package extend_test

import (
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/clitest"
)

// TestExtend: the acceptance scenario's extension, granted, shown by the
// registry's refusal and acceptance, and revoked.
func TestExtend(t *testing.T) {
	svc, url, clk := clitest.NewRegistry(t)
	clitest.Register(t, svc, "shipments-value", shipV1)
	clitest.Register(t, svc, "shipments-value", shipV2)
	got := clitest.TranscriptAs(t, "alice", url,
		clitest.OK("deprecate", "shipments-value", ".carrier_code", "--replacement", ".carrier"),
		clitest.Fail("extend", "shipments-value", ".carrier_code", "--days", "30", "--reason", "Q2", "--approver", "bob"),
		clitest.Fail("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--days", "30", "--reason", "Q2"),
		clitest.Fail("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--until", "2025-01-01", "--reason", "Q2", "--approver", "bob"),
		clitest.Fail("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--until", "next week", "--reason", "Q2", "--approver", "bob"),
		clitest.Fail("extend", "shipments-value", ".id", "--consumer", "billing", "--days", "30", "--reason", "Q2", "--approver", "bob"),
		clitest.Fail("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--days", "999999999", "--reason", "r", "--approver", "a"),
		clitest.Fail("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--days", "0", "--reason", "r", "--approver", "a"),
		clitest.Fail("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--days", "3"),
		clitest.OK("extend", "shipments-value", ".carrier_code", "--consumer", "early", "--days", "10", "--reason", "r", "--approver", "a"),
		clitest.OK("extend", "shipments-value", ".carrier_code", "--consumer", "early", "--revoke"),
		clitest.OK("extend", "shipments-value", ".carrier_code", "--consumer", "billing", "--until", "2026-05-10", "--reason", "billing reads carrier_code until its Q2 release", "--approver", "bob"),
		clitest.OK("extend", "shipments-value", "field:.carrier_code", "--consumer", "audit", "--days", "100", "--reason", "yearly report", "--approver", "carol", "-o", "json"),
		clitest.OK("deprecate", "--list", "shipments-value"),
	)
	clk.Day(120)
	got += clitest.TranscriptAs(t, "alice", url,
		clitest.OK("extend", "shipments-value", ".carrier_code", "--consumer", "audit", "--revoke"),
		clitest.Fail("extend", "shipments-value", ".carrier_code", "--consumer", "audit", "--revoke"),
		clitest.OK("deprecate", "--list", "shipments-value"),
	)
	clitest.Golden(t, "extend.golden", got, url, "$REGISTRY")
}

const (
	shipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`
	shipV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier_code","type":"string"},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`
	shipV3 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},{"name":"customer_email","type":"string","default":"","confluent:tags":["PII"]}]}`
)

// TestExtendNamesTheGrant: with two consumers' extensions of one field,
// each success line names the end of the extension just granted, not the
// latest end of any extension.
func TestExtendNamesTheGrant(t *testing.T) {
	svc, url, _ := clitest.NewRegistry(t)
	clitest.Register(t, svc, "shipments-value", shipV1)
	if r := clitest.Run(t, "--registry", url, "deprecate", "shipments-value", ".carrier_code"); r.Code != 0 {
		t.Fatalf("deprecate: exit %d: %s", r.Code, r.Stderr)
	}
	for _, tc := range []struct {
		consumer string
		end      []string // --until DATE or --days N
		want     string
	}{
		{"billing", []string{"--until", "2026-09-01"}, "billing may keep .carrier_code in shipments-value until 2026-09-01 (the deprecation expires on 2026-04-05)\n"},
		// Day0 (2026-01-05) + 100 days; billing's later end must not show.
		{"audit", []string{"--days", "100"}, "audit may keep .carrier_code in shipments-value until 2026-04-15 (the deprecation expires on 2026-04-05)\n"},
		// Granting again replaces billing's extension with a shorter one.
		{"billing", []string{"--until", "2026-05-10"}, "billing may keep .carrier_code in shipments-value until 2026-05-10 (the deprecation expires on 2026-04-05)\n"},
		{"early", []string{"--until", "2026-02-01"}, "early may keep .carrier_code in shipments-value until 2026-02-01 (the deprecation expires on 2026-04-05)\n" +
			"note: the extension ends before the deprecation expires (2026-04-05), so it has no effect\n"},
	} {
		args := append([]string{"--registry", url, "extend", "shipments-value", ".carrier_code", "--consumer", tc.consumer,
			"--reason", "r", "--approver", "a"}, tc.end...)
		r := clitest.Run(t, args...)
		if r.Code != 0 || r.Stdout != tc.want {
			t.Errorf("extend for %s %v: exit %d\n got: %q\nwant: %q\nstderr: %s", tc.consumer, tc.end, r.Code, r.Stdout, tc.want, r.Stderr)
		}
	}
}

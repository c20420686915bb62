package owners_test

import (
	"encoding/json"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/clitest"
)

// TestOwners: list, set, show, delete owners (text says what it removed),
// with the errors a person meets; text and JSON.
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
		// Setting again keeps what is not given; a first owner needs a contact.
		clitest.OK("owners", "shipments-value", "--team", "logistics"),
		clitest.Fail("owners", "parcels-value", "--team", "ops"),
		clitest.Fail("owners", "--delete"),
		clitest.OK("owners", "orders-value", "--delete"),
		clitest.Fail("owners", "orders-value", "--delete"),
		// json keeps the removed owner's row.
		clitest.OK("owners", "shipments-value", "--delete", "-o", "json"),
		clitest.Fail("owners", "-o", "yaml"),
	)
	clitest.Golden(t, "owners.golden", got, url, "$REGISTRY")
}

const (
	shipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`
	shipV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier_code","type":"string"},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`
	shipV3 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string","doc":"Shipment number."},{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},{"name":"customer_email","type":"string","default":"","confluent:tags":["PII"]}]}`
)

// TestOwnersRepeatedSet: setting the owner again changes only the flags
// given; --description ” clears the description.
func TestOwnersRepeatedSet(t *testing.T) {
	_, url, _ := clitest.NewRegistry(t)
	for _, tc := range []struct {
		flags                      []string
		team, contact, description string
	}{
		{[]string{"--team", "logistics", "--contact", "#logistics", "--description", "parcels"}, "logistics", "#logistics", "parcels"},
		{[]string{"--contact", "#parcels"}, "logistics", "#parcels", "parcels"},
		{[]string{"--team", "fulfillment"}, "fulfillment", "#parcels", "parcels"},
		{[]string{"--description", "parcels on their way"}, "fulfillment", "#parcels", "parcels on their way"},
		{[]string{"--description", ""}, "fulfillment", "#parcels", ""},
	} {
		args := append([]string{"--registry", url, "owners", "shipments-value", "-o", "json"}, tc.flags...)
		r := clitest.Run(t, args...)
		var got []struct{ Team, Contact, Description string }
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &got) != nil || len(got) != 1 {
			t.Fatalf("owners %v: exit %d\n%s%s", tc.flags, r.Code, r.Stdout, r.Stderr)
		}
		if g := got[0]; g.Team != tc.team || g.Contact != tc.contact || g.Description != tc.description {
			t.Errorf("owners %v: %+v, want team %q contact %q description %q", tc.flags, g, tc.team, tc.contact, tc.description)
		}
	}
}

package api_test

import (
	"encoding/json"
	"testing"
)

// TestRepeatedSetKeepsOmitted: setting an owner or a deprecation again
// changes only the members the body gives; an absent member keeps its
// stored value and an explicit "" clears where that is allowed.
func TestRepeatedSetKeepsOmitted(t *testing.T) {
	e := newGovEnv(t)
	e.register("shipments-value", shipV2, 200)
	const owner = "/governance/subjects/{subject}/owner"
	for _, tc := range []struct {
		body                       string
		status                     int
		team, contact, description string // the owner after the call
	}{
		{`{"contact":"#logistics"}`, 422, "", "", ""}, // a first owner needs a team
		{`{"team":"logistics","contact":"#logistics","description":"parcels"}`, 200, "logistics", "#logistics", "parcels"},
		{`{"contact":"#parcels"}`, 200, "logistics", "#parcels", "parcels"},
		{`{"team":"fulfillment"}`, 200, "fulfillment", "#parcels", "parcels"},
		{`{}`, 200, "fulfillment", "#parcels", "parcels"},
		{`{"description":""}`, 200, "fulfillment", "#parcels", ""},
		{`{"team":""}`, 422, "fulfillment", "#parcels", ""}, // the team cannot be cleared
	} {
		e.call(tc.status, "PUT", owner, "/governance/subjects/shipments-value/owner", tc.body)
		if tc.status != 200 && tc.team == "" {
			continue
		}
		r := e.call(200, "GET", owner, "/governance/subjects/shipments-value/owner", "")
		var got struct{ Team, Contact, Description string }
		if err := json.Unmarshal([]byte(r.body), &got); err != nil {
			t.Fatal(err)
		}
		if got.Team != tc.team || got.Contact != tc.contact || got.Description != tc.description {
			t.Errorf("after PUT %s: owner %+v, want team %q contact %q description %q", tc.body, got, tc.team, tc.contact, tc.description)
		}
	}

	const deps = "/governance/subjects/{subject}/deprecations"
	for i, tc := range []struct {
		body                string
		reason, replacement string
		ttl                 int
		expires             string
	}{
		{`{"path":".carrier_code","reason":"records now","replacement":".carrier","ttlDays":30}`, "records now", ".carrier", 30, "2026-02-04T09:30:00Z"},
		{`{"path":".carrier_code","ttlDays":60}`, "records now", ".carrier", 60, "2026-03-06T09:30:00Z"},
		{`{"path":".carrier_code","reason":"carriers are records"}`, "carriers are records", ".carrier", 60, "2026-03-06T09:30:00Z"},
		{`{"path":".carrier_code"}`, "carriers are records", ".carrier", 60, "2026-03-06T09:30:00Z"},
		{`{"path":".carrier_code","replacement":""}`, "carriers are records", "", 60, "2026-03-06T09:30:00Z"},
		{`{"path":".carrier_code","reason":"","replacement":".carrier"}`, "", ".carrier", 60, "2026-03-06T09:30:00Z"},
	} {
		e.day(3 * i) // a repeat keeps the start (day 0): the expiry moves only with the TTL
		r := e.call(200, "POST", deps, "/governance/subjects/shipments-value/deprecations", tc.body)
		var got struct {
			Reason, Replacement string
			TTLDays             int
			ExpiresAt           string
		}
		if err := json.Unmarshal([]byte(r.body), &got); err != nil {
			t.Fatal(err)
		}
		if got.Reason != tc.reason || got.Replacement != tc.replacement || got.TTLDays != tc.ttl || got.ExpiresAt != tc.expires {
			t.Errorf("after POST %s: %+v, want reason %q replacement %q ttl %d expires %s", tc.body, got, tc.reason, tc.replacement, tc.ttl, tc.expires)
		}
	}
}

package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry/governance"
)

// TestContextPrefixGovernanceQueries: the ?subject= of the governance
// and lineage routes under /contexts/{ctx}/ is the context's subject, not
// the default context's one of that name.
func TestContextPrefixGovernanceQueries(t *testing.T) {
	e := newEnv(t)
	e.run([]step{
		{method: "POST", path: "/contexts/.staging/subjects/orders-value/versions", body: schemaBody(ctxSchema(0))},
		{method: "POST", path: "/subjects/orders-value/versions", body: schemaBody(ctxSchema(0))},
		{method: "PUT", path: "/contexts/.staging/governance/subjects/orders-value/consumers/shop", body: `{"fields":[".id"]}`},
		{method: "GET", path: "/contexts/.staging/governance/audit?subject=orders-value", contains: []string{`:.staging:orders-value`}},
		{method: "GET", path: "/governance/audit?subject=:.staging:orders-value", contains: []string{`:.staging:orders-value`}},
		{method: "GET", path: "/contexts/.staging/governance/audit?subject=orders-value", notContains: []string{`"subject":"orders-value"`}},
	})
	for path, want := range map[string]bool{
		"/contexts/.staging/governance/lineage/graph?subject=orders-value&format=json": true,
		"/governance/lineage/graph?subject=:.staging:orders-value&format=json":         true,
		"/governance/lineage/graph?subject=orders-value&format=json":                   false,
	} {
		status, _, body := e.do("GET", path, "")
		if status != http.StatusOK || strings.Contains(body, `shop`) != want {
			t.Errorf("GET %s: %d %s, want the consumer shop in it: %v", path, status, body, want)
		}
	}
}

// TestAliasTargetAuthorizedInContext: setting an alias needs the right to
// write to its target as reads and registrations resolve it
// (registry.AliasTarget): an unqualified alias of ":.ctx:al" is
// ":.ctx:pay", not the default context's "pay".
func TestAliasTargetAuthorizedInContext(t *testing.T) {
	e := newAuthEnv(t, "unowned: claim\n")
	root, bob := e.principal("root"), e.principal("bob")
	for _, s := range []string{"pay", ":.ctx:pay"} {
		if status, body := e.as(root, http.MethodPost, "/subjects/"+s+"/versions", matrixSchema); status != http.StatusOK {
			t.Fatalf("setup %s: %d %s", s, status, body)
		}
	}
	for s, team := range map[string]string{"pay": "shop", ":.ctx:pay": "logistics"} {
		if _, err := e.svc.Governance().SetOwner(t.Context(), s, governance.Owner{Team: team, Contact: "#" + team}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		path, body string
		want       int
	}{
		{"/config/:.ctx:al", `{"alias":"pay"}`, http.StatusForbidden},
		{"/contexts/.ctx/config/al2", `{"alias":"pay"}`, http.StatusForbidden},
		{"/config/:.ctx:al3", `{"aliasForDeks":"pay"}`, http.StatusForbidden},
		{"/config/:.ctx:al4", `{"alias":":.ctx:pay"}`, http.StatusForbidden},
		{"/config/al", `{"alias":"pay"}`, http.StatusOK},           // bob's own pay
		{"/config/:.ctx:al5", `{"alias":":.:pay"}`, http.StatusOK}, // the default context's pay, bob's
	}
	for _, c := range cases {
		if status, body := e.as(bob, http.MethodPut, c.path, c.body); status != c.want {
			t.Errorf("PUT %s %s as bob: %d %s, want %d", c.path, c.body, status, body, c.want)
		}
	}
	if status, body := e.as(root, http.MethodGet, "/subjects/:.ctx:al/versions/latest", ""); status != http.StatusNotFound {
		t.Errorf("GET :.ctx:al after the refused alias: %d %s, want 404", status, body)
	}
}

// TestSubjectNormalizedEverywhere: every route normalises its subject as
// Confluent's QualifiedSubject.normalize: ":.ctx" is ":.ctx:" on
// register, governance, config and mode alike, ":.:" is the default
// context alone (the root level on /config and /mode, no subject
// elsewhere).
func TestSubjectNormalizedEverywhere(t *testing.T) {
	e := newEnv(t)
	e.run([]step{
		{method: "POST", path: "/subjects/:.ctx/versions", body: schemaBody(ctxSchema(0))},
		{method: "POST", path: "/subjects/:.ctx:/versions", body: schemaBody(ctxSchema(0)), json: `{"id":1}`},
		{method: "GET", path: "/subjects/:.ctx/versions", json: `[1]`},
		{method: "GET", path: "/subjects?subjectPrefix=:*:", json: `[":.ctx:"]`},
		{method: "PUT", path: "/governance/subjects/:.ctx/owner", body: `{"team":"logistics","contact":"#l"}`},
		{method: "GET", path: "/governance/subjects/:.ctx:/owner", contains: []string{`"team":"logistics"`}},
		{method: "PUT", path: "/config/:.ctx", body: `{"compatibility":"NONE"}`},
		{method: "GET", path: "/config/:.ctx:", contains: []string{`"compatibilityLevel":"NONE"`}},
		{method: "POST", path: "/subjects/:.:/versions", body: schemaBody(ctxSchema(0)), status: 422, code: 42208},
		{method: "GET", path: "/subjects/:.:/versions", status: 422, code: 42208},
		{method: "PUT", path: "/config/:.:", body: `{"compatibility":"FULL"}`, json: `{"compatibility":"FULL"}`},
		{method: "GET", path: "/config", contains: []string{`"compatibilityLevel":"FULL"`}},
		{method: "GET", path: "/subjects", notContains: []string{`":.:"`}},
	})
}

// TestContextBreaksD9: GET /schemas/ids/{id}?subject= answers the
// subject and its version (Confluent's SchemaString of the schema entity);
// /contexts/ is the contexts list; ":*:" names no context a subject can
// be in (42208); a context name follows one rule in a qualified subject
// and the URL prefix (registry.ValidateContextName: spaces, '/' and 'ü'
// are fine, bidirectional controls and ':' are not).
func TestContextBreaksD9(t *testing.T) {
	e := newEnv(t)
	e.run([]step{
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(ctxSchema(0)), json: `{"id":1}`},
		{method: "POST", path: "/subjects/t/versions", body: schemaBody(ctxSchema(1))},
		{method: "POST", path: "/subjects/t/versions", body: schemaBody(ctxSchema(0))},
		{method: "GET", path: "/schemas/ids/1?subject=s", contains: []string{`"subject":"s"`, `"version":1`}},
		{method: "GET", path: "/schemas/ids/1?subject=t", contains: []string{`"subject":"t"`, `"version":2`}},
		{method: "GET", path: "/schemas/ids/1", notContains: []string{`"subject"`, `"version"`}},
		{method: "POST", path: "/contexts/.x/subjects/s/versions", body: schemaBody(ctxSchema(0))},
		{method: "GET", path: "/contexts/.x/schemas/ids/1?subject=s", contains: []string{`"subject":":.x:s"`, `"version":1`}},
		{method: "GET", path: "/contexts/.x/schemas/ids/1", notContains: []string{`"subject"`}},
		{method: "GET", path: "/contexts/", json: `[".",".x"]`},
		{method: "POST", path: "/subjects/:*:x/versions", body: schemaBody(ctxSchema(0)), status: 422, code: 42208},
		{method: "PUT", path: "/config/:*:x", body: `{"compatibility":"NONE"}`, status: 422, code: 42208},
		{method: "POST", path: "/subjects/:.a%20b:s/versions", body: schemaBody(ctxSchema(0))},
		{method: "GET", path: "/contexts/.a%20b/subjects", json: `[":.a b:s"]`},
		{method: "POST", path: "/contexts/.%C3%BC/subjects/s/versions", body: schemaBody(ctxSchema(0))},
		{method: "GET", path: "/subjects/:.%C3%BC:s/versions", json: `[1]`},
		{method: "POST", path: "/subjects/:.a%E2%80%AEb:s/versions", body: schemaBody(ctxSchema(0)), status: 422, code: 42208},
		{method: "POST", path: "/contexts/.a%E2%80%AEb/subjects/s/versions", body: schemaBody(ctxSchema(0)), status: 422, code: 42208},
		{method: "POST", path: "/subjects/:.a%E2%81%A9b:s/versions", body: schemaBody(ctxSchema(0)), status: 422, code: 42208},
	})
	if status, _, body := e.do("GET", "/contexts", ""); status != 200 || strings.Contains(body, "\u202e") {
		t.Errorf("GET /contexts: %d %s", status, body)
	}
}

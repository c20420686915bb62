package api_test

import (
	"net/http"
	"testing"

	"github.com/charter-dev/charter/registry/governance"
)

// TestAuthorizationContexts: subject permissions hold for qualified
// subjects whichever way the context is named (":.ctx:s" in the path or
// the /contexts/.ctx prefix), and a context's own level (its config and
// mode, as the global ones) and DELETE /contexts are for admins only.
func TestAuthorizationContexts(t *testing.T) {
	e := newAuthEnv(t, "unowned: claim\n")
	root, alice, bob := e.principal("root"), e.principal("alice"), e.principal("bob")
	if status, body := e.as(root, http.MethodPost, "/subjects/:.ctx:owned/versions", matrixSchema); status != http.StatusOK {
		t.Fatalf("setup: %d %s", status, body)
	}
	if _, err := e.svc.Governance().SetOwner(t.Context(), ":.ctx:owned", governance.Owner{Team: "logistics", Contact: "#l"}); err != nil {
		t.Fatal(err)
	}
	next := `{"schema":"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"x\",\"type\":\"string\"},{\"name\":\"y\",\"type\":\"string\",\"default\":\"\"}]}"}`
	cases := []struct {
		who          *matrixPrincipal
		method, path string
		body         string
		want         int
	}{
		{bob, http.MethodPost, "/contexts/.ctx/subjects/owned/versions", next, http.StatusForbidden},
		{bob, http.MethodPost, "/subjects/:.ctx:owned/versions", next, http.StatusForbidden},
		{alice, http.MethodPost, "/contexts/.ctx/subjects/owned/versions", next, http.StatusOK},
		// The default context's "owned" is another subject: bob may claim it.
		{bob, http.MethodPost, "/subjects/owned/versions", matrixSchema, http.StatusOK},
		{alice, http.MethodPut, "/contexts/.ctx/config", `{"compatibility":"NONE"}`, http.StatusForbidden},
		{alice, http.MethodPut, "/config/:.ctx:", `{"compatibility":"NONE"}`, http.StatusForbidden},
		{alice, http.MethodPut, "/contexts/.ctx/mode", `{"mode":"READONLY"}`, http.StatusForbidden},
		{alice, http.MethodPut, "/contexts/.ctx/config/owned", `{"compatibility":"NONE"}`, http.StatusOK},
		{root, http.MethodPut, "/contexts/.ctx/config", `{"compatibility":"NONE"}`, http.StatusOK},
		{alice, http.MethodDelete, "/contexts/.ctx", "", http.StatusForbidden},
		{root, http.MethodDelete, "/contexts/.ctx", "", 422}, // not empty: 42211
	}
	for _, c := range cases {
		if status, body := e.as(c.who, c.method, c.path, c.body); status != c.want {
			t.Errorf("%s %s as %s: %d %s, want %d", c.method, c.path, c.who.name, status, body, c.want)
		}
	}
}

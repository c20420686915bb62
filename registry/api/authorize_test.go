package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
)

// TestUnauthenticated: without credentials a request gets 401 with
// 40101 and both challenges; health stays open; bad credentials are 401
// even where anonymous reads are allowed.
func TestUnauthenticated(t *testing.T) {
	e := newAuthEnv(t, "")
	req := httptest.NewRequest(http.MethodGet, "/subjects", nil)
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), `"error_code":40101`) {
		t.Fatalf("GET /subjects without credentials: %d %s", rec.Code, rec.Body)
	}
	if got := strings.Join(rec.Header().Values("WWW-Authenticate"), " | "); !strings.Contains(got, `Basic realm="charter"`) || !strings.Contains(got, `Bearer realm="charter"`) {
		t.Errorf("WWW-Authenticate %q, want Basic and Bearer challenges", got)
	}
	if status, _, _ := e.do(http.MethodGet, "/health/ready", ""); status != http.StatusOK {
		t.Errorf("health/ready without credentials: %d, want 200", status)
	}
	open := newAuthEnv(t, "anonymous: read\n")
	anon := open.principal("anonymous")
	if status, body := open.as(anon, http.MethodGet, "/subjects", ""); status != http.StatusOK {
		t.Errorf("anonymous: read, GET /subjects: %d %s", status, body)
	}
	if status, body := open.as(anon, http.MethodPost, "/compatibility/subjects/s/versions/latest", matrixSchema); status == http.StatusUnauthorized {
		t.Errorf("anonymous: read, compatibility check: %d %s; want it allowed", status, body)
	}
	if status, body := open.as(anon, http.MethodPost, "/subjects/s/versions", matrixSchema); status != http.StatusUnauthorized {
		t.Errorf("anonymous: read, register: %d %s; want 401", status, body)
	}
	if status, _, body := open.do(http.MethodGet, "/subjects", "", "Authorization", "Bearer charter_wrong"); status != http.StatusUnauthorized || !strings.Contains(body, "the bearer token is not known") {
		t.Errorf("anonymous: read with a wrong token: %d %s; want 401 naming the token", status, body)
	}
}

// TestClaim: the first team to register an unowned subject owns it (in
// the same transaction, audited under the registering principal); the
// other teams are then refused.
func TestClaim(t *testing.T) {
	e := newAuthEnv(t, "")
	bob, alice := e.principal("bob"), e.principal("alice")
	req := httptest.NewRequest(http.MethodPost, "/subjects/carts-value/versions", strings.NewReader(matrixSchema))
	req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	req.Header.Set("Authorization", "Bearer "+bob.token)
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("bob registers carts-value: %d %s", rec.Code, rec.Body)
	}
	if f := strings.Join(rec.Header().Values("Charter-Finding"), " | "); strings.Contains(f, "OWNER_MISSING") {
		t.Errorf("a claiming registration warns that the subject has no owner: %s", f)
	}
	o, err := e.svc.Governance().Owner(t.Context(), "carts-value")
	if err != nil || o.Team != "shop" || o.Contact != "bob" || o.UpdatedBy != "bob" {
		t.Fatalf("owner after bob's registration: %+v %v; want team shop, contact and updater bob", o, err)
	}
	es, err := e.svc.Governance().Audit(t.Context(), registry.AuditQuery{Subject: "carts-value", ActionPrefix: "owner."})
	if err != nil || len(es) != 1 || es[0].Actor != "bob" || es[0].Target != "claim" {
		t.Errorf("audit of the claim: %+v %v", es, err)
	}
	status, body := e.as(alice, http.MethodPost, "/subjects/carts-value/versions", matrixSchema)
	if status != http.StatusForbidden || !strings.Contains(body, "owned by team 'shop'") || !strings.Contains(body, "principal 'alice' is not a member (teams: logistics)") {
		t.Errorf("alice registers bob's subject: %d %s; want 403 naming the owner and alice's teams", status, body)
	}

	adminOnly := newAuthEnv(t, "unowned: admin-only\n")
	status, body = adminOnly.as(adminOnly.principal("bob"), http.MethodPost, "/subjects/carts-value/versions", matrixSchema)
	if status != http.StatusForbidden || !strings.Contains(body, "unowned: admin-only") {
		t.Errorf("unowned: admin-only, bob registers: %d %s; want 403", status, body)
	}
}

// TestExtensionApprover: the approver of an extension is the principal
// that grants it, whatever the body says.
func TestExtensionApprover(t *testing.T) {
	e := newAuthEnv(t, "")
	alice := e.principal("alice")
	e.resetOwnership()
	schema := `{"schema":"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"x\",\"type\":\"string\"},{\"name\":\"y\",\"type\":\"string\",\"default\":\"\"}]}"}`
	for _, step := range []struct{ method, path, body string }{
		{http.MethodPost, "/subjects/owned/versions", schema},
		{http.MethodPost, "/governance/subjects/owned/deprecations", `{"path":".y","reason":"replaced","ttlDays":30}`},
		{http.MethodPost, "/governance/subjects/owned/deprecations/field:.y/extensions", `{"consumer":"shop","days":10,"reason":"migrating","approver":"the-cto"}`},
	} {
		if status, body := e.as(alice, step.method, step.path, step.body); status != http.StatusOK {
			t.Fatalf("%s %s: %d %s", step.method, step.path, status, body)
		}
	}
	_, body := e.as(alice, http.MethodGet, "/governance/subjects/owned/deprecations/field:.y", "")
	if !strings.Contains(body, `"approver":"alice"`) || strings.Contains(body, "the-cto") {
		t.Errorf("deprecation %s: want the extension's approver alice, not the body's the-cto", body)
	}
}

// TestImportModeIsAdmins: an owner may set its subject READONLY, not
// IMPORT.
func TestImportModeIsAdmins(t *testing.T) {
	e := newAuthEnv(t, "")
	e.resetOwnership()
	alice, root := e.principal("alice"), e.principal("root")
	if status, body := e.as(alice, http.MethodPut, "/mode/owned?force=true", `{"mode":"import"}`); status != http.StatusForbidden || !strings.Contains(body, "IMPORT mode needs an admin") {
		t.Errorf("alice sets IMPORT: %d %s; want 403", status, body)
	}
	if status, body := e.as(root, http.MethodPut, "/mode/owned?force=true", `{"mode":"IMPORT"}`); status != http.StatusOK {
		t.Errorf("root sets IMPORT: %d %s", status, body)
	}
}

// TestOwnTeamOnly: contracts and declared consumers are published for
// one's own teams only, through both APIs.
func TestOwnTeamOnly(t *testing.T) {
	e := newAuthEnv(t, "")
	bob := e.principal("bob")
	for _, pattern := range []string{
		"POST /governance/subjects/{subject}/contracts",
		"POST /pact-broker/contracts/publish",
		"PUT /pact-broker/pacts/provider/{provider}/consumer/{consumer}/version/{version}",
		"PUT /governance/subjects/{subject}/consumers/{service}",
	} {
		method, path, body := matrixRequest(pattern, "owned")
		status, answer := e.as(bob, method, path, body)
		if status != http.StatusForbidden || !strings.Contains(answer, "may act only for its own teams (shop), not for 'logistics'") {
			t.Errorf("%s as bob for logistics: %d %s; want 403", pattern, status, answer)
		}
	}
}

// TestRateLimited: past its burst a principal gets 429 with 42980 and
// Retry-After; others are not slowed.
func TestRateLimited(t *testing.T) {
	e := newAuthEnv(t, "rate_limit:\n  requests_per_second: 0.5\n  burst: 2\n")
	alice, bob := e.principal("alice"), e.principal("bob")
	for range 2 {
		if status, body := e.as(alice, http.MethodGet, "/subjects", ""); status != http.StatusOK {
			t.Fatalf("within the burst: %d %s", status, body)
		}
	}
	req := httptest.NewRequest(http.MethodGet, "/subjects", nil)
	req.Header.Set("Authorization", "Bearer "+alice.token)
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusTooManyRequests || !strings.Contains(rec.Body.String(), `"error_code":42980`) || rec.Header().Get("Retry-After") != "2" {
		t.Errorf("past the burst: %d %s Retry-After %q; want 429, 42980, Retry-After 2", rec.Code, rec.Body, rec.Header().Get("Retry-After"))
	}
	if status, _ := e.as(bob, http.MethodGet, "/subjects", ""); status != http.StatusOK {
		t.Errorf("bob after alice's burst: %d", status)
	}
	for range 5 {
		if status, _ := e.as(e.principal("anonymous"), http.MethodGet, "/health/ready", ""); status != http.StatusOK {
			t.Fatalf("health probe past the anonymous burst: %d, want 200 (probes are not limited)", status)
		}
	}
}

// TestAuditLogIsReadOnly: no route writes the audit log: it only grows
// by the writes it records.
func TestAuditLogIsReadOnly(t *testing.T) {
	n := 0
	for _, r := range api.Routes() {
		method, path, _ := strings.Cut(r.Pattern, " ")
		if strings.Contains(path, "audit") {
			n++
			if method != http.MethodGet {
				t.Errorf("%s changes the audit log", r.Pattern)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d audit routes, want GET /governance/audit only", n)
	}
}

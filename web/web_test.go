package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/auth"
	"github.com/charter-dev/charter/registry/governance"
)

// browser is an HTTP client with a cookie jar, as a browser session.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: base, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) do(method, path string, form url.Values, hdr ...string) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Accept", "text/html")
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp, string(out)
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// token is the CSRF token of the form on page.
func (b *browser) token(page string) string {
	b.t.Helper()
	resp, body := b.do(http.MethodGet, page, nil)
	m := csrfInput.FindStringSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		b.t.Fatalf("GET %s: %d, no CSRF token\n%s", page, resp.StatusCode, body)
	}
	return m[1]
}

// post submits form to action with the CSRF token of page.
func (b *browser) post(page, action string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	form.Set("csrf", b.token(page))
	return b.do(http.MethodPost, action, form)
}

const itemPage = "/ui/subjects/shipments-value/deprecations/field:.carrier_code"

func TestMountAndHeaders(t *testing.T) {
	svc, clk := newService(t)
	seed(t, svc, clk)
	srv := httptest.NewServer(handler(t, svc, nil))
	defer srv.Close()
	b := newBrowser(t, srv.URL)
	if resp, _ := b.do(http.MethodGet, "/", nil); resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/" {
		t.Errorf("GET / from a browser: %d to %q, want 302 to /ui/", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, body := b.do(http.MethodGet, "/", nil, "Accept", "application/json"); resp.StatusCode != http.StatusOK || body != "{}" {
		t.Errorf("GET / from an API client: %d %q, want the API's {}", resp.StatusCode, body)
	}
	if resp, _ := b.do(http.MethodGet, "/ui/", nil); resp.Header.Get("Location") != "/ui/subjects" {
		t.Errorf("GET /ui/ redirects to %q", resp.Header.Get("Location"))
	}
	resp, body := b.do(http.MethodGet, "/ui/subjects", nil)
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, "style=") {
		t.Error("the page has inline script or style")
	}
	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	if resp, _ := b.do(http.MethodGet, "/ui/subjects", nil, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", resp.StatusCode)
	}
	css := regexp.MustCompile(`href="(/ui/static/app\.[0-9a-f]+\.css)"`).FindStringSubmatch(body)
	if css == nil {
		t.Fatal("no hashed stylesheet link")
	}
	if resp, _ := b.do(http.MethodGet, css[1], nil); resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Errorf("stylesheet: %d %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
}

// TestActionsWithoutAuth: without an auth file the UI is open like the
// API, but forms still need their CSRF token and a same-origin post.
func TestActionsWithoutAuth(t *testing.T) {
	svc, clk := newService(t)
	seed(t, svc, clk)
	clk.Day(95)
	srv := httptest.NewServer(handler(t, svc, nil))
	defer srv.Close()
	b := newBrowser(t, srv.URL)
	form := url.Values{"item": {"field:.carrier_code"}, "consumer": {"billing"}, "days": {"30"}, "reason": {"moving in Q2"}, "approver": {"head of logistics"}, "return": {itemPage}}
	if resp, _ := b.do(http.MethodPost, "/ui/subjects/shipments-value/extensions", form); resp.StatusCode != http.StatusForbidden {
		t.Errorf("post without CSRF token: %d, want 403", resp.StatusCode)
	}
	form.Set("csrf", b.token(itemPage))
	if resp, _ := b.do(http.MethodPost, "/ui/subjects/shipments-value/extensions", form, "Sec-Fetch-Site", "cross-site"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site post: %d, want 403", resp.StatusCode)
	}
	resp, body := b.post(itemPage, "/ui/subjects/shipments-value/extensions", form)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != itemPage+"?done=extended" {
		t.Fatalf("grant: %d to %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	_, page := b.do(http.MethodGet, itemPage+"?done=extended", nil)
	for _, want := range []string{"The extension is granted.", "Holding an extension (1)", "Still reading (4)", "head of logistics"} {
		if !strings.Contains(page, want) {
			t.Errorf("after the grant the page lacks %q", want)
		}
	}
	d, err := svc.Governance().DeprecationMigrations(t.Context(), "shipments-value", ".carrier_code")
	if err != nil || len(d) != 1 || len(d[0].Extended) != 1 || d[0].Extended[0].Consumer != "billing" {
		t.Errorf("the service does not have billing's extension: %+v %v", d, err)
	}
	// Revoke, dismiss, withdraw, deprecate, set owner: each lands.
	for _, step := range []struct {
		page, action string
		form         url.Values
		check        func() bool
	}{
		{itemPage, "/ui/subjects/shipments-value/extensions/revoke", url.Values{"item": {"field:.carrier_code"}, "consumer": {"billing"}}, func() bool {
			d, _ := svc.Governance().Deprecation(t.Context(), "shipments-value", mustItem(".carrier_code"))
			return len(d.Extensions) == 0
		}},
		{"/ui/pii", "/ui/subjects/orders-value/dismissals", url.Values{"field": {".Order.customer_name"}, "reason": {"a company name"}}, func() bool {
			ds, _ := svc.Governance().Dismissals(t.Context(), "orders-value")
			return len(ds) == 1 && ds[0].By == "anonymous"
		}},
		{"/ui/pii", "/ui/subjects/orders-value/dismissals/withdraw", url.Values{"field": {".Order.customer_name"}}, func() bool {
			ds, _ := svc.Governance().Dismissals(t.Context(), "orders-value")
			return len(ds) == 0
		}},
		{"/ui/subjects/shipments-value", "/ui/subjects/shipments-value/deprecations", url.Values{"path": {".phone"}, "ttlDays": {"30"}}, func() bool {
			d, err := svc.Governance().Deprecation(t.Context(), "shipments-value", mustItem(".phone"))
			return err == nil && d.TTLDays == 30
		}},
		{"/ui/subjects/customers-value", "/ui/subjects/customers-value/owner", url.Values{"team": {"crm"}, "contact": {"#crm"}}, func() bool {
			o, err := svc.Governance().Owner(t.Context(), "customers-value")
			return err == nil && o.Team == "crm"
		}},
	} {
		resp, body := b.post(step.page, step.action, step.form)
		if resp.StatusCode != http.StatusSeeOther || !step.check() {
			t.Errorf("%s: %d, change not made\n%s", step.action, resp.StatusCode, body)
		}
	}
	// A refusal of the service shows its message.
	resp, body = b.post(itemPage, "/ui/subjects/shipments-value/extensions", url.Values{"item": {"field:.carrier_code"}, "consumer": {"billing"}, "days": {"30"}})
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "42283") {
		t.Errorf("grant without reason: %d\n%s", resp.StatusCode, body)
	}
}

func mustItem(path string) governance.Item { return governance.FieldItem(path) }

// authFile writes an auth file: lead (team logistics) with a token,
// dev (team billing) with a password, root an admin.
func authFile(t *testing.T, anonymous string) (*auth.Authenticator, string) {
	t.Helper()
	token, digest, err := auth.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	hash, err := auth.HashPassword("s3cret-pass")
	if err != nil {
		t.Fatal(err)
	}
	yaml := fmt.Sprintf(`anonymous: %s
admins: [root]
principals:
  - name: lead
    teams: [logistics]
    tokens_sha256: [%q]
  - name: dev
    teams: [billing]
    password_bcrypt: %q
  - name: root
    tokens_sha256: [%q]
`, anonymous, digest, hash, auth.HashToken("root-token-0123456789"))
	path := filepath.Join(t.TempDir(), "auth.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := auth.Open(context.Background(), path, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a, token
}

// TestSignInAndPolicy: with an auth file the UI signs in with the API's
// credentials and allows exactly what the API allows.
func TestSignInAndPolicy(t *testing.T) {
	svc, clk := newService(t)
	seed(t, svc, clk)
	clk.Day(95)
	a, token := authFile(t, "none")
	srv := httptest.NewServer(handler(t, svc, a))
	defer srv.Close()

	anon := newBrowser(t, srv.URL)
	if resp, _ := anon.do(http.MethodGet, "/ui/deprecations", nil); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/ui/login?next=") {
		t.Fatalf("anonymous page: %d to %q, want the login page", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, body := anon.post("/ui/login", "/ui/login", url.Values{"token": {"wrong"}, "next": {"/ui/deprecations"}})
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not known") {
		t.Errorf("wrong token: %d\n%s", resp.StatusCode, body)
	}

	// dev (billing) signs in with a password: may read, may not change
	// logistics' subject; the page and the post say why, as the API does.
	dev := newBrowser(t, srv.URL)
	resp, _ = dev.post("/ui/login", "/ui/login", url.Values{"user": {"dev"}, "password": {"s3cret-pass"}, "next": {itemPage}})
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != itemPage+"?done=signedin" {
		t.Fatalf("login: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "charter_session" {
			session = c
		}
	}
	if session == nil || !session.Secure || !session.HttpOnly || session.SameSite != http.SameSiteStrictMode {
		t.Fatalf("session cookie %+v: want Secure, HttpOnly, SameSite=Strict", session)
	}
	_, page := dev.do(http.MethodGet, itemPage, nil)
	apiReq, _ := http.NewRequest(http.MethodPost, srv.URL+"/governance/subjects/shipments-value/deprecations/field:.carrier_code/extensions", strings.NewReader(`{"consumer":"billing","days":10,"reason":"r"}`))
	apiReq.SetBasicAuth("dev", "s3cret-pass")
	apiResp, err := http.DefaultClient.Do(apiReq)
	if err != nil {
		t.Fatal(err)
	}
	var apiErr struct {
		Code    int    `json:"error_code"`
		Message string `json:"message"`
	}
	_ = json.NewDecoder(apiResp.Body).Decode(&apiErr)
	apiResp.Body.Close()
	reason := strings.TrimPrefix(apiErr.Message, "Forbidden: ")
	if apiResp.StatusCode != http.StatusForbidden || !strings.Contains(page, htmlEscape(reason)) || strings.Contains(page, `id="grant"`) {
		t.Errorf("dev's page: want no grant form and the API's reason %q (API %d)", reason, apiResp.StatusCode)
	}
	resp, body = dev.post(itemPage, "/ui/subjects/shipments-value/extensions", url.Values{"item": {"field:.carrier_code"}, "consumer": {"billing"}, "days": {"10"}, "reason": {"r"}})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, htmlEscape(reason)) {
		t.Errorf("dev's grant: %d, want 403 with %q\n%s", resp.StatusCode, reason, body)
	}
	// dev may not claim an unowned subject for another team, but for its own.
	resp, _ = dev.post("/ui/subjects/customers-value", "/ui/subjects/customers-value/owner", url.Values{"team": {"crm"}, "contact": {"#crm"}})
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("dev claims customers-value for crm: %d, want 403", resp.StatusCode)
	}
	resp, _ = dev.post("/ui/subjects/customers-value", "/ui/subjects/customers-value/owner", url.Values{"team": {"billing"}, "contact": {"#billing"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("dev claims customers-value for billing: %d, want 303", resp.StatusCode)
	}

	// lead (logistics) signs in with a token and grants: the approver is
	// lead, whatever the form says.
	lead := newBrowser(t, srv.URL)
	if resp, _ := lead.post("/ui/login", "/ui/login", url.Values{"token": {token}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("lead's login: %d", resp.StatusCode)
	}
	resp, body = lead.post(itemPage, "/ui/subjects/shipments-value/extensions", url.Values{"item": {"field:.carrier_code"}, "consumer": {"billing"}, "days": {"10"}, "reason": {"r"}, "approver": {"someone else"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("lead's grant: %d\n%s", resp.StatusCode, body)
	}
	d, _ := svc.Governance().DeprecationMigrations(t.Context(), "shipments-value", ".carrier_code")
	es, _ := svc.Governance().Audit(t.Context(), registry.AuditQuery{Subject: "shipments-value"})
	if len(d) != 1 || len(d[0].Extended) != 1 {
		t.Fatalf("no extension: %+v", d)
	}
	if last := es[len(es)-1]; last.Actor != "lead" || !strings.Contains(string(last.After), `"approver":"lead"`) {
		t.Errorf("audit entry %+v: want actor and approver lead", last)
	}
	// Sign out: the session is gone.
	resp, _ = lead.post("/ui/deprecations", "/ui/logout", url.Values{})
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("logout: %d", resp.StatusCode)
	}
	if resp, _ := lead.do(http.MethodGet, "/ui/deprecations", nil); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("after logout: %d, want the login redirect", resp.StatusCode)
	}
}

// TestAnonymousRead: `anonymous: read` opens the pages, not the actions.
func TestAnonymousRead(t *testing.T) {
	svc, clk := newService(t)
	seed(t, svc, clk)
	a, _ := authFile(t, "read")
	srv := httptest.NewServer(handler(t, svc, a))
	defer srv.Close()
	b := newBrowser(t, srv.URL)
	resp, page := b.do(http.MethodGet, itemPage, nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Sign in to change this subject.") {
		t.Errorf("anonymous read: %d", resp.StatusCode)
	}
	resp, _ = b.post("/ui/login", "/ui/subjects/shipments-value/extensions/revoke", url.Values{"item": {"field:.carrier_code"}, "consumer": {"x"}})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous action: %d, want 401", resp.StatusCode)
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "'", "&#39;", "<", "&lt;", ">", "&gt;", `"`, "&#34;").Replace(s)
}

// TestSubjectsPastTheLastPage: a page past the end redirects to the last
// one (it showed "Page 3 of 2"), a huge one too.
func TestSubjectsPastTheLastPage(t *testing.T) {
	svc, clk := newService(t)
	seed(t, svc, clk)
	srv := httptest.NewServer(handler(t, svc, nil))
	defer srv.Close()
	b := newBrowser(t, srv.URL)
	for _, page := range []string{"3", "99999999999999999999", "9223372036854775807"} {
		resp, _ := b.do(http.MethodGet, "/ui/subjects?q=value&page="+page, nil)
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/subjects?q=value" {
			t.Errorf("page %s: %d to %q, want 303 to the last page", page, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

// TestLoginNeedsHTTPSOffLoopback: over plain http to a network address
// the login page says that signing in needs https (browsers drop the
// Secure cookies there); on loopback it does not.
func TestLoginNeedsHTTPSOffLoopback(t *testing.T) {
	svc, clk := newService(t)
	seed(t, svc, clk)
	a, _ := authFile(t, "none")
	h := handler(t, svc, a)
	for host, want := range map[string]bool{"192.0.2.2:8081": true, "registry.example": true, "127.0.0.1:8081": false, "localhost:8081": false} {
		req := httptest.NewRequest(http.MethodGet, "/ui/login", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := strings.Contains(rec.Body.String(), `id="needs-https"`); got != want {
			t.Errorf("Host %s: needs-https shown %v, want %v (status %d)", host, got, want, rec.Code)
		}
	}
}

// TestTeamDeadlineIgnoresAnEarlyExtension: an extension that ends before
// the deprecation expires changes nothing, so the team page's deadline
// stays the expiry (it showed the extension's earlier end).
func TestTeamDeadlineIgnoresAnEarlyExtension(t *testing.T) {
	svc, clk := newService(t)
	seed(t, svc, clk)
	ctx := t.Context()
	// customs reads carrier_code (declared); its extension ends on day 10,
	// the deprecation expires on day 90.
	if _, err := svc.Governance().GrantExtension(ctx, "shipments-value", governance.FieldItem(".carrier_code"),
		registry.ExtensionRequest{Consumer: "customs", Days: 10, Reason: "early", Approver: "lead"}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler(t, svc, nil))
	defer srv.Close()
	_, body := newBrowser(t, srv.URL).do(http.MethodGet, "/ui/teams/customs", nil)
	expiry := clk.now.AddDate(0, 0, 90).UTC().Format("2006-01-02")
	early := clk.now.AddDate(0, 0, 10).UTC().Format("2006-01-02")
	if !strings.Contains(body, expiry) || strings.Contains(body, "before <time datetime=\""+early) {
		t.Errorf("team page: want the deadline %s, not the extension's %s:\n%s", expiry, early, body)
	}
}

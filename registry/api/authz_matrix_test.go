package api_test

import (
	"encoding/base64"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/auth"
	"github.com/charter-dev/charter/registry/governance"
)

var update = flag.Bool("update", false, "rewrite golden files")

// matrixPrincipal is one caller of the authorization matrix.
type matrixPrincipal struct {
	name  string // column header
	teams []string
	admin bool
	token string // "" for anonymous
}

// authEnv is an API with authentication on: root (admin), alice
// (logistics, which owns subject "owned"), bob (shop), carol (no team)
// and anonymous callers. Each principal has a bearer token.
type authEnv struct {
	*env
	principals []*matrixPrincipal
}

func newAuthEnv(t *testing.T, extra string, opts ...func(*api.Options)) *authEnv {
	t.Helper()
	ps := []*matrixPrincipal{
		{name: "anonymous"},
		{name: "carol"},
		{name: "bob", teams: []string{"shop"}},
		{name: "alice", teams: []string{"logistics"}},
		{name: "root", admin: true},
	}
	var file strings.Builder
	file.WriteString("admins: [root]\n" + extra + "principals:\n")
	for _, p := range ps[1:] {
		tok, digest, err := auth.NewToken()
		if err != nil {
			t.Fatal(err)
		}
		p.token = tok
		fmt.Fprintf(&file, "  - name: %s\n    teams: [%s]\n    tokens_sha256: [%s]\n", p.name, strings.Join(p.teams, ", "), digest)
	}
	path := filepath.Join(t.TempDir(), "auth.yaml")
	if err := os.WriteFile(path, []byte(file.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := auth.Open(t.Context(), path, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts = append([]func(*api.Options){func(o *api.Options) { o.Auth = a }}, opts...)
	return &authEnv{env: newEnv(t, opts...), principals: ps}
}

// as sends a request as p.
func (e *authEnv) as(p *matrixPrincipal, method, path, body string) (int, string) {
	e.t.Helper()
	// X-Charter-Actor claims someone else: with authentication on it
	// must change nothing.
	h := []string{api.ActorHeader, "mallory"}
	if p.token != "" {
		h = append(h, "Authorization", "Bearer "+p.token)
	}
	status, _, got := e.do(method, path, body, h...)
	return status, got
}

func (e *authEnv) principal(name string) *matrixPrincipal {
	for _, p := range e.principals {
		if p.name == name {
			return p
		}
	}
	e.t.Fatalf("no principal %s", name)
	return nil
}

// resetOwnership makes "owned" logistics' and "unowned" ownerless again
// (a cell may have claimed, transferred or removed an owner).
func (e *authEnv) resetOwnership() {
	e.t.Helper()
	ctx := e.t.Context()
	if _, err := e.svc.Governance().SetOwner(ctx, "owned", governance.Owner{Team: "logistics", Contact: "#logistics"}); err != nil {
		e.t.Fatal(err)
	}
	_, _ = e.svc.Governance().DeleteOwner(ctx, "unowned")
}

const matrixSchema = `{"schema":"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"x\",\"type\":\"string\"}]}"}`

// lastAuditID is the ID of the newest audit entry.
func (e *authEnv) lastAuditID() int64 {
	e.t.Helper()
	var last int64
	for {
		es, err := e.svc.Governance().Audit(e.t.Context(), registry.AuditQuery{AfterID: last, Limit: 1000})
		if err != nil {
			e.t.Fatal(err)
		}
		if len(es) == 0 {
			return last
		}
		last = es[len(es)-1].ID
	}
}

// checkAuditActor: every audit entry after mark was made by p (the
// authenticated principal, whatever X-Charter-Actor said).
func (e *authEnv) checkAuditActor(row string, p *matrixPrincipal, mark int64) int {
	e.t.Helper()
	es, err := e.svc.Governance().Audit(e.t.Context(), registry.AuditQuery{AfterID: mark})
	if err != nil {
		e.t.Fatal(err)
	}
	for _, en := range es {
		if en.Actor != p.name {
			e.t.Errorf("%s as %s: audit entry %d (%s) names actor %q", row, p.name, en.ID, en.Action, en.Actor)
		}
	}
	return len(es)
}

// matrixRequest fills pattern's path values for subject and gives a body
// that decodes, so that the check being tested is authorization and the
// team a body names is "logistics".
func matrixRequest(pattern, subject string) (method, path, body string) {
	method, path, _ = strings.Cut(pattern, " ")
	path = strings.TrimSuffix(path, "{$}")
	r := strings.NewReplacer("{subject}", subject, "{provider}", subject, "{consumer}", "logistics", "{service}", "logistics",
		"{item}", "field:.x", "{field}", ".x", "{id}", "1", "{version}", "1", "{name}", "kek1", "{context}", ".matrix")
	path = r.Replace(path)
	switch {
	case strings.HasSuffix(pattern, "/owner") && method == http.MethodPut:
		body = `{"team":"logistics","contact":"#logistics"}`
	case strings.HasSuffix(pattern, "/contracts") && method == http.MethodPost:
		body = `{"consumer":"logistics","consumerVersion":"1.0.0","pact":{"consumer":{"name":"logistics"},"provider":{"name":"` + subject + `"},"messages":[]}}`
	case strings.HasSuffix(pattern, "/contracts/publish"):
		pact := base64.StdEncoding.EncodeToString([]byte(`{"consumer":{"name":"logistics"},"provider":{"name":"` + subject + `"},"messages":[]}`))
		body = `{"pacticipantName":"logistics","pacticipantVersionNumber":"1.0.0","contracts":[{"consumerName":"logistics","providerName":"` + subject + `","specification":"pact","contentType":"application/json","content":"` + pact + `"}]}`
	case strings.Contains(pattern, "/versions") && method == http.MethodPost, strings.HasPrefix(pattern, "POST /subjects/"),
		strings.HasSuffix(pattern, "/check"), strings.HasSuffix(pattern, "/verify"):
		body = matrixSchema
	case strings.HasPrefix(pattern, "PUT /config"):
		body = `{"compatibility":"FULL"}`
	case strings.HasPrefix(pattern, "PUT /mode"):
		body = `{"mode":"READONLY"}`
	case strings.HasSuffix(pattern, "/extensions"):
		body = `{"consumer":"shop","days":10,"reason":"migrating","approver":"someone-else"}`
	case strings.HasSuffix(pattern, "/deprecations") && method == http.MethodPost:
		body = `{"path":".x","reason":"replaced","ttlDays":30}`
	case strings.HasSuffix(pattern, "/dismissals") && method == http.MethodPost:
		body = `{"rule":"PII_UNTAGGED","path":".x","reason":"not personal"}`
	case strings.HasSuffix(pattern, "/tags") && method == http.MethodPut:
		body = `{"fields":{".x":["PII"]}}`
	case strings.Contains(pattern, "/producers/") && method == http.MethodPut:
		body = `{"versions":[1]}`
	case strings.Contains(pattern, "/consumers/") && method == http.MethodPut:
		body = `{"fields":[".x"]}`
	case strings.HasSuffix(pattern, "/policy") && method == http.MethodPut:
		body = `{"rules":{}}`
	case strings.Contains(pattern, "/pacts/provider/"):
		body = `{"consumer":{"name":"logistics"},"provider":{"name":"` + subject + `"},"messages":[]}`
	case method == http.MethodPost || method == http.MethodPut:
		body = `{}`
	}
	return method, path, body
}

// want is what issue 11 §2 says p may do: "ok", "401" or "403".
func want(kind string, p *matrixPrincipal, owned, permanent bool, pattern string) string {
	anon := p.token == ""
	switch kind {
	case "public":
		return "ok"
	case "read", "check", "authenticated":
		if anon {
			return "401"
		}
		return "ok"
	}
	if anon {
		return "401"
	}
	if p.admin {
		return "ok"
	}
	inLogistics := len(p.teams) > 0 && p.teams[0] == "logistics"
	switch kind {
	case "admin":
		return "403"
	case "team":
		return okIf(inLogistics)
	case "owner-soft-admin-permanent":
		if permanent {
			return "403"
		}
	}
	if owned {
		return okIf(inLogistics)
	}
	if strings.HasSuffix(pattern, " "+"/governance/subjects/{subject}/owner") && strings.HasPrefix(pattern, "PUT") {
		return okIf(inLogistics) // claims only for one's own team
	}
	return okIf(len(p.teams) > 0) // unowned: claim
}

func okIf(b bool) string {
	if b {
		return "ok"
	}
	return "403"
}

func got(status int) string {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Sprint(status)
	}
	return "ok"
}

// TestAuthorizationMatrix: every route × every kind of principal × an
// owned and an unowned subject answers as issue 11 §2 says (401 without
// credentials, 403 with a one-line reason, else the endpoint's own
// answer). The matrix, with the status each cell got, is the golden file
// testdata/authz_matrix.golden (go test -run TestAuthorizationMatrix
// -update rewrites it).
func TestAuthorizationMatrix(t *testing.T) {
	e := newAuthEnv(t, "")
	root := e.principal("root")
	if status, body := e.as(root, http.MethodPost, "/subjects/owned/versions", matrixSchema); status != http.StatusOK {
		t.Fatalf("setup: register owned: %d %s", status, body)
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-92s", "route (subject)")
	for _, p := range e.principals {
		fmt.Fprintf(&table, " %-9s", p.name)
	}
	table.WriteString("\n")
	cell := 0
	for _, r := range api.Routes() {
		variants := []string{""}
		if strings.Contains(r.Pattern, "{subject}") || strings.Contains(r.Pattern, "{provider}") {
			variants = []string{"owned", "unowned"}
		}
		for _, subject := range variants {
			perms := []bool{false}
			if r.Kind == "owner-soft-admin-permanent" {
				perms = []bool{false, true}
			}
			for _, permanent := range perms {
				row := r.Pattern
				if subject != "" {
					row += " (" + subject + ")"
				}
				if permanent {
					row += " ?permanent=true"
				}
				fmt.Fprintf(&table, "%-92s", row)
				for _, p := range e.principals {
					e.resetOwnership()
					mark := e.lastAuditID()
					method, path, body := matrixRequest(r.Pattern, subject)
					if r.Pattern == "POST /subjects/{subject}/versions" {
						// A new version each time, so that each allowed
						// registration is a change the audit log records.
						cell++
						body = fmt.Sprintf(`{"schema":"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"x\",\"type\":\"string\"},{\"name\":\"f%d\",\"type\":\"string\",\"default\":\"\"}]}"}`, cell)
					}
					if permanent {
						path += "?permanent=true"
					}
					status, answer := e.as(p, method, path, body)
					entries := e.checkAuditActor(row, p, mark)
					// DELETE /mode with no global mode set changes nothing;
					// an admin GET (GET /admin/export) reads.
					noop := r.Pattern == "DELETE /mode" || method == http.MethodGet
					if write := r.Kind != "public" && r.Kind != "read" && r.Kind != "check"; write && !noop && status == http.StatusOK && entries == 0 {
						t.Errorf("%s as %s: answered 200 and left no audit entry", row, p.name)
					}
					w := want(r.Kind, p, subject == "owned", permanent, r.Pattern)
					if g := got(status); g != w {
						t.Errorf("%s as %s: %d %s, want %s", row, p.name, status, answer, w)
					}
					if status == http.StatusForbidden && (!strings.Contains(answer, `"error_code":40301`) || strings.Contains(answer, "\\n")) {
						t.Errorf("%s as %s: 403 body %s, want code 40301 and a one-line reason", row, p.name, answer)
					}
					if status >= 500 {
						t.Errorf("%s as %s: %d %s", row, p.name, status, answer)
					}
					fmt.Fprintf(&table, " %-9d", status)
				}
				table.WriteString("\n")
			}
		}
	}
	t.Logf("authorization matrix (status per principal):\n%s", table.String())
	golden := filepath.Join("testdata", "authz_matrix.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(table.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(b) != table.String() {
		t.Errorf("the matrix differs from %s (run with -update and review the diff):\n%s", golden, table.String())
	}
}

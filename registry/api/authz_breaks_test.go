package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/charter-dev/charter/registry/api"
)

// The tests here each stop a way around authorization that a break-test
// of issue 11 found, and every other spelling of it.

// TestPermanentDeleteAnySpelling: ?permanent= is read as the delete
// handlers read it (any letter case), so no spelling lets an owner delete
// permanently.
func TestPermanentDeleteAnySpelling(t *testing.T) {
	e := newAuthEnv(t, "")
	e.resetOwnership()
	alice := e.principal("alice")
	if status, body := e.as(alice, http.MethodPost, "/subjects/owned/versions", matrixSchema); status != http.StatusOK {
		t.Fatalf("register: %d %s", status, body)
	}
	if status, body := e.as(alice, http.MethodDelete, "/subjects/owned/versions/1", ""); status != http.StatusOK {
		t.Fatalf("soft delete: %d %s", status, body)
	}
	for _, v := range []string{"true", "TRUE", "True", "tRuE"} {
		for _, path := range []string{"/subjects/owned?permanent=" + v, "/subjects/owned/versions/1?permanent=" + v} {
			if status, body := e.as(alice, http.MethodDelete, path, ""); status != http.StatusForbidden {
				t.Errorf("alice DELETE %s: %d %s; want 403 (admins only)", path, status, body)
			}
		}
	}
}

// TestAliasNeedsTheTargetsOwner: an alias sends registrations to its
// target, so setting one and registering through one both need the right
// to write to the target.
func TestAliasNeedsTheTargetsOwner(t *testing.T) {
	e := newAuthEnv(t, "")
	e.resetOwnership()
	alice, bob, root := e.principal("alice"), e.principal("bob"), e.principal("root")
	if status, body := e.as(bob, http.MethodPost, "/subjects/bobs-value/versions", matrixSchema); status != http.StatusOK {
		t.Fatalf("bob claims bobs-value: %d %s", status, body)
	}
	status, body := e.as(alice, http.MethodPut, "/config/owned", `{"alias":"bobs-value"}`)
	if status != http.StatusForbidden || !strings.Contains(body, "an alias to 'bobs-value' sends registrations there") {
		t.Errorf("alice aliases her subject to bob's: %d %s; want 403", status, body)
	}
	// An alias an admin set does not let alice write to bob's subject.
	if status, body := e.as(root, http.MethodPut, "/config/owned", `{"alias":"bobs-value"}`); status != http.StatusOK {
		t.Fatalf("root sets the alias: %d %s", status, body)
	}
	status, body = e.as(alice, http.MethodPost, "/subjects/owned/versions", matrixSchema)
	if status != http.StatusForbidden || !strings.Contains(body, "owned by team 'shop'") {
		t.Errorf("alice registers through the alias: %d %s; want 403 naming bob's team", status, body)
	}
	if status, body := e.as(bob, http.MethodGet, "/subjects/bobs-value/versions", ""); status != http.StatusOK || body != "[1]" {
		t.Errorf("bob's versions: %d %s, want [1]", status, body)
	}
}

// TestImportModeAnySpelling: IMPORT is decided on the mode as the
// Service parses it, so no spelling (letter case, spaces, a dotless ı
// that upper-cases to I) gets an owner there.
func TestImportModeAnySpelling(t *testing.T) {
	e := newAuthEnv(t, "")
	e.resetOwnership()
	alice := e.principal("alice")
	for _, m := range []string{"IMPORT", "import", "Import", "ımport", "İMPORT"} {
		status, body := e.as(alice, http.MethodPut, "/mode/owned?force=true", `{"mode":"`+m+`"}`)
		if status == http.StatusOK {
			t.Errorf("alice sets mode %q: 200 %s; want it refused", m, body)
		}
	}
	if status, body := e.as(alice, http.MethodGet, "/mode/owned", ""); strings.Contains(body, "IMPORT") {
		t.Errorf("mode after the attempts: %d %s", status, body)
	}
}

// TestConcurrentOwnerClaims: two teams claiming an unowned subject at
// once: exactly one gets it; the other is refused, never handed the
// subject the first one took.
func TestConcurrentOwnerClaims(t *testing.T) {
	e := newAuthEnv(t, "")
	alice, bob := e.principal("alice"), e.principal("bob")
	for round := range 20 {
		subject := "race" + string(rune('a'+round)) + "-value"
		var wg sync.WaitGroup
		codes := make([]int, 2)
		for i, c := range []struct {
			p    *matrixPrincipal
			team string
		}{{alice, "logistics"}, {bob, "shop"}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i], _ = e.as(c.p, http.MethodPut, "/governance/subjects/"+subject+"/owner", `{"team":"`+c.team+`","contact":"x"}`)
			}()
		}
		wg.Wait()
		ok := 0
		for _, c := range codes {
			if c == http.StatusOK {
				ok++
			} else if c != http.StatusForbidden {
				t.Errorf("round %d: status %d, want 200 or 403", round, c)
			}
		}
		if ok != 1 {
			t.Errorf("round %d: %d claims succeeded (%v), want exactly 1", round, ok, codes)
		}
	}
}

// TestRefusedCredentialsAreLimited: a client address that keeps sending
// wrong credentials is answered 429 before they are checked again, with
// or without a rate_limit in the auth file.
func TestRefusedCredentialsAreLimited(t *testing.T) {
	e := newAuthEnv(t, "")
	send := func(token string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/subjects", nil)
		req.RemoteAddr = "198.51.100.7:40000" // an address no other test uses
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		return rec
	}
	n401 := 0
	for range 40 {
		rec := send("charter_guess")
		if rec.Code == http.StatusTooManyRequests {
			if rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), `"error_code":42980`) {
				t.Errorf("429 without Retry-After or 42980: %v %s", rec.Header(), rec.Body)
			}
			break
		}
		if rec.Code != http.StatusUnauthorized {
			t.Fatalf("guess: %d %s", rec.Code, rec.Body)
		}
		n401++
	}
	if n401 < 10 || n401 >= 40 {
		t.Errorf("%d refusals before 429, want a limit between 10 and 40", n401)
	}
	if rec := send(e.principal("alice").token); rec.Code != http.StatusTooManyRequests {
		t.Errorf("a right token from the guessing address right after: %d; want 429 too (the address is held back)", rec.Code)
	}
}

// TestDismissalReviewerIsThePrincipal: who reviewed a dismissal is the
// authenticated principal, whatever the body's "by" says.
func TestDismissalReviewerIsThePrincipal(t *testing.T) {
	e := newAuthEnv(t, "")
	e.resetOwnership()
	alice := e.principal("alice")
	if status, body := e.as(alice, http.MethodPost, "/subjects/owned/versions", matrixSchema); status != http.StatusOK {
		t.Fatalf("register: %d %s", status, body)
	}
	status, body := e.as(alice, http.MethodPost, "/governance/subjects/owned/dismissals", `{"field":".x","reason":"reviewed by security","by":"root"}`)
	if status != http.StatusOK || !strings.Contains(body, `"by":"alice"`) || strings.Contains(body, `"by":"root"`) {
		t.Errorf("dismissal: %d %s; want by alice", status, body)
	}
}

// TestCrossOriginWritesRefused: a browser page on another origin cannot
// make the browser write (a form post or a no-cors fetch needs no
// preflight), whatever the content type; reads and clients that are not
// browsers pass; an origin listed in CORSOrigins may write.
func TestCrossOriginWritesRefused(t *testing.T) {
	e := newEnv(t, func(o *api.Options) { o.CORSOrigins = []string{"https://tools.example"} })
	body := `{"schema":"{\"type\":\"string\"}"}`
	for _, tc := range []struct {
		name, method, origin, site string
		want                       int
	}{
		{"cross-site form post", http.MethodPost, "https://evil.example", "cross-site", http.StatusForbidden},
		{"cross-origin without Sec-Fetch-Site", http.MethodPost, "https://evil.example", "", http.StatusForbidden},
		{"cross-site delete", http.MethodDelete, "https://evil.example", "cross-site", http.StatusForbidden},
		{"cross-site read", http.MethodGet, "https://evil.example", "cross-site", http.StatusOK},
		{"listed origin", http.MethodPost, "https://tools.example", "cross-site", http.StatusOK},
		{"not a browser", http.MethodPost, "", "", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/subjects/s-value/versions"
			var rd *strings.Reader
			if tc.method == http.MethodPost {
				rd = strings.NewReader(body)
			} else {
				rd = strings.NewReader("")
			}
			if tc.method == http.MethodDelete {
				path = "/subjects/s-value"
			}
			req := httptest.NewRequest(tc.method, path, rd)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.site != "" {
				req.Header.Set("Sec-Fetch-Site", tc.site)
			}
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, req)
			got := rec.Code
			if tc.want == http.StatusOK && got != http.StatusForbidden {
				got = http.StatusOK // the endpoint's own answer (a 404 for an unknown subject's versions)
			}
			if got != tc.want || (got == http.StatusForbidden && !strings.Contains(rec.Body.String(), `"error_code":40301`)) {
				t.Errorf("%s: %d %s; want %d", tc.name, rec.Code, rec.Body, tc.want)
			}
		})
	}
}

// TestLoopbackOnlyHost: a registry without authentication answers only
// requests addressed to a loopback name, so a page whose DNS name was
// rebound to 127.0.0.1 cannot use it.
func TestLoopbackOnlyHost(t *testing.T) {
	e := newEnv(t, func(o *api.Options) { o.LoopbackOnly = true })
	for host, want := range map[string]int{
		"127.0.0.1:8081":           http.StatusOK,
		"localhost:8081":           http.StatusOK,
		"[::1]:8081":               http.StatusOK,
		"127.0.0.2":                http.StatusOK,
		"rebind.evil.example:8081": http.StatusForbidden,
		"192.0.2.10:8081":          http.StatusForbidden,
	} {
		req := httptest.NewRequest(http.MethodGet, "/subjects", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %s: %d %s; want %d", host, rec.Code, rec.Body, want)
		}
	}
}

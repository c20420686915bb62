package web_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/charter-dev/charter/registry/auth"
)

// fakeIdP is an OpenID provider's token endpoint: it answers the code it
// was told about with an ID token carrying the nonce of the sign-in,
// after checking the PKCE verifier and the client's secret.
type fakeIdP struct {
	t      *testing.T
	key    *rsa.PrivateKey
	srv    *httptest.Server
	mu     sync.Mutex
	code   string
	nonce  string
	chall  string
	issuer string
}

func (f *fakeIdP) token(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	user, pass, _ := r.BasicAuth()
	sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
	switch {
	case r.PostFormValue("grant_type") != "authorization_code" || r.PostFormValue("code") != f.code:
		http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
		return
	case base64.RawURLEncoding.EncodeToString(sum[:]) != f.chall:
		http.Error(w, `{"error":"invalid_grant","error_description":"PKCE"}`, http.StatusBadRequest)
		return
	case user != "charter-ui" || pass != "client-secret":
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		return
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: f.key, KeyID: "k1"}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		f.t.Fatal(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(sig).Claims(jwt.Claims{Issuer: f.issuer, Subject: "olga", Audience: jwt.Audience{"charter-ui"},
		Expiry: jwt.NewNumericDate(now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(now)}).
		Claims(map[string]any{"nonce": f.nonce, "groups": []string{"logistics"}}).Serialize()
	if err != nil {
		f.t.Fatal(err)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"id_token": tok, "token_type": "Bearer"})
}

// TestOIDCCodeFlow: the browser sign-in through the provider: PKCE,
// state and nonce, the ID token verified as the API verifies JWTs, a
// session with the token's principal and teams.
func TestOIDCCodeFlow(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeIdP{t: t, key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", f.token)
	f.srv = httptest.NewServer(mux)
	defer f.srv.Close()
	f.issuer = f.srv.URL

	dir := t.TempDir()
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	for name, body := range map[string]string{
		"jwks.json": string(jwks),
		"secret":    "client-secret\n",
		"auth.yaml": `oidc:
  issuer: ` + f.issuer + `
  audience: charter
  jwks_file: jwks.json
  client_id: charter-ui
  client_secret_file: secret
  authorization_endpoint: ` + f.srv.URL + `/authorize
  token_endpoint: ` + f.srv.URL + `/token
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a, err := auth.Open(context.Background(), filepath.Join(dir, "auth.yaml"), auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc, clk := newService(t)
	seed(t, svc, clk)
	srv := httptest.NewServer(handler(t, svc, a))
	defer srv.Close()
	b := newBrowser(t, srv.URL)

	_, login := b.do(http.MethodGet, "/ui/login", nil)
	if !strings.Contains(login, `href="/ui/login/oidc?next=%2fui%2fsubjects"`) {
		t.Errorf("the login page offers no OIDC sign-in:\n%s", login)
	}
	start := func() url.Values {
		resp, _ := b.do(http.MethodGet, "/ui/login/oidc?next=/ui/deprecations", nil)
		loc, err := url.Parse(resp.Header.Get("Location"))
		if resp.StatusCode != http.StatusFound || err != nil || !strings.HasPrefix(loc.String(), f.srv.URL+"/authorize?") {
			t.Fatalf("start: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		q := loc.Query()
		if q.Get("response_type") != "code" || q.Get("client_id") != "charter-ui" || q.Get("code_challenge_method") != "S256" ||
			q.Get("redirect_uri") != srv.URL+"/ui/login/oidc/callback" || q.Get("state") == "" || q.Get("nonce") == "" || q.Get("scope") != "openid profile" {
			t.Fatalf("authorization request %v", q)
		}
		return q
	}

	// A callback whose state is not this browser's is refused.
	q := start()
	if resp, body := b.do(http.MethodGet, "/ui/login/oidc/callback?code=x&state=forged", nil); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "does not belong") {
		t.Errorf("forged state: %d", resp.StatusCode)
	}
	// An ID token with another sign-in's nonce is refused.
	q = start()
	f.mu.Lock()
	f.code, f.nonce, f.chall = "code-1", "another nonce", q.Get("code_challenge")
	f.mu.Unlock()
	if resp, body := b.do(http.MethodGet, "/ui/login/oidc/callback?code=code-1&state="+url.QueryEscape(q.Get("state")), nil); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "nonce") {
		t.Errorf("wrong nonce: %d\n%s", resp.StatusCode, body)
	}
	// The real thing.
	q = start()
	f.mu.Lock()
	f.code, f.nonce, f.chall = "code-2", q.Get("nonce"), q.Get("code_challenge")
	f.mu.Unlock()
	resp, body := b.do(http.MethodGet, "/ui/login/oidc/callback?code=code-2&state="+url.QueryEscape(q.Get("state")), nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `content="0;url=/ui/deprecations?done=signedin"`) {
		t.Fatalf("callback: %d\n%s", resp.StatusCode, body)
	}
	_, page := b.do(http.MethodGet, "/ui/deprecations?done=signedin", nil)
	if !strings.Contains(page, "Signed in as <strong>olga</strong> (logistics)") {
		t.Errorf("after the sign-in the page does not name olga of logistics")
	}
	// The state is used up.
	if resp, _ := b.do(http.MethodGet, "/ui/login/oidc/callback?code=code-2&state="+url.QueryEscape(q.Get("state")), nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("replayed callback: %d, want 401", resp.StatusCode)
	}
}

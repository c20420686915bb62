package auth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/charter-dev/charter/registry/auth"
)

// writeFile writes an auth file and returns its path.
func writeFile(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, "auth.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func request(header string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/subjects", nil)
	if header != "" {
		r.Header.Set("Authorization", header)
	}
	return r
}

// TestTokensAndPasswords: a known bearer token and a right basic password
// name their principal with its teams and admin right; anything else is
// ErrInvalidCredentials; no credentials is no principal and no error.
func TestTokensAndPasswords(t *testing.T) {
	token, digest, err := auth.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(token, auth.TokenPrefix) || auth.HashToken(token) != digest || len(digest) != 64 {
		t.Fatalf("NewToken = %q, %q: want a prefixed token and its 64-hex-digit SHA-256", token, digest)
	}
	hash, err := auth.HashPassword("s3cret-pass")
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, t.TempDir(), "admins: [root]\nprincipals:\n"+
		"  - name: alice\n    teams: [logistics, shop]\n    tokens_sha256: ["+digest+"]\n"+
		"  - name: root\n    password_bcrypt: '"+hash+"'\n")
	a, err := auth.Open(t.Context(), path, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	basic := func(u, p string) string {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.SetBasicAuth(u, p)
		return r.Header.Get("Authorization")
	}
	tests := []struct {
		name, header string
		want         *auth.Principal // nil: no principal
		wantErr      string
	}{
		{"no credentials", "", nil, ""},
		{"token", "Bearer " + token, &auth.Principal{Name: "alice", Teams: []string{"logistics", "shop"}, Method: "token"}, ""},
		{"token, scheme in lower case", "bearer " + token, &auth.Principal{Name: "alice", Teams: []string{"logistics", "shop"}, Method: "token"}, ""},
		{"basic", basic("root", "s3cret-pass"), &auth.Principal{Name: "root", Admin: true, Method: "basic"}, ""},
		{"basic again (cached)", basic("root", "s3cret-pass"), &auth.Principal{Name: "root", Admin: true, Method: "basic"}, ""},
		{"unknown token", "Bearer " + token + "x", nil, "the bearer token is not known"},
		{"empty token", "Bearer ", nil, "the Bearer token is empty"},
		{"wrong password", basic("root", "s3cret-pasS"), nil, "wrong user name or password"},
		{"unknown user", basic("mallory", "s3cret-pass"), nil, "wrong user name or password"},
		{"user without password", basic("alice", ""), nil, "wrong user name or password"},
		{"bad basic", "Basic !!!", nil, "not base64 of user:password"},
		{"other scheme", "Digest x", nil, `neither "Bearer <token>" nor "Basic`},
		{"no scheme: the token is not echoed", token, nil, `neither "Bearer <token>" nor "Basic`},
		{"a tab after the scheme", "Bearer\t" + token, &auth.Principal{Name: "alice", Teams: []string{"logistics", "shop"}, Method: "token"}, ""},
		{"a JWT without oidc is a token", "Bearer a.b.c", nil, "the bearer token is not known"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok, err := a.Authenticate(request(tc.header))
			if tc.wantErr != "" {
				if !errors.Is(err, auth.ErrInvalidCredentials) || !strings.Contains(err.Error(), tc.wantErr) || ok {
					t.Fatalf("Authenticate = %+v, %v, %v; want ErrInvalidCredentials with %q", p, ok, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (tc.want == nil) != !ok {
				t.Fatalf("ok = %v, want principal %+v", ok, tc.want)
			}
			if tc.want != nil && (p.Name != tc.want.Name || p.Admin != tc.want.Admin || p.Method != tc.want.Method || strings.Join(p.Teams, ",") != strings.Join(tc.want.Teams, ",")) {
				t.Errorf("principal %+v, want %+v", p, *tc.want)
			}
		})
	}
}

// TestReload: Reload takes a new file in; a broken one leaves the old in
// use.
func TestReload(t *testing.T) {
	dir := t.TempDir()
	old, oldDigest, _ := auth.NewToken()
	fresh, freshDigest, _ := auth.NewToken()
	path := writeFile(t, dir, "principals:\n  - name: alice\n    tokens_sha256: ["+oldDigest+"]\n")
	a, err := auth.Open(t.Context(), path, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "principals:\n  - name: alice\n    tokens_sha256: ["+freshDigest+"]\n")
	if err := a.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.Authenticate(request("Bearer " + old)); err == nil {
		t.Error("the old token still works after the reload")
	}
	if p, ok, err := a.Authenticate(request("Bearer " + fresh)); err != nil || !ok || p.Name != "alice" {
		t.Errorf("new token: %+v %v %v", p, ok, err)
	}
	writeFile(t, dir, "principals:\n  - name: alice\n    tokens_sha256: [nothex]\n")
	if err := a.Reload(t.Context()); err == nil || !strings.Contains(err.Error(), "auth.yaml:3: principal \"alice\": tokens_sha256[0]") {
		t.Errorf("reload of a broken file: %v, want its file:line error", err)
	}
	if _, ok, err := a.Authenticate(request("Bearer " + fresh)); err != nil || !ok {
		t.Errorf("after a failed reload the file in use changed: %v", err)
	}
}

// TestRateLimit: a principal gets its burst, then false with the wait;
// another principal has its own bucket.
func TestRateLimit(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	path := writeFile(t, t.TempDir(), "principals: [{name: a}]\nrate_limit:\n  requests_per_second: 2\n  burst: 3\n")
	a, err := auth.Open(t.Context(), path, auth.Options{Now: func() time.Time { return time.Unix(0, now.Load()) }})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if ok, _ := a.Allow("alice"); !ok {
			t.Fatalf("request %d refused within the burst of 3", i+1)
		}
	}
	ok, wait := a.Allow("alice")
	if ok || wait != 500*time.Millisecond {
		t.Errorf("4th request: %v, wait %v; want refused with 500ms (2 per second)", ok, wait)
	}
	if ok, _ := a.Allow("bob"); !ok {
		t.Error("bob was refused for alice's requests")
	}
	now.Add(int64(500 * time.Millisecond))
	if ok, _ := a.Allow("alice"); !ok {
		t.Error("alice still refused after waiting")
	}
}

// oidcProvider is a signing key and its JWKS.
type oidcProvider struct {
	key  *ecdsa.PrivateKey
	kid  string
	jwks []byte
}

func newProvider(t *testing.T, kid string) *oidcProvider {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &k.PublicKey, KeyID: kid, Algorithm: string(jose.ES256), Use: "sig"}}}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return &oidcProvider{key: k, kid: kid, jwks: b}
}

func (p *oidcProvider) sign(t *testing.T, claims map[string]any) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: p.key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", p.kid))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestOIDC: a JWT signed by the provider's key, for the audience, unexpired,
// names the principal by its name claim with the teams of its teams
// claim; every other JWT is refused with a reason.
func TestOIDC(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	idp := newProvider(t, "k1")
	stranger := newProvider(t, "k1")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "jwks.json"), idp.jwks, 0o600); err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, dir, "admins: [ops-bot]\noidc:\n  issuer: https://idp.example\n  audience: charter\n  jwks_file: jwks.json\n  name_claim: email\n")
	a, err := auth.Open(t.Context(), path, auth.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	base := func(extra map[string]any) map[string]any {
		c := map[string]any{"iss": "https://idp.example", "aud": "charter", "email": "dana@acme.test",
			"groups": []string{"logistics", "payments"}, "exp": now.Add(time.Hour).Unix(), "iat": now.Unix()}
		for k, v := range extra {
			if v == nil {
				delete(c, k)
			} else {
				c[k] = v
			}
		}
		return c
	}
	tests := []struct {
		name    string
		token   string
		want    string // name,teams...
		wantErr string
	}{
		{"valid", idp.sign(t, base(nil)), "dana@acme.test,logistics,payments", ""},
		{"teams as a string", idp.sign(t, base(map[string]any{"groups": "a b"})), "dana@acme.test,a,b", ""},
		{"admin by name", idp.sign(t, base(map[string]any{"email": "ops-bot"})), "ops-bot,logistics,payments", ""},
		{"expired", idp.sign(t, base(map[string]any{"exp": now.Add(-2 * time.Minute).Unix()})), "", "expired"},
		{"no exp", idp.sign(t, base(map[string]any{"exp": nil})), "", "no exp claim"},
		{"other audience", idp.sign(t, base(map[string]any{"aud": "billing"})), "", "aud"},
		{"other issuer", idp.sign(t, base(map[string]any{"iss": "https://evil.example"})), "", "iss"},
		{"other key", stranger.sign(t, base(nil)), "", "signature does not verify"},
		{"no name", idp.sign(t, base(map[string]any{"email": nil})), "", "email claim \"\""},
		{"not a JWT", "x.y.z", "", "does not parse"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok, err := a.Authenticate(request("Bearer " + tc.token))
			if tc.wantErr != "" {
				if !errors.Is(err, auth.ErrInvalidCredentials) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Authenticate = %+v, %v; want ErrInvalidCredentials with %q", p, err, tc.wantErr)
				}
				return
			}
			if err != nil || !ok {
				t.Fatalf("Authenticate: %v %v", ok, err)
			}
			if got := strings.Join(append([]string{p.Name}, p.Teams...), ","); got != tc.want || p.Method != "oidc" {
				t.Errorf("principal %s (%s), want %s", got, p.Method, tc.want)
			}
			if p.Admin != (p.Name == "ops-bot") {
				t.Errorf("admin = %v for %s", p.Admin, p.Name)
			}
		})
	}
}

// TestOIDCJWKSURL: keys come from jwks_url, and a token with a key ID
// the set lacks refetches it (the provider rotated its keys).
func TestOIDCJWKSURL(t *testing.T) {
	now := time.Now()
	first, second := newProvider(t, "k1"), newProvider(t, "k2")
	var serving atomic.Pointer[[]byte]
	serving.Store(&first.jwks)
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		_, _ = w.Write(*serving.Load())
	}))
	defer srv.Close()
	path := writeFile(t, t.TempDir(), "oidc:\n  issuer: https://idp.example\n  audience: charter\n  jwks_url: "+srv.URL+"\n")
	a, err := auth.Open(t.Context(), path, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eager, err := auth.Open(t.Context(), path, auth.Options{JWKSRefetch: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	claims := map[string]any{"iss": "https://idp.example", "aud": "charter", "sub": "svc-a", "exp": now.Add(time.Hour).Unix()}
	if p, _, err := a.Authenticate(request("Bearer " + first.sign(t, claims))); err != nil || p.Name != "svc-a" {
		t.Fatalf("first key: %+v %v", p, err)
	}
	serving.Store(&second.jwks)
	// The refetch is rate-limited (30 s): right after start-up, a new key
	// ID is refused until then.
	if _, _, err := a.Authenticate(request("Bearer " + second.sign(t, claims))); err == nil {
		t.Fatal("a key the provider published after the last fetch was accepted before any refetch")
	}
	if fetches.Load() != 2 {
		t.Errorf("%d fetches, want 2 (one per Open; the refetch waits 30 s)", fetches.Load())
	}
	if p, _, err := eager.Authenticate(request("Bearer " + second.sign(t, claims))); err != nil || p.Name != "svc-a" {
		t.Errorf("after the provider rotated its key, with refetches allowed: %+v %v", p, err)
	}
	if fetches.Load() != 3 {
		t.Errorf("%d fetches, want 3 (the rotation refetched once)", fetches.Load())
	}
}

// TestCredentialsAreNotEchoed and refused twice: an error never quotes
// the credential; two Authorization headers are refused.
func TestCredentialsAreNotEchoed(t *testing.T) {
	token, digest, _ := auth.NewToken()
	a, err := auth.Open(t.Context(), writeFile(t, t.TempDir(), "principals:\n  - name: a\n    tokens_sha256: ["+digest+"]\n"), auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{token, "Token " + token, "Bearer " + token + "x"} {
		_, _, err := a.Authenticate(request(h))
		if err == nil || strings.Contains(err.Error(), token) {
			t.Errorf("Authorization %q: error %v; want a refusal that does not quote the token", h, err)
		}
	}
	r := request("Bearer " + token)
	r.Header.Add("Authorization", "Bearer other")
	if _, _, err := a.Authenticate(r); err == nil || !strings.Contains(err.Error(), "2 Authorization headers") {
		t.Errorf("two Authorization headers: %v", err)
	}
}

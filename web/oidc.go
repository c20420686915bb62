package web

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/charter-dev/charter/registry/auth"
	"github.com/charter-dev/charter/registry/srerr"
)

// The OIDC authorization code flow (with PKCE, state and nonce) for
// browsers, when the auth file's oidc section names a client_id: the
// visitor signs in at the provider, the UI exchanges the code for an ID
// token, verifies it as the API verifies bearer JWTs (auth.Authenticator),
// and keeps it as the session's credentials, so the session ends with the
// token's expiry.

const (
	oidcCookie = "charter_oidc"
	// oidcPendingTTL is how long a sign-in may take at the provider.
	oidcPendingTTL = 10 * time.Minute
	maxPending     = 10_000
)

// pendingLogin is a sign-in sent to the provider, keyed by its state.
type pendingLogin struct {
	verifier, nonce, next, redirect string
	expires                         time.Time
}

type pendingLogins struct {
	mu sync.Mutex
	m  map[string]pendingLogin
}

func (p *pendingLogins) put(state string, l pendingLogin) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]pendingLogin{}
	}
	if len(p.m) >= maxPending {
		now := time.Now()
		for k, v := range p.m {
			if now.After(v.expires) {
				delete(p.m, k)
			}
		}
		if len(p.m) >= maxPending {
			clear(p.m)
		}
	}
	p.m[state] = l
}

// take returns and forgets the pending sign-in of state.
func (p *pendingLogins) take(state string) (pendingLogin, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l, ok := p.m[state]
	delete(p.m, state)
	if !ok || time.Now().After(l.expires) {
		return pendingLogin{}, false
	}
	return l, true
}

// codeFlow returns the browser sign-in, false when there is none.
func (u *ui) codeFlow() (auth.CodeFlow, bool) {
	if u.opts.Auth == nil {
		return auth.CodeFlow{}, false
	}
	cf, ok, err := u.opts.Auth.CodeFlow()
	if err != nil {
		u.log.Error("web: oidc sign-in", "error", err.Error())
		return auth.CodeFlow{}, false
	}
	return cf, ok
}

// redirectURL is where the provider sends the browser back.
func redirectURL(cf auth.CodeFlow, r *http.Request) string {
	if cf.RedirectURL != "" {
		return cf.RedirectURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + Prefix + "/login/oidc/callback"
}

func pkceChallenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// oidcStart: GET /ui/login/oidc?next= sends the browser to the provider.
func (u *ui) oidcStart(w http.ResponseWriter, r *http.Request) {
	cf, ok := u.codeFlow()
	if !ok {
		u.fail(w, r, srerr.New(srerr.ErrNotFound, "This registry has no OIDC sign-in (the auth file's oidc section names no client_id)"))
		return
	}
	state, nonce, verifier := randomID(), randomID(), randomID()+randomID()
	l := pendingLogin{verifier: verifier, nonce: nonce, next: safeReturn(r.URL.Query().Get("next"), Prefix+"/subjects"),
		redirect: redirectURL(cf, r), expires: time.Now().Add(oidcPendingTTL)}
	u.pending.put(state, l)
	// Lax, not Strict: the browser comes back from the provider's site.
	http.SetCookie(w, &http.Cookie{Name: oidcCookie, Value: state, Path: Prefix + "/login/oidc", MaxAge: int(oidcPendingTTL / time.Second),
		Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	q := url.Values{"response_type": {"code"}, "client_id": {cf.ClientID}, "redirect_uri": {l.redirect},
		"scope": {strings.Join(cf.Scopes, " ")}, "state": {state}, "nonce": {nonce},
		"code_challenge": {pkceChallenge(verifier)}, "code_challenge_method": {"S256"}}
	sep := "?"
	if strings.Contains(cf.AuthorizationEndpoint, "?") {
		sep = "&"
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, cf.AuthorizationEndpoint+sep+q.Encode(), http.StatusFound)
}

// oidcCallback: GET /ui/login/oidc/callback?code=&state= exchanges the
// code, verifies the ID token and its nonce, and starts the session.
func (u *ui) oidcCallback(w http.ResponseWriter, r *http.Request) {
	cf, ok := u.codeFlow()
	if !ok {
		u.fail(w, r, srerr.New(srerr.ErrNotFound, "This registry has no OIDC sign-in"))
		return
	}
	q := r.URL.Query()
	refuse := func(format string, args ...any) {
		u.render(w, r, http.StatusUnauthorized, "login", "Sign in", "login", loginView{Next: Prefix + "/subjects", Enabled: true, OIDC: true,
			Error: "The sign-in at the identity provider did not complete: " + fmt.Sprintf(format, args...)})
	}
	if e := q.Get("error"); e != "" {
		refuse("the provider answered %s %s.", e, q.Get("error_description"))
		return
	}
	c, err := r.Cookie(oidcCookie)
	state := q.Get("state")
	if err != nil || state == "" || c.Value != state {
		refuse("the answer does not belong to a sign-in started in this browser; start again.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: oidcCookie, Value: "", Path: Prefix + "/login/oidc", MaxAge: -1, Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode})
	l, ok := u.pending.take(state)
	if !ok {
		refuse("the sign-in took too long or was already used; start again.")
		return
	}
	idToken, err := u.exchange(r, cf, l, q.Get("code"))
	if err != nil {
		u.log.Warn("web: oidc code exchange", "error", err.Error())
		refuse("%v.", err)
		return
	}
	authorization := "Bearer " + idToken
	probe, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, Prefix+"/", nil)
	probe.Header.Set("Authorization", authorization)
	if _, ok, err := u.opts.Auth.Authenticate(probe); err != nil || !ok {
		refuse("the ID token is not valid here: %v.", strings.TrimPrefix(fmt.Sprint(err), auth.ErrInvalidCredentials.Error()+": "))
		return
	}
	// The signature is verified: read the nonce.
	var claims struct {
		Nonce string `json:"nonce"`
	}
	if parts := strings.Split(idToken, "."); len(parts) == 3 {
		if b, err := base64.RawURLEncoding.DecodeString(parts[1]); err == nil {
			_ = json.Unmarshal(b, &claims)
		}
	}
	if claims.Nonce != l.nonce {
		refuse("the ID token's nonce is not this sign-in's.")
		return
	}
	if old := identityOf(r).session; old != "" {
		u.sessions.drop(old)
	}
	id, exp := u.sessions.create(authorization)
	setCookie(w, sessionCookie, id, exp)
	// A page, not a redirect: the browser arrived from the provider's
	// site, and a SameSite=Strict cookie is sent only on a navigation
	// that starts here.
	next := withDone(l.next, "signedin")
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=%s"><title>Signed in · Charter</title></head><body><main><p>You are signed in. <a href="%s">Continue</a>.</p></main></body></html>`,
		template.HTMLEscapeString(next), template.HTMLEscapeString(next))
}

// maxTokenResponse bounds the provider's token answer.
const maxTokenResponse = 1 << 20

// exchange trades code for the provider's ID token (RFC 6749 §4.1.3 with
// the PKCE verifier, RFC 7636).
func (u *ui) exchange(r *http.Request, cf auth.CodeFlow, l pendingLogin, code string) (string, error) {
	if code == "" {
		return "", fmt.Errorf("the provider sent no code")
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {l.redirect},
		"client_id": {cf.ClientID}, "code_verifier": {l.verifier}}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, cf.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if cf.ClientSecret != "" {
		req.SetBasicAuth(url.QueryEscape(cf.ClientID), url.QueryEscape(cf.ClientSecret))
	}
	resp, err := u.opts.Auth.HTTPClient().Do(req)
	if err != nil {
		return "", fmt.Errorf("the token endpoint did not answer")
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse))
	if err != nil {
		return "", fmt.Errorf("the token endpoint's answer could not be read")
	}
	var out struct {
		IDToken string `json:"id_token"`
		Error   string `json:"error"`
	}
	_ = json.Unmarshal(body, &out)
	switch {
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("the token endpoint answered %s %s", resp.Status, out.Error)
	case out.IDToken == "":
		return "", fmt.Errorf("the token endpoint's answer has no id_token")
	}
	return out.IDToken, nil
}

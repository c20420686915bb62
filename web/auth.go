package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/auth"
	"github.com/charter-dev/charter/registry/srerr"
)

// Cookies of the UI. Both are Secure, HttpOnly and SameSite=Strict, and
// scoped to Prefix. (Browsers keep Secure cookies on http://localhost and
// 127.0.0.1, which count as secure origins.)
const (
	sessionCookie = "charter_session"
	csrfCookie    = "charter_csrf"
	csrfField     = "csrf"
)

// maxSessions bounds the sessions kept; past it, expired ones are
// dropped, then the oldest.
const maxSessions = 10_000

// session is one sign-in. It keeps the credentials the visitor gave (in
// memory only, never in the cookie), so that every request is
// authenticated again as the API would authenticate it: a token removed
// from the auth file, or a reload that drops a principal, ends the
// session at the next request.
type session struct {
	authorization string
	expires       time.Time
}

type sessions struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[string]session
}

func newSessions(ttl time.Duration) *sessions {
	return &sessions{ttl: ttl, m: map[string]session{}}
}

func randomID() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (s *sessions) create(authorization string) (string, time.Time) {
	id, exp := randomID(), time.Now().Add(s.ttl)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) >= maxSessions {
		now := time.Now()
		var oldest string
		for k, v := range s.m {
			if now.After(v.expires) {
				delete(s.m, k)
			} else if oldest == "" || v.expires.Before(s.m[oldest].expires) {
				oldest = k
			}
		}
		if len(s.m) >= maxSessions {
			delete(s.m, oldest)
		}
	}
	s.m[id] = session{authorization: authorization, expires: exp}
	return id, exp
}

func (s *sessions) get(id string) (session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[id]
	if ok && time.Now().After(v.expires) {
		delete(s.m, id)
		return session{}, false
	}
	return v, ok
}

func (s *sessions) drop(id string) {
	s.mu.Lock()
	delete(s.m, id)
	s.mu.Unlock()
}

// identity is who a request comes from.
type identity struct {
	principal *auth.Principal
	session   string
}

type identityKey struct{}

func identityOf(r *http.Request) identity {
	id, _ := r.Context().Value(identityKey{}).(identity)
	return id
}

// identify authenticates the request as the API does (identify in
// registry/api): its Authorization header, else its session's
// credentials, else a verified TLS client certificate. The principal is
// the actor of the changes the request makes. Pages need a principal
// unless the auth file lets anonymous callers read.
func (u *ui) identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := u.opts.Auth
		if a == nil {
			if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 && len(r.TLS.VerifiedChains[0]) > 0 {
				if name := auth.CertName(r.TLS.VerifiedChains[0][0]); name != "" {
					r = r.WithContext(registry.WithActor(r.Context(), name))
				}
			}
			next.ServeHTTP(w, r)
			return
		}
		var id identity
		probe := r
		if r.Header.Get("Authorization") == "" {
			if c, err := r.Cookie(sessionCookie); err == nil {
				if s, ok := u.sessions.get(c.Value); ok {
					probe = r.Clone(r.Context())
					probe.Header.Set("Authorization", s.authorization)
					id.session = c.Value
				} else {
					clearCookie(w, sessionCookie)
				}
			}
		}
		p, ok, err := a.Authenticate(probe)
		if err != nil {
			if id.session != "" {
				u.sessions.drop(id.session)
				clearCookie(w, sessionCookie)
				http.Redirect(w, r, Prefix+"/login?done=sessionover&next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			w.Header().Add("WWW-Authenticate", `Basic realm="charter", charset="UTF-8"`)
			u.fail(w, r, srerr.New(srerr.ErrUnauthorized, "Unauthorized: %s", strings.TrimPrefix(err.Error(), auth.ErrInvalidCredentials.Error()+": ")))
			return
		}
		key := "anonymous@" + auth.ClientAddr(r)
		ctx := r.Context()
		if ok {
			key = p.Name
			id.principal = &p
			ctx = registry.WithActor(auth.WithPrincipal(ctx, p), p.Name)
		} else {
			id.session = ""
		}
		if allowed, wait := a.Allow(key); !allowed {
			w.Header().Set("Retry-After", auth.RetryAfter(wait))
			u.fail(w, r, srerr.New(srerr.ErrRateLimited, "Too many requests from '%s'; retry in %s", key, wait.Round(time.Millisecond)))
			return
		}
		r = r.WithContext(context.WithValue(ctx, identityKey{}, id))
		if !ok && !u.anonymousAllowed(r) {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, Prefix+"/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			u.fail(w, r, srerr.New(srerr.ErrUnauthorized, "Unauthorized: sign in first"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// anonymousAllowed says whether a request without credentials may go on:
// the login page and static files always; pages when the auth file says
// `anonymous: read`; actions never (they answer 401, as the API does).
func (u *ui) anonymousAllowed(r *http.Request) bool {
	p := r.URL.Path
	if p == Prefix+"/login" || strings.HasPrefix(p, Prefix+"/login/oidc") || strings.HasPrefix(p, Prefix+"/static/") {
		return true
	}
	return r.Method == http.MethodGet && u.opts.Auth.Config().Anonymous == auth.AnonymousRead
}

// plainRemote reports a request over plain http to a Host that is not a
// loopback name (browsers keep Secure cookies on http only for loopback).
func plainRemote(r *http.Request) bool {
	return r.TLS == nil && !auth.LoopbackHost(r.Host)
}

func setCookie(w http.ResponseWriter, name, value string, expires time.Time) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: Prefix + "/", Expires: expires,
		Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

func clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: Prefix + "/", MaxAge: -1,
		Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// csrfToken returns the token forms carry: an HMAC, under a per-process
// key, of the visitor's CSRF cookie (set here when missing) and session.
func (u *ui) csrfToken(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(csrfCookie)
	value := ""
	if err == nil && len(c.Value) >= 32 {
		value = c.Value
	} else if v, ok := r.Context().Value(csrfKey{}).(string); ok {
		value = v
	} else {
		value = randomID()
		setCookie(w, csrfCookie, value, time.Time{})
	}
	return u.csrfFor(value, identityOf(r).session)
}

type csrfKey struct{}

func (u *ui) csrfFor(cookie, session string) string {
	m := hmac.New(sha256.New, u.csrfKey)
	m.Write([]byte(cookie))
	m.Write([]byte{0})
	m.Write([]byte(session))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkCSRF reports whether a form post carries the token of its cookie
// and session.
func (u *ui) checkCSRF(r *http.Request) bool {
	c, err := r.Cookie(csrfCookie)
	if err != nil || len(c.Value) < 32 {
		return false
	}
	want := u.csrfFor(c.Value, identityOf(r).session)
	return hmac.Equal([]byte(want), []byte(r.PostFormValue(csrfField)))
}

// maxFormBytes bounds a form post.
const maxFormBytes = 64 << 10

// parseForm reads a form post and checks its CSRF token.
func (u *ui) parseForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		return srerr.New(srerr.ErrBadRequest, "The form could not be read: %v", err)
	}
	if !u.checkCSRF(r) {
		return srerr.New(srerr.ErrForbidden, "Forbidden: the form's CSRF token does not match this browser's session; reload the page and try again")
	}
	return nil
}

// loginView is the login page's data.
type loginView struct {
	Next    string
	Error   string
	User    string
	Enabled bool
	// OIDC offers the identity provider's sign-in.
	OIDC bool
	// NeedsHTTPS says the page came over plain http to an address that
	// is not loopback: browsers drop the Secure session and CSRF
	// cookies there, so signing in cannot work.
	NeedsHTTPS bool
}

func (u *ui) loginPage(w http.ResponseWriter, r *http.Request) {
	next := safeReturn(r.URL.Query().Get("next"), Prefix+"/subjects")
	_, oidc := u.codeFlow()
	u.render(w, r, http.StatusOK, "login", "Sign in", "login", loginView{Next: next, Enabled: u.opts.Auth != nil, OIDC: oidc,
		NeedsHTTPS: u.opts.Auth != nil && plainRemote(r)})
}

// login checks the credentials of the form exactly as the API checks a
// request's Authorization header, then starts a session holding them.
func (u *ui) login(w http.ResponseWriter, r *http.Request) {
	if err := u.parseForm(w, r); err != nil {
		u.fail(w, r, err)
		return
	}
	next := safeReturn(r.PostFormValue("next"), Prefix+"/subjects")
	a := u.opts.Auth
	if a == nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	if wait := a.FailureWait(auth.ClientAddr(r)); wait > 0 {
		w.Header().Set("Retry-After", auth.RetryAfter(wait))
		u.fail(w, r, srerr.New(srerr.ErrRateLimited, "Too many refused sign-ins from this address; retry in %s", wait.Round(time.Millisecond)))
		return
	}
	if allowed, wait := a.Allow("login@" + auth.ClientAddr(r)); !allowed {
		w.Header().Set("Retry-After", auth.RetryAfter(wait))
		u.fail(w, r, srerr.New(srerr.ErrRateLimited, "Too many sign-in attempts; retry in %s", wait.Round(time.Millisecond)))
		return
	}
	user, pass, token := strings.TrimSpace(r.PostFormValue("user")), r.PostFormValue("password"), strings.TrimSpace(r.PostFormValue("token"))
	var authorization string
	switch {
	case token != "":
		authorization = "Bearer " + token
	case user != "" && pass != "":
		authorization = "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	}
	msg := "Give a token, or a user name and password."
	if authorization != "" {
		probe, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, Prefix+"/", nil)
		probe.Header.Set("Authorization", authorization)
		_, ok, err := a.Authenticate(probe)
		if err == nil && ok {
			if old := identityOf(r).session; old != "" {
				u.sessions.drop(old)
			}
			id, exp := u.sessions.create(authorization)
			setCookie(w, sessionCookie, id, exp)
			http.Redirect(w, r, withDone(next, "signedin"), http.StatusSeeOther)
			return
		}
		a.Failed(auth.ClientAddr(r))
		msg = "Those credentials are not valid."
		if err != nil {
			msg = "Those credentials are not valid: " + strings.TrimPrefix(err.Error(), auth.ErrInvalidCredentials.Error()+": ") + "."
		}
	}
	_, oidc := u.codeFlow()
	u.render(w, r, http.StatusUnauthorized, "login", "Sign in", "login", loginView{Next: next, Error: msg, User: user, Enabled: true, OIDC: oidc})
}

func (u *ui) logout(w http.ResponseWriter, r *http.Request) {
	if err := u.parseForm(w, r); err != nil {
		u.fail(w, r, err)
		return
	}
	if id := identityOf(r).session; id != "" {
		u.sessions.drop(id)
	}
	clearCookie(w, sessionCookie)
	http.Redirect(w, r, Prefix+"/login?done=signedout", http.StatusSeeOther)
}

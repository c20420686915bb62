package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// ErrInvalidCredentials wraps every refusal of credentials a request
// carries (unknown token, wrong password, bad or expired JWT, a client
// certificate without a name). The API answers 401, code 40101.
var ErrInvalidCredentials = errors.New("invalid credentials")

// Options configures an Authenticator. The zero value is usable.
type Options struct {
	// Now is the clock JWT expiry is judged by (default time.Now).
	Now func() time.Time
	// HTTPClient fetches an oidc jwks_url (default: a client with a
	// 10 s timeout).
	HTTPClient *http.Client
	// JWKSRefetch is the least time between two fetches of a jwks_url
	// caused by tokens naming a key ID it lacks (default 30 s).
	JWKSRefetch time.Duration
}

// Authenticator authenticates requests against an auth file. It is safe
// for concurrent use; Reload swaps the file in atomically.
type Authenticator struct {
	path  string
	opts  Options
	state atomic.Pointer[state]
}

// state is one loaded auth file.
type state struct {
	cfg        *Config
	principals map[string]*PrincipalConfig
	admins     map[string]bool
	tokens     []tokenDigest
	oidc       *oidcVerifier
	limiter    *limiter
	basic      *basicCache
	// dummyHash is compared against for unknown basic-auth users, so an
	// unknown name costs as much as a wrong password.
	dummyHash []byte
}

type tokenDigest struct {
	sum       [32]byte
	principal string
}

// Open loads the auth file at path. Errors name the file and line.
func Open(ctx context.Context, path string, opts Options) (*Authenticator, error) {
	a := &Authenticator{path: path, opts: opts}
	if a.opts.Now == nil {
		a.opts.Now = time.Now
	}
	if a.opts.JWKSRefetch == 0 {
		a.opts.JWKSRefetch = 30 * time.Second
	}
	if a.opts.HTTPClient == nil {
		a.opts.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if err := a.Reload(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

// Reload re-reads the auth file. On any error the file in use stays.
func (a *Authenticator) Reload(ctx context.Context) error {
	cfg, err := Load(a.path)
	if err != nil {
		return err
	}
	st, err := a.newState(ctx, cfg)
	if err != nil {
		return fmt.Errorf("auth config %s: %w", a.path, err)
	}
	a.state.Store(st)
	return nil
}

func (a *Authenticator) newState(ctx context.Context, cfg *Config) (*state, error) {
	st := &state{cfg: cfg, principals: map[string]*PrincipalConfig{}, admins: map[string]bool{}, basic: newBasicCache()}
	for _, n := range cfg.Admins {
		st.admins[n] = true
	}
	for i := range cfg.Principals {
		p := &cfg.Principals[i]
		st.principals[p.Name] = p
		for _, h := range p.TokensSHA256 {
			var d tokenDigest
			_, _ = hex.Decode(d.sum[:], []byte(h)) // validated by Parse
			d.principal = p.Name
			st.tokens = append(st.tokens, d)
		}
	}
	if cfg.OIDC != nil {
		v, err := newOIDCVerifier(ctx, cfg.OIDC, cfg.dir, a.opts)
		if err != nil {
			return nil, err
		}
		st.oidc = v
	}
	if cfg.RateLimit != nil {
		st.limiter = newLimiter(cfg.RateLimit.RequestsPerSecond, cfg.RateLimit.Burst)
	}
	h, err := bcrypt.GenerateFromPassword([]byte("charter-dummy"), bcrypt.DefaultCost)
	if err != nil {
		return nil, err
	}
	st.dummyHash = h
	return st, nil
}

// Config returns the auth file in use (read-only).
func (a *Authenticator) Config() *Config { return a.state.Load().cfg }

// Authenticate returns the principal of r's credentials: the
// Authorization header (Bearer token or JWT, or Basic), else a verified
// TLS client certificate. ok is false, with a nil error, when r carries
// no credentials. Errors wrap ErrInvalidCredentials.
func (a *Authenticator) Authenticate(r *http.Request) (p Principal, ok bool, err error) {
	st := a.state.Load()
	if hs := r.Header.Values("Authorization"); len(hs) > 1 {
		// A proxy that reads the last one would disagree on who asks.
		return Principal{}, false, fmt.Errorf("%w: the request has %d Authorization headers; send one", ErrInvalidCredentials, len(hs))
	}
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, cred := h, ""
		if i := strings.IndexAny(h, " \t"); i >= 0 {
			scheme, cred = h[:i], strings.TrimSpace(h[i+1:])
		}
		switch {
		case strings.EqualFold(scheme, "Bearer"):
			p, err = a.bearer(r.Context(), st, cred)
		case strings.EqualFold(scheme, "Basic"):
			user, pass, good := r.BasicAuth()
			if !good {
				return Principal{}, false, fmt.Errorf("%w: the Basic credentials are not base64 of user:password", ErrInvalidCredentials)
			}
			p, err = st.basicAuth(user, pass)
		default:
			// The scheme is not echoed: a header without one is the
			// credential itself.
			return Principal{}, false, fmt.Errorf("%w: the Authorization header is neither \"Bearer <token>\" nor \"Basic <base64 user:password>\"", ErrInvalidCredentials)
		}
		if err != nil {
			return Principal{}, false, err
		}
		return p, true, nil
	}
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 && len(r.TLS.VerifiedChains[0]) > 0 {
		name := CertName(r.TLS.VerifiedChains[0][0])
		if name == "" {
			return Principal{}, false, fmt.Errorf("%w: the client certificate has no CN and no SAN to name a principal", ErrInvalidCredentials)
		}
		return st.principal(name, nil, "mtls"), true, nil
	}
	return Principal{}, false, nil
}

// principal builds the Principal called name: its teams are the auth
// file's (when it lists name), else teams.
func (st *state) principal(name string, teams []string, method string) Principal {
	if pc, ok := st.principals[name]; ok {
		teams = pc.Teams
	}
	return Principal{Name: name, Teams: append([]string(nil), teams...), Admin: st.admins[name], Method: method}
}

func (a *Authenticator) bearer(ctx context.Context, st *state, token string) (Principal, error) {
	if token == "" {
		return Principal{}, fmt.Errorf("%w: the Bearer token is empty", ErrInvalidCredentials)
	}
	if strings.Count(token, ".") == 2 && st.oidc != nil {
		name, teams, err := st.oidc.verify(ctx, token, a.opts.Now())
		if err != nil {
			return Principal{}, fmt.Errorf("%w: %v", ErrInvalidCredentials, err)
		}
		return st.principal(name, teams, "oidc"), nil
	}
	sum := sha256.Sum256([]byte(token))
	found := ""
	for _, d := range st.tokens { // every digest is compared: no early exit
		if subtle.ConstantTimeCompare(sum[:], d.sum[:]) == 1 {
			found = d.principal
		}
	}
	if found == "" {
		return Principal{}, fmt.Errorf("%w: the bearer token is not known", ErrInvalidCredentials)
	}
	return st.principal(found, nil, "token"), nil
}

func (st *state) basicAuth(user, pass string) (Principal, error) {
	if name, ok := st.basic.get(user, pass); ok {
		return st.principal(name, nil, "basic"), nil
	}
	pc, known := st.principals[user]
	hash := st.dummyHash
	if known && pc.PasswordBcrypt != "" {
		hash = []byte(pc.PasswordBcrypt)
	}
	err := bcrypt.CompareHashAndPassword(hash, []byte(pass))
	if !known || pc.PasswordBcrypt == "" || err != nil {
		return Principal{}, fmt.Errorf("%w: wrong user name or password", ErrInvalidCredentials)
	}
	st.basic.put(user, pass)
	return st.principal(user, nil, "basic"), nil
}

// CertName is the principal name of a client certificate: its CN, else
// its first DNS name, e-mail address or URI SAN ("" when it has none).
func CertName(c *x509.Certificate) string {
	switch {
	case c.Subject.CommonName != "":
		return c.Subject.CommonName
	case len(c.DNSNames) > 0:
		return c.DNSNames[0]
	case len(c.EmailAddresses) > 0:
		return c.EmailAddresses[0]
	case len(c.URIs) > 0:
		return c.URIs[0].String()
	}
	return ""
}

// basicCache remembers verified basic-auth credentials for a few minutes,
// so that clients sending them on every request do not pay a bcrypt
// comparison each time. Keys are HMACs under a per-process random key;
// no password is kept.
type basicCache struct {
	key []byte
	mu  sync.Mutex
	m   map[[32]byte]basicEntry
}

type basicEntry struct {
	user    string
	expires time.Time
}

const (
	basicCacheTTL  = 5 * time.Minute
	basicCacheSize = 4096
)

func newBasicCache() *basicCache {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return &basicCache{key: k, m: map[[32]byte]basicEntry{}}
}

func (c *basicCache) sum(user, pass string) [32]byte {
	h := hmac.New(sha256.New, c.key)
	h.Write([]byte(user))
	h.Write([]byte{0})
	h.Write([]byte(pass))
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

func (c *basicCache) get(user, pass string) (string, bool) {
	k := c.sum(user, pass)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || time.Now().After(e.expires) || e.user != user {
		return "", false
	}
	return e.user, true
}

func (c *basicCache) put(user, pass string) {
	k := c.sum(user, pass)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= basicCacheSize {
		clear(c.m)
	}
	c.m[k] = basicEntry{user: user, expires: time.Now().Add(basicCacheTTL)}
}

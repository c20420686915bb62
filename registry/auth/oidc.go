package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// signatureAlgorithms are the JWT algorithms accepted: asymmetric only,
// as a JWKS of an identity provider publishes public keys.
var signatureAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// jwtLeeway is the clock skew allowed on exp, nbf and iat.
const jwtLeeway = time.Minute

// maxJWKSBytes bounds a JWKS document.
const maxJWKSBytes = 1 << 20

type oidcVerifier struct {
	cfg     *OIDCConfig
	path    string
	hc      *http.Client
	refetch time.Duration

	mu        sync.Mutex
	keys      *jose.JSONWebKeySet
	fetchedAt time.Time
}

func newOIDCVerifier(ctx context.Context, cfg *OIDCConfig, dir string, opts Options) (*oidcVerifier, error) {
	v := &oidcVerifier{cfg: cfg, hc: opts.HTTPClient, refetch: opts.JWKSRefetch}
	if cfg.JWKSFile != "" {
		v.path = cfg.JWKSFile
		if !filepath.IsAbs(v.path) {
			v.path = filepath.Join(dir, v.path)
		}
	}
	keys, err := v.load(ctx)
	if err != nil {
		return nil, fmt.Errorf("oidc: %w", err)
	}
	v.keys, v.fetchedAt = keys, time.Now()
	return v, nil
}

// load reads the JWKS from the file or the URL.
func (v *oidcVerifier) load(ctx context.Context) (*jose.JSONWebKeySet, error) {
	var data []byte
	if v.path != "" {
		b, err := os.ReadFile(v.path)
		if err != nil {
			return nil, fmt.Errorf("jwks_file: %w", err)
		}
		data = b
	} else {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.cfg.JWKSURL, nil)
		if err != nil {
			return nil, fmt.Errorf("jwks_url: %w", err)
		}
		resp, err := v.hc.Do(req)
		if err != nil {
			return nil, fmt.Errorf("jwks_url: %w", err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("jwks_url %s answered %s", v.cfg.JWKSURL, resp.Status)
		}
		data, err = io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
		if err != nil {
			return nil, fmt.Errorf("jwks_url: %w", err)
		}
	}
	if len(data) > maxJWKSBytes {
		return nil, fmt.Errorf("the JWKS is over %d bytes", maxJWKSBytes)
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("the JWKS is not a JSON Web Key Set: %v", err)
	}
	if len(set.Keys) == 0 {
		return nil, errors.New("the JWKS holds no keys")
	}
	for _, k := range set.Keys {
		if !k.IsPublic() {
			return nil, fmt.Errorf("the JWKS key %q is not a public key", k.KeyID)
		}
	}
	return &set, nil
}

// audiences are the audiences accepted: the configured one, and the
// client ID of the browser sign-in (its ID tokens).
func (v *oidcVerifier) audiences() jwt.Audience {
	if v.cfg.ClientID != "" && v.cfg.ClientID != v.cfg.Audience {
		return jwt.Audience{v.cfg.Audience, v.cfg.ClientID}
	}
	return jwt.Audience{v.cfg.Audience}
}

// CodeFlow is the browser sign-in of the auth file's oidc section (the
// authorization code flow with PKCE), for the web UI.
type CodeFlow struct {
	ClientID, ClientSecret               string
	AuthorizationEndpoint, TokenEndpoint string
	Scopes                               []string
	// RedirectURL is "" when the UI derives it from the request.
	RedirectURL string
}

// CodeFlow returns the browser sign-in, false when the auth file has no
// oidc client_id. The client secret is read from its file on every call,
// so a reload of the auth file (or of the secret) takes effect.
func (a *Authenticator) CodeFlow() (CodeFlow, bool, error) {
	cfg := a.Config()
	o := cfg.OIDC
	if o == nil || o.ClientID == "" {
		return CodeFlow{}, false, nil
	}
	cf := CodeFlow{ClientID: o.ClientID, AuthorizationEndpoint: o.AuthorizationEndpoint, TokenEndpoint: o.TokenEndpoint,
		Scopes: append([]string(nil), o.Scopes...), RedirectURL: o.RedirectURL}
	if o.ClientSecretFile != "" {
		p := o.ClientSecretFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(cfg.dir, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return CodeFlow{}, false, fmt.Errorf("oidc client_secret_file: %w", err)
		}
		cf.ClientSecret = strings.TrimSpace(string(b))
	}
	return cf, true, nil
}

// HTTPClient is the client the Authenticator reaches the provider with.
func (a *Authenticator) HTTPClient() *http.Client { return a.opts.HTTPClient }

// verify checks token's signature and claims and returns its name and
// teams claims.
func (v *oidcVerifier) verify(ctx context.Context, token string, now time.Time) (string, []string, error) {
	tok, err := jwt.ParseSigned(token, signatureAlgorithms)
	if err != nil {
		return "", nil, fmt.Errorf("the JWT does not parse: %v", err)
	}
	keys := v.keySet(ctx, tok)
	var std jwt.Claims
	custom := map[string]any{}
	if err := tok.Claims(keys, &std, &custom); err != nil {
		return "", nil, fmt.Errorf("the JWT signature does not verify with the provider's keys")
	}
	if std.Expiry == nil {
		return "", nil, errors.New("the JWT has no exp claim")
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.cfg.Issuer, AnyAudience: v.audiences(), Time: now}, jwtLeeway); err != nil {
		return "", nil, fmt.Errorf("the JWT is not valid here: %v", err)
	}
	name, _ := custom[v.cfg.NameClaim].(string)
	if err := validName(name); err != nil {
		return "", nil, fmt.Errorf("the JWT's %s claim %q is not a principal name: %v", v.cfg.NameClaim, name, err)
	}
	var teams []string
	switch t := custom[v.cfg.TeamsClaim].(type) {
	case string:
		teams = strings.Fields(t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && validName(s) == nil {
				teams = append(teams, s)
			}
		}
	}
	return name, teams, nil
}

// keySet returns the keys to verify tok with, refetching a jwks_url
// (at most every Options.JWKSRefetch) when tok names a key ID it lacks.
func (v *oidcVerifier) keySet(ctx context.Context, tok *jwt.JSONWebToken) *jose.JSONWebKeySet {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cfg.JWKSURL == "" || len(tok.Headers) == 0 || len(v.keys.Key(tok.Headers[0].KeyID)) > 0 ||
		time.Since(v.fetchedAt) < v.refetch {
		return v.keys
	}
	v.fetchedAt = time.Now()
	if keys, err := v.load(ctx); err == nil {
		v.keys = keys
	}
	return v.keys
}

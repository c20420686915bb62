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
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.cfg.Issuer, AnyAudience: jwt.Audience{v.cfg.Audience}, Time: now}, jwtLeeway); err != nil {
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

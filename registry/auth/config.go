package auth

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/bcrypt"
	"gopkg.in/yaml.v3"
)

// Config is the auth file of `charter serve --auth-config FILE` (YAML).
// Parse validates it; every error names the line it is about.
type Config struct {
	// Anonymous says what a request without credentials may do:
	// AnonymousNone (default) or AnonymousRead (GETs and compatibility
	// checks).
	Anonymous string `yaml:"anonymous"`
	// Admins are principal names with every right.
	Admins []string `yaml:"admins"`
	// Unowned says who may write to a subject that has no owner yet:
	// UnownedClaim (default: any team member; registering claims the
	// subject for the registering principal's first team) or
	// UnownedAdminOnly.
	Unowned    string            `yaml:"unowned"`
	Principals []PrincipalConfig `yaml:"principals"`
	OIDC       *OIDCConfig       `yaml:"oidc"`
	// RateLimit, when set, limits each principal's requests (anonymous
	// callers share one budget per client address).
	RateLimit *RateLimitConfig `yaml:"rate_limit"`

	// dir is the directory of the file, for relative jwks_file paths.
	dir string
}

// Values of Config.Anonymous and Config.Unowned.
const (
	AnonymousNone    = "none"
	AnonymousRead    = "read"
	UnownedClaim     = "claim"
	UnownedAdminOnly = "admin-only"
)

// PrincipalConfig is one principal of the auth file.
type PrincipalConfig struct {
	Name  string   `yaml:"name"`
	Teams []string `yaml:"teams"`
	// TokensSHA256 are the hex SHA-256 digests of the principal's bearer
	// tokens (see NewToken); the tokens themselves are never stored.
	TokensSHA256 []string `yaml:"tokens_sha256"`
	// PasswordBcrypt is the bcrypt hash of the principal's HTTP basic
	// password (see HashPassword); empty: no basic auth.
	PasswordBcrypt string `yaml:"password_bcrypt"`

	line int
	// keys maps each key of the entry to its line.
	keys map[string]int
}

// lineOf is the line of the entry's key, else of the entry.
func (p *PrincipalConfig) lineOf(key string) int {
	if l, ok := p.keys[key]; ok {
		return l
	}
	return p.line
}

// OIDCConfig accepts bearer JWTs signed by an identity provider.
type OIDCConfig struct {
	Issuer   string `yaml:"issuer"`
	Audience string `yaml:"audience"`
	// JWKSFile (relative to the auth file) or JWKSURL holds the
	// provider's signing keys; exactly one is set.
	JWKSFile string `yaml:"jwks_file"`
	JWKSURL  string `yaml:"jwks_url"`
	// NameClaim names the claim holding the principal's name (default
	// "sub"); TeamsClaim the claim holding its teams, a string array or
	// a space-separated string (default "groups").
	NameClaim  string `yaml:"name_claim"`
	TeamsClaim string `yaml:"teams_claim"`

	// The web UI's browser sign-in (the authorization code flow with
	// PKCE), on when ClientID is set: the provider's
	// AuthorizationEndpoint and TokenEndpoint, the client's secret in
	// ClientSecretFile (relative to the auth file; none for a public
	// client), the Scopes asked for (default openid profile) and the
	// RedirectURL registered at the provider (default: the UI's
	// /ui/login/oidc/callback on the host the browser used). ID tokens
	// issued to ClientID are accepted as well as tokens for Audience.
	ClientID              string   `yaml:"client_id"`
	ClientSecretFile      string   `yaml:"client_secret_file"`
	AuthorizationEndpoint string   `yaml:"authorization_endpoint"`
	TokenEndpoint         string   `yaml:"token_endpoint"`
	Scopes                []string `yaml:"scopes"`
	RedirectURL           string   `yaml:"redirect_url"`

	line int
}

// RateLimitConfig is a token bucket per principal.
type RateLimitConfig struct {
	// RequestsPerSecond is the sustained rate (> 0).
	RequestsPerSecond float64 `yaml:"requests_per_second"`
	// Burst is the bucket size (>= 1; default RequestsPerSecond rounded
	// up).
	Burst int `yaml:"burst"`

	line int
}

// UnmarshalYAML records the line of p.
func (p *PrincipalConfig) UnmarshalYAML(n *yaml.Node) error {
	type plain PrincipalConfig
	if err := n.Decode((*plain)(p)); err != nil {
		return err
	}
	p.line = n.Line
	p.keys = map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		p.keys[n.Content[i].Value] = n.Content[i].Line
	}
	return nil
}

// UnmarshalYAML records the line of o.
func (o *OIDCConfig) UnmarshalYAML(n *yaml.Node) error {
	type plain OIDCConfig
	if err := n.Decode((*plain)(o)); err != nil {
		return err
	}
	o.line = n.Line
	return nil
}

// UnmarshalYAML records the line of r.
func (r *RateLimitConfig) UnmarshalYAML(n *yaml.Node) error {
	type plain RateLimitConfig
	if err := n.Decode((*plain)(r)); err != nil {
		return err
	}
	r.line = n.Line
	return nil
}

// Load reads and parses the auth file at path. Errors name the file and
// the line.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth config: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("auth config %s%w", path, err)
	}
	c.dir = filepath.Dir(path)
	return c, nil
}

// Parse decodes and validates an auth file. Its errors read
// ":LINE: message" (Load puts the file name before them); unknown keys are
// errors.
func Parse(data []byte) (*Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf(":1: the file is empty; want at least `principals:` or `oidc:`")
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
		return nil, fmt.Errorf(": %s", strings.Join(strings.Fields(strings.ReplaceAll(msg, "\n", "; ")), " "))
	}
	var top yaml.Node
	_ = yaml.Unmarshal(data, &top) // decoded above, so it parses
	if err := c.validate(keyLines(&top)); err != nil {
		return nil, err
	}
	return &c, nil
}

// keyLines maps each top-level key of the document to its line.
func keyLines(doc *yaml.Node) map[string]int {
	lines := map[string]int{}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return lines
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		lines[m.Content[i].Value] = m.Content[i].Line
	}
	return lines
}

// lineError is a validation error at one line.
func lineError(line int, format string, args ...any) error {
	return fmt.Errorf(":%d: %s", max(line, 1), fmt.Sprintf(format, args...))
}

func (c *Config) validate(lines map[string]int) error {
	switch c.Anonymous {
	case "":
		c.Anonymous = AnonymousNone
	case AnonymousNone, AnonymousRead:
	default:
		return lineError(lines["anonymous"], "anonymous %q: want %q or %q", c.Anonymous, AnonymousNone, AnonymousRead)
	}
	switch c.Unowned {
	case "":
		c.Unowned = UnownedClaim
	case UnownedClaim, UnownedAdminOnly:
	default:
		return lineError(lines["unowned"], "unowned %q: want %q or %q", c.Unowned, UnownedClaim, UnownedAdminOnly)
	}
	for _, a := range c.Admins {
		if err := validName(a); err != nil {
			return lineError(lines["admins"], "admin %q: %v", a, err)
		}
	}
	if len(c.Principals) == 0 && c.OIDC == nil {
		return lineError(1, "no principals and no oidc: nobody could authenticate")
	}
	names := map[string]int{}
	tokens := map[string]string{}
	for _, p := range c.Principals {
		if err := validName(p.Name); err != nil {
			return lineError(p.line, "principal name %q: %v", p.Name, err)
		}
		if l, dup := names[p.Name]; dup {
			return lineError(p.line, "principal %q is already defined at line %d", p.Name, l)
		}
		names[p.Name] = p.line
		seen := map[string]bool{}
		for _, t := range p.Teams {
			if err := validName(t); err != nil {
				return lineError(p.lineOf("teams"), "principal %q: team %q: %v", p.Name, t, err)
			}
			if seen[t] {
				return lineError(p.lineOf("teams"), "principal %q: team %q is listed twice", p.Name, t)
			}
			seen[t] = true
		}
		for i, h := range p.TokensSHA256 {
			h = strings.ToLower(strings.TrimSpace(h))
			if b, err := hex.DecodeString(h); err != nil || len(b) != 32 {
				return lineError(p.lineOf("tokens_sha256"), "principal %q: tokens_sha256[%d] is not a hex SHA-256 digest (64 hex digits); `charter auth token` prints one", p.Name, i)
			}
			if other, dup := tokens[h]; dup {
				return lineError(p.lineOf("tokens_sha256"), "principal %q: tokens_sha256[%d] is also a token of principal %q", p.Name, i, other)
			}
			tokens[h] = p.Name
			p.TokensSHA256[i] = h
		}
		if p.PasswordBcrypt != "" {
			if _, err := bcrypt.Cost([]byte(p.PasswordBcrypt)); err != nil {
				return lineError(p.lineOf("password_bcrypt"), "principal %q: password_bcrypt is not a bcrypt hash (%v); `charter auth hash-password` prints one", p.Name, err)
			}
		}
	}
	if o := c.OIDC; o != nil {
		if err := o.validate(); err != nil {
			return lineError(o.line, "oidc: %v", err)
		}
	}
	if r := c.RateLimit; r != nil {
		if !(r.RequestsPerSecond > 0) || r.RequestsPerSecond > 1e6 {
			return lineError(r.line, "rate_limit: requests_per_second %v: want a number above 0 and at most 1000000", r.RequestsPerSecond)
		}
		if r.Burst == 0 {
			r.Burst = int(r.RequestsPerSecond + 0.999)
		}
		if r.Burst < 1 || r.Burst > 1e6 {
			return lineError(r.line, "rate_limit: burst %d: want 1 to 1000000", r.Burst)
		}
	}
	return nil
}

func (o *OIDCConfig) validate() error {
	u, err := url.Parse(o.Issuer)
	if o.Issuer == "" || err != nil || u.Scheme == "" || u.Host == "" {
		return fmt.Errorf("issuer %q: want the provider's issuer URL, such as https://idp.example", o.Issuer)
	}
	if strings.TrimSpace(o.Audience) == "" {
		return errors.New("audience is missing: want the audience the tokens are issued for, such as charter")
	}
	if (o.JWKSFile == "") == (o.JWKSURL == "") {
		return errors.New("want exactly one of jwks_file and jwks_url")
	}
	if o.JWKSURL != "" {
		if u, err := url.Parse(o.JWKSURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Errorf("jwks_url %q: want an http(s) URL", o.JWKSURL)
		}
	}
	if o.ClientID != "" {
		for _, e := range []struct{ key, v string }{{"authorization_endpoint", o.AuthorizationEndpoint}, {"token_endpoint", o.TokenEndpoint}} {
			if u, err := url.Parse(e.v); e.v == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return fmt.Errorf("%s %q: client_id asks for the browser sign-in, which needs the provider's %s URL", e.key, e.v, e.key)
			}
		}
		if o.RedirectURL != "" {
			if u, err := url.Parse(o.RedirectURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return fmt.Errorf("redirect_url %q: want an http(s) URL", o.RedirectURL)
			}
		}
		if len(o.Scopes) == 0 {
			o.Scopes = []string{"openid", "profile"}
		}
	} else if o.AuthorizationEndpoint != "" || o.TokenEndpoint != "" || o.ClientSecretFile != "" {
		return errors.New("authorization_endpoint, token_endpoint and client_secret_file are for the browser sign-in: set client_id too")
	}
	if o.NameClaim == "" {
		o.NameClaim = "sub"
	}
	if o.TeamsClaim == "" {
		o.TeamsClaim = "groups"
	}
	return nil
}

// validName accepts principal and team names: 1 to 128 characters,
// printable, no spaces and no ':' (the basic-auth separator).
func validName(s string) error {
	switch {
	case s == "":
		return errors.New("empty")
	case len(s) > 128:
		return errors.New("longer than 128 bytes")
	case strings.ContainsAny(s, ": \t\r\n"):
		return errors.New("contains a space or ':'")
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\uFFFD' {
			return errors.New("contains a control character or invalid UTF-8")
		}
	}
	return nil
}

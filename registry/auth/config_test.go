package auth_test

import (
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry/auth"
)

const validBcrypt = "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"

// TestParseErrors: every invalid auth file is refused with the line the
// error is about and a message saying what to write instead.
func TestParseErrors(t *testing.T) {
	digest := strings.Repeat("ab", 32)
	tests := []struct {
		name, file, want string
	}{
		{"empty", "", ":1: the file is empty"},
		{"unknown key", "anonymous: none\nprincipal:\n  - name: a\n", "line 2: field principal not found"},
		{"bad anonymous", "anonymous: everyone\nprincipals: [{name: a}]\n", ":1: anonymous \"everyone\": want \"none\" or \"read\""},
		{"bad unowned", "principals: [{name: a}]\nunowned: nobody\n", ":2: unowned \"nobody\""},
		{"nobody", "anonymous: read\n", ":1: no principals and no oidc"},
		{"empty name", "principals:\n  - teams: [x]\n", ":2: principal name \"\": empty"},
		{"colon in name", "principals:\n  - name: \"a:b\"\n", ":2: principal name \"a:b\": contains a space or ':'"},
		{"duplicate", "principals:\n  - name: a\n  - name: a\n", ":3: principal \"a\" is already defined at line 2"},
		{"duplicate team", "principals:\n  - name: a\n    teams: [x, x]\n", ":3: principal \"a\": team \"x\" is listed twice"},
		{"short digest", "principals:\n  - name: a\n    tokens_sha256: [abc]\n", ":3: principal \"a\": tokens_sha256[0] is not a hex SHA-256 digest"},
		{"shared token", "principals:\n  - name: a\n    tokens_sha256: [" + digest + "]\n  - name: b\n    tokens_sha256: [" + digest + "]\n", ":5: principal \"b\": tokens_sha256[0] is also a token of principal \"a\""},
		{"bad bcrypt", "principals:\n  - name: a\n    password_bcrypt: secret\n", ":3: principal \"a\": password_bcrypt is not a bcrypt hash"},
		{"oidc no issuer", "oidc:\n  audience: charter\n  jwks_file: k.json\n", ":2: oidc: issuer \"\""},
		{"oidc no audience", "oidc:\n  issuer: https://idp.example\n  jwks_file: k.json\n", ":2: oidc: audience is missing"},
		{"oidc two key sources", "oidc:\n  issuer: https://idp.example\n  audience: c\n  jwks_file: k.json\n  jwks_url: https://idp.example/jwks\n", ":2: oidc: want exactly one of jwks_file and jwks_url"},
		{"oidc bad url", "oidc:\n  issuer: https://idp.example\n  audience: c\n  jwks_url: ftp://x/y\n", ":2: oidc: jwks_url \"ftp://x/y\""},
		{"rate zero", "principals: [{name: a}]\nrate_limit:\n  requests_per_second: 0\n", ":3: rate_limit: requests_per_second 0"},
		{"burst negative", "principals: [{name: a}]\nrate_limit:\n  requests_per_second: 5\n  burst: -1\n", ":3: rate_limit: burst -1"},
		{"not yaml", "principals: [\n", "did not find expected node content"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := auth.Parse([]byte(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestParseDefaults: a minimal file gets anonymous none, unowned claim,
// and lower-case token digests.
func TestParseDefaults(t *testing.T) {
	digest := strings.Repeat("AB", 32)
	c, err := auth.Parse([]byte("admins: [root]\nprincipals:\n  - name: alice\n    teams: [logistics]\n    tokens_sha256: [" + digest + "]\n    password_bcrypt: '" + validBcrypt + "'\nrate_limit:\n  requests_per_second: 2.5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Anonymous != auth.AnonymousNone || c.Unowned != auth.UnownedClaim {
		t.Errorf("anonymous %q, unowned %q; want none and claim", c.Anonymous, c.Unowned)
	}
	if got := c.Principals[0].TokensSHA256[0]; got != strings.ToLower(digest) {
		t.Errorf("digest %q, want it lower-cased", got)
	}
	if c.RateLimit.Burst != 3 {
		t.Errorf("burst %d, want 3 (requests_per_second rounded up)", c.RateLimit.Burst)
	}
}

// TestParseErrorsAreOneLine: YAML errors that span lines are joined.
func TestParseErrorsAreOneLine(t *testing.T) {
	_, err := auth.Parse([]byte("principals:\n  - name: a\n    name: b\n"))
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("duplicate key: %q; want one line naming line 3", err)
	}
}

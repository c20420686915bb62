package auth_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat/fuzztest"
	"github.com/charter-dev/charter/registry/auth"
)

// FuzzParse: no auth file panics Parse or takes more CPU than
// fuzztest.Bound allows; an error reads ":LINE: message" as documented,
// and an accepted file has its defaults filled in and principals that
// are named, distinct and with lower-case hex SHA-256 token digests.
func FuzzParse(f *testing.F) {
	digest := strings.Repeat("ab", 32)
	for _, seed := range []string{
		"anonymous: none\nadmins: [root]\nprincipals:\n  - name: alice\n    teams: [logistics]\n    tokens_sha256: [" + digest + "]\n    password_bcrypt: '" + validBcrypt + "'\n",
		"anonymous: read\nunowned: admin-only\nprincipals: [{name: root}]\nrate_limit: {requests_per_second: 2.5, burst: 5}\n",
		"oidc:\n  issuer: https://idp.example\n  audience: charter\n  jwks_file: jwks.json\n  name_claim: sub\n  teams_claim: groups\n",
		"oidc: {issuer: https://idp.example, audience: charter, jwks_url: https://idp.example/jwks}\nprincipals: &p [{name: a}]\n",
		"principals:\n  - name: a\n    tokens_sha256: [" + digest + "]\n  - name: b\n    tokens_sha256: [" + strings.ToUpper(digest) + "]\n",
		"principals:\n  - name: a\n  - name: a\n",
		"principal:\n  - name: a\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c *auth.Config
		var err error
		fuzztest.Bound(t, len(data), func() { c, err = auth.Parse(data) })
		if err != nil {
			if !strings.HasPrefix(err.Error(), ":") {
				t.Errorf("error %q does not start with \":LINE\" or \": \"", err)
			}
			return
		}
		if c.Anonymous != auth.AnonymousNone && c.Anonymous != auth.AnonymousRead {
			t.Errorf("anonymous %q accepted", c.Anonymous)
		}
		if c.Unowned != auth.UnownedClaim && c.Unowned != auth.UnownedAdminOnly {
			t.Errorf("unowned %q accepted", c.Unowned)
		}
		if len(c.Principals) == 0 && c.OIDC == nil {
			t.Errorf("a file with no principal and no oidc accepted")
		}
		names := map[string]bool{}
		for _, p := range c.Principals {
			if p.Name == "" || names[p.Name] {
				t.Errorf("principal name %q accepted (empty or twice)", p.Name)
			}
			names[p.Name] = true
			for _, d := range p.TokensSHA256 {
				if b, err := hex.DecodeString(d); err != nil || len(b) != 32 || d != strings.ToLower(d) {
					t.Errorf("principal %q: token digest %q accepted", p.Name, d)
				}
			}
		}
	})
}

package auth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/registry/auth"
)

func run(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(stdin)})
	return code, out.String(), errb.String()
}

// authenticate writes an auth file holding principal alice with the lines
// extra (indented under her entry) and returns who the server
// authenticates a request with header Authorization: authz as.
func authenticate(t *testing.T, extra, authz string) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "auth.yaml")
	file := "principals:\n  - name: alice\n    teams: [logistics]\n    " + extra + "\n"
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := auth.Open(t.Context(), path, auth.Options{})
	if err != nil {
		t.Fatalf("the auth file with the printed line does not load: %v\n%s", err, file)
	}
	r := httptest.NewRequest("GET", "/subjects", nil)
	r.Header.Set("Authorization", authz)
	p, ok, err := a.Authenticate(r)
	if err != nil || !ok {
		return "", err
	}
	return p.Name, nil
}

var tokenText = regexp.MustCompile(`\AToken for principal alice, shown only this once:

  (charter_[A-Za-z0-9_-]{43})

Paste this line into principal alice of the auth file \(or add the digest to its tokens_sha256 list\), then reload the server \(SIGHUP\):

  (tokens_sha256: \[[0-9a-f]{64}\])

Use it with --token or CHARTER_TOKEN, e\.g\. CHARTER_TOKEN=(charter_[A-Za-z0-9_-]{43}) charter subjects
\z`)

// TestToken: the printed line, pasted into the auth file, makes the server
// authenticate the printed token as the principal; each run makes
// another token.
func TestToken(t *testing.T) {
	var tokens []string
	for range 2 {
		code, out, errOut := run(t, "", "auth", "token", "--principal", "alice")
		if code != cli.ExitOK || errOut != "" {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		m := tokenText.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("output not as expected:\n%s", out)
		}
		token, line := m[1], m[2]
		if m[3] != token {
			t.Errorf("the hint shows %s, not the token %s", m[3], token)
		}
		if want := "tokens_sha256: [" + auth.HashToken(token) + "]"; line != want {
			t.Errorf("line = %q, want %q", line, want)
		}
		who, err := authenticate(t, line, "Bearer "+token)
		if who != "alice" {
			t.Errorf("the token authenticates %q (%v), want alice", who, err)
		}
		tokens = append(tokens, token)
	}
	if tokens[0] == tokens[1] {
		t.Errorf("two runs printed the same token %s", tokens[0])
	}
}

func TestTokenJSON(t *testing.T) {
	code, out, errOut := run(t, "", "auth", "token", "--principal", "ci-bot", "-o", "json")
	if code != cli.ExitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Principal    string `json:"principal"`
		Token        string `json:"token"`
		TokensSHA256 string `json:"tokens_sha256"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Principal != "ci-bot" || !strings.HasPrefix(got.Token, auth.TokenPrefix) || got.TokensSHA256 != auth.HashToken(got.Token) {
		t.Errorf("got %+v", got)
	}
}

// TestHashPassword: the printed line, pasted into the auth file, makes
// the server accept the password read on stdin, with or without a line
// end.
func TestHashPassword(t *testing.T) {
	for _, tc := range []struct{ name, stdin, password string }{
		{"line", "s3cret pass\n", "s3cret pass"},
		{"no line end", "s3cret pass", "s3cret pass"},
		{"CRLF", "s3cret pass\r\n", "s3cret pass"},
		{"trailing blank line", "s3cret pass\n\n", "s3cret pass"},
		{"72 bytes", strings.Repeat("p", 72) + "\n", strings.Repeat("p", 72)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, tc.stdin, "auth", "hash-password")
			if code != cli.ExitOK || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			line := strings.TrimSuffix(out, "\n")
			if !regexp.MustCompile(`\Apassword_bcrypt: \$2a\$10\$[./A-Za-z0-9]{53}\z`).MatchString(line) {
				t.Fatalf("output %q is not one password_bcrypt line", out)
			}
			r := httptest.NewRequest("GET", "/", nil)
			r.SetBasicAuth("alice", tc.password)
			who, err := authenticate(t, line, r.Header.Get("Authorization"))
			if who != "alice" {
				t.Errorf("user alice with %q authenticates %q (%v), want alice", tc.password, who, err)
			}
		})
	}
}

// TestErrors: each mistake is one line and exit 2.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"token without principal", "", []string{"auth", "token"},
			"charter: --principal is required: the name of the principal in the auth file\n"},
		{"principal with a space", "", []string{"auth", "token", "--principal", "alice smith"},
			`charter: invalid --principal "alice smith": contains a space or ':'` + "\n"},
		{"principal with a colon", "", []string{"auth", "token", "--principal", "alice:x"},
			`charter: invalid --principal "alice:x": contains a space or ':'` + "\n"},
		{"principal with a line break", "", []string{"auth", "token", "--principal", "alice\nroot"},
			`charter: invalid --principal "alice\nroot": contains a space or ':'` + "\n"},
		{"token as yaml", "", []string{"auth", "token", "--principal", "alice", "-o", "yaml"},
			`charter: invalid -o/--output "yaml": want text or json` + "\n"},
		{"empty stdin", "", []string{"auth", "hash-password"},
			"charter: stdin holds no password: give it on one line\n"},
		{"empty line", "\n", []string{"auth", "hash-password"},
			"charter: stdin holds no password: give it on one line\n"},
		{"two lines", "one\ntwo\n", []string{"auth", "hash-password"},
			"charter: stdin holds more than one line: give the password alone, on one line\n"},
		{"73 bytes", strings.Repeat("p", 73) + "\n", []string{"auth", "hash-password"},
			"charter: hash the password: the password is 73 bytes long; bcrypt takes at most 72\n"},
		{"no line end in 4 KiB", strings.Repeat("p", 5000), []string{"auth", "hash-password"},
			"charter: read the password on stdin: no line end in the first 4096 bytes\n"},
		{"hash as yaml", "s3cret\n", []string{"auth", "hash-password", "-o", "yaml"},
			`charter: invalid -o/--output "yaml": want text or json` + "\n"},
		{"unknown sub-command", "", []string{"auth", "revoke"},
			`charter: unknown command "revoke" for "charter auth": want one of hash-password, token (see charter auth --help)` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, tc.stdin, tc.args...)
			if code != cli.ExitError || out != "" || errOut != tc.want {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2, no stdout, stderr:\n%s", code, out, errOut, tc.want)
			}
		})
	}
}

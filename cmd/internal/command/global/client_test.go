package global_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
)

// seen is what a fake registry received.
type seen struct {
	mu                          sync.Mutex
	authorization, agent, actor string
}

// fakeRegistry answers GET /subjects with status and body, recording the
// request's credentials.
func fakeRegistry(t *testing.T, status int, body string) (string, *seen) {
	t.Helper()
	s := &seen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.authorization, s.agent, s.actor = r.Header.Get("Authorization"), r.Header.Get("User-Agent"), r.Header.Get("X-Charter-Actor")
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, s
}

// subjects runs `charter [args] ls` where ls lists the subjects through
// global.Connect with target, and returns the error and the context
// Explain reads.
func subjects(t *testing.T, target global.Target, args ...string) (context.Context, error) {
	t.Helper()
	root := &cobra.Command{Use: "charter", SilenceErrors: true, SilenceUsage: true}
	global.AddFlags(root.PersistentFlags())
	root.AddCommand(&cobra.Command{Use: "ls", RunE: func(cmd *cobra.Command, _ []string) error {
		c, err := global.Connect(cmd, target)
		if err != nil {
			return err
		}
		_, err = c.Subjects(cmd.Context())
		return err
	}})
	root.SetArgs(append(args, "ls"))
	ctx := global.WithTrail(context.Background())
	return ctx, root.ExecuteContext(ctx)
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// clearEnv empties the environment variables Connect reads.
func clearEnv(t *testing.T) {
	for _, k := range []string{global.EnvToken, global.EnvUser, global.EnvPassword, global.EnvCAFile, global.EnvRegistryURL, global.EnvActor} {
		t.Setenv(k, "")
	}
}

// TestCredentials: which credentials Connect sends for each combination
// of flags and environment variables, and the refusals.
func TestCredentials(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     map[string]string
		want    string // Authorization header
		wantErr string
	}{
		{name: "none"},
		{name: "--token", args: []string{"--token", "t1"}, want: "Bearer t1"},
		{name: "CHARTER_TOKEN", env: map[string]string{"CHARTER_TOKEN": "t2"}, want: "Bearer t2"},
		{name: "--token beats CHARTER_TOKEN", args: []string{"--token", "t1"}, env: map[string]string{"CHARTER_TOKEN": "t2"}, want: "Bearer t1"},
		{name: "--user", args: []string{"--user", "bob"}, env: map[string]string{"CHARTER_PASSWORD": "pw: x"}, want: basic("bob", "pw: x")},
		{name: "CHARTER_USER", env: map[string]string{"CHARTER_USER": "bob", "CHARTER_PASSWORD": "pw"}, want: basic("bob", "pw")},
		{name: "--user beats CHARTER_TOKEN", args: []string{"--user", "bob"}, env: map[string]string{"CHARTER_TOKEN": "t2", "CHARTER_PASSWORD": "pw"}, want: basic("bob", "pw")},
		{name: "--token beats CHARTER_USER", args: []string{"--token", "t1"}, env: map[string]string{"CHARTER_USER": "bob", "CHARTER_PASSWORD": "pw"}, want: "Bearer t1"},
		{name: "password alone is not sent", env: map[string]string{"CHARTER_PASSWORD": "pw"}},
		{name: "both flags", args: []string{"--token", "t1", "--user", "bob"}, env: map[string]string{"CHARTER_PASSWORD": "pw"},
			wantErr: "both --token and --user are given: the registry takes one credential, a bearer token or a user and password"},
		{name: "both variables", env: map[string]string{"CHARTER_TOKEN": "t2", "CHARTER_USER": "bob", "CHARTER_PASSWORD": "pw"},
			wantErr: "both CHARTER_TOKEN and CHARTER_USER are set: the registry takes one credential; unset one, or choose with --token or --user"},
		{name: "--user without password", args: []string{"--user", "bob"},
			wantErr: "--user bob needs its password in CHARTER_PASSWORD (there is no password flag: it would stay in the shell history)"},
		{name: "CHARTER_USER without password", env: map[string]string{"CHARTER_USER": "bob"},
			wantErr: "CHARTER_USER bob needs its password in CHARTER_PASSWORD (there is no password flag: it would stay in the shell history)"},
		{name: "no password flag", args: []string{"--password", "pw"}, wantErr: "unknown flag: --password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			url, got := fakeRegistry(t, 200, "[]")
			_, err := subjects(t, global.Target{}, append([]string{"--registry", url}, tc.args...)...)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %s", err, tc.wantErr)
				}
				if got.agent != "" {
					t.Errorf("a request was sent: %q", got.authorization)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.authorization != tc.want {
				t.Errorf("Authorization = %q, want %q", got.authorization, tc.want)
			}
		})
	}
}

type countingTransport struct {
	n  int
	rt http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n++
	return c.rt.RoundTrip(r)
}

// TestInjectedHTTPClient: a command's injected http.Client (Deps of the
// governance, lineage and upcast commands) carries the requests, and the
// credentials, actor and user agent are sent all the same.
func TestInjectedHTTPClient(t *testing.T) {
	clearEnv(t)
	t.Setenv("CHARTER_TOKEN", "t2")
	url, got := fakeRegistry(t, 200, "[]")
	tr := &countingTransport{rt: http.DefaultTransport}
	if _, err := subjects(t, global.Target{URL: url, Actor: "carol", HTTPClient: &http.Client{Transport: tr}}); err != nil {
		t.Fatal(err)
	}
	if tr.n != 1 {
		t.Errorf("the injected client carried %d requests, want 1", tr.n)
	}
	if got.authorization != "Bearer t2" || got.actor != "carol" || !strings.HasPrefix(got.agent, "charter/") || !strings.HasSuffix(got.agent, " (ls)") {
		t.Errorf("got Authorization %q, actor %q, User-Agent %q", got.authorization, got.actor, got.agent)
	}
}

// TestCAFileErrors: an unreadable or empty CA file is refused before any
// request, naming where it came from.
func TestCAFileErrors(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want string
	}{
		{"flag, not PEM", []string{"--ca-file", notPEM}, "", "--ca-file " + notPEM + " holds no PEM certificate"},
		{"variable, not PEM", nil, notPEM, "CHARTER_CA_FILE " + notPEM + " holds no PEM certificate"},
		{"flag beats variable", []string{"--ca-file", missing}, notPEM, "read --ca-file: open " + missing + ": no such file or directory"},
		{"variable, missing", nil, missing, "read CHARTER_CA_FILE: open " + missing + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			t.Setenv("CHARTER_CA_FILE", tc.env)
			url, got := fakeRegistry(t, 200, "[]")
			_, err := subjects(t, global.Target{}, append([]string{"--registry", url}, tc.args...)...)
			if err == nil || err.Error() != tc.want {
				t.Errorf("err = %v, want %s", err, tc.want)
			}
			if got.agent != "" {
				t.Error("a request was sent")
			}
		})
	}
}

// TestExplain: the one line of a 401 or 403, whatever sends it, with the
// hint naming the credentials that were sent; other errors are not
// explained.
func TestExplain(t *testing.T) {
	for _, tc := range []struct {
		name         string
		args         []string
		env          map[string]string
		status       int
		body         string
		want         string // after "registry URL: "; "" for not explained
		wantExplains bool
	}{
		{name: "Charter 401, no credentials", status: 401,
			body: `{"error_code":40101,"message":"Unauthorized: this endpoint needs credentials (a bearer token, or HTTP basic user and password)"}`,
			want: "401 Unauthorized: this endpoint needs credentials (a bearer token, or HTTP basic user and password) (give --token or CHARTER_TOKEN, or --user or CHARTER_USER with CHARTER_PASSWORD)"},
		{name: "Charter 401, --token", args: []string{"--token", "t1"}, status: 401,
			body: `{"error_code":40101,"message":"Unauthorized: the bearer token is not known"}`,
			want: "401 Unauthorized: the bearer token is not known (check the token given by --token)"},
		{name: "Charter 401, CHARTER_TOKEN", env: map[string]string{"CHARTER_TOKEN": "t2"}, status: 401,
			body: `{"error_code":40101,"message":"Unauthorized: the bearer token is not known"}`,
			want: "401 Unauthorized: the bearer token is not known (check the token in CHARTER_TOKEN)"},
		{name: "Charter 401, --user", args: []string{"--user", "bob"}, env: map[string]string{"CHARTER_PASSWORD": "pw"}, status: 401,
			body: `{"error_code":40101,"message":"Unauthorized: wrong user name or password"}`,
			want: "401 Unauthorized: wrong user name or password (check --user bob and CHARTER_PASSWORD)"},
		{name: "Charter 403", args: []string{"--token", "t1"}, status: 403,
			body: `{"error_code":40301,"message":"Forbidden: GET /config needs an admin; principal 'alice' is not one"}`,
			want: "403 Forbidden: GET /config needs an admin; principal 'alice' is not one"},
		{name: "Confluent 401", status: 401, body: `{"error_code":401,"message":"Unauthorized"}`,
			want: "401 Unauthorized (give --token or CHARTER_TOKEN, or --user or CHARTER_USER with CHARTER_PASSWORD)"},
		{name: "Confluent 403 with a message", status: 403, body: `{"error_code":40301,"message":"User cannot access the resource."}`,
			want: "403 Forbidden: User cannot access the resource."},
		{name: "proxy page", status: 403, body: "<html>\n<h1>Forbidden</h1>\n</html>", want: "403 Forbidden"},
		{name: "proxy text on two lines", status: 401, body: "Authorization\nrequired", env: map[string]string{"CHARTER_TOKEN": "t2"},
			want: "401 Unauthorized: Authorization required (check the token in CHARTER_TOKEN)"},
		{name: "404 is not explained", status: 404, body: `{"error_code":40401,"message":"Subject 'x' not found."}`},
		{name: "500 page is not explained", status: 500, body: "oops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			url, _ := fakeRegistry(t, tc.status, tc.body)
			ctx, err := subjects(t, global.Target{}, append([]string{"--registry", url}, tc.args...)...)
			if err == nil {
				t.Fatal("no error")
			}
			line, ok := global.Explain(ctx, err)
			if tc.want == "" {
				if ok {
					t.Errorf("explained as %q", line)
				}
				return
			}
			if want := "registry " + url + ": " + tc.want; !ok || line != want {
				t.Errorf("Explain = %q, %v\nwant      %q", line, ok, want)
			}
		})
	}
	if line, ok := global.Explain(context.Background(), errors.New("x")); ok {
		t.Errorf("a plain error explained as %q", line)
	}
}

// TestPlainHTTPCredentialsWarn: credentials for an http:// registry off
// loopback draw one warning line; loopback, https and no credentials do
// not.
func TestPlainHTTPCredentialsWarn(t *testing.T) {
	tests := []struct {
		url, token, user, want string
	}{
		{"http://registry.example:8081", "t", "", "charter: warning: sending the bearer token over plain http to registry.example, readable by anyone on the way; use an https:// registry URL\n"},
		{"http://10.0.0.5:8081", "", "bob", "charter: warning: sending the password of bob over plain http to 10.0.0.5, readable by anyone on the way; use an https:// registry URL\n"},
		{"http://127.0.0.1:8081", "t", "", ""},
		{"http://localhost:8081", "t", "", ""},
		{"http://[::1]:8081", "t", "", ""},
		{"https://registry.example", "t", "", ""},
		{"http://registry.example:8081", "", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.url+" "+tc.token+tc.user, func(t *testing.T) {
			clearEnv(t)
			t.Setenv(global.EnvToken, tc.token)
			t.Setenv(global.EnvUser, tc.user)
			t.Setenv(global.EnvPassword, "pw")
			var stderr strings.Builder
			root := &cobra.Command{Use: "charter", SilenceErrors: true, SilenceUsage: true}
			global.AddFlags(root.PersistentFlags())
			root.AddCommand(&cobra.Command{Use: "ls", RunE: func(cmd *cobra.Command, _ []string) error {
				_, err := global.Connect(cmd, global.Target{URL: tc.url})
				return err
			}})
			root.SetErr(&stderr)
			root.SetArgs([]string{"ls"})
			if err := root.ExecuteContext(context.Background()); err != nil {
				t.Fatal(err)
			}
			if stderr.String() != tc.want {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.want)
			}
		})
	}
}

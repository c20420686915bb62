package global_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
)

// TestContextFlag: --context (else $CHARTER_CONTEXT) puts the client's
// requests under /contexts/{ctx}/, as a Confluent client whose base URL
// is http://host/contexts/.ctx; none named adds nothing (the plain
// routes: every context), "." is /contexts/./ (the default context
// alone); a name the registry refuses is refused before any request.
func TestContextFlag(t *testing.T) {
	var (
		mu   sync.Mutex
		last string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		last = r.URL.EscapedPath() + "?" + r.URL.RawQuery
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[]`))
	}))
	t.Cleanup(srv.Close)
	cases := []struct {
		args    []string
		env     string
		want    string // path and query the registry received; "" for an error
		wantErr string
	}{
		{nil, "", "/subjects?", ""},
		{[]string{"--context", ".staging"}, "", "/contexts/.staging/subjects?", ""},
		{[]string{"--context", "staging"}, "", "/contexts/.staging/subjects?", ""},
		{[]string{"--context", ":.staging:"}, "", "/contexts/.staging/subjects?", ""},
		{[]string{"--context", "."}, "", "/contexts/./subjects?", ""},
		{[]string{"--context", ":.:"}, "", "/contexts/./subjects?", ""},
		{nil, ".", "/contexts/./subjects?", ""},
		{[]string{"--context", ":"}, "", "", `invalid --context ":"`},
		{[]string{"--context", "::"}, "", "", `invalid --context "::"`},
		{[]string{"--context", ":*:"}, "", "", `invalid --context ":*:"`},
		{[]string{"--context", "a:b"}, "", "", `invalid --context "a:b"`},
		{[]string{"--context", ":.a"}, "", "", `invalid --context ":.a"`},
		{nil, ".fromenv", "/contexts/.fromenv/subjects?", ""},
		{[]string{"--context", ".flag"}, ".fromenv", "/contexts/.flag/subjects?", ""},
		// The registry's rule (registry.ValidateContextName): a space, a
		// slash, a letter such as ü are fine, escaped in the prefix; the
		// wildcard, a control or bidi character are not.
		{[]string{"--context", ".a b"}, "", "/contexts/.a%20b/subjects?", ""},
		{[]string{"--context", ".ü"}, "", "/contexts/.%C3%BC/subjects?", ""},
		{nil, "a/b", "/contexts/.a%2Fb/subjects?", ""},
		{[]string{"--context", "*"}, "", "", `invalid --context "*"`},
		{[]string{"--context", ".*"}, "", "", `invalid --context ".*"`},
		{[]string{"--context", ".a\x01b"}, "", "", `control characters`},
		{nil, ".a\u202eb", "", `invalid CHARTER_CONTEXT`},
	}
	for _, c := range cases {
		t.Setenv(global.EnvContext, c.env)
		mu.Lock()
		last = ""
		mu.Unlock()
		root := &cobra.Command{Use: "charter", SilenceErrors: true, SilenceUsage: true}
		global.AddFlags(root.PersistentFlags())
		root.AddCommand(&cobra.Command{Use: "ls", RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := global.Connect(cmd, global.Target{})
			if err != nil {
				return err
			}
			_, err = cl.Subjects(cmd.Context())
			return err
		}})
		root.SetArgs(append(append([]string{"--registry", srv.URL}, c.args...), "ls"))
		err := root.ExecuteContext(context.Background())
		mu.Lock()
		got := last
		mu.Unlock()
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) || got != "" {
				t.Errorf("%v env %q: error %v, request %q; want %q and no request", c.args, c.env, err, got, c.wantErr)
			}
		case err != nil || got != c.want:
			t.Errorf("%v env %q: request %q, %v; want %q", c.args, c.env, got, err, c.want)
		}
	}
}

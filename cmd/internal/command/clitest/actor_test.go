package clitest_test

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/clitest"
)

// auditEntry is the part of `charter audit -o json` these tests read.
type auditEntry struct {
	ID      int64  `json:"id"`
	Actor   string `json:"actor"`
	Action  string `json:"action"`
	Subject string `json:"subject"`
}

// auditAfter returns the audit entries after id, through `charter audit`.
func auditAfter(t *testing.T, url string, id int64) []auditEntry {
	t.Helper()
	r := clitest.Run(t, "--registry", url, "audit", "--after", strconv.FormatInt(id, 10), "-o", "json")
	if r.Code != cli.ExitOK {
		t.Fatalf("charter audit: exit %d: %s", r.Code, r.Stderr)
	}
	var out []auditEntry
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("charter audit -o json: %v\n%s", err, r.Stdout)
	}
	return out
}

// TestEveryWriteNamesItsActor: each registry command that changes the
// registry (register, config, mode, delete, import) sends who acts, so the
// audit log names them and not "anonymous": --actor beats $CHARTER_ACTOR,
// which beats $USER. (An import restores the source's entries with their
// own actors and adds one of its own.)
func TestEveryWriteNamesItsActor(t *testing.T) {
	writes := []struct {
		args   []string
		action string // of the first audit entry the step writes
	}{
		{[]string{"register", "customer-value", schemas + "customer.avsc"}, "schema.register"},
		{[]string{"config", "set", "customer-value", "--level", "FULL"}, "config.set"},
		{[]string{"config", "set", "--level", "FORWARD"}, "config.set"},
		{[]string{"config", "delete", "customer-value"}, "config.delete"},
		{[]string{"config", "delete"}, "config.delete"},
		{[]string{"mode", "set", "customer-value", "READONLY"}, "mode.set"},
		{[]string{"mode", "delete", "customer-value"}, "mode.delete"},
		{[]string{"register", "orders-value", schemas + "orders.avsc", "--ref", "acme.Customer=customer-value:1"}, "schema.register"},
		{[]string{"delete", "orders-value", "1"}, "version.delete"},
		{[]string{"delete", "orders-value", "--permanent"}, "subject.delete"},
	}
	for _, tc := range []struct {
		name, flag, env, user, want string
	}{
		{name: "flag beats env", flag: "alice", env: "bob", user: "carol", want: "alice"},
		{name: "env beats USER", env: "bob", user: "carol", want: "bob"},
		{name: "USER", user: "carol", want: "carol"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CHARTER_ACTOR", tc.env)
			t.Setenv("USER", tc.user)
			_, url, _ := clitest.NewRegistry(t)
			var last int64
			run := func(args []string, action string) {
				t.Helper()
				if tc.flag != "" {
					args = append(args, "--actor", tc.flag)
				}
				if r := clitest.Run(t, append([]string{"--registry", url}, args...)...); r.Code != cli.ExitOK {
					t.Fatalf("charter %v: exit %d: %s", args, r.Code, r.Stderr)
				}
				entries := auditAfter(t, url, last)
				if len(entries) == 0 {
					t.Fatalf("charter %v: no audit entry", args)
				}
				if entries[0].Action != action {
					t.Errorf("charter %v: audited as %s, want %s", args, entries[0].Action, action)
				}
				for _, e := range entries {
					if e.Actor != tc.want {
						t.Errorf("charter %v: %s by %q, want %q", args, e.Action, e.Actor, tc.want)
					}
				}
				last = entries[len(entries)-1].ID
			}
			for _, w := range writes {
				run(w.args, w.action)
			}

			// import: the restored history (whose actors are the
			// source's, here the same), then the import's own entry.
			dump := filepath.Join(t.TempDir(), "dump.json")
			if r := clitest.Run(t, "--registry", url, "export", "--file", dump); r.Code != cli.ExitOK {
				t.Fatalf("charter export: exit %d: %s", r.Code, r.Stderr)
			}
			_, url2, _ := clitest.NewRegistry(t)
			url, last = url2, 0
			run([]string{"import", dump}, "schema.register")
			if es := auditAfter(t, url, 0); es[len(es)-1].Action != "registry.import" || es[len(es)-1].Actor != tc.want {
				t.Errorf("charter import: last audit entry %+v, want registry.import by %s", es[len(es)-1], tc.want)
			}
		})
	}
}

package serve_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/serve"
)

// serveWith runs `charter serve args` until it is ready, calls check with
// its address (when not nil), then stops it; it returns the command's
// error and its logs.
func serveWith(t *testing.T, args []string, check func(addr string)) (error, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var logs bytes.Buffer
	checked := make(chan struct{})
	ready := false
	cmd := serve.NewCommand("serve", serve.Deps{Stderr: &logs, Ready: func(addr string) {
		// Ready runs before the server serves: check from another
		// goroutine.
		ready = true
		go func() {
			defer close(checked)
			defer cancel()
			if check != nil {
				check(addr)
			}
		}()
	}})
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.ExecuteContext(ctx)
	if ready {
		<-checked
	}
	return err, logs.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConfigFile: --config gives flags from YAML (lists for repeatable
// ones); the command line beats the environment, which beats the file.
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	fileDB, envDB, flagDB := filepath.Join(dir, "file.db"), filepath.Join(dir, "env.db"), filepath.Join(dir, "flag.db")
	cfg := writeFile(t, "charter.yaml", `# charter serve settings
listen: "127.0.0.1:0"
db: `+fileDB+`
log-format: json
cors-origin:
  - https://tools.example.com
  - http://localhost:3000
metrics-public: true
read-timeout: 30s
ui: false
`)
	t.Setenv(serve.EnvDB, "")
	t.Setenv(serve.EnvListen, "")
	err, logs := serveWith(t, []string{"--config", cfg}, func(addr string) {
		req, _ := http.NewRequest("GET", "http://"+addr+"/subjects", nil)
		req.Header.Set("Origin", "http://localhost:3000")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "http://localhost:3000" {
			t.Errorf("Access-Control-Allow-Origin %q: cors-origin from the file not applied", got)
		}
	})
	if err != nil {
		t.Fatalf("serve --config: %v\n%s", err, logs)
	}
	if !strings.HasPrefix(logs, "{") || !strings.Contains(logs, `"db":"`+fileDB+`"`) {
		t.Errorf("logs are not JSON or name another db:\n%s", logs)
	}

	// The environment beats the file; the command line beats both.
	t.Setenv(serve.EnvDB, envDB)
	if err, logs := serveWith(t, []string{"--config", cfg}, nil); err != nil || !strings.Contains(logs, `"db":"`+envDB+`"`) {
		t.Errorf("with %s set: %v\n%s", serve.EnvDB, err, logs)
	}
	if err, logs := serveWith(t, []string{"--config", cfg, "--db", flagDB, "--log-format", "text"}, nil); err != nil || !strings.Contains(logs, "db="+flagDB) {
		t.Errorf("with --db and --log-format: %v\n%s", err, logs)
	}
}

// TestConfigFileErrors: what the file cannot say is an error naming the
// file and line, before any database is opened.
func TestConfigFileErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"unknown key", "listen: \":0\"\nlisten-address: x\n", `charter.yaml:2: unknown key "listen-address"`},
		{"twice", "db: a.db\ndb: b.db\n", "charter.yaml:2: db is given twice"},
		{"bad value", "\nmax-body-bytes: lots\n", `charter.yaml:2: invalid max-body-bytes "lots"`},
		{"list for one value", "listen:\n  - a\n  - b\n", "charter.yaml:2: listen takes one value, not a list"},
		{"mapping value", "db:\n  path: x\n", "charter.yaml:2: db: want a value, not a mapping"},
		{"no value", "db:\n", "charter.yaml:1: db has no value"},
		{"not a mapping", "- listen\n", "charter.yaml:1: want a mapping of flag names"},
		{"the config flag", "config: other.yaml\n", `charter.yaml:1: unknown key "config"`},
		{"syntax", "listen: [\n", "charter.yaml"},
		{"validated", "max-body-bytes: 0\n", "invalid --max-body-bytes 0"},
		{"cors origin", "cors-origin: [tools.example.com]\n", `invalid --cors-origin "tools.example.com"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "charter.db")
			cfg := writeFile(t, "charter.yaml", tc.text)
			err, _ := serveWith(t, []string{"--config", cfg, "--listen", "127.0.0.1:0", "--db", db}, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the database was created although the file was refused")
			}
		})
	}
	if err, _ := serveWith(t, []string{"--config", filepath.Join(t.TempDir(), "missing.yaml")}, nil); err == nil || !strings.Contains(err.Error(), "read --config") {
		t.Errorf("missing file: %v", err)
	}
}

// TestCORSOriginFlag: --cors-origin repeats, and refuses what is not an
// origin.
func TestCORSOriginFlag(t *testing.T) {
	for _, bad := range []string{"https://x.example/path", "ftp://x.example", "x.example", "https://user@x.example"} {
		err, _ := serveWith(t, []string{"--listen", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "c.db"), "--cors-origin", bad}, nil)
		if err == nil || !strings.Contains(err.Error(), "invalid --cors-origin") {
			t.Errorf("--cors-origin %s: %v", bad, err)
		}
	}
	err, logs := serveWith(t, []string{"--listen", "127.0.0.1:0", "--db", filepath.Join(t.TempDir(), "c.db"), "--ui=false",
		"--cors-origin", "https://a.example", "--cors-origin", "*"}, func(addr string) {
		req, _ := http.NewRequest("OPTIONS", "http://"+addr+"/subjects", nil)
		req.Header.Set("Origin", "https://b.example")
		req.Header.Set("Access-Control-Request-Method", "GET")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("preflight from another origin with *: %d %v", resp.StatusCode, resp.Header)
		}
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, logs)
	}
}

package cli_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serving is one in-process `charter serve`.
type serving struct {
	addr   string
	stderr *syncBuffer
	stop   context.CancelFunc
	done   chan int
}

// startServe runs `charter args...` in-process and waits until it listens.
func startServe(t *testing.T, args ...string) *serving {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &serving{stderr: &syncBuffer{}, stop: cancel, done: make(chan int, 1)}
	ready := make(chan string, 1)
	go func() {
		s.done <- cli.Run(ctx, args, cli.Env{Stdout: io.Discard, Stderr: s.stderr, Ready: func(a string) { ready <- a }})
	}()
	select {
	case s.addr = <-ready:
	case code := <-s.done:
		cancel()
		t.Fatalf("charter %v exited with %d before listening:\n%s", args, code, s.stderr.String())
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatalf("charter %v did not listen within 10s:\n%s", args, s.stderr.String())
	}
	t.Cleanup(func() {
		cancel()
		<-s.done
	})
	return s
}

// shutdown stops the server as SIGTERM would and returns the exit code.
func (s *serving) shutdown(t *testing.T) int {
	t.Helper()
	s.stop()
	select {
	case code := <-s.done:
		s.done <- code // for the cleanup
		return code
	case <-time.After(20 * time.Second):
		t.Fatal("charter serve did not stop within 20s")
		return -1
	}
}

func TestServeRegistersAndShutsDown(t *testing.T) {
	db := filepath.Join(t.TempDir(), "reg.db")
	s := startServe(t, "serve", "--listen", "127.0.0.1:0", "--db", db, "--log-format", "json")
	resp, err := http.Post("http://"+s.addr+"/subjects/orders-value/versions", "application/vnd.schemaregistry.v1+json",
		strings.NewReader(`{"schema":"{\"type\":\"string\"}"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"id":1}` {
		t.Fatalf("register: %d %s", resp.StatusCode, body)
	}
	if code := s.shutdown(t); code != cli.ExitOK {
		t.Fatalf("exit code %d after shutdown:\n%s", code, s.stderr.String())
	}
	logs := s.stderr.String()
	for _, want := range []string{`"msg":"request"`, `"method":"POST"`, `"path":"/subjects/orders-value/versions"`, `"status":200`, `"duration_ms":`, `"request_id":`, `"msg":"stopped"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s:\n%s", want, logs)
		}
	}
	// The registration survived the restart.
	s2 := startServe(t, "serve", "--listen", "127.0.0.1:0", "--db", db)
	resp, err = http.Get("http://" + s2.addr + "/schemas/ids/1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"schemaType":"AVRO"`) {
		t.Fatalf("after restart: %d %s", resp.StatusCode, body)
	}
}

func TestServeEnvironment(t *testing.T) {
	dir := t.TempDir()
	envDB := filepath.Join(dir, "env.db")
	flagDB := filepath.Join(dir, "flag.db")
	t.Setenv("CHARTER_DB", envDB)
	t.Setenv("CHARTER_LISTEN", "127.0.0.1:0")

	// Environment beats the defaults.
	s := startServe(t, "serve")
	if !strings.HasPrefix(s.addr, "127.0.0.1:") {
		t.Errorf("listening on %s, want CHARTER_LISTEN's 127.0.0.1", s.addr)
	}
	if code := s.shutdown(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(envDB); err != nil {
		t.Errorf("CHARTER_DB not used: %v", err)
	}
	// Flags beat the environment.
	s = startServe(t, "serve", "--db", flagDB)
	if code := s.shutdown(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(flagDB); err != nil {
		t.Errorf("--db not used over CHARTER_DB: %v", err)
	}
}

func TestServeErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	notSQLite := filepath.Join(dir, "text.db")
	if err := os.WriteFile(notSQLite, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string // in the one stderr line
	}{
		{"port in use", []string{"serve", "--listen", busy.Addr().String(), "--db", filepath.Join(dir, "a.db")},
			[]string{"charter: listen on " + busy.Addr().String(), "address already in use"}},
		{"db directory missing", []string{"serve", "--listen", "127.0.0.1:0", "--db", filepath.Join(dir, "no", "such", "dir", "x.db")},
			[]string{"charter: open database " + filepath.Join(dir, "no", "such", "dir", "x.db") + ": directory " + filepath.Join(dir, "no", "such", "dir") + " does not exist"}},
		{"db is a directory", []string{"serve", "--listen", "127.0.0.1:0", "--db", dir},
			[]string{"charter: open database " + dir + ": it is a directory"}},
		{"db is not SQLite", []string{"serve", "--listen", "127.0.0.1:0", "--db", notSQLite},
			[]string{"charter: open database: "}},
		{"bad log level", []string{"serve", "--log-level", "loud"}, []string{`charter: invalid --log-level "loud"`}},
		{"bad log format", []string{"serve", "--log-format", "xml"}, []string{`charter: invalid --log-format "xml"`}},
		{"unknown flag", []string{"serve", "--nope"}, []string{"charter: unknown flag: --nope"}},
		{"unknown command", []string{"serveme"}, []string{`charter: unknown command "serveme"`}},
		{"extra argument", []string{"serve", "now"}, []string{"charter: unknown command"}},
		{"client token", []string{"serve", "--token", "t"}, []string{"charter: --token is for commands that call a registry", "--auth-config"}},
		{"client user", []string{"serve", "--user", "u"}, []string{"charter: --user is for commands that call a registry", "hash-password"}},
		{"client CA file", []string{"serve", "--ca-file", "ca.pem"}, []string{"charter: --ca-file is for commands that call a registry", "--tls-client-ca"}},
		{"open off loopback", []string{"serve", "--listen", "0.0.0.0:0", "--db", filepath.Join(dir, "b.db")},
			[]string{"charter: refusing to serve on", "without authentication", "--insecure-no-auth"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := cli.Run(context.Background(), tc.args, cli.Env{Stdout: io.Discard, Stderr: &stderr})
			if code != cli.ExitError {
				t.Errorf("exit code %d, want %d", code, cli.ExitError)
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			last := lines[len(lines)-1]
			if len(lines) != 1 {
				t.Errorf("stderr has %d lines, want one:\n%s", len(lines), stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(last, w) {
					t.Errorf("stderr last line %q lacks %q\n(all: %s)", last, w, stderr.String())
				}
			}
		})
	}
}

func TestVersionCommand(t *testing.T) {
	var out bytes.Buffer
	if code := cli.Run(context.Background(), []string{"version"}, cli.Env{Stdout: &out, Stderr: io.Discard}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.HasPrefix(out.String(), "charter ") || !strings.HasSuffix(out.String(), ")\n") {
		t.Errorf("version output %q, want `charter <version> (<commit>)`", out.String())
	}
}

// TestGroupCommandsRefuseUnknownSubcommands: every command that only
// groups others fails on an argument that names none of them (one line,
// a non-zero exit), and prints its help without arguments.
func TestGroupCommandsRefuseUnknownSubcommands(t *testing.T) {
	root := cli.NewRootCommand(cli.Env{Stdout: io.Discard, Stderr: io.Discard})
	var groups []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasParent() && c.HasSubCommands() {
			groups = append(groups, c.CommandPath())
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	if len(groups) < 3 {
		t.Fatalf("group commands %v: the test checks too few", groups)
	}
	for _, g := range groups {
		args := append(strings.Fields(strings.TrimPrefix(g, "charter ")), "no-such-thing", "FULL")
		var stderr, stdout bytes.Buffer
		code := cli.Run(context.Background(), args, cli.Env{Stdout: &stdout, Stderr: &stderr})
		if code == cli.ExitOK || !strings.Contains(stderr.String(), `unknown command "no-such-thing" for "`+g+`"`) ||
			strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
		stdout.Reset()
		if code := cli.Run(context.Background(), args[:len(args)-2], cli.Env{Stdout: &stdout, Stderr: io.Discard}); code != cli.ExitOK || !strings.Contains(stdout.String(), "Usage:") {
			t.Errorf("%s alone: exit %d, want its help", g, code)
		}
	}
}

// TestServeRefusesEveryClientFlag: each of the root's global flags (the
// registry client's and --output) is refused on serve, as one line naming
// it, even with --migrate-only (which otherwise exits 0 at once): serve is
// the registry, not a client of one.
func TestServeRefusesEveryClientFlag(t *testing.T) {
	root := cli.NewRootCommand(cli.Env{Stdout: io.Discard, Stderr: io.Discard})
	n := 0
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		n++
		db := filepath.Join(t.TempDir(), "c.db")
		var stderr bytes.Buffer
		args := []string{"serve", "--migrate-only", "--db", db, "--" + f.Name, "json"}
		code := cli.Run(context.Background(), args, cli.Env{Stdout: io.Discard, Stderr: &stderr})
		want := "charter: --" + f.Name + " is for commands that call a registry; "
		if code != cli.ExitError || !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want one line starting %q", args, code, stderr.String(), want)
		}
	})
	if n < 6 {
		t.Errorf("only %d global flags", n)
	}
	// Without them, --migrate-only exits 0.
	if code := cli.Run(context.Background(), []string{"serve", "--migrate-only", "--db", filepath.Join(t.TempDir(), "c.db")}, cli.Env{Stdout: io.Discard, Stderr: io.Discard}); code != cli.ExitOK {
		t.Errorf("serve --migrate-only: exit %d", code)
	}
}

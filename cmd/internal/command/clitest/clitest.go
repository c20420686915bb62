// Package clitest runs charter's command tree in-process for tests: args
// in, exit code, stdout and stderr out, compared with golden files. Its
// own tests drive the registry commands (subjects, versions, get,
// register, lookup, config, mode, delete, export, import, completion)
// against the real registry handler over SQLite.
package clitest

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/cli"
)

// Update makes Golden rewrite the golden files (go test -update).
var Update = flag.Bool("update", false, "rewrite golden files")

// Result is what one run printed and returned.
type Result struct {
	Code           int
	Stdout, Stderr string
}

// Run runs `charter args...` in-process.
func Run(tb testing.TB, args ...string) Result {
	tb.Helper()
	return RunStdin(tb, "", args...)
}

// RunStdin runs `charter args...` in-process with stdin.
func RunStdin(tb testing.TB, stdin string, args ...string) Result {
	tb.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(stdin)})
	return Result{code, out.String(), errb.String()}
}

// Serve runs `charter serve --listen 127.0.0.1:0 --db <temporary file>
// args...` in-process until the test ends, and returns the address it
// listens on (host:port) once it does.
func Serve(tb testing.TB, args ...string) string {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &syncBuffer{}
	ready, done := make(chan string, 1), make(chan int, 1)
	args = append([]string{"serve", "--listen", "127.0.0.1:0", "--db", filepath.Join(tb.TempDir(), "charter.db")}, args...)
	go func() {
		done <- cli.Run(ctx, args, cli.Env{Stdout: io.Discard, Stderr: logs, Ready: func(a string) { ready <- a }})
	}()
	tb.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case addr := <-ready:
		return addr
	case code := <-done:
		done <- code
		tb.Fatalf("charter %v exited %d before listening:\n%s", args, code, logs.String())
	case <-time.After(20 * time.Second):
		tb.Fatalf("charter %v did not listen within 20s:\n%s", args, logs.String())
	}
	return ""
}

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

// Golden compares got with testdata/<name> after replacing each
// scrub[i] with scrub[i+1] (URLs, temporary paths); with -update it
// writes the file instead.
func Golden(tb testing.TB, name, got string, scrub ...string) {
	tb.Helper()
	got = strings.NewReplacer(scrub...).Replace(got)
	p := filepath.Join("testdata", name)
	if *Update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		tb.Fatalf("%v (go test -update creates it)", err)
	}
	if got != string(want) {
		tb.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

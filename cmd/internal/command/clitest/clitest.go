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
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb})
	return Result{code, out.String(), errb.String()}
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

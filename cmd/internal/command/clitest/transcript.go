package clitest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/cli"
)

// Step is one command line of a transcript (without --registry) and the
// exit code it must return.
type Step struct {
	Args []string
	Code int
}

// OK is a step that must exit cli.ExitOK (0).
func OK(args ...string) Step { return Step{args, cli.ExitOK} }

// Fail is a step that must exit cli.ExitError (a one-line error).
func Fail(args ...string) Step { return Step{args, cli.ExitError} }

// Refused is a step the registry refuses on content (cli.ExitViolations).
func Refused(args ...string) Step { return Step{args, cli.ExitViolations} }

// Transcript runs steps against the registry at url and returns what they
// printed, per step: "$ charter <args>", stdout, "stderr: …" when not
// empty, "exit N" when not 0, then a blank line. A step whose exit code
// differs from its Code, or that exits cli.ExitError with anything but one
// line starting with "charter: " on stderr, fails tb.
func Transcript(tb testing.TB, url string, steps ...Step) string {
	tb.Helper()
	var b strings.Builder
	for _, s := range steps {
		r := Run(tb, append([]string{"--registry", url}, s.Args...)...)
		fmt.Fprintf(&b, "$ charter %s\n%s", strings.Join(s.Args, " "), r.Stdout)
		if r.Stderr != "" {
			fmt.Fprintf(&b, "stderr: %s", r.Stderr)
		}
		if r.Code != cli.ExitOK {
			fmt.Fprintf(&b, "exit %d\n", r.Code)
		}
		b.WriteString("\n")
		if r.Code != s.Code {
			tb.Errorf("charter %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(s.Args, " "), r.Code, s.Code, r.Stdout, r.Stderr)
		}
		if r.Code == cli.ExitError && (!strings.HasPrefix(r.Stderr, "charter: ") || strings.Count(r.Stderr, "\n") != 1) {
			tb.Errorf("charter %s: stderr %q, want one line starting with \"charter: \"", strings.Join(s.Args, " "), r.Stderr)
		}
	}
	return b.String()
}

// TranscriptAs is Transcript run as actor (env CHARTER_ACTOR, set for the
// rest of the test, so tb must not be parallel).
func TranscriptAs(tb testing.TB, actor, url string, steps ...Step) string {
	tb.Helper()
	tb.Setenv("CHARTER_ACTOR", actor)
	return Transcript(tb, url, steps...)
}

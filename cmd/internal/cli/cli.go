// Package cli builds Charter's command tree: the whole tree is visible in
// NewRootCommand, each verb lives in its own package under
// cmd/internal/command.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/serve"
	"github.com/charter-dev/charter/cmd/internal/command/version"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1 // the command failed (I/O, port in use, store)
	ExitUsage = 2 // bad flags or arguments
)

// NewRootCommand returns the `charter` command with every sub-command.
func NewRootCommand(deps serve.Deps) *cobra.Command {
	root := &cobra.Command{
		Use:           "charter",
		Short:         "Charter is a schema registry compatible with Confluent Schema Registry clients",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(
		serve.NewCommand("serve", deps),
		version.NewCommand("version"),
	)
	return root
}

// usageError marks errors in the command line.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// Run runs the command line args and returns the process exit code.
// Errors print as one line on stderr: `charter: <error>`.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := NewRootCommand(serve.Deps{Stderr: stderr})
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(stderr, "charter: %v\n", err)
	return exitCode(err)
}

// exitCode maps an error to the exit code: usage errors 2, others 1.
func exitCode(err error) int {
	var u usageError
	if errors.As(err, &u) || isCobraUsage(err) {
		return ExitUsage
	}
	return ExitError
}

// isCobraUsage recognises the argument errors cobra creates itself.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "invalid argument"} {
		if len(msg) >= len(p) && (msg[:len(p)] == p) {
			return true
		}
	}
	return false
}

// Package version is the `charter version` command.
package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/buildinfo"
)

// NewCommand returns the command that prints the binary's version and
// commit, one line: `charter <version> (<commit>)`.
func NewCommand(name string) *cobra.Command {
	return &cobra.Command{
		Use:   name,
		Short: "Print Charter's version",
		Long: `Print the version of this charter binary and the commit it was built from, on
one line: charter <version> (<commit>). The registry's own version is at GET
/v1/metadata/version.`,
		Example: `  charter version

  # In a CI log, next to the checks it ran
  charter version && charter check --against git:origin/main`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, c := buildinfo.Get()
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "charter %s (%s)\n", v, c)
			return err
		},
	}
}

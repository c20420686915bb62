// Package version is the `charter version` command.
package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/cmd/internal/command/global"
)

// NewCommand returns the command that prints the binary's version and
// commit, one line: `charter <version> (<commit>)`.
func NewCommand(name string) *cobra.Command {
	return &cobra.Command{
		Use:   name,
		Short: "Print Charter's version",
		Long: `Print the version of this charter binary and the commit it was built from, on
one line: charter <version> (<commit>); with -o json, {"version": …, "commit":
…}. charter --version (-v) is the same, -o json included. The registry's own version is at
GET /v1/metadata/version.`,
		Example: `  charter version

  # In a CI log, next to the checks it ran
  charter version && charter check --against git:origin/main`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := global.Output(cmd, "text", "json")
			if err != nil {
				return err
			}
			v, c := buildinfo.Get()
			if format == "json" {
				return global.WriteJSON(cmd.OutOrStdout(), struct {
					Version string `json:"version"`
					Commit  string `json:"commit"`
				}{v, c})
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "charter %s (%s)\n", v, c)
			return err
		},
	}
}

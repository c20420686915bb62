// Package versions is the `charter versions` command: a subject's
// versions.
package versions

import (
	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
)

// NewCommand returns the versions command.
func NewCommand(name string) *cobra.Command {
	var deleted bool
	cmd := &cobra.Command{
		Use:   name + " SUBJECT",
		Short: "List a subject's versions",
		Long: `List the version numbers of a subject (GET /subjects/{subject}/versions), oldest
first; with --deleted, soft-deleted versions too, marked "(deleted)".`,
		Example: `  # The live versions of orders-value
  charter versions orders-value

  # Every version, soft-deleted ones included, as JSON
  charter versions orders-value --deleted -o json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: global.CompleteSubjects,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			c, err := global.Client(cmd)
			if err != nil {
				return err
			}
			vs, err := c.VersionStates(cmd.Context(), args[0], deleted)
			if err != nil {
				return err
			}
			return render.Versions(cmd.OutOrStdout(), out, args[0], vs)
		},
	}
	cmd.Flags().BoolVar(&deleted, "deleted", false, "include soft-deleted versions")
	return cmd
}

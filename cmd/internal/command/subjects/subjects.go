// Package subjects is the `charter subjects` command: the registry's
// subjects.
package subjects

import (
	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/registry/client"
)

// NewCommand returns the subjects command.
func NewCommand(name string) *cobra.Command {
	var prefix string
	var deleted bool
	cmd := &cobra.Command{
		Use:   name,
		Short: "List the registry's subjects",
		Long: `List the subjects of the registry (GET /subjects), sorted; soft-deleted ones too
with --deleted.`,
		Example: `  # Every subject of the registry at $CHARTER_REGISTRY_URL
  charter subjects

  # The payments subjects of a remote registry, as JSON
  charter subjects --prefix payments- --registry https://sr.example.com -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			c, err := global.Client(cmd)
			if err != nil {
				return err
			}
			opts := []client.ReadOption{client.WithSubjectPrefix(prefix)}
			if deleted {
				opts = append(opts, client.IncludeDeleted())
			}
			list, err := c.Subjects(cmd.Context(), opts...)
			if err != nil {
				return err
			}
			return render.Subjects(cmd.OutOrStdout(), out, list)
		},
	}
	cmd.Flags().StringVar(&prefix, "prefix", "", "only subjects whose names start with this")
	cmd.Flags().BoolVar(&deleted, "deleted", false, "include soft-deleted subjects")
	return cmd
}

// Package lookup is the `charter lookup` command: which version of a
// subject holds a schema file.
package lookup

import (
	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/registry/client"
)

// NewCommand returns the lookup command.
func NewCommand(name string) *cobra.Command {
	var in global.SchemaInput
	var deleted bool
	cmd := &cobra.Command{
		Use:   name + " SUBJECT FILE",
		Short: "Find the version of a subject that holds a schema file",
		Long: `Find the newest version of SUBJECT whose schema is the one in FILE (POST
/subjects/{subject}), compared in canonical form (whitespace and key order do not
matter), and print its version and global ID. A schema no version holds is an
error (exit code 2).`,
		Example: `  # Is the working tree's schema registered?
  charter lookup orders-value schemas/orders.avsc

  # Soft-deleted versions count too; compare normalized forms
  charter lookup orders-value orders.avsc --deleted --normalize -o json`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: global.CompleteSubjects,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			s, err := in.Read(args[1])
			if err != nil {
				return err
			}
			c, err := global.Client(cmd)
			if err != nil {
				return err
			}
			opts := in.ReadOptions()
			if deleted {
				opts = append(opts, client.IncludeDeleted())
			}
			v, err := c.Lookup(cmd.Context(), args[0], s, opts...)
			if err != nil {
				return err
			}
			return render.Registered(cmd.OutOrStdout(), out, v)
		},
	}
	in.AddFlags(cmd.Flags())
	global.Enum(cmd, "type", global.SchemaTypeValues...)
	cmd.Flags().BoolVar(&deleted, "deleted", false, "also match soft-deleted versions")
	return cmd
}

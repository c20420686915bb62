// Package get is the `charter get` command: one version of a subject.
package get

import (
	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/registry/client"
)

// NewCommand returns the get command.
func NewCommand(name string) *cobra.Command {
	var deleted, schemaOnly bool
	cmd := &cobra.Command{
		Use:   name + " SUBJECT [VERSION]",
		Short: "Print one version of a subject (default: the latest)",
		Long: `Print one version of a subject (GET /subjects/{subject}/versions/{version}): its
version, global ID, format, references, metadata and rules, then the schema.
VERSION is a number or latest (the default). --schema-only prints the schema
text alone, as stored, to save it to a file.`,
		Example: `  # The latest version of orders-value
  charter get orders-value

  # Version 3's schema text, into a file
  charter get orders-value 3 --schema-only > orders-v3.avsc

  # A soft-deleted version, as JSON
  charter get orders-value 2 --deleted -o json`,
		Args:              cobra.RangeArgs(1, 2),
		ValidArgsFunction: global.CompleteSubjectVersion,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			n := client.Latest
			if len(args) == 2 {
				if n, err = global.ParseVersion(args[1]); err != nil {
					return err
				}
			}
			c, err := global.Client(cmd)
			if err != nil {
				return err
			}
			var opts []client.ReadOption
			if deleted {
				opts = append(opts, client.IncludeDeleted())
			}
			v, err := c.Version(cmd.Context(), args[0], n, opts...)
			if err != nil {
				return err
			}
			return render.SchemaVersion(cmd.OutOrStdout(), out, v, schemaOnly)
		},
	}
	cmd.Flags().BoolVar(&deleted, "deleted", false, "also find a soft-deleted version")
	cmd.Flags().BoolVar(&schemaOnly, "schema-only", false, "print only the schema text")
	return cmd
}

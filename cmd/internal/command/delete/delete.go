// Package deletecmd is the `charter delete` command: a subject or one of
// its versions, soft-deleted or removed for good.
package deletecmd

import (
	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
)

// NewCommand returns the delete command.
func NewCommand(name string) *cobra.Command {
	var permanent bool
	cmd := &cobra.Command{
		Use:   name + " SUBJECT [VERSION]",
		Short: "Delete a subject or one version (soft by default)",
		Long: `Delete every version of SUBJECT (DELETE /subjects/{subject}), or one VERSION
(a number or latest). A soft delete hides the versions from listings and
compatibility checks but keeps their schema IDs readable, so consumers still
decode old data. --permanent removes versions that were soft-deleted first,
and with them the IDs no other version uses: data written with those IDs can
no longer be read. A version other schemas reference cannot be deleted.`,
		Example: `  # Retire a subject, keeping its IDs readable
  charter delete legacy-value

  # Then remove it for good
  charter delete legacy-value --permanent

  # Soft-delete the latest version only
  charter delete orders-value latest`,
		Args:              cobra.RangeArgs(1, 2),
		ValidArgsFunction: global.CompleteSubjectVersion,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			n := 0
			if len(args) == 2 {
				if n, err = global.ParseVersion(args[1]); err != nil {
					return err
				}
			}
			c, err := global.Client(cmd)
			if err != nil {
				return err
			}
			var versions []int
			if n == 0 {
				versions, err = c.DeleteSubject(cmd.Context(), args[0], permanent)
			} else {
				var v int
				v, err = c.DeleteVersion(cmd.Context(), args[0], n, permanent)
				versions = []int{v}
			}
			if err != nil {
				return err
			}
			return render.Deleted(cmd.OutOrStdout(), out, args[0], versions, permanent)
		},
	}
	cmd.Flags().BoolVar(&permanent, "permanent", false, "remove soft-deleted versions for good (and their unused schema IDs)")
	global.AddActorFlag(cmd)
	return cmd
}

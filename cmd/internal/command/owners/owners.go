// Package owners is the `charter owners` command: it lists, shows, sets
// and removes the owners of subjects (a team, a contact channel and a
// description per subject) through the registry's governance API.
package owners

import (
	"fmt"
	"net/http"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/registry/client"
)

// Deps are the command's connections to the outside world.
type Deps struct {
	// HTTPClient talks to the registry (default: global.Connect's).
	HTTPClient *http.Client
}

// NewCommand returns the owners command.
func NewCommand(name string, deps Deps) *cobra.Command {
	c := global.NewConn(deps.HTTPClient)
	var team, contact, description, only string
	var del bool
	cmd := &cobra.Command{
		Use:   name + " [SUBJECT]",
		Short: "List, show, set or remove the owners of subjects",
		Long: `Without arguments, list the owner of every subject (--team keeps one team's).
With a subject, show its owner; with --team and --contact, set it (the subject
need not have versions yet), and later change any of --team, --contact and
--description alone (the others keep their value; --description '' clears it);
with --delete, remove it. Confluent clients see the
owner in the metadata properties owner, owner.contact and owner.description.`,
		Example: `  charter owners
  charter owners shipments-value --team logistics --contact '#logistics' --description 'parcels on their way'
  charter owners shipments-value --delete`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: global.CompleteSubjectThenNothing,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.Client(cmd, "text", "json")
			if err != nil {
				return err
			}
			ctx, out := cmd.Context(), cmd.OutOrStdout()
			setting := cmd.Flags().Changed("contact") || cmd.Flags().Changed("description") || (len(args) == 1 && cmd.Flags().Changed("team"))
			var owners []client.Owner
			switch {
			case len(args) == 0:
				if setting || del {
					return fmt.Errorf("name the subject to set or delete the owner of")
				}
				if owners, err = cl.Owners(ctx, only); err != nil {
					return fmt.Errorf("list owners: %w", err)
				}
			case del:
				o, err := cl.DeleteOwner(ctx, args[0])
				if err != nil {
					return fmt.Errorf("delete owner of %s: %w", args[0], err)
				}
				owners = []client.Owner{o}
			case setting:
				// Only the flags given change: the rest keeps its value.
				var u client.OwnerUpdate
				for _, m := range []struct {
					flag string
					val  *string
					dst  **string
				}{{"team", &team, &u.Team}, {"contact", &contact, &u.Contact}, {"description", &description, &u.Description}} {
					if cmd.Flags().Changed(m.flag) {
						*m.dst = m.val
					}
				}
				o, err := cl.UpdateOwner(ctx, args[0], u)
				if err != nil {
					return fmt.Errorf("set owner of %s: %w", args[0], err)
				}
				owners = []client.Owner{o}
			default:
				o, err := cl.Owner(ctx, args[0])
				if err != nil {
					return fmt.Errorf("owner of %s: %w", args[0], err)
				}
				owners = []client.Owner{o}
			}
			if c.Format == "json" {
				return global.WriteJSON(out, owners)
			}
			if del {
				// Said as a removal, never as the row still there.
				_, err := fmt.Fprintf(out, "removed the owner of %s (was team %s)\n", args[0], owners[0].Team)
				return err
			}
			if len(owners) == 0 {
				_, err := fmt.Fprintln(out, "no owners recorded")
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SUBJECT\tTEAM\tCONTACT\tDESCRIPTION\tUPDATED")
			for _, o := range owners {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s by %s\n", o.Subject, o.Team, o.Contact, o.Description, global.Date(o.UpdatedAt), o.UpdatedBy)
			}
			return tw.Flush()
		},
	}
	c.Flags(cmd)
	f := cmd.Flags()
	f.StringVar(&team, "team", "", "owning team (with a subject: set it; without: list only this team's subjects)")
	f.StringVar(&contact, "contact", "", "contact channel of the owning team (a chat channel, a mailing list)")
	f.StringVar(&description, "description", "", "what the subject carries")
	f.BoolVar(&del, "delete", false, "remove the subject's owner")
	cmd.PreRun = func(cmd *cobra.Command, args []string) {
		if len(args) == 0 {
			only = team
		}
	}
	return cmd
}

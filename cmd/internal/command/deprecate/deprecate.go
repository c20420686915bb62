// Package deprecate is the `charter deprecate` command: it deprecates a
// field or a version of a subject with a reason, a replacement and a TTL,
// lists deprecation states, and withdraws deprecations, through the
// registry's governance API.
package deprecate

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/governance"
)

// Deps are the command's connections to the outside world.
type Deps struct {
	// HTTPClient talks to the registry (default: global.Connect's).
	HTTPClient *http.Client
}

// NewCommand returns the deprecate command.
func NewCommand(name string, deps Deps) *cobra.Command {
	c := global.NewConn(deps.HTTPClient)
	var (
		reason, replacement string
		ttl                 int
		list, undo          bool
		calendarOn          bool
		subject             string
		within              int
	)
	cmd := &cobra.Command{
		Use:   name + " SUBJECT ITEM",
		Short: "Deprecate a field or a version with a TTL, list deprecations, or withdraw one",
		Long: `Deprecate ITEM of SUBJECT from now on: a field path of the latest version
(.carrier_code) or a version (version:3), with a reason, a replacement and a TTL in
days (default: the subject's policy, 90 days). Until the TTL runs out, registrations
that keep the item pass with a warning; after it, they are refused unless an
extension covers them (charter extend). Deprecating an item again changes only
the --reason, --replacement and --ttl-days given; the rest keeps its value.

--list shows the deprecations of SUBJECT (of every subject without one);
--undo withdraws the deprecation of ITEM.

--calendar lists the coming expiries, soonest first, of every subject or of
--subject, with the consumers that still read each field (a published pact or a
declared lineage: the field cannot be removed while they do) and who holds an
extension until when; --within DAYS keeps those expiring within DAYS days.`,
		Example: `  charter deprecate shipments-value .carrier_code --replacement .carrier --reason 'carriers are records now'
  charter deprecate shipments-value version:2 --ttl-days 30
  charter deprecate --list shipments-value
  charter deprecate --undo shipments-value .carrier_code
  charter deprecate --calendar --within 30
  charter deprecate --calendar --subject shipments-value -o json`,
		ValidArgsFunction: global.CompleteSubjectThenNothing,
		Args: func(cmd *cobra.Command, args []string) error {
			if calendarOn {
				if len(args) > 0 {
					return fmt.Errorf("--calendar takes no arguments: name one subject with --subject %s", args[0])
				}
				return nil
			}
			if cmd.Flags().Changed("subject") || cmd.Flags().Changed("within") {
				return fmt.Errorf("--subject and --within go with --calendar")
			}
			if list {
				return cobra.MaximumNArgs(1)(cmd, args)
			}
			return cobra.ExactArgs(2)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.Client(cmd, "text", "json")
			if err != nil {
				return err
			}
			ctx, out := cmd.Context(), cmd.OutOrStdout()
			var ds []client.DeprecationStatus
			switch {
			case calendarOn:
				if cmd.Flags().Changed("within") && (within < 0 || within > governance.MaxTTLDays) {
					return fmt.Errorf("--within %d: want 0 to %d days", within, governance.MaxTTLDays)
				}
				if !cmd.Flags().Changed("within") {
					within = -1
				}
				es, err := calendar(ctx, cl, subject, within)
				if err != nil {
					return err
				}
				if c.Format == "json" {
					return global.WriteJSON(out, es)
				}
				return printCalendar(out, es, within)
			case list && len(args) == 0:
				if ds, err = cl.AllDeprecations(ctx); err != nil {
					return fmt.Errorf("list deprecations: %w", err)
				}
			case list:
				if ds, err = cl.Deprecations(ctx, args[0], false); err != nil {
					return fmt.Errorf("list deprecations of %s: %w", args[0], err)
				}
			case undo:
				d, err := cl.Undeprecate(ctx, args[0], args[1])
				if err != nil {
					return fmt.Errorf("withdraw the deprecation of %s in %s: %w", args[1], args[0], err)
				}
				if c.Format == "json" {
					return global.WriteJSON(out, d)
				}
				_, err = fmt.Fprintf(out, "%s %s is no longer deprecated\n", d.Subject, args[1])
				return err
			default:
				it, err := governance.ParseItem(args[1])
				if err != nil {
					return err
				}
				req := client.DeprecateRequest{Path: it.Path, Version: it.Version, Reason: reason, Replacement: replacement, TTLDays: ttl}
				d, err := cl.Deprecate(ctx, args[0], req)
				if err != nil {
					return fmt.Errorf("deprecate %s in %s: %w", args[1], args[0], err)
				}
				ds = []client.DeprecationStatus{d}
			}
			if c.Format == "json" {
				return global.WriteJSON(out, ds)
			}
			return printDeprecations(out, ds)
		},
	}
	c.Flags(cmd)
	f := cmd.Flags()
	f.StringVar(&reason, "reason", "", "why the item is deprecated")
	f.StringVar(&replacement, "replacement", "", "what to use instead (a field path, a subject)")
	f.IntVar(&ttl, "ttl-days", 0, "days until the deprecation expires, 1 to 3650; 0 or unset takes the subject's policy TTL (default 90)")
	f.BoolVar(&list, "list", false, "list the deprecations of SUBJECT, or of every subject")
	f.BoolVar(&undo, "undo", false, "withdraw the deprecation of ITEM")
	f.BoolVar(&calendarOn, "calendar", false, "list the coming expiries, soonest first, with what still blocks each")
	f.StringVar(&subject, "subject", "", "with --calendar: only this subject")
	f.IntVar(&within, "within", 0, "with --calendar: only expiries within this many days")
	global.CompleteSubjectFlag(cmd, "subject")
	cmd.MarkFlagsMutuallyExclusive("list", "undo", "calendar")
	return cmd
}

// printDeprecations writes deprecation states as a table.
func printDeprecations(w io.Writer, ds []client.DeprecationStatus) error {
	if len(ds) == 0 {
		_, err := fmt.Fprintln(w, "no deprecations")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SUBJECT\tITEM\tSTATE\tEXPIRES\tDAYS LEFT\tREPLACEMENT\tEXTENSIONS")
	for _, d := range ds {
		item := "field " + strings.TrimPrefix(d.Path, ".")
		if d.Kind == "version" {
			item = fmt.Sprintf("version %d", d.Version)
		}
		var ext []string
		for _, x := range d.Extensions {
			ext = append(ext, fmt.Sprintf("%s until %s (approved by %s)", x.Consumer, global.Date(x.Until), x.Approver))
		}
		if len(ext) == 0 {
			ext = []string{"-"}
		}
		repl := strings.TrimPrefix(d.Replacement, ".")
		if repl == "" {
			repl = "-"
		}
		left := "-"
		if d.State == "deprecated" {
			left = fmt.Sprint(d.DaysLeft)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Subject, item, d.State, global.Date(d.ExpiresAt), left, repl, strings.Join(ext, "; "))
	}
	return tw.Flush()
}

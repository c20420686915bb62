// Package tags is the `charter tags` command: it shows the tags of a
// subject's fields (inline, metadata.tags and governance tags) and sets or
// clears the subject's governance tags, through the registry's governance
// API.
package tags

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
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

// NewCommand returns the tags command.
func NewCommand(name string, deps Deps) *cobra.Command {
	c := global.NewConn(deps.HTTPClient)
	var (
		set   []string
		clear bool
	)
	cmd := &cobra.Command{
		Use:   name + " SUBJECT",
		Short: "Show the tags of a subject's fields, or set its governance tags",
		Long: `Show the tags of the fields of SUBJECT's latest version and where they come from:
inline in the schema (confluent:tags, confluent.field_meta), the version's
metadata.tags, or the subject's governance tags.

--set GLOB=TAG[,TAG] replaces the governance tags (repeat it for several globs).
Globs match the field's Confluent full name as metadata.tags globs do: **.email,
shop.Order.customer_email. Governance tags count in PII policy as if every
version's metadata.tags had them. --clear removes them.`,
		Example: `  charter tags orders-value
  charter tags orders-value --set '**.customer_email=PII' --set 'shop.Order.note=SENSITIVE,FREE_TEXT'
  charter tags orders-value --clear`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: global.CompleteSubjectThenNothing,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.Client(cmd, "text", "json")
			if err != nil {
				return err
			}
			ctx, out := cmd.Context(), cmd.OutOrStdout()
			var v client.TagsView
			switch {
			case clear:
				if _, err := cl.DeleteTags(ctx, args[0]); err != nil {
					return fmt.Errorf("clear the tags of %s: %w", args[0], err)
				}
				if v, err = cl.Tags(ctx, args[0]); err != nil {
					return fmt.Errorf("tags of %s: %w", args[0], err)
				}
			case len(set) > 0:
				tags := map[string][]string{}
				for _, s := range set {
					glob, list, ok := strings.Cut(s, "=")
					if !ok || strings.TrimSpace(glob) == "" || strings.TrimSpace(list) == "" {
						return fmt.Errorf("invalid --set %q: want GLOB=TAG[,TAG]", s)
					}
					for _, t := range strings.Split(list, ",") {
						tags[strings.TrimSpace(glob)] = append(tags[strings.TrimSpace(glob)], strings.TrimSpace(t))
					}
				}
				if v, err = cl.SetTags(ctx, args[0], tags); err != nil {
					return fmt.Errorf("set the tags of %s: %w", args[0], err)
				}
			default:
				if v, err = cl.Tags(ctx, args[0]); err != nil {
					return fmt.Errorf("tags of %s: %w", args[0], err)
				}
			}
			if c.Format == "json" {
				return global.WriteJSON(out, v)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			globs := make([]string, 0, len(v.Tags))
			for g := range v.Tags {
				globs = append(globs, g)
			}
			slices.Sort(globs)
			if len(globs) == 0 {
				fmt.Fprintf(tw, "%s has no governance tags\n", v.Subject)
			} else {
				fmt.Fprintf(tw, "governance tags of %s:\n", v.Subject)
				for _, g := range globs {
					fmt.Fprintf(tw, "  %s\t%s\n", g, strings.Join(v.Tags[g], ", "))
				}
			}
			if v.Version == 0 {
				fmt.Fprintln(tw, "no live version")
				return tw.Flush()
			}
			fmt.Fprintf(tw, "\nfields of version %d:\n", v.Version)
			fmt.Fprintln(tw, "FIELD\tTAGS\tINLINE\tMETADATA\tGOVERNANCE")
			for _, f := range v.Fields {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", strings.TrimPrefix(f.Path, "."), list(f.Tags), list(f.Inline), list(f.Metadata), list(f.Governance))
			}
			return tw.Flush()
		},
	}
	c.Flags(cmd)
	cmd.Flags().StringArrayVar(&set, "set", nil, "GLOB=TAG[,TAG]: replace the governance tags (repeatable)")
	cmd.Flags().BoolVar(&clear, "clear", false, "remove the subject's governance tags")
	cmd.MarkFlagsMutuallyExclusive("set", "clear")
	return cmd
}

func list(ts []string) string {
	if len(ts) == 0 {
		return "-"
	}
	return strings.Join(ts, ",")
}

// Package dismiss is the `charter dismiss` command: reviewed PII false
// positives of a subject's fields, granted, listed and undone through the
// registry's governance API (/governance/subjects/{s}/dismissals).
package dismiss

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/action/rules"
	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/pii"
	"github.com/charter-dev/charter/registry/client"
)

// Deps are the command's connections to the outside world.
type Deps struct {
	// HTTPClient talks to the registry (default: global.Connect's).
	HTTPClient *http.Client
}

// NewCommand returns the dismiss command.
func NewCommand(name string, deps Deps) *cobra.Command {
	c := global.NewConn(deps.HTTPClient)
	var (
		pattern, reason string
		list, undo      bool
		proposed        bool
	)
	cmd := &cobra.Command{
		Use:   name + " SUBJECT [FIELD]",
		Short: "Record, list or undo reviewed PII false positives",
		Long: `Record that FIELD of SUBJECT (its path, .note, or its full name, shop.Order.note)
was reviewed and is not personal data, with a --reason: PII_UNTAGGED and
PII_NEW_FIELD_WITH_CONSUMERS stop reporting it, in the registry and in charter
check. --pattern limits the dismissal to one detector pattern (PII_EMAIL,
PII_PERSON_NAME …, as the finding names it); without it the dismissal covers
every pattern. A tag still counts: a dismissed field tagged PII is PII.

FIELD must be a field of a registered version: for one of a schema you are
about to register (which PII_UNTAGGED would refuse), pass --proposed.
Recording the same field and pattern again replaces the dismissal. --list shows
the subject's dismissals (who, when, why); --undo removes the one of FIELD and
--pattern (without --pattern, the one that covers every pattern).`,
		Example: `  charter dismiss orders-value .note --pattern PII_PERSON_NAME --reason 'free text about the parcel, reviewed by privacy'
  charter dismiss orders-value --list
  charter dismiss orders-value --list -o json
  charter dismiss orders-value .note --pattern PII_PERSON_NAME --undo`,
		Args:              cobra.RangeArgs(1, 2),
		ValidArgsFunction: global.CompleteSubjectThenNothing,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.Client(cmd, "text", "json")
			if err != nil {
				return err
			}
			subject, field := args[0], ""
			if len(args) == 2 {
				field = strings.TrimSpace(args[1])
			}
			pattern = strings.TrimSpace(pattern)
			if err := checkArgs(cmd, field, pattern, reason, list, undo); err != nil {
				return err
			}
			ctx, out := cmd.Context(), cmd.OutOrStdout()
			switch {
			case list:
				ds, err := cl.Dismissals(ctx, subject)
				if err != nil {
					return fmt.Errorf("list the dismissals of %s: %w", subject, err)
				}
				if ds == nil {
					ds = []client.Dismissal{}
				}
				if c.Format == "json" {
					return global.WriteJSON(out, ds)
				}
				return writeList(out, subject, ds)
			case undo:
				d, err := cl.DeleteDismissal(ctx, subject, field, pattern)
				if err != nil {
					return fmt.Errorf("undo the dismissal of %s for %s in %s: %w", patternName(pattern), field, subject, err)
				}
				if c.Format == "json" {
					return global.WriteJSON(out, d)
				}
				_, err = fmt.Fprintf(out, "undid the dismissal of %s for %s in %s; the PII rules report it again\n", patternName(d.PatternID), d.Field, subject)
				return err
			default:
				d, err := cl.Dismiss(ctx, subject, field, pattern, strings.TrimSpace(reason), proposed)
				if err != nil {
					return fmt.Errorf("dismiss %s for %s in %s: %w", patternName(pattern), field, subject, err)
				}
				if c.Format == "json" {
					return global.WriteJSON(out, d)
				}
				_, err = fmt.Fprintf(out, "dismissed %s for %s in %s (by %s: %s)\n", patternName(d.PatternID), d.Field, subject, d.By, d.Reason)
				return err
			}
		},
	}
	c.Flags(cmd)
	f := cmd.Flags()
	f.StringVar(&pattern, "pattern", "", "the detector pattern the finding names (PII_EMAIL …); default: every pattern")
	f.StringVar(&reason, "reason", "", "why the field is not personal data (required to dismiss)")
	f.BoolVar(&list, "list", false, "list the subject's dismissals")
	f.BoolVar(&undo, "undo", false, "remove the dismissal of FIELD and --pattern")
	f.BoolVar(&proposed, "proposed", false, "FIELD is in a schema not registered yet (without it, a field no registered version has is refused)")
	cmd.MarkFlagsMutuallyExclusive("list", "undo")
	if err := cmd.RegisterFlagCompletionFunc("pattern", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var ids []string
		for _, p := range pii.Patterns() {
			ids = append(ids, p.ID)
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	}); err != nil {
		panic(err)
	}
	return cmd
}

// checkArgs checks the arguments of each form before any request.
func checkArgs(cmd *cobra.Command, field, pattern, reason string, list, undo bool) error {
	switch {
	case list:
		if field != "" || cmd.Flags().Changed("pattern") || cmd.Flags().Changed("reason") || cmd.Flags().Changed("proposed") {
			return errors.New("--list takes only SUBJECT (no FIELD, --pattern, --reason or --proposed)")
		}
		return nil
	case field == "":
		return errors.New("name the FIELD to dismiss (its path, .note, or full name), or pass --list")
	case undo && (cmd.Flags().Changed("reason") || cmd.Flags().Changed("proposed")):
		return errors.New("--undo takes no --reason or --proposed")
	case !undo && strings.TrimSpace(reason) == "":
		return fmt.Errorf("a dismissal needs --reason: why %s is not personal data", field)
	}
	if _, ok := rules.Lookup(pattern); ok {
		return fmt.Errorf("--pattern %s is a rule, not a detector pattern: use the pattern the finding names (PII_EMAIL …), or no --pattern to cover every pattern", pattern)
	}
	return nil
}

// patternName is how a dismissal's pattern reads in a sentence.
func patternName(pattern string) string {
	if pattern == "" {
		return "every PII pattern"
	}
	return pattern
}

// writeList prints the dismissals as a table, oldest first as the registry
// lists them.
func writeList(w io.Writer, subject string, ds []client.Dismissal) error {
	if len(ds) == 0 {
		_, err := fmt.Fprintf(w, "%s has no dismissals\n", subject)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIELD\tPATTERN\tBY\tAT\tREASON")
	for _, d := range ds {
		p := d.PatternID
		if p == "" {
			p = "*"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.Field, p, d.By, d.At.UTC().Format(time.RFC3339), d.Reason)
	}
	return tw.Flush()
}

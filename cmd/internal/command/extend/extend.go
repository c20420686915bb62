// Package extend is the `charter extend` command: it grants a consumer
// team a time-bounded extension of a deprecated field or version, with a
// reason and an approver, or revokes it, through the registry's governance
// API.
package extend

import (
	"fmt"
	"net/http"
	"strings"
	"time"

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

// NewCommand returns the extend command.
func NewCommand(name string, deps Deps) *cobra.Command {
	c := global.NewConn(deps.HTTPClient)
	var (
		consumer, reason, approver, until string
		days                              int
		revoke                            bool
	)
	cmd := &cobra.Command{
		Use:   name + " SUBJECT ITEM",
		Short: "Grant a consumer team more time with a deprecated field or version",
		Long: `Let --consumer keep ITEM of SUBJECT (a field path such as .carrier_code, or
version:N) after its deprecation expires, until --until (a date, YYYY-MM-DD, or an
RFC 3339 time) or for --days from now, with a --reason and an --approver. While the
extension runs, registrations that keep the item pass with a notice. Granting again
replaces the consumer's extension; --revoke removes it.`,
		Example: `  charter extend shipments-value .carrier_code --consumer billing --days 30 --reason 'Q2 release' --approver alice
  charter extend shipments-value .carrier_code --consumer billing --revoke`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: global.CompleteSubjectThenNothing,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.Client(cmd, "text", "json")
			if err != nil {
				return err
			}
			if consumer == "" {
				return fmt.Errorf("--consumer is required: the team that still needs %s", args[1])
			}
			if _, err := governance.ParseItem(args[1]); err != nil {
				return err
			}
			ctx, out := cmd.Context(), cmd.OutOrStdout()
			var d client.DeprecationStatus
			if revoke {
				if d, err = cl.RevokeExtension(ctx, args[0], args[1], consumer); err != nil {
					return fmt.Errorf("revoke the extension of %s for %s: %w", args[1], consumer, err)
				}
			} else {
				if err := checkGrant(cmd, days, reason, approver); err != nil {
					return err
				}
				req := client.ExtensionRequest{Consumer: consumer, Days: days, Reason: reason, Approver: approver}
				if until != "" {
					t, err := parseTime(until)
					if err != nil {
						return err
					}
					req.Until = t
				}
				if d, err = cl.GrantExtension(ctx, args[0], args[1], req); err != nil {
					return fmt.Errorf("extend %s of %s for %s: %w", args[1], args[0], consumer, err)
				}
			}
			if c.Format == "json" {
				return global.WriteJSON(out, d)
			}
			if revoke {
				_, err = fmt.Fprintf(out, "%s's extension of %s in %s revoked; the item is %s\n", consumer, args[1], args[0], d.State)
				return err
			}
			// The line names the extension granted, not d.ExtendedUntil
			// (the latest end of any consumer's extension).
			mine := extensionOf(d, consumer)
			if mine == nil {
				return fmt.Errorf("extend %s of %s for %s: the registry's answer lists no extension for %s", args[1], args[0], consumer, consumer)
			}
			if _, err = fmt.Fprintf(out, "%s may keep %s in %s until %s (the deprecation expires on %s)\n",
				consumer, args[1], args[0], global.Date(mine.Until), global.Date(d.ExpiresAt)); err != nil {
				return err
			}
			if mine.Until.Before(d.ExpiresAt) {
				_, err = fmt.Fprintf(out, "note: the extension ends before the deprecation expires (%s), so it has no effect\n", global.Date(d.ExpiresAt))
			}
			return err
		},
	}
	c.Flags(cmd)
	f := cmd.Flags()
	f.StringVar(&consumer, "consumer", "", "the consumer team that still needs the item (required)")
	f.IntVar(&days, "days", 0, fmt.Sprintf("length of the extension in days from now, 1 to %d", governance.MaxTTLDays))
	f.StringVar(&until, "until", "", "end of the extension: YYYY-MM-DD (UTC midnight) or an RFC 3339 time")
	f.StringVar(&reason, "reason", "", "why the consumer needs more time (required to grant)")
	f.StringVar(&approver, "approver", "", "who approved the extension (required to grant)")
	f.BoolVar(&revoke, "revoke", false, "remove the consumer's extension")
	cmd.MarkFlagsMutuallyExclusive("days", "until")
	return cmd
}

// parseTime reads YYYY-MM-DD (UTC midnight) or an RFC 3339 time.
func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid --until %q: want YYYY-MM-DD or an RFC 3339 time", s)
	}
	return t, nil
}

// checkGrant checks a grant's flags before any request: --days within 1
// to governance.MaxTTLDays (a larger count overflows the server's
// duration), --reason and --approver given (the registry requires both).
func checkGrant(cmd *cobra.Command, days int, reason, approver string) error {
	if cmd.Flags().Changed("days") && (days < 1 || days > governance.MaxTTLDays) {
		if days > governance.MaxTTLDays {
			return fmt.Errorf("--days %d is more than %d days away; want 1 to %d", days, governance.MaxTTLDays, governance.MaxTTLDays)
		}
		return fmt.Errorf("--days %d: want 1 to %d", days, governance.MaxTTLDays)
	}
	var missing []string
	if strings.TrimSpace(reason) == "" {
		missing = append(missing, "--reason")
	}
	if strings.TrimSpace(approver) == "" {
		missing = append(missing, "--approver")
	}
	if len(missing) > 0 {
		return fmt.Errorf("an extension needs %s", strings.Join(missing, " and "))
	}
	return nil
}

// extensionOf returns consumer's extension of d, nil when none.
func extensionOf(d client.DeprecationStatus, consumer string) *client.Extension {
	for i := range d.Extensions {
		if d.Extensions[i].Consumer == consumer {
			return &d.Extensions[i]
		}
	}
	return nil
}

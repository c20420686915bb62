// Package audit is the `charter audit` command: it prints the registry's
// audit log (every governance change with who, when and what), filtered by
// subject, action, actor and time.
package audit

import (
	"fmt"
	"net/http"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/registry/client"
)

// Deps are the command's connections to the outside world.
type Deps struct {
	// HTTPClient talks to the registry (default: global.Connect's).
	HTTPClient *http.Client
}

// auditPage is how many entries read asks for at a time under --context
// (the registry's default and cap of one answer).
const auditPage = 1000

// read returns the entries of q. The registry's log is the whole
// registry's; under --context ($CHARTER_CONTEXT) q.Subject is qualified
// with the context and only the context's entries are kept, reading on
// (--after the last one seen) until q.Limit of them (default: one page)
// or the end of the log.
func read(cmd *cobra.Command, cl *client.Client, q client.AuditQuery) ([]client.AuditEntry, error) {
	in, qualify, ok := global.ContextFilter(cmd)
	if !ok {
		return cl.Audit(cmd.Context(), q)
	}
	q.Subject = qualify(q.Subject)
	want := q.Limit
	if want <= 0 {
		want = auditPage
	}
	q.Limit = auditPage
	out := []client.AuditEntry{}
	for {
		es, err := cl.Audit(cmd.Context(), q)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if in(e.Subject) && len(out) < want {
				out = append(out, e)
			}
		}
		if len(es) < auditPage || len(out) >= want {
			return out, nil
		}
		q.After = es[len(es)-1].ID
	}
}

// NewCommand returns the audit command.
func NewCommand(name string, deps Deps) *cobra.Command {
	c := global.NewConn(deps.HTTPClient)
	var (
		q            client.AuditQuery
		since, until string
	)
	cmd := &cobra.Command{
		Use:   name,
		Short: "Print the audit log of governance changes",
		Long: `Print the registry's audit log, oldest first: every change of ownership, config,
mode, policy, deprecation, extension, tags and dismissals, and every registration
and delete, with when, who (X-Charter-Actor, the basic-auth user, or anonymous) and
what. --since and --until take YYYY-MM-DD (UTC) or RFC 3339 times; --after pages.
Under --context, only that context's entries (its subjects and its own level),
and --subject names a subject of it.`,
		Example: `  charter audit --subject shipments-value
  charter audit --action deprecation. --since 2026-01-01 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := c.Client(cmd, "text", "json")
			if err != nil {
				return err
			}
			for _, f := range []struct {
				name, v string
				dst     *time.Time
			}{{"since", since, &q.Since}, {"until", until, &q.Until}} {
				if f.v == "" {
					continue
				}
				t, err := time.Parse("2006-01-02", f.v)
				if err != nil {
					if t, err = time.Parse(time.RFC3339, f.v); err != nil {
						return fmt.Errorf("invalid --%s %q: want YYYY-MM-DD or an RFC 3339 time", f.name, f.v)
					}
				}
				*f.dst = t
			}
			es, err := read(cmd, cl, q)
			if err != nil {
				return fmt.Errorf("read the audit log: %w", err)
			}
			out := cmd.OutOrStdout()
			if c.Format == "json" {
				return global.WriteJSON(out, es)
			}
			if len(es) == 0 {
				_, err := fmt.Fprintln(out, "no audit entries")
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tTIME\tACTOR\tACTION\tSUBJECT\tTARGET")
			for _, e := range es {
				subject := e.Subject
				if subject == "" {
					subject = "(global)"
				}
				target := e.Target
				if target == "" {
					target = "-"
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.Time.UTC().Format(time.RFC3339), e.Actor, e.Action, subject, target)
			}
			return tw.Flush()
		},
	}
	c.Flags(cmd)
	f := cmd.Flags()
	f.StringVar(&q.Subject, "subject", "", "only this subject's entries")
	f.StringVar(&q.Action, "action", "", "only actions starting with this (owner., deprecation.create …)")
	f.StringVar(&q.Actor, "by", "", "only the entries of this actor")
	f.StringVar(&since, "since", "", "only entries at or after this time")
	f.StringVar(&until, "until", "", "only entries before this time")
	f.Int64Var(&q.After, "after", 0, "only entries with a greater ID (paging)")
	f.IntVar(&q.Limit, "limit", 0, "at most this many entries (the server's default: 1000)")
	global.CompleteSubjectFlag(cmd, "subject")
	return cmd
}

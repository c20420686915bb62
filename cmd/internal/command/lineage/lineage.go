// Package lineage is the `charter lineage` command: who reads what of the
// registry's subjects. `impact` lists the consumers a field change
// affects, `pii` who reads fields tagged PII and since when,
// `deprecations` the migration status of deprecated fields, `graph`
// exports the lineage graph as Graphviz DOT, Mermaid or JSON; all through
// the registry's lineage API (Charter issue 5).
package lineage

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/client"
)

// Deps are the command's connections to the outside world.
type Deps struct {
	// HTTPClient talks to the registry (default: global.Connect's).
	HTTPClient *http.Client
}

// NewCommand returns the `lineage` command and its sub-commands.
func NewCommand(name string, deps Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name,
		Short: "Ask who consumes what: field change impact, PII exposure, deprecation migrations, the lineage graph",
		Example: `  # Who breaks if .carrier_code of shipments-value changes?
  charter lineage impact --subject shipments-value --field .carrier_code

  # Which consumers have moved off a deprecated field, and who still reads it
  charter lineage deprecations --subject shipments-value

  # The whole graph as Graphviz
  charter lineage graph --format dot > lineage.dot

  # Declare who writes and who reads a subject, and list them
  charter lineage producers set shipments-value fulfillment --versions 3,4
  charter lineage consumers set shipments-value billing --fields .id,.carrier_code --from 2
  charter lineage consumers list shipments-value`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newImpactCommand("impact", deps), newPIICommand("pii", deps), newDeprecationsCommand("deprecations", deps),
		newGraphCommand("graph", deps),
		newProducersCommand("producers", deps), newConsumersCommand("consumers", deps)) // declared.go
	return cmd
}

func newImpactCommand(name string, deps Deps) *cobra.Command {
	var q client.ImpactQuery
	cmd := &cobra.Command{
		Use:   name + " --subject SUBJECT --field PATH",
		Short: "List the consumers a change of one field affects",
		Long: `List the consumers that read a field of a subject, from the contracts they
published and the reads declared by hand: who breaks if the field is removed,
renamed, retyped or deprecated (--change, default remove). Field paths start
with '.', as ".carrier_code" or ".carrier.code".`,
		Example: `  charter lineage impact --subject shipments-value --field .carrier_code
  charter lineage impact --subject shipments-value --field .carrier_code --change deprecate -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if q.Subject == "" || q.Path == "" {
				return fmt.Errorf("lineage impact: --subject and --field are required")
			}
			format, cl, err := connect(cmd, deps)
			if err != nil {
				return err
			}
			imp, err := cl.Impact(cmd.Context(), q)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				return writeJSON(out, imp)
			}
			change := q.Change
			if change == "" {
				change = "remove"
			}
			if len(imp) == 0 {
				_, err := fmt.Fprintf(out, "no consumer of %s reads %s\n", q.Subject, q.Path)
				return err
			}
			fmt.Fprintf(out, "%s of %s %s affects %s:\n", change, q.Subject, q.Path, rule.Plural(len(imp), "consumer"))
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CONSUMER\tREADS\tVERSIONS\tSOURCE\tSINCE")
			for _, i := range imp {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", i.Service, strings.Join(i.Fields, ","), i.Range, source(i.Source, i.ContractVersion, i.Branch), date(i.Since))
			}
			return tw.Flush()
		},
	}
	f := cmd.Flags()
	f.StringVar(&q.Subject, "subject", "", "subject (required)")
	f.StringVar(&q.Path, "field", "", `field path, e.g. ".carrier_code" (required)`)
	f.StringVar(&q.Change, "change", "", "the change: remove, rename, retype or deprecate (default remove)")
	f.IntVar(&q.Version, "version", 0, "only consumers reading this version")
	global.Enum(cmd, "change", "remove", "rename", "retype", "deprecate")
	global.CompleteSubjectFlag(cmd, "subject")
	global.CompleteVersionFlag(cmd, "version", "subject")
	return cmd
}

func newPIICommand(name string, deps Deps) *cobra.Command {
	var subject, tag string
	cmd := &cobra.Command{
		Use:   name,
		Short: "List who reads fields tagged PII, and since when",
		Long: `List every field tagged PII (or --tag) of every subject (or --subject) with the
consumers that read it: the fields they read, the versions, whether a
published contract or a declaration says so, and since when.`,
		Example: `  charter lineage pii
  charter lineage pii --subject customers-value --tag GDPR -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, cl, err := connect(cmd, deps)
			if err != nil {
				return err
			}
			exp, err := cl.PIIExposure(cmd.Context(), subject, tag)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				return writeJSON(out, exp)
			}
			if tag == "" {
				tag = "PII"
			}
			if len(exp) == 0 {
				_, err := fmt.Fprintf(out, "no field tagged %s\n", tag)
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SUBJECT\tFIELD\tTAGS\tCONSUMER\tVERSIONS\tSOURCE\tSINCE")
			for _, e := range exp {
				if len(e.Readers) == 0 {
					fmt.Fprintf(tw, "%s\t%s\t%s\t-\t\t\t\n", e.Subject, e.Path, strings.Join(e.Tags, ","))
				}
				for _, r := range e.Readers {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Subject, e.Path, strings.Join(e.Tags, ","), r.Service, r.Range, r.Source, date(r.Since))
				}
			}
			return tw.Flush()
		},
	}
	f := cmd.Flags()
	f.StringVar(&subject, "subject", "", "only this subject (default: every subject)")
	f.StringVar(&tag, "tag", "", "the tag (default PII)")
	global.CompleteSubjectFlag(cmd, "subject")
	return cmd
}

func newDeprecationsCommand(name string, deps Deps) *cobra.Command {
	var subject, field string
	cmd := &cobra.Command{
		Use:   name + " --subject SUBJECT [--field PATH]",
		Short: "Show who has migrated off each deprecated field, who still reads it, who holds an extension",
		Long: `For each deprecated field of a subject (or only --field), show its countdown
and its consumers, from the lineage history: migrated (they read the field
and no longer do), reading (they still read it with no running extension) and
extended (they read it under an extension, until when).`,
		Example: `  charter lineage deprecations --subject shipments-value
  charter lineage deprecations --subject shipments-value --field .carrier_code -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if subject == "" {
				return fmt.Errorf("lineage deprecations: --subject is required")
			}
			format, cl, err := connect(cmd, deps)
			if err != nil {
				return err
			}
			ms, err := cl.DeprecationMigrations(cmd.Context(), subject, field)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				return writeJSON(out, ms)
			}
			if len(ms) == 0 {
				_, err := fmt.Fprintf(out, "%s has no deprecated field\n", subject)
				return err
			}
			for i, m := range ms {
				if i > 0 {
					fmt.Fprintln(out)
				}
				writeMigration(out, m)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&subject, "subject", "", "subject (required)")
	f.StringVar(&field, "field", "", `only this deprecated field, e.g. ".carrier_code"`)
	global.CompleteSubjectFlag(cmd, "subject")
	return cmd
}

// writeMigration prints one field's migration status: a heading with the
// countdown and counts, then one row per consumer.
func writeMigration(out io.Writer, m client.DeprecationMigration) {
	when := fmt.Sprintf("deprecated, expires on %s (%s left)", date(m.ExpiresAt), rule.Plural(m.DaysLeft, "day"))
	if m.State == "expired" {
		when = "expired on " + date(m.ExpiresAt)
	}
	use := ""
	if m.Replacement != "" {
		use = "; use " + m.Replacement + " instead"
	}
	fmt.Fprintf(out, "%s %s: %s%s\n", m.Subject, m.Path, when, use)
	fmt.Fprintf(out, "%d migrated, %d still reading, %d extended\n", len(m.Migrated), len(m.Reading), len(m.Extended))
	if len(m.Migrated)+len(m.Reading)+len(m.Extended) == 0 {
		fmt.Fprintln(out, "no consumer has read it")
		return
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CONSUMER\tSTATUS\tSOURCE\tDETAIL")
	for _, c := range m.Migrated {
		how := "since " + date(c.At)
		if c.Withdrawn {
			how = "withdrawn " + date(c.At)
		}
		fmt.Fprintf(tw, "%s\tmigrated\t-\t%s\n", c.Consumer, how)
	}
	for _, c := range m.Reading {
		fmt.Fprintf(tw, "%s\treading\t%s\treads %s since %s\n", c.Consumer, source(c.Source, c.ContractVersion, ""), strings.Join(c.Fields, ","), date(c.Since))
	}
	for _, c := range m.Extended {
		fmt.Fprintf(tw, "%s\textended\t%s\tuntil %s (%s left)\n", c.Consumer, source(c.Source, c.ContractVersion, ""), date(c.Until), rule.Plural(c.DaysLeft, "day"))
	}
	_ = tw.Flush()
}

func newGraphCommand(name string, deps Deps) *cobra.Command {
	var subject, at, format string
	cmd := &cobra.Command{
		Use:   name,
		Short: "Export the lineage graph as Graphviz DOT, Mermaid or JSON",
		Long: `Print the lineage graph of every subject (or --subject): services, subjects,
versions and fields, with produces, consumes and reads edges, as the registry
renders it. --at shows the graph as it was at an RFC 3339 time.`,
		Example: `  charter lineage graph | dot -Tsvg > lineage.svg
  charter lineage graph --subject shipments-value --format mermaid
  charter lineage graph --at 2026-01-01T00:00:00Z --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("format") {
				// -o json is --format json; -o text keeps the default, DOT.
				if o, err := global.Output(cmd, "text", "json"); err != nil {
					return err
				} else if o == "json" {
					format = client.GraphJSON
				}
			}
			format = strings.ToLower(format)
			switch format {
			case client.GraphDOT, client.GraphMermaid, client.GraphJSON:
			default:
				return fmt.Errorf("lineage graph: invalid --format %q: want dot, mermaid or json", format)
			}
			var when time.Time
			if at != "" {
				t, err := time.Parse(time.RFC3339Nano, at)
				if err != nil {
					return fmt.Errorf("lineage graph: --at %q is not an RFC 3339 time (2026-01-01T00:00:00Z)", at)
				}
				when = t
			}
			cl, err := newClient(cmd, deps)
			if err != nil {
				return err
			}
			b, err := cl.LineageGraphText(cmd.Context(), subject, when, format)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&subject, "subject", "", "only this subject (default: every subject)")
	f.StringVar(&at, "at", "", "the graph as of this RFC 3339 time (default: now)")
	f.StringVar(&format, "format", "dot", "graph format: dot, mermaid or json (-o json is json)")
	global.Enum(cmd, "format", client.GraphDOT, client.GraphMermaid, client.GraphJSON)
	global.CompleteSubjectFlag(cmd, "subject")
	return cmd
}

// connect reads the global --output (text or json) and returns the
// registry client.
func connect(cmd *cobra.Command, deps Deps) (string, *client.Client, error) {
	format, err := global.Output(cmd, "text", "json")
	if err != nil {
		return "", nil, err
	}
	cl, err := newClient(cmd, deps)
	return format, cl, err
}

func newClient(cmd *cobra.Command, deps Deps) (*client.Client, error) {
	return global.Connect(cmd, global.Target{HTTPClient: deps.HTTPClient})
}

func source(s, contractVersion, branch string) string {
	if contractVersion != "" {
		s += " " + contractVersion
	}
	if branch != "" {
		s += " (" + branch + ")"
	}
	return s
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func date(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02")
}

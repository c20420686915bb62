package lineage

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/registry/client"
)

// The declared lineage: `charter lineage producers|consumers
// list|set|remove`, over PUT and DELETE
// /governance/subjects/{s}/producers|consumers/{service}; the lists are
// read from the subject's lineage graph (GET /governance/lineage/graph).

func newProducersCommand(name string, deps Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name,
		Short: "List, declare and remove the services that produce a subject",
		Long: `The producers of a subject are the services that write it, declared by hand (a
registration says nothing of who writes): list shows them with the versions
they emit, set declares one (or replaces its versions), remove forgets one.
Declaring or removing a producer takes the subject's owner on a registry with
authentication.`,
		Example: `  charter lineage producers list shipments-value
  charter lineage producers set shipments-value fulfillment --versions 3,4
  charter lineage producers remove shipments-value fulfillment`,
		Args: cobra.NoArgs,
	}
	list := &cobra.Command{
		Use:               "list SUBJECT",
		Short:             "List the producers of a subject",
		Example:           "  charter lineage producers list shipments-value -o json",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: global.CompleteSubjects,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, cl, err := connect(cmd, deps)
			if err != nil {
				return err
			}
			ps, _, err := declared(cmd, cl, args[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				return writeJSON(out, ps)
			}
			if len(ps) == 0 {
				_, err := fmt.Fprintf(out, "%s has no declared producer\n", args[0])
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "PRODUCER\tVERSIONS")
			for _, p := range ps {
				fmt.Fprintf(tw, "%s\t%s\n", p.Service, versionList(p.Versions))
			}
			return tw.Flush()
		},
	}
	var versions []int
	set := &cobra.Command{
		Use:               "set SUBJECT SERVICE",
		Short:             "Declare that a service produces a subject",
		Long:              "Declare that SERVICE writes SUBJECT, with the versions it emits (--versions; none: unspecified). Declaring it again replaces the versions.",
		Example:           "  charter lineage producers set shipments-value fulfillment --versions 3,4",
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: global.CompleteSubjects,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, cl, err := connect(cmd, deps)
			if err != nil {
				return err
			}
			for _, v := range versions {
				if v < 1 {
					return fmt.Errorf("invalid --versions %d: want versions ≥ 1", v)
				}
			}
			ch, err := cl.SetProducer(cmd.Context(), args[0], args[1], versions)
			if err != nil {
				return err
			}
			return writeChange(cmd.OutOrStdout(), format, ch, fmt.Sprintf("%s produces %s (versions %s)", args[1], args[0], versionList(versions)))
		},
	}
	set.Flags().IntSliceVar(&versions, "versions", nil, "versions the service emits, comma-separated (default: unspecified)")
	global.AddActorFlag(set)
	remove := &cobra.Command{
		Use:               "remove SUBJECT SERVICE",
		Aliases:           []string{"rm"},
		Short:             "Forget a producer of a subject",
		Example:           "  charter lineage producers remove shipments-value fulfillment",
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: completeDeclared(deps, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, cl, err := connect(cmd, deps)
			if err != nil {
				return err
			}
			ch, err := cl.RemoveProducer(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			return writeChange(cmd.OutOrStdout(), format, ch, fmt.Sprintf("%s no longer produces %s", args[1], args[0]))
		},
	}
	global.AddActorFlag(remove)
	cmd.AddCommand(list, set, remove)
	return cmd
}

func newConsumersCommand(name string, deps Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name,
		Short: "List, declare and remove the services that consume a subject",
		Long: `The consumers of a subject are the services that read it: those whose published
contracts say which fields they read (source contract), and those declared by
hand (source declared). list shows both; set declares the field paths a
service reads (replacing what was declared), from version --from (default 1)
up to --to (default: every later version); remove forgets a declaration (a
published contract stays: charter contracts publish replaces it). Declaring
for a team's service takes that team on a registry with authentication.`,
		Example: `  charter lineage consumers list shipments-value
  charter lineage consumers set shipments-value billing --fields .id,.carrier_code --from 2
  charter lineage consumers remove shipments-value billing`,
		Args: cobra.NoArgs,
	}
	list := &cobra.Command{
		Use:               "list SUBJECT",
		Short:             "List the consumers of a subject, declared or from contracts",
		Example:           "  charter lineage consumers list shipments-value -o json",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: global.CompleteSubjects,
		RunE: func(cmd *cobra.Command, args []string) error {
			format, cl, err := connect(cmd, deps)
			if err != nil {
				return err
			}
			_, cs, err := declared(cmd, cl, args[0])
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				return writeJSON(out, cs)
			}
			if len(cs) == 0 {
				_, err := fmt.Fprintf(out, "%s has no known consumer\n", args[0])
				return err
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CONSUMER\tREADS\tVERSIONS\tSOURCE\tSINCE")
			for _, c := range cs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Service, strings.Join(c.Fields, ","), c.Range, source(c.Source, c.ContractVersion, c.Branch), date(c.Since))
			}
			return tw.Flush()
		},
	}
	var fields []string
	var from, to int
	set := &cobra.Command{
		Use:   "set SUBJECT SERVICE --fields PATH,...",
		Short: "Declare the fields a service reads of a subject",
		Long: `Declare by hand that SERVICE reads the field paths --fields of SUBJECT (".id",
".carrier.code"), from version --from (default 1) to --to (default: every later
version). Declaring it again replaces the fields and versions.`,
		Example:           "  charter lineage consumers set shipments-value billing --fields .id,.carrier_code --from 2",
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: global.CompleteSubjects,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(fields) == 0 {
				return fmt.Errorf("lineage consumers set: --fields is required (the field paths %s reads, such as .id)", args[1])
			}
			if from < 0 || to < 0 || (to > 0 && to < max(from, 1)) {
				return fmt.Errorf("invalid --from %d --to %d: want 1 ≤ from ≤ to (to 0: every later version)", from, to)
			}
			format, cl, err := connect(cmd, deps)
			if err != nil {
				return err
			}
			r := &client.VersionRange{From: max(from, 1), To: to}
			ch, err := cl.DeclareConsumer(cmd.Context(), args[0], args[1], fields, r)
			if err != nil {
				return err
			}
			what := fmt.Sprintf("%s reads %s of %s", args[1], strings.Join(fields, ", "), args[0])
			if ch.Consumer != nil {
				what += " (versions " + ch.Consumer.Range.String() + ")"
			}
			return writeChange(cmd.OutOrStdout(), format, ch, what)
		},
	}
	set.Flags().StringSliceVar(&fields, "fields", nil, `field paths the service reads, comma-separated, such as ".id,.carrier_code" (required)`)
	set.Flags().IntVar(&from, "from", 0, "first version it reads (default 1)")
	set.Flags().IntVar(&to, "to", 0, "last version it reads (default: every later version)")
	global.AddActorFlag(set)
	remove := &cobra.Command{
		Use:               "remove SUBJECT SERVICE",
		Aliases:           []string{"rm"},
		Short:             "Forget a declared consumer of a subject",
		Example:           "  charter lineage consumers remove shipments-value billing",
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: completeDeclared(deps, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, cl, err := connect(cmd, deps)
			if err != nil {
				return err
			}
			ch, err := cl.RemoveConsumer(cmd.Context(), args[0], args[1])
			if err != nil {
				return err
			}
			return writeChange(cmd.OutOrStdout(), format, ch, fmt.Sprintf("%s is no longer declared a consumer of %s", args[1], args[0]))
		},
	}
	global.AddActorFlag(remove)
	cmd.AddCommand(list, set, remove)
	return cmd
}

// declared returns the producers and consumers of subject, by service,
// from its lineage graph.
func declared(cmd *cobra.Command, cl *client.Client, subject string) ([]client.Producer, []client.Consumer, error) {
	g, err := cl.LineageGraph(cmd.Context(), subject, time.Time{})
	if err != nil {
		return nil, nil, err
	}
	names := map[string]string{}
	for _, n := range g.Nodes {
		names[n.ID] = n.Name
	}
	// The graph names the subject as the registry records it: qualified
	// under --context (subject::.ctx:name).
	to := "subject:" + cl.Qualified(subject)
	ps, cs := []client.Producer{}, []client.Consumer{}
	for _, e := range g.Edges {
		if e.To != to {
			continue
		}
		service := names[e.From]
		if service == "" {
			service = strings.TrimPrefix(e.From, "service:")
		}
		switch e.Kind {
		case "produces":
			ps = append(ps, client.Producer{Service: service, Subject: subject, Versions: e.Versions})
		case "consumes":
			c := client.Consumer{Service: service, Subject: subject, Fields: e.Fields, Source: e.Source, Since: e.Since}
			if e.Range != nil {
				c.Range = *e.Range
			}
			if c.Fields == nil {
				c.Fields = []string{}
			}
			cs = append(cs, c)
		}
	}
	return ps, cs, nil
}

// completeDeclared completes SUBJECT SERVICE: the subjects, then the
// subject's producers (or consumers).
func completeDeclared(deps Deps, producers bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return global.CompleteSubjects(cmd, args, toComplete)
		}
		if len(args) > 1 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		cl, err := newClient(cmd, deps)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ps, cs, err := declared(cmd, cl, args[0])
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		if producers {
			for _, p := range ps {
				out = append(out, p.Service)
			}
		} else {
			for _, c := range cs {
				if c.Source == "declared" {
					out = append(out, c.Service)
				}
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// writeChange prints a lineage change: the change as JSON, or what it
// declares as one line.
func writeChange(w io.Writer, format string, ch client.LineageChange, what string) error {
	if format == "json" {
		return writeJSON(w, ch)
	}
	_, err := fmt.Fprintf(w, "%s (revision %d)\n", what, ch.Revision)
	return err
}

// versionList is "3, 4", or "unspecified" for none.
func versionList(vs []int) string {
	if len(vs) == 0 {
		return "unspecified"
	}
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ", ")
}

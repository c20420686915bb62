// Package changelog is the `charter changelog` command: it prints a
// subject's changelog, each version with its semantic version, its class
// (major, minor, patch) and its changes as sentences, from the registry's
// governance API.
package changelog

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/registry/client"
)

// Deps are the command's connections to the outside world.
type Deps struct {
	// HTTPClient talks to the registry (default: global.Connect's).
	HTTPClient *http.Client
}

// NewCommand returns the changelog command.
func NewCommand(name string, deps Deps) *cobra.Command {
	c := global.NewConn(deps.HTTPClient)
	cmd := &cobra.Command{
		Use:   name + " SUBJECT",
		Short: "Print a subject's changelog: semantic versions and changes per version",
		Long: `Print the changelog of SUBJECT: every live version with its semantic version,
its class (major: breaks readers at the subject's compatibility level; minor:
additive; patch: no structural change) and its changes as sentences, with the
deprecations and extensions declared through the registry.`,
		Example: `  charter changelog shipments-value
  charter changelog shipments-value -o markdown > CHANGELOG.md`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: global.CompleteSubjectThenNothing,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := c.Client(cmd, "text", "json", "markdown")
			if err != nil {
				return err
			}
			log, err := cl.Changelog(cmd.Context(), args[0])
			if err != nil {
				return fmt.Errorf("changelog of %s: %w", args[0], err)
			}
			out := cmd.OutOrStdout()
			switch c.Format {
			case "json":
				return global.WriteJSON(out, log)
			case "markdown":
				return markdown(out, log)
			}
			return text(out, log)
		},
	}
	c.Flags(cmd)
	return cmd
}

// entries returns the entries newest first.
func entries(log client.Changelog) []client.VersionRecord {
	es := slices.Clone(log.Entries)
	slices.Reverse(es)
	return es
}

func heading(e client.VersionRecord) string {
	h := fmt.Sprintf("%s (version %d, schema %d", e.SemVer, e.Version, e.SchemaID)
	if e.Bump != "" && e.Bump != "none" {
		h += ", " + e.Bump
	}
	if !e.RegisteredAt.IsZero() {
		h += ", " + global.Date(e.RegisteredAt)
		if e.By != "" {
			h += " by " + e.By
		}
	}
	return h + ")"
}

func text(w io.Writer, log client.Changelog) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Changelog of %s\n", log.Subject)
	for _, e := range entries(log) {
		fmt.Fprintf(&b, "\n%s\n", heading(e))
		for _, ch := range e.Changes {
			fmt.Fprintf(&b, "  - %s%s\n", ch.Text, tag(ch.Bump))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func markdown(w io.Writer, log client.Changelog) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Changelog of %s\n", log.Subject)
	for _, e := range entries(log) {
		fmt.Fprintf(&b, "\n## %s\n\n", heading(e))
		for _, ch := range e.Changes {
			fmt.Fprintf(&b, "- %s%s\n", ch.Text, tag(ch.Bump))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tag marks a change's class after its sentence: " [minor]"; nothing for
// governance notes (bump none).
func tag(bump string) string {
	if bump == "" || bump == "none" {
		return ""
	}
	return " [" + bump + "]"
}

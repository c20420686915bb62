// Package initcmd is the `charter init` command: it writes a commented
// starter charter.yaml that maps the schema files found in a directory.
package initcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
)

type options struct {
	force    bool
	registry string
	level    string
	strategy string
	stdout   bool
}

// NewCommand returns the init command.
func NewCommand(name string) *cobra.Command {
	var o options
	cmd := &cobra.Command{
		Use:   name + " [DIR]",
		Short: "Write a starter charter.yaml that maps the schema files found in DIR",
		Long: `Scan DIR (default the current directory) for Avro (.avsc), Protobuf (.proto)
and JSON Schema (.json) files and write DIR/charter.yaml: one entry per directory
and format, with comments on every setting, and commented contracts: and pii:
sections to fill in. The subjects the files map to are printed, so the mapping
can be checked before the first ` + "`charter check`" + `, with the command to run next:
against the repository's default branch (origin/HEAD, else init.defaultBranch
when that branch exists, else the current branch), or without git advice
outside a git repository. Finding no schema file is a warning, not an error.
An existing charter.yaml is kept unless --force is given.`,
		Example: `  # Map the schemas of this repository, comparing with a local registry by default
  charter init --registry http://localhost:8081

  # Print the file instead of writing it
  charter init --stdout ./schemas`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return run(cmd, dir, o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.force, "force", false, "overwrite an existing charter.yaml")
	f.StringVar(&o.registry, "registry", "", "registry URL to write into the file")
	f.StringVar(&o.level, "level", "BACKWARD", "default compatibility level")
	f.StringVar(&o.strategy, "strategy", string(project.TopicValue), "default subject naming strategy: topic-value, topic-key, record or topic-record")
	f.BoolVar(&o.stdout, "stdout", false, "print the file instead of writing it")
	global.Enum(cmd, "level", global.LevelValues()...)
	global.Enum(cmd, "strategy", string(project.TopicValue), string(project.TopicKey), string(project.Record), string(project.TopicRecord))
	return cmd
}

func run(cmd *cobra.Command, dir string, o options) error {
	ctx := cmd.Context()
	format, err := global.Output(cmd, "text", "json")
	if err != nil {
		return err
	}
	if o.stdout && format == "json" {
		return errors.New("init: --stdout prints the YAML file itself; -o json applies to the report of a written file")
	}
	level, err := compat.ParseLevel(o.level)
	if err != nil {
		return fmt.Errorf("--level: %w", err)
	}
	strategy := project.Strategy(o.strategy)
	switch strategy {
	case project.TopicValue, project.TopicKey, project.Record, project.TopicRecord:
	default:
		return fmt.Errorf("invalid --strategy %q: want topic-value, topic-key, record or topic-record", o.strategy)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("init: %s is not a directory", dir)
	}
	text, found, err := project.Starter(ctx, dir, project.InitOptions{Registry: o.registry, Level: level, Strategy: strategy})
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	text = withSections(text)
	// The file must load: a starter that fails its own schema is a bug.
	if _, err := project.ParseConfig(project.ConfigFile, text); err != nil {
		return fmt.Errorf("init: generated an invalid %s (a bug): %w", project.ConfigFile, err)
	}
	var warnings []string
	if len(found) == 0 {
		w := fmt.Sprintf("no schema files (.avsc, .proto, .json) under %s: the file maps none; add schemas: entries, or run charter init where the schemas are", dir)
		warnings = append(warnings, w)
		fmt.Fprintf(cmd.ErrOrStderr(), "charter: warning: %s\n", w)
	}
	if o.stdout {
		_, err := cmd.OutOrStdout().Write(text)
		return err
	}
	path := filepath.Join(dir, project.ConfigFile)
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if o.force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("init: %s exists; pass --force to overwrite it", path)
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if _, err := f.Write(text); err != nil {
		f.Close()
		return fmt.Errorf("init: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("init: write %s: %w", path, err)
	}
	return report(cmd, format, path, dir, len(found), o.registry != "", warnings)
}

// sections are the commented contracts: and pii: sections of the
// starter, for the settings `charter check` reads beyond the schemas.
const sections = `
# Consumer contracts: the Pact message pacts (V3, V4) of this repository's
# consumers, verified against each subject's schema by charter check (rules
# CONTRACT_*): a change that removes or retypes a field a pact reads fails.
# contracts:
#   - pact: "pacts/*.json"        # globs, relative to this file
#     subject: orders-value
#     consumer: billing           # default: the pact's consumer name
#     message: acme.Order         # Protobuf: the message the subject carries

# PII policy of charter check (rules PII_*, see charter rules --category pii):
# the tags that mark personal data, those whose fields must be masked, the
# least detector confidence that counts (low, medium or high) and field names
# that are never personal data.
# pii:
#   pii_tags: [PII, SENSITIVE]
#   mask_tags: [PII]
#   min_confidence: medium
#   allow: [order_id, customer_id]
`

// withSections appends the commented contracts: and pii: sections unless
// the starter already has them.
func withSections(text []byte) []byte {
	for _, key := range []string{"contracts:", "pii:"} {
		if bytes.Contains(text, []byte("\n"+key)) || bytes.Contains(text, []byte("\n# "+key)) {
			return text
		}
	}
	return append(bytes.TrimRight(text, "\n"), []byte("\n"+sections)...)
}

// initReport is the -o json form of the report.
type initReport struct {
	Path     string       `json:"path"`
	Files    int          `json:"files"`
	Schemas  []initSchema `json:"schemas"`
	Warnings []string     `json:"warnings"`
	Next     string       `json:"next,omitempty"`
}

type initSchema struct {
	File    string `json:"file"`
	Format  string `json:"format"`
	Subject string `json:"subject,omitempty"`
	Error   string `json:"error,omitempty"`
}

// report prints what the written file maps, and what to run next.
func report(cmd *cobra.Command, format, path, dir string, n int, registry bool, warnings []string) error {
	p, err := project.Load(path)
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	schemas, err := p.Schemas(cmd.Context())
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	next := ""
	if n > 0 {
		next = nextStep(cmd.Context(), dir, registry)
	}
	out := cmd.OutOrStdout()
	if format == "json" {
		rep := initReport{Path: path, Files: n, Schemas: []initSchema{}, Warnings: warnings, Next: next}
		if rep.Warnings == nil {
			rep.Warnings = []string{}
		}
		for _, s := range schemas {
			is := initSchema{File: s.File, Format: string(s.Format), Subject: s.Subject}
			if s.Err != nil {
				is.Error = s.Err.Error()
			}
			rep.Schemas = append(rep.Schemas, is)
		}
		return global.WriteJSON(out, rep)
	}
	fmt.Fprintf(out, "wrote %s: %s\n", path, rule.Plural(n, "schema file"))
	w := 0
	for _, s := range schemas {
		w = max(w, len(s.File))
	}
	for _, s := range schemas {
		subject := s.Subject
		if s.Err != nil {
			subject = "(does not parse: " + s.Err.Error() + ")"
		}
		fmt.Fprintf(out, "  %-*s  %-8s  %s\n", w, s.File, s.Format, subject)
	}
	if next != "" {
		fmt.Fprintln(out, "next: "+next)
	}
	return nil
}

// nextStep is the closing hint: check against the repository's default
// branch; in a repository without one, against the branch the current one
// started from (never the current branch compared with itself); outside
// git, against the registry or another checkout.
func nextStep(ctx context.Context, dir string, registry bool) string {
	ref, current, inGit := DefaultBranch(ctx, dir)
	switch {
	case ref != "" && registry:
		return "charter check --against git:" + ref + " (or charter check, against the registry in charter.yaml)"
	case ref != "":
		return "charter check --against git:" + ref + " (or set registry: and run charter check)"
	case inGit:
		base := "charter check --against git:BASE, BASE being the branch "
		if current != "" {
			base += current + " "
		} else {
			base += "this commit "
		}
		base += "started from"
		if registry {
			return base + " (or charter check, against the registry in charter.yaml)"
		}
		return base + " (or set registry: and run charter check)"
	case registry:
		return "charter check (against the registry in charter.yaml; --against dir:PATH compares with another checkout)"
	}
	return "set registry: in charter.yaml and run charter check, or compare with another checkout: charter check --against dir:PATH"
}

// gitTimeout bounds each git command DefaultBranch runs.
const gitTimeout = 5 * time.Second

// DefaultBranch returns the ref a `charter check --against git:REF` in
// dir should compare with: the remote's default branch (origin/HEAD, as
// "origin/main"); else the first of init.defaultBranch, main and master
// that the repository has, other than the current branch; else the one
// other local branch when there is exactly one; else the current branch
// when it is itself one of init.defaultBranch, main and master (the
// working tree against the last commit of the main line). Otherwise ref
// is "": on a feature branch with no base to name, the branch compared
// with itself would say nothing. current is the checked-out branch ("" on
// a detached HEAD); inGit is false outside a git repository or without
// git.
func DefaultBranch(ctx context.Context, dir string) (ref, current string, inGit bool) {
	git := func(args ...string) (string, bool) {
		ctx, cancel := context.WithTimeout(ctx, gitTimeout)
		defer cancel()
		c := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
		c.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
		out, err := c.Output()
		return strings.TrimSpace(string(out)), err == nil
	}
	if _, ok := git("rev-parse", "--git-dir"); !ok {
		return "", "", false
	}
	if ref, ok := git("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"); ok && ref != "" {
		return ref, "", true
	}
	current, _ = git("symbolic-ref", "--quiet", "--short", "HEAD")
	var mainLine []string
	if b, ok := git("config", "init.defaultBranch"); ok && b != "" {
		mainLine = append(mainLine, b)
	}
	mainLine = append(mainLine, "main", "master")
	for _, b := range mainLine {
		if b == current {
			continue
		}
		if _, exists := git("rev-parse", "--verify", "--quiet", "refs/heads/"+b); exists {
			return b, current, true
		}
	}
	if list, ok := git("for-each-ref", "--format=%(refname:short)", "refs/heads/"); ok {
		var others []string
		for _, b := range strings.Fields(list) {
			if b != current {
				others = append(others, b)
			}
		}
		if len(others) == 1 {
			return others[0], current, true
		}
	}
	if current != "" && slices.Contains(mainLine, current) {
		return current, current, true
	}
	return "", current, true
}

// Package diff is the `charter diff` command: two schemas compared rule by
// rule, each a file or a registered version.
package diff

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/client"
)

// NewCommand returns the diff command.
func NewCommand(name string) *cobra.Command {
	var format, level, schemaType, subject, profile string
	var importPaths, refs []string
	var events int
	var color *string
	cmd := &cobra.Command{
		Use:   name + " PREVIOUS NEXT",
		Short: "Compare two schemas rule by rule (NEXT as a new version of PREVIOUS)",
		Long: `Compare two schemas of one format rule by rule: NEXT as a new version of
PREVIOUS, at --level (default FULL, so both reading directions are reported).
Each side is a schema file or a registered version, registry:SUBJECT@VERSION
(VERSION a number or latest; registry:SUBJECT means the latest), read from the
registry of --registry. References of registered versions resolve in the
registry; those of files next to each file, or in the registry with --ref.
The text format is coloured on a terminal, as charter check's (--color,
NO_COLOR). Exit code 1 when NEXT is incompatible at the level, 2 on usage,
I/O or registry errors.

--evidence[=N] (N from 1 to 100000) also reads N generated events (default
100) of each writer with each reader (compat/evidence): each finding gets
the smallest event that breaks at its own path, as charter check's (a line
in text, an evidence object in json and sarif), or says no generated event
isolates it; the evidence rules (warnings) report the losses the rules
accept, a summary per direction counts the events read back equal, with a
default, with loss and refused (or says why none was read), and the losses
no rule names are shown with their events; in json the subject carries
them as charter check's does (evidence: counts, notRead, unexplained). It needs each side to parse
alone (no references).`,
		Example: `  # Every rule that an Avro change breaks, in both directions
  charter diff old/order.avsc new/order.avsc

  # Only what stops new consumers from reading old data
  charter diff --level BACKWARD v1.proto v2.proto --format json

  # The working tree's file against the registered latest version
  charter diff registry:orders-value schemas/orders.avsc

  # Two registered versions
  charter diff registry:orders-value@1 registry:orders-value@3

  # A Protobuf change judged by buf's WIRE rules
  charter diff --protobuf-profile WIRE v1.proto v2.proto

  # Each breaking finding with an event that breaks
  charter diff --evidence old/order.avsc new/order.avsc`,
		Args: global.EvidenceArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := global.Format(cmd, format)
			if err != nil {
				return err
			}
			useColor, err := global.Color(*color, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("evidence") {
				if err := evidence.CheckEvents("--evidence", events); err != nil {
					return err
				}
			}
			lvl, err := compat.ParseLevel(level)
			if err != nil {
				return fmt.Errorf("--level: %w", err)
			}
			var t compat.SchemaType
			if schemaType != "" {
				var ok bool
				if t, ok = formats.ParseType(schemaType); !ok {
					return fmt.Errorf("invalid --type %q: want avro, protobuf or json", schemaType)
				}
			}
			prev, err := project.ParseDiffSide(args[0])
			if err != nil {
				return err
			}
			next, err := project.ParseDiffSide(args[1])
			if err != nil {
				return err
			}
			opts := project.DiffOptions{Level: lvl, Format: t, Subject: subject, ImportPaths: importPaths, ProtobufProfile: profile}
			for _, r := range refs {
				ref, err := global.ParseRef(r)
				if err != nil {
					return err
				}
				opts.References = append(opts.References, ref)
			}
			var src project.RegistrySource
			if prev.Registry() || next.Registry() || len(refs) > 0 {
				c, err := global.Client(cmd)
				if err != nil {
					return err
				}
				src = c
			}
			res, err := project.Diff(cmd.Context(), src, prev, next, opts)
			if err != nil {
				return err
			}
			var summary []string
			if cmd.Flags().Changed("evidence") {
				var sum *project.EvidenceSummary
				summary, sum = addEvidence(cmd.Context(), src, prev, next, t, lvl, events, res)
				// json carries the counts, notRead and the unexplained
				// outcomes as charter check's subjects do (the text
				// formats have the summary lines instead).
				if f == render.JSON && len(res.Subjects) > 0 {
					res.Subjects[0].Evidence = sum
				}
			}
			version, _ := buildinfo.Get()
			ro := render.Options{Title: "Charter schema diff", ToolVersion: version, Color: useColor}
			if err := render.Check(cmd.OutOrStdout(), f, res, ro); err != nil {
				return err
			}
			if len(summary) > 0 {
				// The text format carries the summary; the others
				// keep their document whole on stdout.
				w := cmd.ErrOrStderr()
				if f == "text" {
					w = cmd.OutOrStdout()
				}
				for _, line := range summary {
					fmt.Fprintln(w, line)
				}
			}
			if res.Failed() {
				return rule.ErrFailed
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "text", "output format: "+render.FormatNames()+" (-o/--output sets it too; --format wins)")
	fl.StringVar(&level, "level", "FULL", "compatibility level to judge at")
	fl.StringVar(&schemaType, "type", "", "schema format of the files: avro, protobuf or json (default: by extension)")
	fl.StringVar(&subject, "subject", "", "subject name shown in the output (default: the registry side's subject, else <NEXT's name>-value)")
	fl.StringSliceVar(&importPaths, "import-path", nil, "Protobuf import path, relative to each file's directory (repeatable)")
	fl.StringArrayVar(&refs, "ref", nil, "registered schema the files use, NAME=SUBJECT:VERSION (repeatable)")
	fl.StringVar(&profile, "protobuf-profile", "", "Protobuf rule profile: CONFLUENT (default), WIRE or WIRE_JSON (buf's categories)")
	fl.IntVar(&events, "evidence", 0, "read N generated events of each writer with each reader: counterexamples for breaking findings (--evidence alone: 100)")
	fl.Lookup("evidence").NoOptDefVal = "100"
	color = global.AddColorFlag(cmd)
	global.Enum(cmd, "format", global.FormatValues()...)
	global.Enum(cmd, "level", global.LevelValues()...)
	global.Enum(cmd, "type", "avro", "protobuf", "json")
	global.Enum(cmd, "protobuf-profile", "CONFLUENT", "WIRE", "WIRE_JSON")
	return cmd
}

// maxUnexplained bounds the breaking outcomes no finding names shown per
// direction.
const maxUnexplained = 3

// evidenceTimeout bounds the evidence of one diff.
const evidenceTimeout = 20 * time.Second

// addEvidence reads generated events across the change (compat/evidence):
// each breaking finding of res gets its counterexample in its hint, the
// evidence rules' findings are added, and the returned lines summarise
// each direction; the summary is the same as charter check's subjects
// carry (project.SummariseEvidence).
func addEvidence(ctx context.Context, src project.RegistrySource, prev, next project.DiffSide, t compat.SchemaType, lvl compat.Level, n int, res *project.Result) ([]string, *project.EvidenceSummary) {
	ps, pv, perr := evidenceSide(ctx, src, prev, t)
	ns, _, nerr := evidenceSide(ctx, src, next, t)
	if perr != nil || nerr != nil {
		err := firstErr(perr, nerr)
		return []string{fmt.Sprintf("evidence: not read: %v", err)}, &project.EvidenceSummary{NotRead: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, evidenceTimeout)
	defer cancel()
	rep, err := evidence.Check(ctx, lvl, ns, []compat.Previous{{Version: pv, Schema: ps}}, evidence.Options{Events: n})
	if err != nil {
		return []string{fmt.Sprintf("evidence: not read: %v", err)}, &project.EvidenceSummary{NotRead: err.Error()}
	}
	subject := ""
	if len(res.Subjects) > 0 {
		subject = res.Subjects[0].Subject
	}
	var rules []compat.Finding
	for i, f := range res.Findings {
		if f.Direction == "" {
			continue
		}
		cf := compat.Finding{Violation: compat.Violation{RuleID: f.RuleID, Path: f.Path}, Direction: compat.Direction(f.Direction), Version: f.Version}
		if f.Severity == rule.Error {
			rules = append(rules, cf)
		}
		if pr, ok := rep.Pair(cf.Direction, cf.Version); ok && pr.NotRead != "" {
			res.Findings[i].Hint = joinHint(res.Findings[i].Hint, "evidence: not read: "+pr.NotRead)
			continue
		}
		// The same attribution and the same structured evidence as
		// charter check's (text, json, sarif …).
		project.AttachEvidence(rep, &res.Findings[i])
	}
	for _, f := range evidence.RuleFindings(subject, rep) {
		f.File = res.Subjects[0].File
		project.AttachEvidence(rep, &f)
		res.Findings = append(res.Findings, f)
		res.Subjects[0].Warnings++
	}
	var out []string
	for _, p := range rep.Pairs {
		r := p.Result
		what := map[compat.Direction]string{compat.DirBackward: "NEXT reading PREVIOUS's events", compat.DirForward: "PREVIOUS reading NEXT's events"}[p.Direction]
		line := fmt.Sprintf("evidence %s (%s): %s", p.Direction, what, r.Summary())
		if r.NotRead == "" && !r.Verdict().Breaking() && !slices.ContainsFunc(rules, func(f compat.Finding) bool { return f.Direction == p.Direction }) {
			line += "; compatible"
		}
		if r.Partial && r.NotRead == "" {
			line += " (cut short by the time bound)"
		}
		out = append(out, line)
	}
	// Breaking outcomes no finding names: shown (a few per direction),
	// never passed over in a count.
	shown := map[compat.Direction]int{}
	more := map[compat.Direction]int{}
	for _, u := range rep.Unexplained(rules) {
		if shown[u.Direction] >= maxUnexplained {
			more[u.Direction]++
			continue
		}
		shown[u.Direction]++
		out = append(out, u.Line())
	}
	for _, p := range rep.Pairs {
		if n := more[p.Direction]; n > 0 {
			out = append(out, fmt.Sprintf("evidence %s: and %s no rule names", p.Direction, rule.Plural(n, "more outcome")))
			more[p.Direction] = 0
		}
	}
	return out, project.SummariseEvidence(rep, rules)
}

func joinHint(hint, more string) string {
	if hint == "" {
		return more
	}
	return strings.TrimRight(hint, ". ") + " — " + more
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// evidenceSide parses one side of the diff alone (no references), and
// returns the registry version it names (0 for a file).
func evidenceSide(ctx context.Context, src project.RegistrySource, side project.DiffSide, t compat.SchemaType) (compat.Schema, int, error) {
	var text string
	version := 0
	if side.Registry() {
		if src == nil {
			return nil, 0, fmt.Errorf("%s needs a registry", side)
		}
		v, err := src.Version(ctx, side.Subject, side.Version, client.IncludeDeleted())
		if err != nil {
			return nil, 0, err
		}
		if len(v.References) > 0 {
			return nil, 0, fmt.Errorf("%s has references", side)
		}
		text, t, version = v.Text, v.Type, v.Version
	} else {
		b, err := readFile(side.File)
		if err != nil {
			return nil, 0, err
		}
		text = string(b)
		if t == "" {
			t = formats.OfFile(side.File)
		}
	}
	e, ok := formats.ByType(t)
	if !ok {
		return nil, 0, fmt.Errorf("no format for %s", side)
	}
	s, err := e.Format.Parse(text, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%s does not parse alone (references?): %w", side, err)
	}
	return s, version, nil
}

func readFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

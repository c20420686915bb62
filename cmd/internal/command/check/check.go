// Package check is the `charter check` command: the schema gate for
// laptops and CI. It compares the working tree's schemas (mapped by
// charter.yaml) with a baseline and prints every finding.
package check

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/progress"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/rule"
)

// Environment variables read by `charter check` (the global ones); the
// flags beat them.
const (
	EnvRegistryURL = global.EnvRegistryURL
	EnvToken       = global.EnvToken
)

// Progress of a check over many subjects, on stderr: a bar on a
// terminal, else one summary line when the check took ProgressQuietUnder
// or more.
var (
	ProgressMinSubjects = 20
	ProgressQuietUnder  = 5 * time.Second
)

// ErrNoBaseline is returned when neither --against nor a registry URL
// says what to compare with.
var ErrNoBaseline = errors.New("no baseline to compare with")

type options struct {
	against     string
	config      string
	dir         string
	format      string
	color       string
	summaryFile string
	githubOut   string
	pathPrefix  string
	at          string
	failOn      string
	reportFiles []string
	evidence    int
}

// NewCommand returns the check command.
func NewCommand(name string) *cobra.Command {
	var o options
	var color *string
	cmd := &cobra.Command{
		Use:   name,
		Short: "Check the working tree's schemas against a baseline (exit 1 on errors)",
		Long: `Check every schema that charter.yaml maps against a baseline: each subject at its
compatibility level, plus the project rules (schemas that do not parse, subjects
that change format or disappear). Every finding is reported, not just the first.

The baseline is --against git:REF (a commit of this repository; no registry
needed), --against dir:PATH (another checkout), or the registry: --against
registry, or no --against when a registry URL is set (--registry,
` + EnvRegistryURL + ` or charter.yaml's registry), in the schema context of
--context (` + global.EnvContext + ` or charter.yaml's context:): the subjects, levels
and governance state of that context, as registering there would judge.

What is judged is what registering each schema would be judged by (one
engine, package action/gate): compatibility, consumer contracts, PII,
deprecations and their TTLs and extensions, the removal guard, owners and
reused removed names. Against the registry, with the governance state it
holds for each subject (owner, policy, deprecations, readers, published
contracts, dismissals, tags), its policy's severities and Protobuf profile
and its level: charter.yaml's severities, levels and protobuf_profile may
make a rule, the level or the profile stricter, never lower or replace what
the registry judges with (a notice says so: CONFIG_SEVERITY_IGNORED,
CONFIG_LEVEL_IGNORED, CONFIG_PROFILE_IGNORED). Offline (git:, dir:), with
the state charter.yaml gives: its contracts, its pii section, its
severities (OWNER_MISSING only when charter.yaml names it) and its levels.
The pacts charter.yaml lists are the repository's own: a pact reading a
field whose deprecation is over fails (CONTRACT_FIELD_EXPIRED) unless its
consumer holds an extension. --at judges as of another moment: "what
will the gate say when the TTLs run out?"

--evidence[=N] also reads N generated events (default 100) of each writer
with each reader the level compares, for every changed subject
(compat/evidence): each compatibility finding carries the smallest event
found that breaks there and what the reader did with it, each subject the
counts of events read back equal, with a default, with loss or refused,
and the evidence rules (warnings unless charter.yaml raises them) report
the changes every registry accepts that lose data on a real event. Each
subject's events are bounded to 10 seconds (a pair cut short says so).

--format gitlab writes GitLab's Code Quality report (for a job's
artifacts:reports:codequality) and --format junit JUnit XML (one testcase
per finding) for CI servers that show test reports; --report-file
FORMAT=PATH writes more formats from the same run.

Exit codes: 0 pass (warnings and notices allowed; --fail-on warning fails
on warnings too), 1 at least one error finding, 2 usage, configuration or
I/O error.`,
		Example: `  # Compare with the main branch, no registry needed
  charter check --against git:main

  # Compare with the previous commit, as GitHub annotations plus a summary
  charter check --against git:HEAD~1 --format github --summary-file "$GITHUB_STEP_SUMMARY"

  # Compare with the registry named in charter.yaml, as JSON
  charter check --format json

  # GitLab CI: a Code Quality report for the merge request, text in the log
  charter check --against "git:origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME" --report-file gitlab=gl-code-quality-report.json

  # Fail on warnings too, and keep SARIF for code scanning
  charter check --against git:main --fail-on warning --report-file sarif=charter.sarif

  # Show an event that breaks for each breaking finding
  charter check --against git:main --evidence

  # What will the registry say once the deprecations of March have expired?
  charter check --against registry --at 2026-04-01`,
		Args: global.EvidenceArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.color = *color
			return run(cmd, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.against, "against", "", "baseline: git:REF, dir:PATH or registry (default: the registry when one is set)")
	f.StringVar(&o.config, "config", "", "path of charter.yaml (default: found in --dir or its parents)")
	f.StringVarP(&o.dir, "dir", "C", ".", "directory to run in")
	f.StringVar(&o.format, "format", "text", "output format: "+render.FormatNames()+" (-o/--output sets it too; --format wins)")
	f.StringVar(&o.summaryFile, "summary-file", "", "also append a markdown summary to this file (e.g. $GITHUB_STEP_SUMMARY)")
	f.StringVar(&o.githubOut, "github-output", "", "also append result, errors, warnings, notices and subjects as key=value lines to this file (e.g. $GITHUB_OUTPUT)")
	f.StringVar(&o.at, "at", "", "judge as of this moment, YYYY-MM-DD (midnight UTC) or RFC 3339 (default: now)")
	f.StringVar(&o.failOn, "fail-on", "error", "lowest severity that fails the check (exit 1): error or warning")
	f.StringArrayVar(&o.reportFiles, "report-file", nil, "also write the report in another format to a file, FORMAT=PATH (repeatable; e.g. sarif=charter.sarif, gitlab=gl-code-quality-report.json, junit=charter.xml)")
	f.StringVar(&o.pathPrefix, "path-prefix", "", "prefix for file paths in github, sarif, markdown, gitlab and junit output (default: the project's directory in its git repository)")
	f.IntVar(&o.evidence, "evidence", 0, "read N generated events of each writer with each reader: a counterexample per breaking finding (--evidence alone: 100)")
	f.Lookup("evidence").NoOptDefVal = "100"
	color = global.AddColorFlag(cmd)
	global.Enum(cmd, "format", global.FormatValues()...)
	global.Enum(cmd, "fail-on", "error", "warning")
	return cmd
}

func run(cmd *cobra.Command, o options) error {
	ctx, stdout := cmd.Context(), cmd.OutOrStdout()
	format, err := global.Format(cmd, o.format)
	if err != nil {
		return err
	}
	color, err := global.Color(o.color, stdout)
	if err != nil {
		return err
	}
	at, err := ParseAt(o.at)
	if err != nil {
		return err
	}
	failOnWarning, err := parseFailOn(o.failOn)
	if err != nil {
		return err
	}
	reports, err := parseReportFiles(o.reportFiles)
	if err != nil {
		return err
	}
	if cmd.Flags().Changed("evidence") {
		if err := evidence.CheckEvents("--evidence", o.evidence); err != nil {
			return err
		}
	}
	p, err := loadProject(o.config, o.dir)
	if err != nil {
		return err
	}
	baseline, err := baselineFor(cmd, p, o)
	if err != nil {
		return err
	}
	// A bar on a terminal; elsewhere one summary line, and only when the
	// check took a while.
	var (
		bar     *progress.Bar
		started time.Time
		judged  int
	)
	stderr := cmd.ErrOrStderr()
	term := progress.IsTerminal(stderr)
	res, err := project.Check(ctx, p, project.Options{Baseline: baseline, At: at, Evidence: o.evidence, Progress: func(done, total int) {
		if done == 0 && total >= ProgressMinSubjects {
			started = time.Now()
			if term {
				bar = progress.New(stderr, progress.Options{Label: "check", Unit: "subjects", Total: int64(total)})
			}
		}
		judged = done
		bar.Set(int64(done))
	}})
	bar.Finish() // a nil bar does nothing
	if err != nil {
		return err
	}
	if !term && !started.IsZero() {
		if elapsed := time.Since(started); elapsed >= ProgressQuietUnder {
			fmt.Fprintln(stderr, progress.Summary("check", "subjects", int64(judged), elapsed))
		}
	}
	prefix := o.pathPrefix
	if prefix == "" {
		prefix = project.RepoPrefix(ctx, p.Root)
	}
	version, _ := buildinfo.Get()
	ro := render.Options{Color: color, ToolVersion: version, PathPrefix: prefix, FailOnWarning: failOnWarning}
	if rel, err := filepath.Rel(p.Root, p.ConfigPath); err == nil && !strings.HasPrefix(rel, "..") {
		ro.ConfigFile = prefix + filepath.ToSlash(rel)
	}
	if err := render.Check(stdout, format, res, ro); err != nil {
		return err
	}
	// Only stdout follows --color: a file is not a terminal, so every
	// file written (report files, the summary, the outputs) is plain.
	plain := ro
	plain.Color = false
	for _, rf := range reports {
		if err := writeFile(rf.path, func(w io.Writer) error { return render.Check(w, rf.format, res, plain) }); err != nil {
			return err
		}
	}
	if o.summaryFile != "" {
		if err := appendTo(o.summaryFile, func(w io.Writer) error { return render.Check(w, render.Markdown, res, plain) }); err != nil {
			return err
		}
	}
	if o.githubOut != "" {
		if err := appendTo(o.githubOut, func(w io.Writer) error { return writeOutputs(w, res, plain) }); err != nil {
			return err
		}
	}
	if render.Failed(res, ro) {
		return rule.ErrFailed
	}
	return nil
}

// parseFailOn reads --fail-on: whether warnings fail the check too.
func parseFailOn(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error", "":
		return false, nil
	case "warning", "warn":
		return true, nil
	}
	return false, fmt.Errorf("invalid --fail-on %q: want error or warning", s)
}

type reportFile struct {
	format render.Format
	path   string
}

// parseReportFiles reads the --report-file FORMAT=PATH values.
func parseReportFiles(values []string) ([]reportFile, error) {
	var out []reportFile
	for _, v := range values {
		name, path, ok := strings.Cut(v, "=")
		if !ok || path == "" {
			return nil, fmt.Errorf("invalid --report-file %q: want FORMAT=PATH, e.g. sarif=charter.sarif", v)
		}
		f, err := render.ParseFormat(name)
		if err != nil {
			return nil, fmt.Errorf("invalid --report-file %q: unknown format %q: want one of %s", v, name, render.FormatNames())
		}
		out = append(out, reportFile{f, path})
	}
	return out, nil
}

// ParseAt reads --at: "" (now: the zero time), a date YYYY-MM-DD
// (midnight UTC) or an RFC 3339 time.
func ParseAt(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, fmt.Errorf("invalid --at %q: want a date (2026-04-01) or an RFC 3339 time (2026-04-01T09:30:00Z)", s)
}

// loadProject loads --config, or finds charter.yaml from dir upwards.
func loadProject(config, dir string) (*project.Project, error) {
	if config != "" {
		return project.Load(config)
	}
	return project.Find(dir)
}

// baselineFor picks the baseline: --against, else the registry
// (--against registry:URL, --registry, $CHARTER_REGISTRY_URL, charter.yaml).
func baselineFor(cmd *cobra.Command, p *project.Project, o options) (project.Baseline, error) {
	if o.against != "" && o.against != "registry" && !strings.HasPrefix(o.against, "registry:") {
		return project.ParseAgainst(o.against)
	}
	url := strings.TrimPrefix(strings.TrimPrefix(o.against, "registry"), ":")
	for _, u := range []string{url, global.RegistryFlag(cmd), p.Config.Registry} {
		if u != "" {
			url = u
			break
		}
	}
	if url == "" {
		return nil, fmt.Errorf("%w: pass --against git:REF or dir:PATH, or set a registry (--registry, %s or registry: in %s)", ErrNoBaseline, EnvRegistryURL, p.ConfigPath)
	}
	// Connect puts the client under --context ($CHARTER_CONTEXT, else
	// charter.yaml's context:), so the subjects, levels and governance
	// state judged are that context's, as registering there would judge
	// them; reports name it.
	c, err := global.Connect(cmd, global.Target{URL: url, Context: p.Config.Context, ContextFrom: "context: in " + p.ConfigPath})
	if err != nil {
		return nil, fmt.Errorf("registry %q: %w", url, err)
	}
	if u := c.URL(); strings.Contains(u, "/contexts/") && !strings.Contains(url, "/contexts/") {
		url = u
	}
	return project.RegistryBaseline(c, url), nil
}

// writeFile writes what write writes to the file at path, replacing it.
func writeFile(path string, write func(io.Writer) error) error {
	return writeTo(path, "create report file", os.O_CREATE|os.O_TRUNC|os.O_WRONLY, write)
}

// appendTo appends what write writes to the file at path.
func appendTo(path string, write func(io.Writer) error) error {
	return writeTo(path, "open output file", os.O_CREATE|os.O_APPEND|os.O_WRONLY, write)
}

// writeTo opens path with flag (mode 0644 when it creates it) and writes
// what write writes; a failed open is "what: …", a failed close an error
// too, since it may lose data.
func writeTo(path, what string, flag int, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// writeOutputs writes the step outputs of the CI action (GitHub's
// $GITHUB_OUTPUT key=value format).
func writeOutputs(w io.Writer, r *project.Result, o render.Options) error {
	result := "passed"
	if render.Failed(r, o) {
		result = "failed"
	}
	_, err := fmt.Fprintf(w, "result=%s\nerrors=%d\nwarnings=%d\nnotices=%d\nsubjects=%d\n",
		result, r.Count(rule.Error), r.Count(rule.Warning), r.Count(rule.Notice), len(r.Subjects))
	return err
}

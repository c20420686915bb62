// Package upcast is the `charter upcast` command group. `charter upcast
// verify` is the dry run of an upcast before anyone replays production:
// it reads sample events of every version from a JSON Lines file, upcasts
// them to the subject's target version with the chain the registry
// defines (schema resolution and migration rules), validates each output
// against the target schema, compares it with expected outputs, and
// reports per version. `charter upcast replay` upcasts a whole event log
// to a new one, with failed events dead-lettered. The work is
// upcast.Verify and upcast.Replay; this package parses flags and renders.
package upcast

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/progress"
	"github.com/charter-dev/charter/compat/rule"
	up "github.com/charter-dev/charter/upcast"
)

// Deps are the command's connections to the outside world.
type Deps struct {
	// ErrViolations is returned when samples fail, so that the root command
	// exits 1 (cli.ErrViolations).
	ErrViolations error
	// HTTPClient talks to the registry (default: global.Connect's).
	HTTPClient *http.Client
	// Progress forces the progress bar on (true) or off (false); nil
	// shows it when stderr is a terminal. Without the bar, replay prints
	// one summary line at the end instead (package progress).
	Progress *bool
	// ProgressEvery sets how often the bar is redrawn (default 100ms).
	ProgressEvery time.Duration
}

// NewCommand returns the `upcast` command group.
func NewCommand(name string, deps Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name,
		Short: "Dry-run and replay the upcasting of old event versions",
		Example: `  # Check that samples of every version upcast to the latest
  charter upcast verify --subject OrderPlaced --samples samples.jsonl

  # Rewrite an event log to the latest version, failed events to a dead-letter file
  charter upcast replay --subject OrderPlaced --in events.jsonl --out upcast.jsonl --dead dead.jsonl`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newVerify("verify", deps), newReplay("replay", deps))
	return cmd
}

type verifyFlags struct {
	subject, samples, expect, format string
	target                           int
	noProgress                       bool
}

const samplesHelp = `Samples file (JSON Lines, one event per line; blank lines and # comments skipped):
  {"id": "o-1", "version": 1, "value": {...}}      the event as JSON, in the shape of its version
  {"id": "o-2", "schemaId": 7, "value": {...}}     the writer given by schema ID
  {"id": "o-3", "payload": "AAAAAAc..."}           stored bytes, base64, with the wire-format header
  {"id": "o-4", "version": 2, "payload": "..."}    stored bytes without the header
Expected file: {"id": "o-1", "value": {...}} per line, the target-version value of that sample.`

func newVerify(name string, deps Deps) *cobra.Command {
	var f verifyFlags
	cmd := &cobra.Command{
		Use:   name,
		Short: "Upcast sample events of every version and report per version",
		Example: `  # Upcast the samples of every version to the latest and report per version
  charter upcast verify --subject OrderPlaced --samples samples.jsonl

  # Compare each output with the expected value, against version 3
  charter upcast verify --subject OrderPlaced --samples samples.jsonl --expect expected.jsonl --target 3

  # Machine-readable, against another registry
  charter upcast verify --subject OrderPlaced --samples samples.jsonl -o json --registry http://sr:8081`,
		Long: `Upcast sample events of every version of a subject to its latest version (or --target)
with the chain the registry defines: schema resolution where versions are compatible and the
data contracts' migration rules (JSONata) where they are not. Each output is validated against
the target schema and, with --expect, compared with the expected value. Exits 1 when a sample
fails or a version has no path to the target.

The registry is the global --registry's (then $CHARTER_REGISTRY_URL, then
charter.yaml's registry), reached with the global credentials and --timeout.

` + samplesHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := global.FormatOrOutput(cmd, "text", "json")
			if err != nil {
				return err
			}
			f.format = format
			return runVerify(cmd, f, deps)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.subject, "subject", "", "subject to verify (required)")
	fl.StringVar(&f.samples, "samples", "", "samples file, JSON Lines (required)")
	fl.StringVar(&f.expect, "expect", "", "expected outputs file, JSON Lines")
	fl.IntVar(&f.target, "target", 0, "target version (default: the latest)")
	fl.StringVar(&f.format, "format", "text", "output format: text or json (-o/--output sets it too; --format wins)")
	fl.BoolVar(&f.noProgress, "no-progress", false, "never show the progress bar")
	global.Enum(cmd, "format", "text", "json")
	global.CompleteSubjectFlag(cmd, "subject")
	global.CompleteVersionFlag(cmd, "target", "subject")
	return cmd
}

func runVerify(cmd *cobra.Command, f verifyFlags, deps Deps) error {
	switch {
	case f.subject == "":
		return errors.New("--subject is required")
	case f.samples == "":
		return errors.New("--samples is required")
	case f.target < 0:
		return fmt.Errorf("invalid --target %d: want a version ≥ 1", f.target)
	}
	samples, err := readFile(f.samples, up.ReadSamples)
	if err != nil {
		return err
	}
	var expected map[string]json.RawMessage
	if f.expect != "" {
		if expected, err = readFile(f.expect, up.ReadExpected); err != nil {
			return err
		}
	}
	c, err := global.Connect(cmd, global.Target{HTTPClient: deps.HTTPClient})
	if err != nil {
		return err
	}
	opts := []up.Option{up.WithRegistry(c), up.WithValidation(up.ValidateSteps), up.WithSubject(f.subject)}
	if f.target > 0 {
		opts = append(opts, up.WithTarget(f.subject, f.target))
	}
	u, err := up.New(opts...)
	if err != nil {
		return err
	}
	var vopts []up.VerifyOption
	stderr := cmd.ErrOrStderr()
	if showProgress(stderr, deps.Progress, f.noProgress) {
		// Samples are few: a bar on a terminal, no summary line elsewhere
		// (the report says it all).
		on := true
		bar := progress.New(stderr, progress.Options{Label: "verify", Unit: "samples", Total: int64(len(samples)), Terminal: &on})
		vopts = append(vopts, up.VerifyProgress(func(p up.Progress) {
			bar.Set(p.Events)
			if p.Done {
				bar.Finish()
			}
		}, every(deps.ProgressEvery, 100*time.Millisecond)))
	}
	out := cmd.OutOrStdout()
	rep, err := up.Verify(cmd.Context(), u, f.subject, samples, expected, vopts...)
	var gap *up.GapError
	switch {
	case errors.As(err, &gap):
		if err := renderGaps(out, f.format, gap); err != nil {
			return err
		}
		return deps.violations()
	case err != nil:
		return err
	}
	if f.format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		renderText(out, rep)
	}
	if rep.Failed() {
		return deps.violations()
	}
	return nil
}

func (d Deps) violations() error {
	if d.ErrViolations != nil {
		return d.ErrViolations
	}
	return errors.New("verification failed")
}

// readFile opens path and parses it, with the path in the error.
func readFile[T any](path string, parse func(io.Reader) (T, error)) (T, error) {
	var zero T
	fh, err := os.Open(path)
	if err != nil {
		return zero, fmt.Errorf("open %s: %w", path, unwrapPath(err))
	}
	defer fh.Close()
	v, err := parse(fh)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// unwrapPath drops the path os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func renderText(w io.Writer, rep *up.Report) {
	fmt.Fprintf(w, "subject %s → v%d: %s\n", rep.Subject, rep.Target, rule.Plural(rep.Samples, "sample"))
	for _, v := range rep.Versions {
		path := strings.Join(v.Path, ", ")
		if v.Version == rep.Target {
			path = "target"
		}
		status := "ok"
		switch {
		case v.Failed > 0:
			status = "FAIL"
		case v.Samples == 0:
			status = "no samples"
		}
		fmt.Fprintf(w, "  v%-3d %-10s %s, %d ok, %d failed  [%s]\n", v.Version, status, rule.Plural(v.Samples, "sample"), v.OK, v.Failed, path)
	}
	for _, f := range rep.Failures {
		where := fmt.Sprintf("line %d", f.Line)
		if f.Version > 0 {
			where = fmt.Sprintf("v%d, %s", f.Version, where)
		}
		step := ""
		if f.Step != "" {
			step = " at " + f.Step
		}
		msg := f.Message
		if len(f.Diff) > 0 {
			msg = strings.Join(f.Diff, "; ")
		}
		fmt.Fprintf(w, "FAIL %s (%s)%s: %s: %s\n", f.ID, where, step, f.Kind, msg)
	}
	for _, id := range rep.Unmatched {
		fmt.Fprintf(w, "FAIL %s: expected value has no sample\n", id)
	}
	failed := rep.Samples - rep.OK
	fmt.Fprintf(w, "%s: %d ok, %d failed\n", rule.Plural(rep.Samples, "sample"), rep.OK, failed)
}

// gapsJSON is the -o json form of a subject with versions that have no
// path to the target.
type gapsJSON struct {
	Subject string    `json:"subject"`
	Target  int       `json:"target"`
	Gaps    []gapJSON `json:"gaps"`
}

type gapJSON struct {
	From   int    `json:"from"`
	Stuck  int    `json:"stuck"`
	Next   int    `json:"next"`
	Reason string `json:"reason"`
}

// renderGaps prints the versions with no path to the target, in format
// (text or json).
func renderGaps(w io.Writer, format string, gap *up.GapError) error {
	if format == "json" {
		doc := gapsJSON{Subject: gap.Subject, Target: gap.Target, Gaps: []gapJSON{}}
		for _, g := range gap.Gaps {
			doc.Gaps = append(doc.Gaps, gapJSON{From: g.From, Stuck: g.Stuck, Next: g.Next, Reason: g.Reason})
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	fmt.Fprintf(w, "subject %s → v%d: %d version(s) have no path\n", gap.Subject, gap.Target, len(gap.Gaps))
	for _, g := range gap.Gaps {
		fmt.Fprintf(w, "FAIL v%d: stuck at v%d→v%d: %s\n", g.From, g.Stuck, g.Next, g.Reason)
	}
	return nil
}

func showProgress(w io.Writer, force *bool, off bool) bool {
	if off {
		return false
	}
	if force != nil {
		return *force
	}
	return progress.IsTerminal(w)
}

package upcast

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/progress"
	"github.com/charter-dev/charter/compat/rule"
	up "github.com/charter-dev/charter/upcast"
)

type replayFlags struct {
	subject, in, out, dead, format string
	target, concurrency            int
	noProgress                     bool
}

const eventsHelp = `Event log (JSON Lines, one event per line; blank lines and # comments skipped):
  {"id": "o-1", "key": "c-7", "payload": "AAAAAAE..."}        stored bytes, base64, with the wire-format header
  {"id": "o-2", "version": 1, "payload": "..."}               stored bytes of version 1, without the header
id names the event (default "line N"); key keeps events in order (events with the same
key are upcast and written in log order). --out gets {"id", "key", "subject", "from",
"payload"} per event, the payload in the wire format of the target schema; --dead gets
failed events as they were read plus {"error": {"kind", "step", "message"}}, and can be
given back as --in once the step is fixed.`

func newReplay(name string, deps Deps) *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   name,
		Short: "Upcast an event log to the target version of its subject",
		Example: `  # Upcast an event log to the latest version; failures go to dead letters
  charter upcast replay --subject OrderPlaced --in events.jsonl --out upcast.jsonl --dead dead.jsonl

  # Re-drive the dead letters after fixing a rule, four at a time, with a JSON summary
  charter upcast replay --subject OrderPlaced --in dead.jsonl --out fixed.jsonl --concurrency 4 -o json`,
		Long: `Upcast every event of a JSON Lines event log to the latest version of a subject (or
--target) with the chain the registry defines, and write the upcast events to --out.
Events are upcast --concurrency at a time, in log order per key. Failed events go to
--dead with their stored bytes and the reason; without --dead the first failed event in
log order stops the replay and neither file is written (the outcome is the same for every
--concurrency). --out and --dead are written under temporary names and renamed at the
end, so a stopped run leaves no half-written file. Prints the counts of events, of upcasts per step and of failures per kind; exits
1 when an event failed or a version has no path to the target.

A progress bar (count, rate, elapsed time and time left) is drawn on stderr when it
is a terminal, one summary line at the end otherwise (--no-progress: neither).

The registry is the global --registry's (then $CHARTER_REGISTRY_URL, then
charter.yaml's registry), reached with the global credentials and --timeout.

` + eventsHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := global.FormatOrOutput(cmd, "text", "json")
			if err != nil {
				return err
			}
			f.format = format
			return runReplay(cmd, f, deps)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.subject, "subject", "", "subject of the events (required)")
	fl.StringVar(&f.in, "in", "", "event log to read, JSON Lines (required)")
	fl.StringVar(&f.out, "out", "", "event log to write, JSON Lines (required)")
	fl.StringVar(&f.dead, "dead", "", "dead-letter file for failed events, JSON Lines")
	fl.IntVar(&f.target, "target", 0, "target version (default: the latest)")
	fl.IntVar(&f.concurrency, "concurrency", 0, "events upcast at once (default: the number of CPUs Go uses, GOMAXPROCS)")
	fl.StringVar(&f.format, "format", "text", "summary format: text or json (-o/--output sets it too; --format wins)")
	fl.BoolVar(&f.noProgress, "no-progress", false, "show no progress")
	global.Enum(cmd, "format", "text", "json")
	global.CompleteSubjectFlag(cmd, "subject")
	global.CompleteVersionFlag(cmd, "target", "subject")
	return cmd
}

func runReplay(cmd *cobra.Command, f replayFlags, deps Deps) error {
	if !cmd.Flags().Changed("concurrency") {
		f.concurrency = runtime.GOMAXPROCS(0)
	}
	switch {
	case f.subject == "":
		return errors.New("--subject is required")
	case f.in == "":
		return errors.New("--in is required")
	case f.out == "":
		return errors.New("--out is required")
	case f.target < 0:
		return fmt.Errorf("invalid --target %d: want a version ≥ 1", f.target)
	case f.concurrency < 1:
		return fmt.Errorf("invalid --concurrency %d: want at least 1", f.concurrency)
	case f.out == f.in || (f.dead != "" && (f.dead == f.in || f.dead == f.out)):
		return errors.New("--in, --out and --dead must be different files")
	}
	in, err := os.Open(f.in)
	if err != nil {
		return fmt.Errorf("open %s: %w", f.in, unwrapPath(err))
	}
	defer in.Close()
	var total int64 // for the progress bar; a pipe is read once, without
	if fi, err := in.Stat(); err == nil && fi.Mode().IsRegular() {
		if total, err = up.CountEvents(in); err != nil {
			return fmt.Errorf("%s: %w", f.in, err)
		}
		if _, err := in.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("read %s: %w", f.in, err)
		}
	}

	c, err := global.Connect(cmd, global.Target{HTTPClient: deps.HTTPClient})
	if err != nil {
		return err
	}
	opts := []up.Option{up.WithRegistry(c), up.WithSubject(f.subject)}
	if f.target > 0 {
		opts = append(opts, up.WithTarget(f.subject, f.target))
	}
	u, err := up.New(opts...)
	if err != nil {
		return err
	}
	stdout := cmd.OutOrStdout()
	chain, err := u.Chain(cmd.Context(), f.subject)
	var gap *up.GapError
	switch {
	case errors.As(err, &gap):
		if err := renderGaps(stdout, f.format, gap); err != nil {
			return err
		}
		return deps.violations()
	case err != nil:
		return err
	}

	// Both files are written under temporary names and renamed when the
	// replay has gone through the whole log: a stopped run leaves
	// neither half-written.
	out, err := createTemp(f.out)
	if err != nil {
		return err
	}
	defer out.abort()
	ow := up.NewEventLogWriter(out.f)
	ropts := []up.ReplayOption{up.WithConcurrency(f.concurrency), up.WithTotal(total)}
	source := up.ReadEvents(in)
	var dw *up.EventLogWriter
	var dead *tempFile
	var first *firstFailure
	if f.dead != "" {
		if dead, err = createTemp(f.dead); err != nil {
			return err
		}
		defer dead.abort()
		dw = up.NewEventLogWriter(dead.f)
		ropts = append(ropts, up.WithDeadLetter(dw.DeadLetter))
	} else {
		// Without --dead the earliest failed event in log order stops the
		// run, whatever the concurrency.
		first = newFirstFailure()
		source = first.source(source)
		ropts = append(ropts, up.WithDeadLetter(first.deadLetter))
	}
	if !f.noProgress {
		stderr := cmd.ErrOrStderr()
		term := showProgress(stderr, deps.Progress, false)
		bar := progress.New(stderr, progress.Options{Label: "replay", Unit: "events", Total: total, Terminal: &term})
		interval := every(deps.ProgressEvery, 100*time.Millisecond)
		if !term {
			interval = time.Hour // only the last call, for the summary line
		}
		ropts = append(ropts, up.WithProgress(func(p up.Progress) {
			bar.Set(p.Events)
			if p.Done {
				bar.FinishWith(rule.Plural(int(p.Failed), "failed event"))
			}
		}, interval))
	}

	st, rerr := up.Replay(cmd.Context(), u, source, ow.Sink, ropts...)
	var stopped *up.Error
	if first != nil && rerr == nil {
		stopped = first.err
	}
	if err := ow.Flush(); err != nil && rerr == nil {
		rerr = fmt.Errorf("%s: %w", f.out, err)
	}
	sum := replaySummary{Subject: f.subject, Target: chain.Target(), Stats: st, Out: f.out, Written: ow.Count()}
	if dw != nil {
		if err := dw.Flush(); err != nil && rerr == nil {
			rerr = fmt.Errorf("%s: %w", f.dead, err)
		}
		sum.Dead, sum.DeadLetters = f.dead, dw.Count()
	}
	if rerr != nil && !errors.As(rerr, &stopped) {
		return rerr // a source, sink or dead-letter error: not about an event
	}
	if stopped == nil {
		if err := out.commit(); err != nil {
			return err
		}
		if dead != nil {
			if err := dead.commit(); err != nil {
				return err
			}
		}
	} else {
		sum.Written = 0 // out is removed, not renamed
	}
	if stopped != nil {
		sum.StoppedAt = &replayStop{ID: stopped.EventID, Kind: stopped.Kind.Error(), Message: stopped.Error()}
		if stopped.Step != nil {
			sum.StoppedAt.Step = stopped.Step.String()
		}
	}
	if f.format == "json" {
		if err := sum.renderJSON(stdout); err != nil {
			return err
		}
	} else {
		sum.renderText(stdout)
	}
	if st.Failed > 0 || stopped != nil {
		return deps.violations()
	}
	return nil
}

// tempFile is an output file written under a temporary name next to its
// path and renamed to it by commit; abort (deferred) removes it unless it
// was committed.
type tempFile struct {
	f    *os.File
	path string
	done bool
}

// createTemp creates the temporary file of an output path in its
// directory (so the rename stays on one file system).
func createTemp(path string) (*tempFile, error) {
	fh, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, unwrapPath(err))
	}
	return &tempFile{f: fh, path: path}, nil
}

// commit closes the file and renames it to its path.
func (t *tempFile) commit() error {
	if err := t.f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", t.path, unwrapPath(err))
	}
	if err := os.Rename(t.f.Name(), t.path); err != nil {
		return fmt.Errorf("write %s: %w", t.path, unwrapPath(err))
	}
	t.done = true
	return nil
}

// abort removes the file unless commit renamed it.
func (t *tempFile) abort() {
	if t.done {
		return
	}
	_ = t.f.Close()
	_ = os.Remove(t.f.Name())
}

// firstFailure is the dead letter of a replay without --dead: it keeps
// the failed event that comes first in the log and makes the source stop
// after it. Every event before that one has been read by then and runs to
// its end, so the failure kept is the same for every concurrency. Events
// are told apart by their id (ReadEvents defaults it to "line N").
type firstFailure struct {
	mu   sync.Mutex
	pos  map[string]int64 // position in the log of each id, the first one
	at   int64            // position of err
	err  *up.Error
	stop atomic.Int64 // the source yields no event past this position
}

func newFirstFailure() *firstFailure {
	ff := &firstFailure{pos: map[string]int64{}}
	ff.stop.Store(math.MaxInt64)
	return ff
}

// source numbers the events of src and stops after the first failure.
func (ff *firstFailure) source(src iter.Seq2[up.Event, error]) iter.Seq2[up.Event, error] {
	return func(yield func(up.Event, error) bool) {
		var n int64
		for ev, err := range src {
			if err == nil {
				if n > ff.stop.Load() {
					return
				}
				ff.mu.Lock()
				if _, ok := ff.pos[ev.ID]; !ok {
					ff.pos[ev.ID] = n
				}
				ff.mu.Unlock()
				n++
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// deadLetter implements up.DeadLetter: it keeps e when ev comes before
// the failure kept so far.
func (ff *firstFailure) deadLetter(_ context.Context, ev up.Event, e *up.Error) error {
	ff.mu.Lock()
	defer ff.mu.Unlock()
	if p := ff.pos[ev.ID]; ff.err == nil || p < ff.at {
		ff.err, ff.at = e, p
		ff.stop.Store(p)
	}
	return nil
}

func every(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// replaySummary is what `charter upcast replay` prints at the end.
type replaySummary struct {
	Subject     string
	Target      int
	Stats       up.Stats
	Out         string
	Written     int64
	Dead        string
	DeadLetters int64
	StoppedAt   *replayStop
}

type replayStop struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Step    string `json:"step,omitempty"`
	Message string `json:"message"`
}

func (s replaySummary) renderText(w io.Writer) {
	if s.StoppedAt != nil {
		// Counts after a stop depend on how many events were in flight:
		// only what does not is printed.
		fmt.Fprintf(w, "replay %s → v%d: FAIL at event %s: %s\n", s.Subject, s.Target, s.StoppedAt.ID, s.StoppedAt.Message)
		fmt.Fprintf(w, "nothing written to %s: without --dead the first failed event stops the replay (--dead FILE sets failed events aside)\n", s.Out)
		return
	}
	st := s.Stats
	// Events handled; after a stop, events already read but not handled
	// are left out (how many depends on timing).
	handled := st.Upcast + st.FastPath + st.Failed
	fmt.Fprintf(w, "replay %s → v%d: %s, %d upcast, %d already at v%d, %d failed\n",
		s.Subject, s.Target, rule.Plural(int(handled), "event"), st.Upcast, st.FastPath, s.Target, st.Failed)
	if len(st.Steps) > 0 {
		fmt.Fprintln(w, "steps:")
		for _, k := range sortedCounts(st.Steps) {
			fmt.Fprintf(w, "  %-40s %d\n", k, st.Steps[k])
		}
	}
	if len(st.Failures) > 0 {
		fmt.Fprintln(w, "failures:")
		for _, k := range sortedCounts(st.Failures) {
			fmt.Fprintf(w, "  %-40s %d\n", k, st.Failures[k])
		}
	}
	fmt.Fprintf(w, "wrote %s to %s", rule.Plural(int(s.Written), "event"), s.Out)
	if s.Dead != "" {
		fmt.Fprintf(w, ", %s to %s", rule.Plural(int(s.DeadLetters), "dead letter"), s.Dead)
	}
	fmt.Fprintln(w)
}

func (s replaySummary) renderJSON(w io.Writer) error {
	st := s.Stats
	doc := struct {
		Subject     string           `json:"subject"`
		Target      int              `json:"target"`
		Events      int64            `json:"events"`
		Upcast      int64            `json:"upcast"`
		FastPath    int64            `json:"fastPath"`
		Failed      int64            `json:"failed"`
		Steps       map[string]int64 `json:"steps"`
		Failures    map[string]int64 `json:"failures"`
		Out         string           `json:"out"`
		Written     int64            `json:"written"`
		Dead        string           `json:"dead,omitempty"`
		DeadLetters int64            `json:"deadLetters"`
		StoppedAt   *replayStop      `json:"stoppedAt,omitempty"`
		ElapsedMS   int64            `json:"elapsedMs"`
	}{s.Subject, s.Target, st.Events, st.Upcast, st.FastPath, st.Failed, st.Steps, st.Failures,
		s.Out, s.Written, s.Dead, s.DeadLetters, s.StoppedAt, st.Elapsed.Milliseconds()}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// sortedCounts returns the keys of a count map in order ("v1→v2 …"
// before "v2→v3 …").
func sortedCounts(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	return keys
}

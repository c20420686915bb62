// Package progress shows the progress of long CLI work (`charter upcast
// replay`, `export`, `import`, `check` over many schemas) on stderr: on a
// terminal a bar redrawn in place with the count, the rate, the elapsed
// time and the time left (github.com/schollz/progressbar/v3); elsewhere
// (a pipe, a CI log, a file) nothing while the work runs and one summary
// line at the end, so that logs stay readable.
//
// A Bar is safe for concurrent use; a nil *Bar does nothing, so callers
// need no checks when progress is off.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// Options describe one piece of work.
type Options struct {
	// Label names the work at the start of the line: "replay", "export".
	Label string
	// Unit is what is counted, plural: "events", "subjects".
	Unit string
	// Total is the count at which the work is done; 0 or less when it is
	// not known beforehand (the bar then shows the count and rate, no ETA).
	Total int64
	// Terminal forces the redrawn bar (true) or the summary line (false);
	// nil decides by whether the writer is a terminal (IsTerminal).
	Terminal *bool
	// Now is the clock of the summary line (default time.Now).
	Now func() time.Time
}

// Bar is the progress of one piece of work. Create it with New, count
// with Add or Set, and end it with Finish.
type Bar struct {
	w     io.Writer
	o     Options
	start time.Time
	n     atomic.Int64
	bar   *progressbar.ProgressBar // nil off a terminal
	once  sync.Once
}

// IsTerminal reports whether w is a terminal (a Windows console or a
// Cygwin pseudo-terminal included); false for anything but an *os.File.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// New starts showing the progress of the work o describes on w (stderr).
func New(w io.Writer, o Options) *Bar {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Unit == "" {
		o.Unit = "items"
	}
	b := &Bar{w: w, o: o, start: o.Now()}
	term := IsTerminal(w)
	if o.Terminal != nil {
		term = *o.Terminal
	}
	if term {
		total := o.Total
		if total <= 0 {
			total = -1 // a spinner with the count and the rate
		}
		b.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(o.Label),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(o.Unit),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetRenderBlankState(true),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		)
	}
	return b
}

// Add counts n more units done.
func (b *Bar) Add(n int64) {
	if b == nil {
		return
	}
	b.Set(b.n.Add(n))
}

// Set sets the count of units done to n (for work that reports totals).
func (b *Bar) Set(n int64) {
	if b == nil {
		return
	}
	b.n.Store(n)
	if b.bar != nil {
		_ = b.bar.Set64(n)
	}
}

// Count returns the count of units done.
func (b *Bar) Count() int64 {
	if b == nil {
		return 0
	}
	return b.n.Load()
}

// Finish ends the progress: on a terminal the bar is drawn complete and
// the line ended; elsewhere the summary line is printed,
// "replay: 1000 events in 2.5s (400 events/s)". Later calls do nothing.
func (b *Bar) Finish() { b.FinishWith("") }

// FinishWith is Finish with more counts for the summary line ("2 failed
// events"), after a comma.
func (b *Bar) FinishWith(more string) {
	if b == nil {
		return
	}
	b.once.Do(func() {
		if b.bar != nil {
			_ = b.bar.Finish()
			return
		}
		line := Summary(b.o.Label, b.o.Unit, b.n.Load(), b.o.Now().Sub(b.start))
		if more != "" {
			line += ", " + more
		}
		fmt.Fprintln(b.w, line)
	})
}

// Summary is the line printed off a terminal: "LABEL: N UNIT in D
// (R UNIT/s)", the rate left out when no time has passed.
func Summary(label, unit string, n int64, elapsed time.Duration) string {
	line := fmt.Sprintf("%d %s in %s", n, unit, round(elapsed))
	if s := elapsed.Seconds(); s > 0 {
		line += fmt.Sprintf(" (%s %s/s)", rate(float64(n)/s), unit)
	}
	if label != "" {
		line = label + ": " + line
	}
	return line
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

func rate(r float64) string {
	if r >= 100 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.1f", r)
}

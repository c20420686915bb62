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
	"net/http"
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
	// Bytes counts bytes: the bar and the summary line show kB, MB …
	// (Unit is then ignored).
	Bytes bool
	// QuietUnder leaves the summary line out when the work took less
	// (0: always printed), for commands that are usually quick.
	QuietUnder time.Duration
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
		opts := []progressbar.Option{
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(o.Label),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionThrottle(100 * time.Millisecond),
			progressbar.OptionSetRenderBlankState(true),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		}
		if o.Bytes {
			// The count and the rate in kB, MB …
			opts = append(opts, progressbar.OptionShowBytes(true))
		} else {
			opts = append(opts, progressbar.OptionShowIts(), progressbar.OptionSetItsString(o.Unit))
		}
		b.bar = progressbar.NewOptions64(total, opts...)
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
// the line ended; elsewhere the summary line is printed (unless the work
// took less than Options.QuietUnder),
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
		elapsed := b.o.Now().Sub(b.start)
		if elapsed < b.o.QuietUnder {
			return
		}
		line := Summary(b.o.Label, b.o.Unit, b.n.Load(), elapsed)
		if b.o.Bytes {
			line = SummaryBytes(b.o.Label, b.n.Load(), elapsed)
		}
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

// SummaryBytes is Summary for a count of bytes: "export: 1.5 MB in 2s
// (750 kB/s)".
func SummaryBytes(label string, n int64, elapsed time.Duration) string {
	line := fmt.Sprintf("%s in %s", size(float64(n)), round(elapsed))
	if s := elapsed.Seconds(); s > 0 {
		line += fmt.Sprintf(" (%s/s)", size(float64(n)/s))
	}
	if label != "" {
		line = label + ": " + line
	}
	return line
}

// size is n bytes in SI units: "512 B", "1.5 kB", "20 MB".
func size(n float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	i := 0
	for n >= 1000 && i < len(units)-1 {
		n /= 1000
		i++
	}
	if i == 0 || n >= 100 {
		return fmt.Sprintf("%.0f %s", n, units[i])
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}

// SetTotal sets the count at which the work is done, once it is known
// (a response's Content-Length).
func (b *Bar) SetTotal(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.o.Total = n
	if b.bar != nil {
		b.bar.ChangeMax64(n)
	}
}

// Reader returns r counting what is read from it on b.
func (b *Bar) Reader(r io.Reader) io.Reader {
	if b == nil {
		return r
	}
	return &countingReader{r: r, b: b}
}

type countingReader struct {
	r io.Reader
	b *Bar
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.b.Add(int64(n))
	}
	return n, err
}

// Download returns a RoundTripper that counts the bytes of each response
// body on b (its total from the Content-Length), for a command whose work
// is one long answer (`charter export`).
func Download(b *Bar, next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err != nil || b == nil {
			return resp, err
		}
		b.SetTotal(resp.ContentLength)
		resp.Body = readCloser{b.Reader(resp.Body), resp.Body}
		return resp, nil
	})
}

// Upload returns a RoundTripper that counts the bytes of each request
// body on b (its total from the request's ContentLength), for a command
// whose work is one long request (`charter import`).
func Upload(b *Bar, next http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		if b != nil && req.Body != nil && req.Body != http.NoBody {
			b.SetTotal(req.ContentLength)
			req = req.Clone(req.Context())
			req.Body = readCloser{b.Reader(req.Body), req.Body}
		}
		return next.RoundTrip(req)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

type readCloser struct {
	io.Reader
	io.Closer
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

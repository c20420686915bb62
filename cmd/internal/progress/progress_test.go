package progress_test

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/progress"
)

// clock advances by step at each reading.
func clock(step time.Duration) func() time.Time {
	t := time.Date(2026, 1, 5, 9, 30, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(step); return t }
}

func TestSummaryOffTerminal(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	off := false
	bar := progress.New(&b, progress.Options{Label: "export", Unit: "subjects", Total: 10, Terminal: &off, Now: clock(2 * time.Second)})
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { bar.Add(1) })
	}
	wg.Wait()
	if b.Len() != 0 {
		t.Errorf("off a terminal nothing is written before the end: %q", b.String())
	}
	bar.FinishWith("3 skipped")
	bar.Finish() // a second end does nothing
	if want := "export: 10 subjects in 2s (5.0 subjects/s), 3 skipped\n"; b.String() != want {
		t.Errorf("summary = %q, want %q", b.String(), want)
	}
	if bar.Count() != 10 {
		t.Errorf("count %d", bar.Count())
	}
}

func TestBarOnTerminal(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	on := true
	bar := progress.New(&b, progress.Options{Label: "import", Unit: "schemas", Total: 4, Terminal: &on})
	bar.Set(2)
	bar.Set(4)
	bar.Finish()
	got := b.String()
	for _, want := range []string{"import", "100%", "(4/4, ", "schemas/s", "]"} {
		if !strings.Contains(got, want) {
			t.Errorf("bar lacks %q: %q", want, got)
		}
	}
	if !strings.HasSuffix(got, "\n") {
		t.Errorf("the finished bar ends its line: %q", got)
	}
}

func TestBarWithoutTotal(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	on := true
	bar := progress.New(&b, progress.Options{Label: "replay", Unit: "events", Terminal: &on})
	bar.Add(7)
	bar.Finish()
	if got := b.String(); !strings.Contains(got, "(7/-, ") || !strings.Contains(got, "events/s") {
		t.Errorf("spinner lacks the count 7: %q", got)
	}
}

func TestNilBar(t *testing.T) {
	t.Parallel()
	var bar *progress.Bar
	bar.Add(1)
	bar.Set(3)
	bar.Finish()
	if bar.Count() != 0 {
		t.Error("a nil bar counts nothing")
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int64
		d    time.Duration
		want string
	}{
		{1000, 2500 * time.Millisecond, "replay: 1000 events in 2.5s (400 events/s)"},
		{3, 0, "replay: 3 events in 0s"},
		{90, 95 * time.Second, "replay: 90 events in 1m35s (0.9 events/s)"},
	} {
		if got := progress.Summary("replay", "events", tc.n, tc.d); got != tc.want {
			t.Errorf("Summary(%d, %s) = %q, want %q", tc.n, tc.d, got, tc.want)
		}
	}
}

func TestBytesBar(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	on := true
	bar := progress.New(&b, progress.Options{Label: "export", Bytes: true, Terminal: &on})
	bar.SetTotal(34000)
	r := bar.Reader(strings.NewReader(strings.Repeat("x", 34000)))
	if n, err := io.Copy(io.Discard, r); n != 34000 || err != nil {
		t.Fatalf("copied %d, %v", n, err)
	}
	bar.Finish()
	got := b.String()
	if !strings.Contains(got, "100%") || !strings.Contains(got, "34/34 kB") || !strings.Contains(got, "B/s") || strings.Contains(got, "items") {
		t.Errorf("bytes bar = %q, want 100%% at 34/34 kB with a byte rate", got)
	}
	if got := progress.SummaryBytes("import", 1_500_000, 2*time.Second); got != "import: 1.5 MB in 2s (750 kB/s)" {
		t.Errorf("SummaryBytes = %q", got)
	}
}

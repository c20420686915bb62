package upcast

import (
	"bytes"
	"testing"
	"time"

	up "github.com/charter-dev/charter/upcast"
)

func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	bar := &progressBar{w: &b}
	bar.draw(up.Progress{Events: 5, Total: 10, Failed: 1})
	bar.draw(up.Progress{Events: 10, Total: 10, Failed: 2, Done: true})
	want := "\r[###############...............] 5/10 events, 1 failed" +
		"\r[##############################] 10/10 events, 2 failed\n"
	if b.String() != want {
		t.Errorf("bar = %q, want %q", b.String(), want)
	}
	on, off := true, false
	if !showProgress(&b, &on, false) || showProgress(&b, &off, false) || showProgress(&b, &on, true) || showProgress(&b, nil, false) {
		t.Error("showProgress: want forced on, forced off, --no-progress wins, and off for a non-terminal")
	}
}

func TestProgressWithoutTotal(t *testing.T) {
	var b bytes.Buffer
	bar := &progressBar{w: &b}
	bar.draw(up.Progress{Events: 7, Failed: 1})
	bar.draw(up.Progress{Events: 9, Failed: 2, Done: true})
	if want := "\r7 events, 1 failed\r9 events, 2 failed\n"; b.String() != want {
		t.Errorf("bar = %q, want %q", b.String(), want)
	}
	b.Reset()
	plain := plainProgress(&b)
	plain(up.Progress{Events: 5, Total: 10, Failed: 1, Elapsed: 1500 * time.Millisecond})
	plain(up.Progress{Events: 12, Elapsed: 2 * time.Second, Done: true})
	if want := "replay: 5/10 events, 1 failed, 1.5s\nreplay: 12 events, 0 failed, 2s\n"; b.String() != want {
		t.Errorf("plain = %q, want %q", b.String(), want)
	}
}

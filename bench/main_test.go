package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOptionsValidate: settings that would measure nothing, or a
// --markdown file that cannot be written, are refused before anything
// runs, naming the flag; the defaults pass.
func TestOptionsValidate(t *testing.T) {
	good := options{rounds: 3, workers: 8, writers: 8, registers: 2000, versions: 1000, duration: time.Second, chain: 1000}
	if err := good.validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		change func(*options)
		want   string
	}{
		{func(o *options) { o.rounds = 0 }, "invalid --rounds 0"},
		{func(o *options) { o.workers = -1 }, "invalid --workers -1"},
		{func(o *options) { o.writers = 0 }, "invalid --writers 0"},
		{func(o *options) { o.registers = 0 }, "invalid --registers 0"},
		{func(o *options) { o.versions = 0 }, "invalid --versions 0"},
		{func(o *options) { o.duration = 0 }, "invalid --duration 0s"},
		{func(o *options) { o.chain = -1 }, "invalid --chain -1"},
		{func(o *options) { o.markdown = filepath.Join(dir, "missing", "x.md") }, "--markdown: open"},
	} {
		o := good
		tc.change(&o)
		if err := o.validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("validate = %v, want %q", err, tc.want)
		}
	}
	o := good
	o.markdown = filepath.Join(dir, "x.md")
	if err := o.validate(); err != nil {
		t.Errorf("a writable --markdown: %v", err)
	}
}

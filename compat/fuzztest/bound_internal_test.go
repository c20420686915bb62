package fuzztest

import (
	"testing"
	"time"
)

// recorder is a testing.TB that records Errorf.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               { r.TB.Helper() }
func (r *recorder) Errorf(string, ...any) { r.failed = true }

func TestBound(t *testing.T) {
	r := &recorder{TB: t}
	if took := Bound(r, 10, func() {}); r.failed || took > Floor {
		t.Errorf("an empty function took %v (failed %v)", took, r.failed)
	}
	if testing.Short() {
		t.Skip("-short: not spinning for the floor")
	}
	Bound(r, 10, func() {
		// Spin on CPU time, not wall time, which a busy machine stretches.
		for start := now(); now()-start < Floor+50*time.Millisecond; {
		}
	})
	if !r.failed {
		t.Errorf("spinning past the floor passed")
	}
}

//go:build !unix

package fuzztest

import "time"

const clockName = "wall time"

var start = time.Now()

// now is the wall time since start: where the process's CPU time cannot
// be read, Bound measures wall time, which only a busy machine inflates.
func now() time.Duration { return time.Since(start) }

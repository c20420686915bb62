//go:build !unix

package api_test

import "time"

// processCPU cannot tell the process's CPU time here: false.
func processCPU() (time.Duration, bool) { return 0, false }

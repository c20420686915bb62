//go:build !linux

package upcast_test

import "time"

// processCPU is not measured on this system (see cputime_linux_test.go).
func processCPU() (time.Duration, bool) { return 0, false }

//go:build linux

package upcast_test

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU returns the CPU time the whole process has used (every
// thread: the benchmark goroutine, the garbage collector's workers), so
// that time stolen by other processes on a shared machine counts for
// neither side of a paired benchmark. ok is false if the clock fails.
func processCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

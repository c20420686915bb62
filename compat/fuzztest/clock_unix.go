//go:build unix

package fuzztest

import (
	"syscall"
	"time"
)

const clockName = "CPU"

// now is the process's CPU time so far (user and system).
func now() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic("getrusage: " + err.Error())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package api

import (
	"time"

	"github.com/charter-dev/charter/compat/evidence"
)

// SetEvidenceTimeout sets the time budget of a compatibility call's
// evidence and returns a function that restores it (for a test that is
// not parallel).
func SetEvidenceTimeout(d time.Duration) (restore func()) {
	old := evidenceTimeout
	evidenceTimeout = d
	return func() { evidenceTimeout = old }
}

// HoldEvidenceSlots takes every evidence slot (evidence.HoldAllSlots)
// and returns a function that gives them back (for a test that is not
// parallel).
func HoldEvidenceSlots() (release func()) { return evidence.HoldAllSlots() }

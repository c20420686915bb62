package api

import "time"

// SetEvidenceTimeout sets the time budget of a compatibility call's
// evidence and returns a function that restores it (for a test that is
// not parallel).
func SetEvidenceTimeout(d time.Duration) (restore func()) {
	old := evidenceTimeout
	evidenceTimeout = d
	return func() { evidenceTimeout = old }
}

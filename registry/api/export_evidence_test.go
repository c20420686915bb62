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

// HoldEvidenceSlots takes every slot of the evidence semaphore and
// returns a function that gives them back (for a test that is not
// parallel).
func HoldEvidenceSlots() (release func()) {
	n := cap(evidenceSlots)
	for range n {
		evidenceSlots <- struct{}{}
	}
	return func() {
		for range n {
			<-evidenceSlots
		}
	}
}

package evidence

import (
	"context"
	"runtime"
	"time"
)

// Evidence costs far more than a plain compatibility check, so a server
// runs at most one computation per CPU the runtime uses at once, the
// REST API's and the web UI's together: Acquire takes one of these
// slots.
var slots = make(chan struct{}, runtime.GOMAXPROCS(0))

// Busy is the NotRead of evidence a server did not compute because no
// slot was free (Acquire).
const Busy = "evidence: the server is busy"

// Acquire takes one of the process's evidence slots, waiting at most
// wait and no longer than ctx; ok is false when none was free, and the
// caller then answers without evidence (Busy), its verdict unchanged.
// release gives the slot back.
func Acquire(ctx context.Context, wait time.Duration) (release func(), ok bool) {
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, true
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, true
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, false
}

// HoldAllSlots takes every evidence slot and returns a function that
// gives them back: for tests of the busy answer (not parallel ones).
func HoldAllSlots() (release func()) {
	n := cap(slots)
	for range n {
		slots <- struct{}{}
	}
	return func() {
		for range n {
			<-slots
		}
	}
}

package upcast

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Sink receives each upcast event. Replay calls it from several
// goroutines at once, but for events with equal keys one at a time and in
// source order. An error stops the replay.
type Sink func(ctx context.Context, r *Result) error

// DeadLetter receives each event that failed, with its original bytes and
// the *Error saying why. Called like Sink. Returning nil parks the event
// and goes on; an error stops the replay.
type DeadLetter func(ctx context.Context, ev Event, err *Error) error

// Stats counts what a replay did.
type Stats struct {
	// Events read from the source, Upcast through at least one step,
	// FastPath passed through at the target version, Failed (dead-lettered
	// or parked).
	Events, Upcast, FastPath, Failed int64
	// Steps counts events per step (StepInfo.String()).
	Steps map[string]int64
	// Failures counts failed events per Kind ("unknown writer version" …).
	Failures map[string]int64
	Elapsed  time.Duration
}

// Progress is a snapshot passed to the progress hook.
type Progress struct {
	Events, Failed int64
	// Total is the expected number of events (WithTotal), 0 if unknown.
	Total   int64
	Elapsed time.Duration
	// Done is true on the last call.
	Done bool
}

type replayOptions struct {
	workers    int
	dead       DeadLetter
	park       bool
	progress   func(Progress)
	every      time.Duration
	total      int64
	queueDepth int
}

// ReplayOption configures Replay.
type ReplayOption func(*replayOptions)

// WithConcurrency sets how many events are upcast at once (default
// GOMAXPROCS; at least 1).
func WithConcurrency(n int) ReplayOption {
	return func(o *replayOptions) { o.workers = max(1, n) }
}

// WithDeadLetter sets where failed events go (default: none, and the
// first failure stops the replay and is returned).
func WithDeadLetter(d DeadLetter) ReplayOption { return func(o *replayOptions) { o.dead = d } }

// WithParkKeys makes a failure park its key: later events with the same
// key go to the dead letter too (Kind ErrParked), so a projection never
// applies an event whose predecessor is missing. Default off.
func WithParkKeys(on bool) ReplayOption { return func(o *replayOptions) { o.park = on } }

// WithProgress calls f about every interval (default 200ms) from one
// goroutine, and once more at the end with Done set.
func WithProgress(f func(Progress), every time.Duration) ReplayOption {
	return func(o *replayOptions) {
		o.progress = f
		if every > 0 {
			o.every = every
		}
	}
}

// WithTotal tells the progress hook how many events to expect.
func WithTotal(n int64) ReplayOption { return func(o *replayOptions) { o.total = n } }

// Replay runs every event of source through u and hands the results to
// sink, with bounded concurrency and in source order per Event.Key. It
// stops at the first source, sink or dead-letter error, or at the first
// failed upcast when no dead letter is set, and returns that error with
// the counts so far. Cancelling ctx stops it too.
func Replay(ctx context.Context, u *Upcaster, source iter.Seq2[Event, error], sink Sink, opts ...ReplayOption) (Stats, error) {
	o := replayOptions{workers: runtime.GOMAXPROCS(0), every: 200 * time.Millisecond, queueDepth: 64}
	for _, opt := range opts {
		opt(&o)
	}
	start := time.Now()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	var events, failed atomic.Int64
	counts := make([]workerStats, o.workers)
	queues := make([]chan Event, o.workers)
	var wg sync.WaitGroup
	for i := range queues {
		queues[i] = make(chan Event, o.queueDepth)
		counts[i] = workerStats{steps: map[string]int64{}, failures: map[string]int64{}}
		wg.Add(1)
		go func(ws *workerStats, q <-chan Event) {
			defer wg.Done()
			parked := map[string]bool{}
			for ev := range q {
				if ctx.Err() != nil {
					continue // drain
				}
				if err := replayOne(ctx, u, ev, sink, &o, ws, parked); err != nil {
					cancel(err)
					continue
				}
				if ws.lastFailed {
					failed.Add(1)
				}
			}
		}(&counts[i], queues[i])
	}

	stopProgress := make(chan struct{})
	progressDone := make(chan struct{})
	if o.progress != nil {
		go func() {
			defer close(progressDone)
			t := time.NewTicker(o.every)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					o.progress(Progress{Events: events.Load(), Failed: failed.Load(), Total: o.total, Elapsed: time.Since(start)})
				case <-stopProgress:
					return
				}
			}
		}()
	} else {
		close(progressDone)
	}

	seed := maphash.MakeSeed()
	next := 0
	for ev, err := range source {
		if err != nil {
			cancel(fmt.Errorf("replay: read source: %w", err))
			break
		}
		if ctx.Err() != nil {
			break
		}
		w := next
		if ev.Key != "" {
			w = int(maphash.String(seed, ev.Key) % uint64(o.workers))
		} else {
			next = (next + 1) % o.workers
		}
		select {
		case queues[w] <- ev:
			events.Add(1)
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	for _, q := range queues {
		close(q)
	}
	wg.Wait()
	close(stopProgress)
	<-progressDone

	st := Stats{Events: events.Load(), Steps: map[string]int64{}, Failures: map[string]int64{}, Elapsed: time.Since(start)}
	for _, ws := range counts {
		st.Upcast += ws.upcast
		st.FastPath += ws.fast
		st.Failed += ws.failed
		for k, n := range ws.steps {
			st.Steps[k] += n
		}
		for k, n := range ws.failures {
			st.Failures[k] += n
		}
	}
	if o.progress != nil {
		o.progress(Progress{Events: st.Events, Failed: st.Failed, Total: o.total, Elapsed: st.Elapsed, Done: true})
	}
	if ctx.Err() != nil {
		return st, context.Cause(ctx)
	}
	return st, nil
}

type workerStats struct {
	upcast, fast, failed int64
	steps, failures      map[string]int64
	lastFailed           bool
}

// replayOne upcasts one event and hands it to the sink or dead letter.
// It returns an error only when the replay must stop.
func replayOne(ctx context.Context, u *Upcaster, ev Event, sink Sink, o *replayOptions, ws *workerStats, parked map[string]bool) error {
	ws.lastFailed = false
	var ue *Error
	if o.park && ev.Key != "" && parked[ev.Key] {
		ue = &Error{Kind: ErrParked, EventID: ev.ID, Subject: ev.Subject, Version: ev.Version, SchemaID: ev.SchemaID,
			Err: fmt.Errorf("key %q has an earlier failed event", ev.Key)}
	} else {
		r, err := u.Upcast(ctx, ev)
		if err == nil {
			if r.FastPath() {
				ws.fast++
			} else {
				ws.upcast++
			}
			for _, s := range r.Steps {
				ws.steps[s.String()]++
			}
			if err := sink(ctx, r); err != nil {
				return fmt.Errorf("replay: sink, event %q: %w", ev.ID, err)
			}
			return nil
		}
		if !errors.As(err, &ue) {
			ue = &Error{Kind: ErrDecode, EventID: ev.ID, Err: err}
		}
	}
	ws.failed++
	ws.lastFailed = true
	ws.failures[ue.Kind.Error()]++
	if o.park && ev.Key != "" {
		parked[ev.Key] = true
	}
	if o.dead == nil {
		return ue
	}
	if err := o.dead(ctx, ev, ue); err != nil {
		return fmt.Errorf("replay: dead letter, event %q: %w", ev.ID, err)
	}
	return nil
}

// Events adapts a slice to a Replay source.
func Events(evs []Event) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for _, ev := range evs {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

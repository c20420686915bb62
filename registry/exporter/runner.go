package exporter

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// RunnerOptions configures a Runner. The zero value is usable.
type RunnerOptions struct {
	// ClusterID names the source registry: an AUTO exporter's subjects
	// land in the destination context ".{ClusterID}" (default "charter").
	ClusterID string
	// Poll is how often the runner looks at the source's generation
	// (default 200 ms): a change starts a cycle.
	Poll time.Duration
	// Resync is the longest time between two cycles (default 30 s): a
	// source whose generation is not exact (replicas) is caught up at
	// least this often, and so is an exporter woken by nothing else.
	Resync time.Duration
	// MaxPerCycle bounds the versions one exporter copies in one cycle
	// (default 200); the next cycle starts at once when more are left.
	MaxPerCycle int
	// MinBackoff and MaxBackoff bound the wait before retrying an
	// exporter whose cycle failed: it doubles from MinBackoff (default
	// 500 ms) up to MaxBackoff (default 30 s).
	MinBackoff, MaxBackoff time.Duration
	// Lease, when > 0, makes the runner hold a lease of this length on
	// each exporter it runs, stored with the exporter: of several
	// processes sharing one store (replicas on PostgreSQL), only the
	// holder runs it, and another takes it over once it lapses. 0 (one
	// process per store, SQLite) takes no lease.
	Lease time.Duration
	// HTTPClient sends the requests to destinations (default: one with
	// no overall timeout; each request is bounded by 30 s).
	HTTPClient *http.Client
	// Logger receives the runner's logs (default slog.Default()).
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Sealer opens the credentials sealed in the stored configs (the
	// Service's); nil fails an exporter that has one.
	Sealer *Sealer
}

// Runner copies the running exporters' subjects to their destinations
// until its context ends (Run). Each running exporter's cycle runs in a
// goroutine of its own, so that a slow or unreachable destination delays
// only the exporters that copy to it.
type Runner struct {
	store Store
	src   Source
	opts  RunnerOptions
	log   *slog.Logger
	owner string // this process's lease owner ID

	// mu guards the fields below, which the exporters' goroutines share.
	mu sync.Mutex
	// retries holds the backoff of each exporter whose last cycle failed;
	// leases when each lease this runner holds must be renewed.
	retries map[string]*retry
	leases  map[string]time.Time
	// busy holds the exporters whose cycle (or probe) runs now; pending
	// those a cycle was asked of meanwhile, run again once it ends; more
	// is set when a cycle left work (MaxPerCycle) or was pending.
	busy    map[string]bool
	pending map[string]bool
	more    bool
	// self caches, by destination URL, whether it is this registry.
	self map[string]selfEntry
	// wg counts the goroutines of cycles and probes.
	wg sync.WaitGroup
}

// retry is the backoff of an exporter whose last cycle failed. When the
// destination did not answer at all (connection refused, timeout), dest
// is set and probed every probeInterval: the cycle is retried as soon as
// it answers, not only when the backoff ends. A destination that answers
// with an error is only retried when the backoff ends.
type retry struct {
	delay  time.Duration
	next   time.Time
	dest   *destination
	probed time.Time
}

// probeInterval is how often an unreachable destination is probed.
const probeInterval = time.Second

// NewRunner returns a runner of store's exporters, copying from src.
func NewRunner(store Store, src Source, opts RunnerOptions) *Runner {
	if opts.ClusterID == "" {
		opts.ClusterID = "charter"
	}
	if opts.Poll <= 0 {
		opts.Poll = 200 * time.Millisecond
	}
	if opts.Resync <= 0 {
		opts.Resync = 30 * time.Second
	}
	if opts.MaxPerCycle <= 0 {
		opts.MaxPerCycle = 200
	}
	if opts.MinBackoff <= 0 {
		opts.MinBackoff = 500 * time.Millisecond
	}
	if opts.MaxBackoff < opts.MinBackoff {
		opts.MaxBackoff = max(30*time.Second, opts.MinBackoff)
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Runner{store: store, src: src, opts: opts, log: opts.Logger.With("component", "exporter"),
		owner: newOwnerID(), retries: map[string]*retry{}, leases: map[string]time.Time{},
		busy: map[string]bool{}, pending: map[string]bool{}, self: map[string]selfEntry{}}
}

// Run runs cycles until ctx ends, then waits for the cycles running and
// returns nil: one whenever the source's generation moves (a
// registration, a config change, an exporter created or resumed), an
// exporter's backoff ends, a cycle left work, or Resync passed. An
// exporter whose previous cycle still runs is run again once it ends.
func (r *Runner) Run(ctx context.Context) error {
	tick := time.NewTicker(r.opts.Poll)
	defer tick.Stop()
	defer r.wg.Wait()
	var lastGen uint64
	var last time.Time
	first := true
	for {
		gen, _ := r.src.Generation(ctx)
		now := r.opts.Now()
		r.mu.Lock()
		more := r.more
		r.mu.Unlock()
		if first || gen != lastGen || more || r.retryDue(ctx, now) || now.Sub(last) >= r.opts.Resync {
			first, lastGen, last = false, gen, now
			r.start(ctx)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// retryDue reports whether an exporter's backoff has ended. An exporter
// whose destination is unreachable is probed meanwhile, in a goroutine
// of its own: when it answers, its backoff ends.
func (r *Runner) retryDue(ctx context.Context, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	due := false
	for name, rt := range r.retries {
		if rt.dest != nil && now.Before(rt.next) && now.Sub(rt.probed) >= probeInterval && !r.busy[name] {
			rt.probed = now
			r.busy[name] = true
			r.wg.Add(1)
			go func(rt *retry, d *destination) {
				defer r.wg.Done()
				ok := d.reachable(ctx)
				r.mu.Lock()
				defer r.mu.Unlock()
				delete(r.busy, name)
				if ok && r.retries[name] == rt {
					rt.next, rt.dest = r.opts.Now(), nil
					r.more = true // run it at the next tick
				}
			}(rt, rt.dest)
		}
		if !now.Before(rt.next) {
			due = true
		}
	}
	return due
}

// cycle runs one cycle of every exporter that is not paused and not
// waiting out a backoff, and waits for them.
func (r *Runner) cycle(ctx context.Context) {
	r.start(ctx).Wait()
}

// start starts one cycle of every exporter that is not paused, not
// waiting out a backoff and not running already (that one is marked
// pending), each in a goroutine; the WaitGroup waits for them.
func (r *Runner) start(ctx context.Context) *sync.WaitGroup {
	var wg sync.WaitGroup
	r.mu.Lock()
	r.more = false
	r.mu.Unlock()
	var all []Stored
	err := r.store.View(ctx, func(tx Tx) error {
		var err error
		all, err = tx.Exporters(ctx)
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("read exporters", "error", err.Error())
		}
		return &wg
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	live := map[string]bool{}
	for _, e := range all {
		live[e.Name] = true
		if e.State == StatePaused {
			delete(r.retries, e.Name)
			continue
		}
		if r.busy[e.Name] {
			r.pending[e.Name] = true
			continue
		}
		if e.State == StateStarting {
			delete(r.retries, e.Name) // resumed or reset: no backoff
		}
		if rt := r.retries[e.Name]; rt != nil && r.opts.Now().Before(rt.next) {
			continue
		}
		if ctx.Err() != nil {
			return &wg
		}
		r.busy[e.Name] = true
		wg.Add(1)
		r.wg.Add(1)
		go func(e Stored) {
			defer r.wg.Done()
			defer wg.Done()
			r.runOne(ctx, e, all)
			r.mu.Lock()
			defer r.mu.Unlock()
			delete(r.busy, e.Name)
			if r.pending[e.Name] {
				delete(r.pending, e.Name)
				r.more = true
			}
		}(e)
	}
	for name := range r.retries {
		if !live[name] {
			delete(r.retries, name)
		}
	}
	return &wg
}

// runOne runs one cycle of exporter e (all are the registry's exporters,
// e among them) and records its outcome.
func (r *Runner) runOne(ctx context.Context, e Stored, all []Stored) {
	if ok, err := r.claim(ctx, e.Name); err != nil || !ok {
		if err != nil && ctx.Err() == nil {
			r.log.Warn("exporter lease", "exporter", e.Name, "error", err.Error())
		}
		return
	}
	copied, err := r.export(ctx, e, all)
	if ctx.Err() != nil || errors.Is(err, errStop) {
		return // shutting down, or the exporter changed under the cycle
	}
	if err != nil {
		r.fail(ctx, e, err)
		return
	}
	r.mu.Lock()
	delete(r.retries, e.Name)
	r.mu.Unlock()
	if copied > 0 {
		r.log.Info("exporter copied versions", "exporter", e.Name, "versions", copied)
	}
	if e.State != StateRunning || e.Trace != "" {
		r.setState(ctx, e.Name, StateRunning, "")
	}
}

// fail records err as exporter e's trace, in state ERROR, and backs
// off; an unreachable destination is probed meanwhile (see retry).
func (r *Runner) fail(ctx context.Context, e Stored, err error) {
	r.mu.Lock()
	rt := r.retries[e.Name]
	if rt == nil {
		rt = &retry{delay: r.opts.MinBackoff}
		r.retries[e.Name] = rt
	} else {
		rt.delay = min(2*rt.delay, r.opts.MaxBackoff)
	}
	now := r.opts.Now()
	rt.next, rt.dest, rt.probed = now.Add(rt.delay), nil, now
	var answered *destError
	var transport *url.Error
	if !errors.As(err, &answered) && errors.As(err, &transport) {
		rt.dest, _ = r.destination(e)
	}
	delay, unreachable := rt.delay, rt.dest != nil
	r.mu.Unlock()
	r.log.Warn("exporter cycle failed", "exporter", e.Name, "error", err.Error(), "retry_in", delay.String(),
		"unreachable", unreachable)
	r.setState(ctx, e.Name, StateError, clipTrace(err.Error()))
}

// setState stores exporter name's state and trace unless it was paused
// (or deleted) meanwhile.
func (r *Runner) setState(ctx context.Context, name string, state State, trace string) {
	err := r.store.Update(ctx, func(tx Tx, _ Audit) error {
		e, ok, err := tx.Exporter(ctx, name)
		if err != nil || !ok || e.State == StatePaused || (e.State == state && e.Trace == trace) {
			return err
		}
		if e.State != state {
			r.log.Info("exporter state", "exporter", name, "from", string(e.State), "to", string(state))
		}
		e.State, e.Trace, e.Ts = state, trace, r.opts.Now().UnixMilli()
		return tx.PutExporter(ctx, e)
	})
	if err != nil && ctx.Err() == nil {
		r.log.Warn("store exporter state", "exporter", name, "error", err.Error())
	}
}

// destination returns the destination of exporter e, its credentials
// opened.
func (r *Runner) destination(e Stored) (*destination, error) {
	c, err := openConfig(r.opts.Sealer, e.Config)
	if err != nil {
		return nil, err
	}
	return newDestination(c, r.opts.HTTPClient)
}

// clipTrace shortens an error for an exporter's trace to 1,000 bytes.
func clipTrace(s string) string {
	if len(s) <= 1000 {
		return s
	}
	return s[:1000] + "…"
}

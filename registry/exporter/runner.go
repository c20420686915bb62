package exporter

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
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
}

// Runner copies the running exporters' subjects to their destinations
// until its context ends (Run).
type Runner struct {
	store Store
	src   Source
	opts  RunnerOptions
	log   *slog.Logger
	owner string // this process's lease owner ID
	// retries holds the backoff of each exporter whose last cycle failed;
	// leases when each lease this runner holds must be renewed. Both are
	// used by Run's goroutine only.
	retries map[string]*retry
	leases  map[string]time.Time
	// more is set by a cycle that stopped at MaxPerCycle.
	more bool
}

type retry struct {
	delay time.Duration
	next  time.Time
}

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
		owner: newOwnerID(), retries: map[string]*retry{}, leases: map[string]time.Time{}}
}

// newOwnerID returns a random lease owner ID for this process.
func newOwnerID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Run runs cycles until ctx ends, then returns nil: one whenever the
// source's generation moves (a registration, a config change, an
// exporter created or resumed), an exporter's backoff ends, a cycle left
// work, or Resync passed.
func (r *Runner) Run(ctx context.Context) error {
	tick := time.NewTicker(r.opts.Poll)
	defer tick.Stop()
	var lastGen uint64
	var last time.Time
	first := true
	for {
		gen, _ := r.src.Generation(ctx)
		now := r.opts.Now()
		if first || gen != lastGen || r.more || r.retryDue(now) || now.Sub(last) >= r.opts.Resync {
			first, lastGen, last = false, gen, now
			r.cycle(ctx)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// retryDue reports whether an exporter's backoff has ended.
func (r *Runner) retryDue(now time.Time) bool {
	for _, rt := range r.retries {
		if !now.Before(rt.next) {
			return true
		}
	}
	return false
}

// cycle runs one cycle of every exporter that is not paused and not
// waiting out a backoff.
func (r *Runner) cycle(ctx context.Context) {
	r.more = false
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
		return
	}
	live := map[string]bool{}
	for _, e := range all {
		live[e.Name] = true
		if e.State == StatePaused {
			delete(r.retries, e.Name)
			continue
		}
		if e.State == StateStarting {
			delete(r.retries, e.Name) // resumed or reset: no backoff
		}
		if rt := r.retries[e.Name]; rt != nil && r.opts.Now().Before(rt.next) {
			continue
		}
		if ctx.Err() != nil {
			return
		}
		r.runOne(ctx, e)
	}
	for name := range r.retries {
		if !live[name] {
			delete(r.retries, name)
		}
	}
}

// runOne runs one cycle of exporter e and records its outcome.
func (r *Runner) runOne(ctx context.Context, e Stored) {
	if ok, err := r.claim(ctx, e.Name); err != nil || !ok {
		if err != nil && ctx.Err() == nil {
			r.log.Warn("exporter lease", "exporter", e.Name, "error", err.Error())
		}
		return
	}
	copied, err := r.export(ctx, e)
	if ctx.Err() != nil || errors.Is(err, errStop) {
		return // shutting down, or the exporter changed under the cycle
	}
	if err != nil {
		r.fail(ctx, e.Name, err)
		return
	}
	delete(r.retries, e.Name)
	if copied > 0 {
		r.log.Info("exporter copied versions", "exporter", e.Name, "versions", copied)
	}
	if e.State != StateRunning || e.Trace != "" {
		r.setState(ctx, e.Name, StateRunning, "")
	}
}

// fail records err as exporter name's trace, in state ERROR, and backs
// off.
func (r *Runner) fail(ctx context.Context, name string, err error) {
	rt := r.retries[name]
	if rt == nil {
		rt = &retry{delay: r.opts.MinBackoff}
		r.retries[name] = rt
	} else {
		rt.delay = min(2*rt.delay, r.opts.MaxBackoff)
	}
	rt.next = r.opts.Now().Add(rt.delay)
	r.log.Warn("exporter cycle failed", "exporter", name, "error", err.Error(), "retry_in", rt.delay.String())
	r.setState(ctx, name, StateError, clip(err.Error()))
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

// claim takes or renews the lease on exporter name (RunnerOptions.Lease);
// false when another process holds it. Without Lease it is always true.
func (r *Runner) claim(ctx context.Context, name string) (bool, error) {
	if r.opts.Lease <= 0 {
		return true, nil
	}
	now := r.opts.Now()
	if renew, ok := r.leases[name]; ok && now.Before(renew) {
		return true, nil
	}
	held := false
	err := r.store.Update(ctx, func(tx Tx, _ Audit) error {
		held = false
		e, ok, err := tx.Exporter(ctx, name)
		if err != nil || !ok {
			return err
		}
		if e.LeaseOwner != r.owner && e.LeaseOwner != "" && e.LeaseUntil > now.UnixMilli() {
			return nil
		}
		e.LeaseOwner, e.LeaseUntil = r.owner, now.Add(r.opts.Lease).UnixMilli()
		held = true
		return tx.PutExporter(ctx, e)
	})
	if err != nil || !held {
		delete(r.leases, name)
		return false, err
	}
	// Renew once a third of the lease has passed.
	r.leases[name] = now.Add(r.opts.Lease / 3)
	return true, nil
}

// export copies what exporter e has not copied yet, at most MaxPerCycle
// versions, and returns how many it copied. Progress is stored after
// each subject, and after a failure up to the last version copied.
func (r *Runner) export(ctx context.Context, e Stored) (int, error) {
	dst, err := newDestination(e.Config, r.opts.HTTPClient)
	if err != nil {
		return 0, err
	}
	var progress map[string]Progress
	err = r.store.View(ctx, func(tx Tx) error {
		var err error
		progress, err = tx.ExporterProgress(ctx, e.Name)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("read progress: %w", err)
	}
	subjects, err := r.src.Subjects(ctx)
	if err != nil {
		return 0, fmt.Errorf("list source subjects: %w", err)
	}
	c := &copier{r: r, e: e.Exporter, dst: dst, done: map[versionKey]bool{}, imported: map[string]bool{}}
	for s, p := range progress {
		if p.Imported {
			c.imported[e.DestinationSubject(s, r.opts.ClusterID)] = true
		}
	}
	copied := 0
	for _, subject := range subjects {
		if !e.Matches(subject.Name) {
			continue
		}
		if copied >= r.opts.MaxPerCycle {
			r.more = true
			break
		}
		p := progress[subject.Name]
		n, err := c.subject(ctx, subject, &p, r.opts.MaxPerCycle-copied)
		copied += n
		if n > 0 || p != progress[subject.Name] {
			if serr := r.saveProgress(ctx, &e, subject.Name, p, n); serr != nil {
				return copied, errors.Join(err, serr)
			}
		}
		if err != nil {
			return copied, err
		}
	}
	return copied, nil
}

// errStop ends a cycle without an error state: the exporter was paused,
// reset, redirected or deleted under it, or another process took over
// its lease. The next cycle starts from what is stored.
var errStop = errors.New("the exporter changed during the cycle")

// saveProgress stores the progress p of exporter e (as the cycle read
// it) on subject, adds n to its offset and, with a Lease, renews it. It
// records nothing and answers errStop when the stored exporter is no
// longer the cycle's: deleted, its offset moved by a reset, its
// destination changed, or its lease another process's; it records p and
// answers errStop when the exporter was paused meanwhile.
func (r *Runner) saveProgress(ctx context.Context, e *Stored, subject string, p Progress, n int) error {
	err := r.store.Update(ctx, func(tx Tx, _ Audit) error {
		cur, ok, err := tx.Exporter(ctx, e.Name)
		switch {
		case err != nil:
			return err
		case !ok, cur.Offset != e.Offset, redirected(e.Exporter, cur.Exporter):
			return errStop
		case r.opts.Lease > 0 && cur.LeaseOwner != r.owner:
			delete(r.leases, e.Name)
			return errStop
		}
		now := r.opts.Now()
		if r.opts.Lease > 0 {
			cur.LeaseUntil = now.Add(r.opts.Lease).UnixMilli()
		}
		if err := tx.PutExporterProgress(ctx, e.Name, subject, p); err != nil {
			return err
		}
		if n > 0 {
			cur.Offset += int64(n)
			cur.Ts = now.UnixMilli()
		}
		if n > 0 || r.opts.Lease > 0 {
			if err := tx.PutExporter(ctx, cur); err != nil {
				return err
			}
		}
		e.Offset, e.State = cur.Offset, cur.State
		return nil
	})
	if err == nil && e.State == StatePaused {
		return errStop
	}
	return err
}

// redirected reports whether b sends an exporter's copies elsewhere
// than a: another registry, context or renaming.
func redirected(a, b Exporter) bool {
	return a.ContextType != b.ContextType || a.Context != b.Context ||
		a.SubjectRenameFormat != b.SubjectRenameFormat || a.Config[ConfigURL] != b.Config[ConfigURL]
}

// versionKey names one source version.
type versionKey struct {
	subject string
	version int
}

// copier copies the versions of one exporter's cycle.
type copier struct {
	r   *Runner
	e   Exporter
	dst *destination
	// done holds the versions copied this cycle (references included);
	// imported the destination subjects known to be in IMPORT mode.
	done     map[versionKey]bool
	imported map[string]bool
}

// maxReferenceDepth bounds how deep references are followed.
const maxReferenceDepth = 32

// subject copies subject's versions after p.Version, at most limit, and
// its config when it changed, updating p; it returns how many versions
// it copied.
func (c *copier) subject(ctx context.Context, subject Subject, p *Progress, limit int) (int, error) {
	dest := c.e.DestinationSubject(subject.Name, c.r.opts.ClusterID)
	n := 0
	for _, v := range subject.Versions {
		if v <= p.Version {
			continue
		}
		if n >= limit {
			c.r.more = true
			break
		}
		if err := c.version(ctx, subject.Name, v, 0); err != nil {
			return n, err
		}
		p.Version, p.Imported = v, true
		n++
	}
	h := ""
	if subject.Config != nil {
		sum := sha256.Sum256(subject.Config)
		h = hex.EncodeToString(sum[:])
	}
	if h != p.ConfigHash {
		if err := c.dst.setConfig(ctx, dest, subject.Config); err != nil {
			return n, fmt.Errorf("copy config of %q to %q: %w", subject.Name, dest, err)
		}
		p.ConfigHash = h
	}
	return n, nil
}

// version copies version v of source subject, its references first.
func (c *copier) version(ctx context.Context, subject string, v int, depth int) error {
	key := versionKey{subject, v}
	if c.done[key] {
		return nil
	}
	if depth > maxReferenceDepth {
		return fmt.Errorf("references of %q version %d nest deeper than %d", subject, v, maxReferenceDepth)
	}
	sv, err := c.r.src.Version(ctx, subject, v)
	if err != nil {
		return fmt.Errorf("read %q version %d: %w", subject, v, err)
	}
	refs := make([]Reference, 0, len(sv.References))
	for _, ref := range sv.References {
		src := resolveReference(subject, ref.Subject)
		if err := c.version(ctx, src, ref.Version, depth+1); err != nil {
			return err
		}
		refs = append(refs, Reference{Name: ref.Name, Subject: c.e.DestinationSubject(src, c.r.opts.ClusterID), Version: ref.Version})
	}
	dest := c.e.DestinationSubject(subject, c.r.opts.ClusterID)
	if !c.imported[dest] {
		if err := c.dst.setImportMode(ctx, dest); err != nil {
			return fmt.Errorf("put %q in IMPORT mode: %w", dest, err)
		}
		c.imported[dest] = true
	}
	if err := c.dst.register(ctx, dest, sv, refs); err != nil {
		return fmt.Errorf("copy %q version %d (ID %d) to %q: %w", subject, v, sv.ID, dest, err)
	}
	c.done[key] = true
	return nil
}

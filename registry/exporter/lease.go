package exporter

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

// With RunnerOptions.Lease, a runner runs an exporter only while it holds
// the exporter's lease, stored with it (Stored.LeaseOwner, LeaseUntil):
// of the processes sharing a store, one copies, and another takes over
// once the holder stops renewing (claim each cycle, saveProgress after
// each subject).

// newOwnerID returns a random lease owner ID for this process.
func newOwnerID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// claim takes or renews the lease on exporter name (RunnerOptions.Lease);
// false when another process holds it. Without Lease it is always true.
func (r *Runner) claim(ctx context.Context, name string) (bool, error) {
	if r.opts.Lease <= 0 {
		return true, nil
	}
	now := r.opts.Now()
	r.mu.Lock()
	renew, ok := r.leases[name]
	r.mu.Unlock()
	if ok && now.Before(renew) {
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
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil || !held {
		delete(r.leases, name)
		return false, err
	}
	// Renew once a third of the lease has passed.
	r.leases[name] = now.Add(r.opts.Lease / 3)
	return true, nil
}

package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/charter-dev/charter/registry"
)

// Group commit. Updates are serialised by writeSlot as before, but an
// Update whose fn succeeded while other writers wait for the slot does not
// commit: it leaves its writes in the open transaction (each fn runs in a
// SAVEPOINT, so a failing fn undoes only its own writes) and waits for the
// batch's one COMMIT, and so its one fsync (synchronous=FULL). The last
// writer of a batch (nobody waiting, or maxBatch reached) commits it; a
// writer waiting for a batch that nobody joined within batchLinger takes
// the slot and commits it itself. Every Update returns only once its
// writes are durable, or with the commit's error (nothing of the batch is
// then stored).
const (
	maxBatch    = 64
	batchLinger = 2 * time.Millisecond
)

// batch is one shared write transaction.
type batch struct {
	tx   *sql.Tx
	n    int           // fns whose writes it holds
	done chan struct{} // closed once committed or rolled back
	err  error         // the outcome, set before done is closed
}

// group is the Store's group-commit state.
type group struct {
	cur     *batch       // guarded by writeSlot
	waiting atomic.Int32 // Updates waiting for writeSlot
}

// update runs fn in the current batch and waits for the batch's commit.
func (s *Store) update(ctx context.Context, fn func(registry.Tx) error) error {
	s.group.waiting.Add(1)
	select {
	case s.writeSlot <- struct{}{}:
		s.group.waiting.Add(-1)
	case <-ctx.Done():
		s.group.waiting.Add(-1)
		return fmt.Errorf("wait for write lock: %w", ctx.Err())
	}
	held := true
	release := func() {
		if held {
			held = false
			<-s.writeSlot
		}
	}
	defer release()
	b := s.group.cur
	if b == nil && s.writeStmts.hasPending() {
		// The one write connection is free between batches.
		s.writeStmts.prepare(context.WithoutCancel(ctx))
	}
	if b == nil {
		// The batch outlives the context of the writer that opened it.
		t, err := s.write.BeginTx(context.WithoutCancel(ctx), nil)
		if err != nil {
			return fmt.Errorf("begin transaction: %w", err)
		}
		b = &batch{tx: t, done: make(chan struct{})}
		s.group.cur = b
	}
	defer func() {
		// fn failed or panicked alone in the batch: end it rather than
		// leave an empty transaction open.
		if held && b.n == 0 {
			s.endBatch(b, false)
		}
	}()
	if err := s.inSavepoint(ctx, b, fn); err != nil {
		return err
	}
	b.n++
	if s.group.waiting.Load() > 0 && b.n < maxBatch {
		release()
		return s.awaitBatch(b)
	}
	s.endBatch(b, true)
	return b.err
}

// inSavepoint runs fn inside a savepoint of b, rolled back to when fn
// fails or panics. A rollback that fails ends the whole batch.
func (s *Store) inSavepoint(ctx context.Context, b *batch, fn func(registry.Tx) error) (err error) {
	st := stmtTx{b.tx, s.writeStmts}
	if _, err := st.ExecContext(context.WithoutCancel(ctx), "SAVEPOINT charter_update"); err != nil {
		s.endBatch(b, false)
		return fmt.Errorf("begin savepoint: %w", err)
	}
	ok := false
	defer func() {
		if ok {
			return
		}
		bg := context.WithoutCancel(ctx)
		if _, rerr := b.tx.ExecContext(bg, "ROLLBACK TO charter_update"); rerr != nil {
			s.endBatch(b, false)
		} else if _, rerr := b.tx.ExecContext(bg, "RELEASE charter_update"); rerr != nil {
			s.endBatch(b, false)
		}
	}()
	if err := fn(&tx{tx: st}); err != nil {
		return err
	}
	if _, err := st.ExecContext(context.WithoutCancel(ctx), "RELEASE charter_update"); err != nil {
		return fmt.Errorf("release savepoint: %w", err)
	}
	ok = true
	return nil
}

// endBatch commits (or rolls back) b if it is still the current batch;
// the caller holds writeSlot.
func (s *Store) endBatch(b *batch, commit bool) {
	if s.group.cur != b {
		return
	}
	s.group.cur = nil
	var err error
	if commit {
		if err = b.tx.Commit(); err != nil {
			err = fmt.Errorf("commit transaction: %w", err)
		}
	} else {
		_ = b.tx.Rollback()
		if b.n > 0 {
			err = fmt.Errorf("commit transaction: a later write in the same batch failed to roll back")
		}
	}
	b.err = err
	close(b.done)
}

// awaitBatch waits for b's outcome; when nobody has ended b within
// batchLinger, it takes writeSlot and commits b itself.
func (s *Store) awaitBatch(b *batch) error {
	t := time.NewTimer(batchLinger)
	defer t.Stop()
	select {
	case <-b.done:
		return b.err
	case <-t.C:
	}
	s.writeSlot <- struct{}{}
	s.endBatch(b, true) // a no-op if another writer ended it meanwhile
	<-s.writeSlot
	<-b.done
	return b.err
}

package registry

import "context"

// WriteCounter is the optional part of a Store shared by several
// processes (registry/postgres) that lets each of them cache answers
// exactly: the store counts its committed Updates, raising the count in
// the same transaction as the change, so a count read after a write was
// acknowledged anywhere is above every count read before it committed.
// The Service finds it by type assertion.
type WriteCounter interface {
	// WriteCount returns the number of Updates committed so far, by
	// every process sharing the store; one read of the store.
	WriteCount(ctx context.Context) (int64, error)
}

// Generation names the state a cached answer was computed from: this
// process's write generation (ViewGeneration) and, for a store shared
// with other processes, the store's write count. Two equal Generations
// mean that nothing was written in between, here or elsewhere.
type Generation struct {
	Local uint64
	Store int64
}

// ReadGeneration returns the Generation to tag a cached answer with
// before reading it, and to check one against before serving it; exact
// says that an answer computed by a read begun after ReadGeneration
// returned g, and served only while ReadGeneration still returns g, is
// never older than a write acknowledged by any process.
//
// For a store of this process alone it is ViewGeneration, at no cost.
// For a shared store it also reads the store's write count (one round
// trip), which every committed Update raises in its own transaction:
// the count is read before the answer's own read begins, so the answer
// is at least as new as the count says. exact is false for a shared
// store that keeps no write count, or when the count cannot be read
// (the error is the caller's read-through's to meet).
func (s *Service) ReadGeneration(ctx context.Context) (g Generation, exact bool) {
	local, exact := s.ViewGeneration()
	g.Local = local
	if exact {
		return g, true
	}
	wc, ok := s.store.(WriteCounter)
	if !ok {
		return g, false
	}
	n, err := wc.WriteCount(ctx)
	if err != nil {
		return g, false
	}
	g.Store = n
	return g, true
}

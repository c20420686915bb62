package registry

// Invalidation tells a Service that another process sharing its store
// committed a change that in-process caches may hold an older picture of.
// The Service caches nothing but immutable schemas by ID (parsed schemas,
// and the API's encoded GET /schemas/ids/{id} answers); an ID goes stale
// only when its schema is forgotten (its last version permanently deleted,
// after which IMPORT may store another schema under the same ID).
// Subjects, versions ("latest"), config, mode and governance are read from
// the store in every request's transaction, so they are never stale.
type Invalidation struct {
	// Forgotten lists the schema IDs of the default context that another
	// process forgot (one forgotten in another context comes as All).
	Forgotten []int64
	// All means that changes may have been missed (a lost notification
	// connection, a gap in the sequence): every cache must be dropped.
	All bool
}

// Invalidator is the optional part of a Store shared by several
// processes (registry/postgres): it reports what other processes changed,
// so that each Service can evict what it caches. A store serving one
// process (registry/sqlite) does not implement it. The Service finds it
// by type assertion in NewService.
type Invalidator interface {
	// OnInvalidate registers fn to be called with every Invalidation, in
	// order, from the store's own goroutine; fn must not block for long.
	OnInvalidate(fn func(Invalidation))
}

// OnCachesDropped registers fn to be called when the Service drops every
// cached schema (an Invalidation with All): callers that cache answers by
// schema ID drop them all too.
func (s *Service) OnCachesDropped(fn func()) {
	s.forgetMu.Lock()
	s.onDrop = append(s.onDrop, fn)
	s.forgetMu.Unlock()
}

// invalidate applies an Invalidation from the store.
func (s *Service) invalidate(inv Invalidation) {
	s.bumpGeneration()
	if !inv.All {
		keys := make([]SchemaKey, len(inv.Forgotten))
		for i, id := range inv.Forgotten {
			keys[i] = SchemaKey{ID: id}
		}
		s.forgotten(keys)
		return
	}
	s.parsed.clear()
	s.summaries.clear()
	s.lookups.clear()
	s.forgetMu.RLock()
	defer s.forgetMu.RUnlock()
	for _, fn := range s.onDrop {
		fn()
	}
}

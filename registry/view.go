package registry

// ViewGeneration returns the Service's write generation and whether an
// answer cached under it is exact.
//
// The generation changes when a write through this Service starts and
// again once it has committed, before the write is answered, and when the
// store reports that another process invalidated everything. So an
// answer computed by a read that began after ViewGeneration returned g,
// and served only while ViewGeneration still returns g, is never older
// than a write this process has acknowledged: every write (registration,
// delete, config, mode, governance, import) goes through Service.update.
//
// exact is false for a store shared by several processes (a store that
// implements Invalidator, registry/postgres): another replica's writes do
// not move this generation in step with their acknowledgement, so callers
// must read through, or use ReadGeneration, which adds the store's write
// count. Caching by generation is coarse on purpose: any
// write makes every cached answer a miss, which keeps it exact across
// aliases, references, global config and governance, at the cost of one
// store read per path after each write.
func (s *Service) ViewGeneration() (gen uint64, exact bool) {
	return s.gen.Load(), !s.shared
}

// bumpGeneration makes every answer cached under the current generation
// a miss.
func (s *Service) bumpGeneration() { s.gen.Add(1) }

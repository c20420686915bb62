package registry

import (
	"container/list"
	"context"
	"fmt"
	"sync"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/srerr"
)

// parsedCache keeps parsed schemas by schema key (context and ID). Schemas are immutable once
// stored, so an entry never goes stale; the cache only bounds memory: by
// count (WithParsedCacheSize) and by estimated bytes (WithParsedCacheBytes),
// evicting the least recently used schema first once either is passed. An
// entry's bytes are estimated from its canonical text
// (parsedBytesPerTextByte per byte plus parsedEntryOverhead); one schema
// larger than the whole byte budget is not kept.
type parsedCache struct {
	mu     sync.Mutex
	max    int // entries
	budget int // estimated bytes
	used   int
	lru    *list.List // of *parsedEntry, most recent first
	m      map[SchemaKey]*list.Element
}

type parsedEntry struct {
	id   SchemaKey
	s    compat.Schema
	size int
}

// parsedBytesPerTextByte is the measured ratio of a parsed schema's heap
// bytes to its canonical text's length (TestParsedSizeFactor measures it on
// a growing Avro record and a JSON Schema object: 32-37 heap bytes per byte
// of text at 10 to 1,000 fields, rounded up here).
const parsedBytesPerTextByte = 40

// parsedEntryOverhead approximates an entry's bookkeeping bytes.
const parsedEntryOverhead = 256

func parsedSize(s compat.Schema) int {
	return len(s.Canonical())*parsedBytesPerTextByte + parsedEntryOverhead
}

func newParsedCache(max, budget int) *parsedCache {
	return &parsedCache{max: max, budget: budget, lru: list.New(), m: make(map[SchemaKey]*list.Element)}
}

func (c *parsedCache) get(id SchemaKey) (compat.Schema, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[id]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*parsedEntry).s, true
}

func (c *parsedCache) put(id SchemaKey, s compat.Schema) {
	size := parsedSize(s)
	if size > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[id]; ok {
		c.removeLocked(el)
	}
	c.m[id] = c.lru.PushFront(&parsedEntry{id: id, s: s, size: size})
	c.used += size
	for c.used > c.budget || len(c.m) > c.max {
		c.removeLocked(c.lru.Back())
	}
}

// putIfRoom adds s unless that would evict another schema: a scan over
// more versions than the budget holds (a transitive check in full) then
// keeps hitting the part that fits instead of evicting it, as LRU over
// the same oldest-first scan at every registration does.
func (c *parsedCache) putIfRoom(id SchemaKey, s compat.Schema) {
	size := parsedSize(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[id]; ok || c.used+size > c.budget || len(c.m) >= c.max {
		return
	}
	c.m[id] = c.lru.PushFront(&parsedEntry{id: id, s: s, size: size})
	c.used += size
}

func (c *parsedCache) removeLocked(el *list.Element) {
	e := c.lru.Remove(el).(*parsedEntry)
	delete(c.m, e.id)
	c.used -= e.size
}

func (c *parsedCache) remove(id SchemaKey) {
	c.mu.Lock()
	if el, ok := c.m[id]; ok {
		c.removeLocked(el)
	}
	c.mu.Unlock()
}

func (c *parsedCache) clear() {
	c.mu.Lock()
	clear(c.m)
	c.lru.Init()
	c.used = 0
	c.mu.Unlock()
}

// stats returns the entries and estimated bytes held.
func (c *parsedCache) stats() (n, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m), c.used
}

// parseStored returns stored schema st parsed, from the cache when
// possible. Its references are resolved inside tx. A stored schema that no
// longer parses (for example, a type this server cannot parse) is 42201.
// Once ctx has ended it returns ctx's error, so that the loops over many
// versions that call it (transitive checks, changelogs, the lineage
// graph) stop when their client has gone.
func (s *Service) parseStored(ctx context.Context, tx Tx, st Schema) (compat.Schema, error) {
	return s.parseStoredInto(ctx, tx, st, s.parsed.put)
}

// parseStoredScan is parseStored for a scan over many versions: a schema
// parsed enters the cache only where it fits without evicting another
// (parsedCache.putIfRoom).
func (s *Service) parseStoredScan(ctx context.Context, tx Tx, st Schema) (compat.Schema, error) {
	return s.parseStoredInto(ctx, tx, st, s.parsed.putIfRoom)
}

func (s *Service) parseStoredInto(ctx context.Context, tx Tx, st Schema, keep func(SchemaKey, compat.Schema)) (compat.Schema, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse schema %d: %w", st.ID, err)
	}
	if p, ok := s.parsed.get(st.Key()); ok {
		return p, nil
	}
	f, err := s.format(st.Type)
	if err != nil {
		return nil, err
	}
	deps, err := s.resolveReferences(ctx, tx, st.Context, st.References)
	if err != nil {
		return nil, fmt.Errorf("resolve references of schema %d: %w", st.ID, err)
	}
	p, err := f.Parse(st.Text, deps)
	if err != nil {
		return nil, srerr.New(srerr.ErrInvalidSchema, "Stored schema %d no longer parses: %v", st.ID, err)
	}
	keep(st.Key(), p)
	return p, nil
}

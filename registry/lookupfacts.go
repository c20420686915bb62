package registry

import (
	"container/list"
	"context"
	"strings"
	"sync"

	"github.com/charter-dev/charter/compat"
)

// lookupFacts is what findInSubject's scans over a subject's versions
// ask of each stored schema, kept so that a registration (which runs the
// lookup first) does not load the text of every version: about 200 bytes
// per schema instead of its text (25 KB for a 1,000-field record, a
// thousand of them per registration of a long subject).
type lookupFacts struct {
	typ compat.SchemaType
	// bare is the schema's fingerprint without its metadata and
	// ruleSet; content, for an imported copy (copyFingerprint), the
	// fingerprint of its content, else "".
	bare, content string
	// refs says the schema has references.
	refs bool
	// sansVersion is the fingerprint without the metadata's
	// confluent:version property, "" when it has none
	// (matchConfluentVersion).
	sansVersion string
}

func lookupFactsOf(st Schema) lookupFacts {
	f := lookupFacts{typ: st.Type, bare: Fingerprint(st.Type, st.Text, st.References, nil, nil), refs: len(st.References) > 0,
		sansVersion: sansVersionFingerprint(st)}
	if strings.Contains(st.Fingerprint, "#") {
		f.content = contentFingerprint(st)
	}
	return f
}

// lookupCache keeps lookupFacts by schema ID, least recently used evicted
// past max entries. Schemas are immutable; a forgotten ID is removed
// (Service.forgotten), as from the parsed cache.
type lookupCache struct {
	mu  sync.Mutex
	max int
	lru *list.List // of lookupEntry
	m   map[SchemaKey]*list.Element
}

type lookupEntry struct {
	id SchemaKey
	f  lookupFacts
}

// defaultLookupEntries bounds the facts kept (about 40 MB at most).
const defaultLookupEntries = 200_000

func newLookupCache(max int) *lookupCache {
	return &lookupCache{max: max, lru: list.New(), m: make(map[SchemaKey]*list.Element)}
}

func (c *lookupCache) get(id SchemaKey) (lookupFacts, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[id]
	if !ok {
		return lookupFacts{}, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(lookupEntry).f, true
}

func (c *lookupCache) put(id SchemaKey, f lookupFacts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[id]; ok {
		el.Value = lookupEntry{id, f}
		c.lru.MoveToFront(el)
		return
	}
	c.m[id] = c.lru.PushFront(lookupEntry{id, f})
	for len(c.m) > c.max {
		e := c.lru.Remove(c.lru.Back()).(lookupEntry)
		delete(c.m, e.id)
	}
}

func (c *lookupCache) remove(id SchemaKey) {
	c.mu.Lock()
	if el, ok := c.m[id]; ok {
		c.lru.Remove(el)
		delete(c.m, id)
	}
	c.mu.Unlock()
}

func (c *lookupCache) clear() {
	c.mu.Lock()
	clear(c.m)
	c.lru.Init()
	c.mu.Unlock()
}

// facts returns the facts of stored schema id, loading it when they are
// not kept.
func (s *Service) lookupFact(ctx context.Context, tx Tx, id SchemaKey) (lookupFacts, error) {
	if f, ok := s.lookups.get(id); ok {
		return f, nil
	}
	st, err := storedSchema(ctx, tx, id)
	if err != nil {
		return lookupFacts{}, err
	}
	f := lookupFactsOf(st)
	s.lookups.put(id, f)
	return f, nil
}

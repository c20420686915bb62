package registry

import (
	"context"
	"fmt"
	"sync"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/srerr"
)

// parsedCache keeps parsed schemas by schema ID. Schemas are immutable once
// stored, so an entry never goes stale; the cache only bounds memory. When
// full it drops an arbitrary half (Go map iteration order), which is cheap
// and good enough for a working set that fits most of the time.
type parsedCache struct {
	mu  sync.RWMutex
	max int
	m   map[int64]compat.Schema
}

func newParsedCache(max int) *parsedCache {
	return &parsedCache{max: max, m: make(map[int64]compat.Schema)}
}

func (c *parsedCache) get(id int64) (compat.Schema, bool) {
	c.mu.RLock()
	s, ok := c.m[id]
	c.mu.RUnlock()
	return s, ok
}

func (c *parsedCache) put(id int64, s compat.Schema) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		n := len(c.m) / 2
		for k := range c.m {
			if n == 0 {
				break
			}
			delete(c.m, k)
			n--
		}
	}
	c.m[id] = s
}

func (c *parsedCache) remove(id int64) {
	c.mu.Lock()
	delete(c.m, id)
	c.mu.Unlock()
}

func (c *parsedCache) clear() {
	c.mu.Lock()
	clear(c.m)
	c.mu.Unlock()
}

// parseStored returns stored schema st parsed, from the cache when
// possible. Its references are resolved inside tx. A stored schema that no
// longer parses (for example, a type this server cannot parse) is 42201.
// Once ctx has ended it returns ctx's error, so that the loops over many
// versions that call it (transitive checks, changelogs, the lineage
// graph) stop when their client has gone.
func (s *Service) parseStored(ctx context.Context, tx Tx, st Schema) (compat.Schema, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse schema %d: %w", st.ID, err)
	}
	if p, ok := s.parsed.get(st.ID); ok {
		return p, nil
	}
	f, err := s.format(st.Type)
	if err != nil {
		return nil, err
	}
	deps, err := s.resolveReferences(ctx, tx, st.References)
	if err != nil {
		return nil, fmt.Errorf("resolve references of schema %d: %w", st.ID, err)
	}
	p, err := f.Parse(st.Text, deps)
	if err != nil {
		return nil, srerr.New(srerr.ErrInvalidSchema, "Stored schema %d no longer parses: %v", st.ID, err)
	}
	s.parsed.put(st.ID, p)
	return p, nil
}

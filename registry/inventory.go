package registry

import (
	"context"
	"fmt"
	"sync"

	"github.com/charter-dev/charter/compat"
)

// Inventory is what the registry holds, counted by schema type (GET
// /metrics). A version's type is its schema's.
type Inventory struct {
	// Schemas counts the schema IDs that at least one version (live or
	// soft-deleted) holds.
	Schemas map[compat.SchemaType]int
	// Subjects counts the subjects with a live version, by the type of
	// their latest live version.
	Subjects map[compat.SchemaType]int
	// LiveVersions and DeletedVersions count the versions, live and
	// soft-deleted (permanently deleted ones are gone).
	LiveVersions, DeletedVersions map[compat.SchemaType]int
	// BySubject counts the live versions of each subject with one, when
	// asked for (InventoryOptions.BySubject).
	BySubject map[string]SubjectCount
}

// SubjectCount is one subject's line of an Inventory.
type SubjectCount struct {
	Type         compat.SchemaType // of the latest live version
	LiveVersions int
}

// InventoryOptions says what Inventory counts beyond the totals.
type InventoryOptions struct {
	// BySubject fills Inventory.BySubject (one entry per subject).
	BySubject bool
}

// inventoryCache remembers the type of each schema ID Inventory has seen
// (types never change; an ID forgotten, which IMPORT may reuse, is
// dropped), so that an Inventory reads each schema once in the process's
// life rather than once per call.
type inventoryCache struct {
	once  sync.Once
	mu    sync.Mutex
	types map[SchemaKey]compat.SchemaType
}

// Inventory counts schemas, subjects and versions by type in one read
// transaction: one listing of every version, plus one schema read per
// schema ID not seen by an earlier call. Its cost grows with the
// registry's size; callers that poll (metrics scrapes) cache the answer.
func (s *Service) Inventory(ctx context.Context, opts InventoryOptions) (Inventory, error) {
	c := &s.inv
	c.once.Do(func() {
		c.types = map[SchemaKey]compat.SchemaType{}
		s.OnSchemaForgotten(func(id SchemaKey) {
			c.mu.Lock()
			delete(c.types, id)
			c.mu.Unlock()
		})
		s.OnCachesDropped(func() {
			c.mu.Lock()
			clear(c.types)
			c.mu.Unlock()
		})
	})
	inv := Inventory{
		Schemas:         map[compat.SchemaType]int{},
		Subjects:        map[compat.SchemaType]int{},
		LiveVersions:    map[compat.SchemaType]int{},
		DeletedVersions: map[compat.SchemaType]int{},
	}
	if opts.BySubject {
		inv.BySubject = map[string]SubjectCount{}
	}
	err := s.view(ctx, "count inventory", func(tx Tx) error {
		clear(inv.Schemas)
		clear(inv.Subjects)
		clear(inv.LiveVersions)
		clear(inv.DeletedVersions)
		clear(inv.BySubject)
		vs, err := tx.Versions(ctx, VersionQuery{IncludeDeleted: true})
		if err != nil {
			return fmt.Errorf("list versions: %w", err)
		}
		seen := map[SchemaKey]bool{}
		latest := map[string]compat.SchemaType{} // subject → type of its latest live version
		for _, v := range vs {
			t, err := s.schemaType(ctx, tx, v.Key())
			if err != nil {
				return err
			}
			if !seen[v.Key()] {
				seen[v.Key()] = true
				inv.Schemas[t]++
			}
			if v.Deleted {
				inv.DeletedVersions[t]++
				continue
			}
			inv.LiveVersions[t]++
			latest[v.Subject] = t // versions come by subject, then version
			if inv.BySubject != nil {
				sc := inv.BySubject[v.Subject]
				sc.Type, sc.LiveVersions = t, sc.LiveVersions+1
				inv.BySubject[v.Subject] = sc
			}
		}
		for _, t := range latest {
			inv.Subjects[t]++
		}
		return nil
	})
	return inv, err
}

// schemaType returns the type of schema id, from the parsed cache or the
// inventory's, else from the store.
func (s *Service) schemaType(ctx context.Context, tx Tx, id SchemaKey) (compat.SchemaType, error) {
	c := &s.inv
	c.mu.Lock()
	t, ok := c.types[id]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	if p, ok := s.parsed.get(id); ok {
		t = p.Type()
	} else {
		st, err := tx.SchemaByID(ctx, id.Context, id.ID)
		if err != nil {
			return "", fmt.Errorf("load schema %d: %w", id.ID, err)
		}
		t = st.Type
	}
	if t == "" {
		t = compat.Avro
	}
	c.mu.Lock()
	c.types[id] = t
	c.mu.Unlock()
	return t, nil
}

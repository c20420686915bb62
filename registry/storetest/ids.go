package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// testIDAllocationPastImportedMaximum: once an explicit (IMPORT) ID is
// registry.MaxID, so that one above the mark no longer fits, allocation
// takes the smallest ID that no schema holds or ever held, above the last
// one allocated that way: imported IDs are skipped, deleted IDs are never
// handed out again, and deleting the imported maximum changes nothing
// (the mark, as MaxSchemaID reports it, never goes down). Before that,
// allocation is mark + 1 as in testIDAllocation.
func testIDAllocationPastImportedMaximum(t *testing.T, s registry.Store) {
	steps := []struct {
		name     string
		fp       string
		id, want int64
		drop     bool // delete it again in the same Update
	}{
		{"allocated before the import", "a", 0, 1, false},
		{"allocated, then deleted", "b", 0, 2, true},
		{"imported at the largest id", "top", registry.MaxID, registry.MaxID, false},
		{"allocated below the imported maximum", "c", 0, 3, false},
		{"imported in the gap", "imp5", 5, 5, false},
		{"allocated next", "d", 0, 4, false},
		{"allocated past the imported one", "e", 0, 6, true},
		{"allocated past the deleted one", "f", 0, 7, false},
		{"imported at the deleted id", "b2", 2, 2, false},
		{"allocated after that", "g", 0, 8, false},
	}
	for _, st := range steps {
		update(t, s, func(ctx context.Context, tx registry.Tx) error {
			sc := schema(st.fp)
			sc.ID = st.id
			got, err := tx.CreateSchema(ctx, sc)
			if err != nil {
				return fmt.Errorf("%s: CreateSchema: %w", st.name, err)
			}
			if got != st.want {
				t.Errorf("%s: ID = %d, want %d", st.name, got, st.want)
			}
			if st.drop {
				return tx.DeleteSchema(ctx, "", got)
			}
			return nil
		})
	}
	// Deleting the imported maximum leaves the mark, and allocation goes on.
	update(t, s, func(ctx context.Context, tx registry.Tx) error { return tx.DeleteSchema(ctx, "", registry.MaxID) })
	got := createSchemas(t, s, schema("h"), schema("i"))
	if got[0] != 9 || got[1] != 10 {
		t.Errorf("after deleting the imported maximum: IDs = %v, want [9 10]", got)
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		if max, err := tx.MaxSchemaID(ctx, ""); err != nil || max != registry.MaxID {
			t.Errorf("MaxSchemaID = %d, %v; want %d (the largest ever stored)", max, err, registry.MaxID)
		}
		for _, id := range []int64{1, 2, 3, 4, 5, 7, 8, 9, 10} {
			if _, err := tx.SchemaByID(ctx, "", id); err != nil {
				t.Errorf("SchemaByID(%d): %v", id, err)
			}
		}
		return nil
	})
}

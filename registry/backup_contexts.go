package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/charter-dev/charter/registry/dump"
)

// The schema contexts' part of a lossless export and import: each
// context's ID mark, fallback floor and retired IDs, the default
// context's in the dump's top-level fields (as before contexts), the
// others' in Contexts.

// exportContexts adds the ID allocation state of every context b knows
// to d.
func exportContexts(ctx context.Context, tx Tx, b BackupTx, d *dump.Dump) error {
	names, err := b.SchemaContexts(ctx)
	if err != nil {
		return err
	}
	listed, err := tx.Contexts(ctx)
	if err != nil {
		return err
	}
	exists := map[string]bool{}
	for _, c := range listed {
		exists[c] = true
	}
	for _, c := range names {
		mark, err := tx.MaxSchemaID(ctx, c)
		if err != nil {
			return err
		}
		ids, err := b.IDAllocation(ctx, c)
		if err != nil {
			return err
		}
		if c == "" {
			d.MaxSchemaID, d.SchemaIDFloor, d.RetiredSchemaIDs = mark, ids.Floor, ids.Retired
			continue
		}
		d.Contexts = append(d.Contexts, dump.ContextIDs{Context: c, MaxSchemaID: mark,
			SchemaIDFloor: ids.Floor, RetiredSchemaIDs: ids.Retired, Deleted: !exists[c]})
	}
	return nil
}

// dumpContexts returns the ID allocation state of each context of d, the
// default one (Context "") first.
func dumpContexts(d *dump.Dump) []dump.ContextIDs {
	return append([]dump.ContextIDs{{MaxSchemaID: d.MaxSchemaID, SchemaIDFloor: d.SchemaIDFloor,
		RetiredSchemaIDs: d.RetiredSchemaIDs}}, d.Contexts...)
}

// restoreContexts raises each context's ID mark and fallback floor to the
// dump's, retires its retired IDs, and deletes again the contexts the
// dump says were deleted.
func restoreContexts(ctx context.Context, tx Tx, b BackupTx, cs []dump.ContextIDs) error {
	for _, c := range cs {
		if err := b.RaiseSchemaIDMark(ctx, c.Context, c.MaxSchemaID); err != nil {
			return fmt.Errorf("restore the id mark of context %q: %w", ContextName(c.Context), err)
		}
		if err := b.RestoreIDAllocation(ctx, c.Context, IDAllocation{Floor: c.SchemaIDFloor, Retired: c.RetiredSchemaIDs}); err != nil {
			return fmt.Errorf("restore the id allocation of context %q: %w", ContextName(c.Context), err)
		}
		if c.Deleted && c.Context != "" {
			if err := tx.DeleteContext(ctx, c.Context); err != nil && !errors.Is(err, ErrNotFound) {
				return fmt.Errorf("restore the deletion of context %q: %w", c.Context, err)
			}
		}
	}
	return nil
}

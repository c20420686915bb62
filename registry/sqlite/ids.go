package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/charter-dev/charter/registry"
)

// Queries of ID allocation (plans checked by TestQueryPlans).
const (
	queryIDMark = `SELECT max_id, fallback_floor FROM schema_id_mark WHERE context = ?`
	// queryFreeAfter returns ?1 + 1 when no schema of context ?2 holds or
	// held it.
	queryFreeAfter = `SELECT ?1 + 1 WHERE NOT EXISTS (SELECT 1 FROM schemas WHERE context = ?2 AND id = ?1 + 1)
		AND NOT EXISTS (SELECT 1 FROM retired_schema_ids WHERE context = ?2 AND id = ?1 + 1)`
	// queryFirstGap returns the smallest ID above ?1 that follows a used
	// one and is free itself in context ?2; with ?1 + 1 used, the smallest
	// free ID.
	queryFirstGap = `WITH used(id) AS (
			SELECT id FROM schemas WHERE context = ?2 AND id > ?1
			UNION ALL SELECT id FROM retired_schema_ids WHERE context = ?2 AND id > ?1)
		SELECT MIN(u.id) + 1 FROM used u
		WHERE NOT EXISTS (SELECT 1 FROM schemas WHERE context = ?2 AND id = u.id + 1)
			AND NOT EXISTS (SELECT 1 FROM retired_schema_ids WHERE context = ?2 AND id = u.id + 1)`
)

// allocateID returns the ID for a new schema without an explicit one (see
// registry.Tx.CreateSchema): one above the largest ID ever stored while
// that is at most registry.MaxID; past it, the smallest ID above the
// fallback floor that no schema holds or ever held. It returns
// registry.ErrIDsExhausted when none is left.
func (t *tx) allocateID(ctx context.Context, schemaCtx string) (id int64, fallback bool, err error) {
	mark, floor, err := t.idMark(ctx, schemaCtx)
	if err != nil {
		return 0, false, err
	}
	if mark < registry.MaxID {
		return mark + 1, false, nil
	}
	err = t.tx.QueryRowContext(ctx, queryFreeAfter, floor, schemaCtx).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		var gap sql.NullInt64
		if err := t.tx.QueryRowContext(ctx, queryFirstGap, floor, schemaCtx).Scan(&gap); err != nil {
			return 0, false, fmt.Errorf("find a free id above %d: %w", floor, err)
		}
		// Some used ID has a free successor: the largest one used is
		// MaxID, so none is found only if MaxID's successor is the gap.
		id = gap.Int64
	} else if err != nil {
		return 0, false, fmt.Errorf("find a free id above %d: %w", floor, err)
	}
	if id < 1 || id > registry.MaxID {
		return 0, false, fmt.Errorf("every id up to %d is used: %w", registry.MaxID, registry.ErrIDsExhausted)
	}
	return id, true, nil
}

// idMark returns the ID mark and the fallback floor of context
// schemaCtx: 0 and 0 for a context that never stored a schema (it has no
// schema_id_mark row yet).
func (t *tx) idMark(ctx context.Context, schemaCtx string) (mark, floor int64, err error) {
	err = t.tx.QueryRowContext(ctx, queryIDMark, schemaCtx).Scan(&mark, &floor)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read the id mark%s: %w", inContext(schemaCtx), err)
	}
	return mark, floor, nil
}

// raiseMark raises the ID mark of context schemaCtx to mark and its
// fallback floor to floor where they are lower, creating the context's
// row when it has none; a context DeleteContext removed exists again.
func (t *tx) raiseMark(ctx context.Context, schemaCtx string, mark, floor int64) error {
	if _, err := t.tx.ExecContext(ctx,
		`INSERT INTO schema_id_mark (context, max_id, fallback_floor) VALUES (?1, ?2, ?3)
		 ON CONFLICT (context) DO UPDATE SET max_id = MAX(max_id, ?2), fallback_floor = MAX(fallback_floor, ?3), deleted = 0`,
		schemaCtx, mark, floor); err != nil {
		return fmt.Errorf("raise the id mark%s: %w", inContext(schemaCtx), err)
	}
	return nil
}

// markAllocated records that id is stored in context schemaCtx: the mark
// goes up to it, and an ID the fallback allocated raises the floor.
func (t *tx) markAllocated(ctx context.Context, schemaCtx string, id int64, fallback bool) error {
	floor := int64(0)
	if fallback {
		floor = id
	}
	return t.raiseMark(ctx, schemaCtx, id, floor)
}

// retire records that id was deleted from context schemaCtx, so that
// allocation never hands it out again there.
func (t *tx) retire(ctx context.Context, schemaCtx string, id int64) error {
	if _, err := t.tx.ExecContext(ctx, `INSERT OR IGNORE INTO retired_schema_ids (context, id) VALUES (?, ?)`, schemaCtx, id); err != nil {
		return fmt.Errorf("retire id %d%s: %w", id, inContext(schemaCtx), err)
	}
	return nil
}

// inContext names context c in an error message: "" for the default one.
func inContext(c string) string {
	if c == "" {
		return ""
	}
	return " in context " + c
}

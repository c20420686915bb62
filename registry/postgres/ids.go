package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/charter-dev/charter/registry"
)

// Queries of ID allocation past the mark, as in registry/sqlite.
const (
	// queryFreeAfter returns $1 + 1 when no schema holds or held it.
	queryFreeAfter = `SELECT $1::bigint + 1 WHERE NOT EXISTS (SELECT 1 FROM schemas WHERE context = $2 AND id = $1::bigint + 1)
		AND NOT EXISTS (SELECT 1 FROM retired_schema_ids WHERE context = $2 AND id = $1::bigint + 1)`
	// queryFirstGap returns the smallest ID above $1 that follows a used
	// one and is free itself.
	queryFirstGap = `WITH used(id) AS (
			SELECT id FROM schemas WHERE context = $2 AND id > $1
			UNION ALL SELECT id FROM retired_schema_ids WHERE context = $2 AND id > $1)
		SELECT MIN(u.id) + 1 FROM used u
		WHERE NOT EXISTS (SELECT 1 FROM schemas WHERE context = $2 AND id = u.id + 1)
			AND NOT EXISTS (SELECT 1 FROM retired_schema_ids WHERE context = $2 AND id = u.id + 1)`
)

// allocateID returns the ID of a new schema without an explicit one: one
// above the largest ID ever stored while that is at most registry.MaxID;
// past it, the smallest ID above the fallback floor that no schema holds
// or ever held (fallback true). The mark's row is locked until the
// transaction ends. Errors wrap registry.ErrIDsExhausted when no ID is
// left.
func (t *tx) allocateID(ctx context.Context, schemaCtx string) (id int64, fallback bool, err error) {
	mark, floor, err := t.idMark(ctx, schemaCtx, true)
	if err != nil {
		return 0, false, err
	}
	if mark < registry.MaxID {
		return mark + 1, false, nil
	}
	err = t.q.QueryRow(ctx, queryFreeAfter, floor, schemaCtx).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		var gap *int64
		if err := t.q.QueryRow(ctx, queryFirstGap, floor, schemaCtx).Scan(&gap); err != nil {
			return 0, false, fmt.Errorf("find a free id above %d: %w", floor, err)
		}
		if gap != nil {
			id = *gap
		}
	} else if err != nil {
		return 0, false, fmt.Errorf("find a free id above %d: %w", floor, err)
	}
	if id < 1 || id > registry.MaxID {
		return 0, false, fmt.Errorf("every id up to %d is used: %w", registry.MaxID, registry.ErrIDsExhausted)
	}
	return id, true, nil
}

// idMark returns the ID mark and the fallback floor of context schemaCtx:
// 0 and 0 for a context that never stored a schema (no schema_id_mark row
// yet). With lock, the row is created if missing and locked until the
// transaction ends.
func (t *tx) idMark(ctx context.Context, schemaCtx string, lock bool) (mark, floor int64, err error) {
	q := `SELECT max_id, fallback_floor FROM schema_id_mark WHERE context = $1`
	if lock {
		if _, err := t.q.Exec(ctx, `INSERT INTO schema_id_mark (context, max_id, fallback_floor) VALUES ($1, 0, 0)
			ON CONFLICT (context) DO NOTHING`, schemaCtx); err != nil {
			return 0, 0, fmt.Errorf("create the id mark%s: %w", inContext(schemaCtx), err)
		}
		q += ` FOR UPDATE`
	}
	err = t.q.QueryRow(ctx, q, schemaCtx).Scan(&mark, &floor)
	if errors.Is(err, pgx.ErrNoRows) {
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
	if _, err := t.q.Exec(ctx,
		`INSERT INTO schema_id_mark (context, max_id, fallback_floor) VALUES ($1, $2, $3)
		 ON CONFLICT (context) DO UPDATE SET max_id = GREATEST(schema_id_mark.max_id, $2),
		 fallback_floor = GREATEST(schema_id_mark.fallback_floor, $3), deleted = false`,
		schemaCtx, mark, floor); err != nil {
		return fmt.Errorf("raise the id mark%s: %w", inContext(schemaCtx), err)
	}
	return nil
}

// retire records that id was deleted from context schemaCtx, so that
// allocation past the mark never hands it out again there.
func (t *tx) retire(ctx context.Context, schemaCtx string, id int64) error {
	if _, err := t.q.Exec(ctx, `INSERT INTO retired_schema_ids (context, id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
		schemaCtx, id); err != nil {
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

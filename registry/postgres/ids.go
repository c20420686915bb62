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
	queryFreeAfter = `SELECT $1::bigint + 1 WHERE NOT EXISTS (SELECT 1 FROM schemas WHERE id = $1::bigint + 1)
		AND NOT EXISTS (SELECT 1 FROM retired_schema_ids WHERE id = $1::bigint + 1)`
	// queryFirstGap returns the smallest ID above $1 that follows a used
	// one and is free itself.
	queryFirstGap = `WITH used(id) AS (
			SELECT id FROM schemas WHERE id > $1 UNION ALL SELECT id FROM retired_schema_ids WHERE id > $1)
		SELECT MIN(u.id) + 1 FROM used u
		WHERE NOT EXISTS (SELECT 1 FROM schemas WHERE id = u.id + 1)
			AND NOT EXISTS (SELECT 1 FROM retired_schema_ids WHERE id = u.id + 1)`
)

// allocateID returns the ID of a new schema without an explicit one: one
// above the largest ID ever stored while that is at most registry.MaxID;
// past it, the smallest ID above the fallback floor that no schema holds
// or ever held (fallback true). The mark's row is locked until the
// transaction ends. Errors wrap registry.ErrIDsExhausted when no ID is
// left.
func (t *tx) allocateID(ctx context.Context) (id int64, fallback bool, err error) {
	var mark, floor int64
	if err := t.q.QueryRow(ctx, `SELECT max_id, fallback_floor FROM schema_id_mark FOR UPDATE`).Scan(&mark, &floor); err != nil {
		return 0, false, fmt.Errorf("read the id mark: %w", err)
	}
	if mark < registry.MaxID {
		return mark + 1, false, nil
	}
	err = t.q.QueryRow(ctx, queryFreeAfter, floor).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		var gap *int64
		if err := t.q.QueryRow(ctx, queryFirstGap, floor).Scan(&gap); err != nil {
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

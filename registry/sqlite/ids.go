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
	queryIDMark = `SELECT max_id, fallback_floor FROM schema_id_mark`
	// queryFreeAfter returns ?1 + 1 when no schema holds or held it.
	queryFreeAfter = `SELECT ?1 + 1 WHERE NOT EXISTS (SELECT 1 FROM schemas WHERE id = ?1 + 1)
		AND NOT EXISTS (SELECT 1 FROM retired_schema_ids WHERE id = ?1 + 1)`
	// queryFirstGap returns the smallest ID above ?1 that follows a used
	// one and is free itself; with ?1 + 1 used, the smallest free ID.
	queryFirstGap = `WITH used(id) AS (
			SELECT id FROM schemas WHERE id > ?1 UNION ALL SELECT id FROM retired_schema_ids WHERE id > ?1)
		SELECT MIN(u.id) + 1 FROM used u
		WHERE NOT EXISTS (SELECT 1 FROM schemas WHERE id = u.id + 1)
			AND NOT EXISTS (SELECT 1 FROM retired_schema_ids WHERE id = u.id + 1)`
)

// allocateID returns the ID for a new schema without an explicit one (see
// registry.Tx.CreateSchema): one above the largest ID ever stored while
// that is at most registry.MaxID; past it, the smallest ID above the
// fallback floor that no schema holds or ever held. It returns
// registry.ErrIDsExhausted when none is left.
func (t *tx) allocateID(ctx context.Context) (id int64, fallback bool, err error) {
	var mark, floor int64
	if err := t.tx.QueryRowContext(ctx, queryIDMark).Scan(&mark, &floor); err != nil {
		return 0, false, fmt.Errorf("read the id mark: %w", err)
	}
	if mark < registry.MaxID {
		return mark + 1, false, nil
	}
	err = t.tx.QueryRowContext(ctx, queryFreeAfter, floor).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		var gap sql.NullInt64
		if err := t.tx.QueryRowContext(ctx, queryFirstGap, floor).Scan(&gap); err != nil {
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

// markAllocated records that id is stored: the mark goes up to it, and
// an ID the fallback allocated raises the floor.
func (t *tx) markAllocated(ctx context.Context, id int64, fallback bool) error {
	q := `UPDATE schema_id_mark SET max_id = MAX(max_id, ?)`
	if fallback {
		q = `UPDATE schema_id_mark SET max_id = MAX(max_id, ?1), fallback_floor = MAX(fallback_floor, ?1)`
	}
	if _, err := t.tx.ExecContext(ctx, q, id); err != nil {
		return fmt.Errorf("raise the id mark: %w", err)
	}
	return nil
}

// retire records that id was deleted, so that allocation never hands it
// out again.
func (t *tx) retire(ctx context.Context, id int64) error {
	if _, err := t.tx.ExecContext(ctx, `INSERT OR IGNORE INTO retired_schema_ids (id) VALUES (?)`, id); err != nil {
		return fmt.Errorf("retire id %d: %w", id, err)
	}
	return nil
}

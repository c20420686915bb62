package sqlite

import (
	"context"
	"fmt"
)

// Contexts returns "" and every context with an ID mark that is not
// deleted, sorted by bytes.
func (t *tx) Contexts(ctx context.Context) ([]string, error) {
	return t.contextNames(ctx, `SELECT context FROM schema_id_mark WHERE context <> '' AND deleted = 0 ORDER BY context`)
}

// SchemaContexts returns "" and every context with an ID mark, deleted
// ones included, sorted by bytes.
func (t *tx) SchemaContexts(ctx context.Context) ([]string, error) {
	return t.contextNames(ctx, `SELECT context FROM schema_id_mark WHERE context <> '' ORDER BY context`)
}

func (t *tx) contextNames(ctx context.Context, query string) ([]string, error) {
	rows, err := t.tx.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("list contexts: %w", err)
	}
	defer rows.Close()
	out := []string{""}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, fmt.Errorf("list contexts: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list contexts: %w", err)
	}
	return out, nil
}

// DeleteContext marks context c deleted; its mark stays. Errors wrap
// registry.ErrNotFound when c is "" or not listed.
func (t *tx) DeleteContext(ctx context.Context, c string) error {
	if c == "" {
		return fmt.Errorf("delete context: the default context cannot be deleted")
	}
	res, err := t.tx.ExecContext(ctx, `UPDATE schema_id_mark SET deleted = 1 WHERE context = ? AND deleted = 0`, c)
	if err := affectedOne(res, err); err != nil {
		return fmt.Errorf("delete context %s: %w", c, err)
	}
	return nil
}

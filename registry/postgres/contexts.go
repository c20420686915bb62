package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Contexts returns "" and every context with an ID mark that is not
// deleted, sorted by bytes (the column is COLLATE "C").
func (t *tx) Contexts(ctx context.Context) ([]string, error) {
	return t.contextNames(ctx, `SELECT context FROM schema_id_mark WHERE context <> '' AND NOT deleted ORDER BY context`)
}

// SchemaContexts returns "" and every context with an ID mark, deleted
// ones included, sorted by bytes.
func (t *tx) SchemaContexts(ctx context.Context) ([]string, error) {
	return t.contextNames(ctx, `SELECT context FROM schema_id_mark WHERE context <> '' ORDER BY context`)
}

func (t *tx) contextNames(ctx context.Context, query string) ([]string, error) {
	rows, err := t.q.Query(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("list contexts: %w", err)
	}
	cs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list contexts: %w", err)
	}
	return append([]string{""}, cs...), nil
}

// DeleteContext marks context c deleted; its mark stays. Errors wrap
// registry.ErrNotFound when c is "" or not listed.
func (t *tx) DeleteContext(ctx context.Context, c string) error {
	if c == "" {
		return fmt.Errorf("delete context: the default context cannot be deleted")
	}
	tag, err := t.q.Exec(ctx, `UPDATE schema_id_mark SET deleted = true WHERE context = $1 AND NOT deleted`, c)
	if err := affectedOne(tag, err); err != nil {
		return fmt.Errorf("delete context %s: %w", c, err)
	}
	return nil
}

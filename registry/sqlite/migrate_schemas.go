package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/charter-dev/charter/registry"
)

// schemasWhere reads, in a migration's transaction, the schemas rows that
// the SQL condition where selects (scanSchema's columns).
func schemasWhere(ctx context.Context, tx *sql.Tx, where string) ([]registry.Schema, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+schemaColumns+` FROM schemas WHERE `+where)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []registry.Schema
	for rows.Next() {
		st, err := scanSchema(rows)
		if err != nil {
			return nil, fmt.Errorf("schema: %w", err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/charter-dev/charter/registry"
)

// schemasWhere reads, in a migration's transaction, the schemas rows that
// the SQL condition where selects (scanSchema's columns).
func schemasWhere(ctx context.Context, tx pgx.Tx, where string) ([]registry.Schema, error) {
	rows, err := tx.Query(ctx, `SELECT `+schemaColumns+` FROM schemas WHERE `+where)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (registry.Schema, error) { return scanSchema(row) })
}

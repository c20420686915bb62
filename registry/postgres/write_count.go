package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// WriteCount returns the number of Updates committed so far by every
// process on this database ([registry.WriteCounter]): each Update raises
// write_count in its own transaction, so the count read after a write was
// acknowledged by any replica is above every count read before that
// write committed, and a replica's cached answers tagged with the count
// stay exact across replicas. One query.
func (s *Store) WriteCount(ctx context.Context) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, `SELECT n FROM write_count`).Scan(&n); err != nil {
		return 0, fmt.Errorf("read the write count: %w", err)
	}
	return n, nil
}

// countWrite raises write_count inside the Update's transaction tx; the
// write lock is held, so the row is never contended by another writer.
func countWrite(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `UPDATE write_count SET n = n + 1`); err != nil {
		return fmt.Errorf("count the write: %w", err)
	}
	return nil
}

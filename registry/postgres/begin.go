package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// begin starts a transaction. When the database ended the connection the
// pool handed out (an administrator's pg_terminate_backend, a server
// restart: SQLSTATE class 57P, or a connection closed under it), nothing
// of the transaction ran, so the pool's connections, which that event
// likely ended too, are dropped and the begin is tried once more on a
// fresh one.
func (s *Store) begin(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error) {
	tx, err := s.pool.BeginTx(ctx, opts)
	if err != nil && connectionEnded(err) && ctx.Err() == nil {
		s.pool.Reset()
		tx, err = s.pool.BeginTx(ctx, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("begin transaction: %w", err)
	}
	return tx, nil
}

// connectionEnded reports whether err says the server ended the
// connection (operator intervention, SQLSTATE 57P01-57P05) or that it was
// closed before anything was sent.
func connectionEnded(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return len(pe.Code) == 5 && pe.Code[:3] == "57P"
	}
	return pgconn.SafeToRetry(err)
}

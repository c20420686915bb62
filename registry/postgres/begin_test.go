package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/postgres"
	"github.com/charter-dev/charter/registry/postgres/pgtest"
)

// TestBeginAfterConnectionsEnded: after an administrator ends every
// connection of the store's pool (pg_terminate_backend, SQLSTATE 57P01),
// the next Update and View succeed at once: the begin that meets a dead
// connection drops the pool's connections and begins again, since nothing
// of the transaction ran.
func TestBeginAfterConnectionsEnded(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, postgres.Options{})
	// Warm the pool: several connections, all idle afterwards.
	for range 4 {
		if err := s.View(t.Context(), func(tx registry.Tx) error {
			_, err := tx.MaxSchemaID(t.Context(), "")
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	admin, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	for round := range 2 {
		var ended int
		if err := admin.QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`).Scan(&ended); err != nil {
			t.Fatal(err)
		}
		if ended == 0 {
			t.Fatalf("round %d: no connection of the store to end", round)
		}
		if err := s.Update(t.Context(), func(tx registry.Tx) error {
			return tx.SetMode(t.Context(), "", registry.ModeReadWrite)
		}); err != nil {
			t.Errorf("round %d: the first Update after %d connections were ended: %v", round, ended, err)
		}
		if _, err := admin.Exec(t.Context(), `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`); err != nil {
			t.Fatal(err)
		}
		if err := s.View(t.Context(), func(tx registry.Tx) error {
			_, err := tx.Mode(t.Context(), "")
			return err
		}); err != nil {
			t.Errorf("round %d: the first View after the connections were ended: %v", round, err)
		}
	}
}

package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/postgres"
	"github.com/charter-dev/charter/registry/postgres/pgtest"
)

// TestWriteCountAcrossStores: every committed Update through one store
// raises the write count that another store on the same database reads
// (registry.WriteCounter, what keeps each replica's cached answers exact);
// an Update whose fn fails, rolled back, does not.
func TestWriteCountAcrossStores(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := open(t, dsn, postgres.Options{}), open(t, dsn, postgres.Options{})
	count := func(s *postgres.Store) int64 {
		t.Helper()
		n, err := s.WriteCount(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count(b)
	mustUpdate(t, a, func(ctx context.Context, tx registry.Tx) error {
		return tx.SetMode(ctx, "", registry.ModeReadOnly)
	})
	if got := count(b); got != before+1 {
		t.Fatalf("after one Update through A, B reads write count %d, want %d", got, before+1)
	}
	failed := errors.New("refused")
	if err := a.Update(t.Context(), func(tx registry.Tx) error {
		if err := tx.SetMode(t.Context(), "", registry.ModeReadWrite); err != nil {
			return err
		}
		return failed
	}); !errors.Is(err, failed) {
		t.Fatalf("Update = %v, want %v", err, failed)
	}
	if got := count(a); got != before+1 {
		t.Fatalf("after a rolled-back Update, write count %d, want %d", got, before+1)
	}
	mustUpdate(t, b, func(ctx context.Context, tx registry.Tx) error {
		return tx.SetMode(ctx, "", registry.ModeReadWrite)
	})
	if got := count(a); got != before+2 {
		t.Fatalf("after an Update through B, A reads write count %d, want %d", got, before+2)
	}
}

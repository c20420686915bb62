package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry"
)

// TestPreparedStatements: a query first met in a transaction runs as
// text and is prepared before the next one, on the write database
// between batches and on the read pool; answers stay the same.
func TestPreparedStatements(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var id int64
	create := func(tx registry.Tx) error {
		var err error
		id, err = tx.CreateSchema(ctx, registry.Schema{Type: "AVRO", Text: `"int"`, Fingerprint: "fp-int"})
		return err
	}
	if err := s.Update(ctx, create); err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		for _, run := range []func(context.Context, func(registry.Tx) error) error{s.Update, s.View} {
			if err := run(ctx, func(tx registry.Tx) error {
				st, err := tx.SchemaByID(ctx, "", id)
				if err != nil || st.Text != `"int"` {
					t.Errorf("round %d: SchemaByID = %q, %v", round, st.Text, err)
				}
				if _, err := tx.SchemaByID(ctx, "", id+1); !errors.Is(err, registry.ErrNotFound) {
					t.Errorf("round %d: SchemaByID of a missing id: %v, want ErrNotFound", round, err)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, c := range map[string]*stmtCache{"write": s.writeStmts, "read": s.readStmts} {
		c.mu.Lock()
		st := c.m[querySchemaByID]
		c.mu.Unlock()
		if st == nil {
			t.Errorf("the %s database has no prepared statement for SchemaByID", name)
		}
	}
}

// TestPreparedStatementsConcurrentViews: views that note new queries
// while every connection of the read pool is busy finish (preparing
// once held the cache's lock while it waited for a connection, and the
// views holding them waited for that lock).
func TestPreparedStatementsConcurrentViews(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan error, 32)
	for g := range 32 {
		go func() {
			var err error
			for i := range 20 {
				err = s.View(ctx, func(tx registry.Tx) error {
					if _, err := tx.SchemaByID(ctx, "", int64(g*100+i)); !errors.Is(err, registry.ErrNotFound) {
						return err
					}
					if _, err := tx.Versions(ctx, registry.VersionQuery{Subject: "s", IncludeDeleted: i%2 == 0}); err != nil {
						return err
					}
					_, err := tx.Config(ctx, "s")
					if errors.Is(err, registry.ErrNotFound) {
						err = nil
					}
					return err
				})
				if err != nil {
					break
				}
			}
			done <- err
		}()
	}
	timeout := time.After(60 * time.Second)
	for range 32 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-timeout:
			t.Fatal("views still running after 60 s: deadlocked")
		}
	}
}

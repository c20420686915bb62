package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

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
				st, err := tx.SchemaByID(ctx, id)
				if err != nil || st.Text != `"int"` {
					t.Errorf("round %d: SchemaByID = %q, %v", round, st.Text, err)
				}
				if _, err := tx.SchemaByID(ctx, id+1); !errors.Is(err, registry.ErrNotFound) {
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

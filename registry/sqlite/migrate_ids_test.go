package sqlite

import (
	"database/sql"
	"fmt"
	"io/fs"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// TestMigration0004: a database whose ID mark an IMPORT raised to
// registry.MaxID before 0004 (every allocation failed) allocates again
// after it: above the largest stored ID below the imported maximum, since
// the IDs deleted before 0004 are not known; one whose mark is below
// MaxID allocates mark + 1 as before.
func TestMigration0004(t *testing.T) {
	cases := []struct {
		name   string
		stored []int64
		mark   int64
		want   int64
	}{
		{"mark at the largest id", []int64{1, 3, registry.MaxID}, registry.MaxID, 4},
		{"only the largest id", []int64{registry.MaxID}, registry.MaxID, 1},
		{"mark below it", []int64{1, 3}, 9, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			path := t.TempDir() + "/registry.db"
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			stmts := []string{`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT`}
			for i, name := range []string{"0001_init.sql", "0002_schema_id_mark.sql", "0003_governance.sql"} {
				text, err := fs.ReadFile(migrationFiles, "migrations/"+name)
				if err != nil {
					t.Fatal(err)
				}
				stmts = append(stmts, string(text), fmt.Sprintf(`INSERT INTO schema_migrations VALUES (%d, '%s')`, i+1, name))
			}
			for _, id := range c.stored {
				stmts = append(stmts,
					fmt.Sprintf(`INSERT INTO schemas (id, type, text, fingerprint) VALUES (%d, 'AVRO', '"int"', 'fp-%d')`, id, id),
					fmt.Sprintf(`INSERT INTO subject_versions (subject, version, schema_id) VALUES ('s%d', 1, %d)`, id, id))
			}
			stmts = append(stmts, fmt.Sprintf(`UPDATE schema_id_mark SET max_id = %d`, c.mark))
			for _, q := range stmts {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			db.Close()

			s, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var got int64
			err = s.Update(ctx, func(tx registry.Tx) error {
				got, err = tx.CreateSchema(ctx, registry.Schema{Type: "AVRO", Text: `"long"`, Fingerprint: "new"})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("first ID after the migration = %d, want %d", got, c.want)
			}
		})
	}
}

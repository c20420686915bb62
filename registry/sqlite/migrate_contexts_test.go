package sqlite

import (
	"database/sql"
	"fmt"
	"io/fs"
	"reflect"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// TestMigration0006: a registry written before contexts keeps every
// schema's ID and fingerprint, its versions, references, ID mark,
// fallback floor and retired IDs, all in the default context; a new
// context then starts its IDs at 1 while the default one goes on above
// its mark.
func TestMigration0006(t *testing.T) {
	ctx := t.Context()
	path := t.TempDir() + "/registry.db"
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT`}
	names := []string{"0001_init.sql", "0002_schema_id_mark.sql", "0003_governance.sql", "0004_schema_id_reuse.sql", "0005_dek_registry.sql"}
	for i, name := range names {
		text, err := fs.ReadFile(migrationFiles, "migrations/"+name)
		if err != nil {
			t.Fatal(err)
		}
		stmts = append(stmts, string(text), fmt.Sprintf(`INSERT INTO schema_migrations VALUES (%d, '%s')`, i+1, name))
	}
	stmts = append(stmts,
		`INSERT INTO schemas (id, type, text, fingerprint) VALUES (3, 'AVRO', '"int"', 'fp-3')`,
		`INSERT INTO schemas (id, type, text, refs, fingerprint) VALUES (7, 'AVRO', '"long"', '[{"name":"n","subject":"a","version":1}]', 'fp-7')`,
		`INSERT INTO schema_references (schema_id, position, name, subject, version) VALUES (7, 0, 'n', 'a', 1)`,
		`INSERT INTO subject_versions (subject, version, schema_id, deleted) VALUES ('a', 1, 3, 0), ('b', 1, 7, 1)`,
		`UPDATE schema_id_mark SET max_id = 9, fallback_floor = 4`,
		`INSERT INTO retired_schema_ids (id) VALUES (5), (8)`)
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
	err = s.View(ctx, func(txn registry.Tx) error {
		for id, fp := range map[int64]string{3: "fp-3", 7: "fp-7"} {
			sc, err := txn.SchemaByID(ctx, "", id)
			if err != nil || sc.Fingerprint != fp || sc.Context != "" {
				t.Errorf("schema %d = %q in %q, %v; want %q in the default context", id, sc.Fingerprint, sc.Context, err, fp)
			}
		}
		if sc, err := txn.SchemaByFingerprint(ctx, "", "fp-7"); err != nil || sc.ID != 7 {
			t.Errorf("SchemaByFingerprint(fp-7) = %d, %v; want 7", sc.ID, err)
		}
		vs, err := txn.Versions(ctx, registry.VersionQuery{IncludeDeleted: true})
		want := []registry.SubjectVersion{{Subject: "a", Version: 1, SchemaID: 3}, {Subject: "b", Version: 1, SchemaID: 7, Deleted: true}}
		if err != nil || !reflect.DeepEqual(vs, want) {
			t.Errorf("Versions = %+v, %v; want %+v", vs, err, want)
		}
		if got, err := txn.ReferencedBy(ctx, "a", 1); err != nil || !reflect.DeepEqual(got, []registry.SchemaKey{{ID: 7}}) {
			t.Errorf("ReferencedBy(a, 1) = %v, %v; want [7]", got, err)
		}
		if mark, err := txn.MaxSchemaID(ctx, ""); err != nil || mark != 9 {
			t.Errorf("MaxSchemaID = %d, %v; want 9", mark, err)
		}
		a, err := txn.(*tx).IDAllocation(ctx, "")
		if err != nil || a.Floor != 4 || !reflect.DeepEqual(a.Retired, []int64{5, 8}) {
			t.Errorf("IDAllocation = %+v, %v; want floor 4, retired [5 8]", a, err)
		}
		if cs, err := txn.Contexts(ctx); err != nil || !reflect.DeepEqual(cs, []string{""}) {
			t.Errorf("Contexts = %q, %v; want the default one only", cs, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	err = s.Update(ctx, func(txn registry.Tx) error {
		ids = ids[:0]
		for _, sc := range []registry.Schema{
			{Type: "AVRO", Text: `"string"`, Fingerprint: "new"},
			{Context: ".x", Type: "AVRO", Text: `"string"`, Fingerprint: "new"},
		} {
			id, err := txn.CreateSchema(ctx, sc)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if err != nil || !reflect.DeepEqual(ids, []int64{10, 1}) {
		t.Errorf("first IDs after the migration = %v, %v; want 10 (default, above the mark) and 1 (.x)", ids, err)
	}
}

package postgres

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/postgres/pgtest"
)

// TestMigration0004: a registry written before contexts keeps every
// schema's ID and fingerprint, its versions, references, ID mark,
// fallback floor and retired IDs, all in the default context; a new
// context then starts its IDs at 1 while the default one goes on above
// its mark. As registry/sqlite's TestMigration0006.
func TestMigration0004(t *testing.T) {
	ctx := t.Context()
	dsn := pgtest.DSN(t)
	ms, err := migrations(migrationFiles)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{`CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL)`}
	for _, m := range ms[:3] {
		stmts = append(stmts, m.sql, fmt.Sprintf(`INSERT INTO schema_migrations VALUES (%d, '%s')`, m.version, m.name))
	}
	stmts = append(stmts,
		`INSERT INTO schemas (id, type, text, fingerprint) VALUES (3, 'AVRO', '"int"', 'fp-3')`,
		`INSERT INTO schemas (id, type, text, refs, fingerprint) VALUES (7, 'AVRO', '"long"', '[{"name":"n","subject":"a","version":1}]', 'fp-7')`,
		`INSERT INTO schema_references (schema_id, position, name, subject, version) VALUES (7, 0, 'n', 'a', 1)`,
		`INSERT INTO subject_versions (subject, version, schema_id, deleted) VALUES ('a', 1, 3, false), ('b', 1, 7, true)`,
		`UPDATE schema_id_mark SET max_id = 9, fallback_floor = 4`,
		`INSERT INTO retired_schema_ids (id) VALUES (5), (8)`)
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close(ctx)

	s, err := Open(ctx, dsn, Options{CacheRefresh: -1})
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

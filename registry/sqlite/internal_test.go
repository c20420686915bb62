package sqlite

import (
	"bytes"
	"database/sql"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/charter-dev/charter/registry"
)

func TestPrefixEnd(t *testing.T) {
	cases := []struct {
		prefix, end string
		ok          bool
	}{
		{"a", "b", true},
		{"orders-", "orders.", true},
		{"a%", "a&", true},
		{"a_", "a`", true},
		{"é", "\xc3\xaa", true}, // é is c3 a9
		{"a\xff", "b", true},
		{"a\xff\xff", "b", true},
		{"\xff", "", false},
	}
	for _, c := range cases {
		end, ok := prefixEnd(c.prefix)
		if end != c.end || ok != c.ok {
			t.Errorf("prefixEnd(%q) = %q, %v; want %q, %v", c.prefix, end, ok, c.end, c.ok)
		}
		if ok && !(c.prefix < end) {
			t.Errorf("prefixEnd(%q) = %q is not above the prefix", c.prefix, end)
		}
	}
}

// TestQueryPlans: every filtered Versions query and every lookup is an
// index search, never a scan; a Subject lookup uses the primary key.
func TestQueryPlans(t *testing.T) {
	s, err := Open(t.Context(), t.TempDir()+"/registry.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	type query struct {
		sql  string
		args []any
	}
	versions := func(q registry.VersionQuery) query {
		sql, args := versionsQuery(q)
		return query{sql, args}
	}
	cases := []struct {
		name string
		q    query
		want string
	}{
		{"versions of subject", versions(registry.VersionQuery{Subject: "s"}),
			"SEARCH subject_versions USING PRIMARY KEY (subject=?)"},
		{"versions of subject with deleted", versions(registry.VersionQuery{Subject: "s", IncludeDeleted: true}),
			"SEARCH subject_versions USING PRIMARY KEY (subject=?)"},
		{"versions by prefix", versions(registry.VersionQuery{SubjectPrefix: "s"}),
			"SEARCH subject_versions USING PRIMARY KEY (subject>? AND subject<?)"},
		{"versions by schema ID", versions(registry.VersionQuery{SchemaID: 1}),
			"SEARCH subject_versions USING INDEX subject_versions_schema_id (context=? AND schema_id=?)"},
		{"versions by schema ID in a context", versions(registry.VersionQuery{SchemaID: 1, Context: ".c"}),
			"SEARCH subject_versions USING INDEX subject_versions_schema_id (context=? AND schema_id=?)"},
		{"versions of subject by schema ID", versions(registry.VersionQuery{Subject: "s", SchemaID: 1}),
			"SEARCH subject_versions USING"},
		{"schema by ID", query{querySchemaByID, []any{"", 1}},
			"SEARCH schemas USING PRIMARY KEY (context=? AND id=?)"},
		{"schema by fingerprint", query{querySchemaByFP, []any{"", "fp"}},
			"SEARCH schemas USING INDEX sqlite_autoindex_schemas_2 (context=? AND fingerprint=?)"},
		{"referenced by", query{queryReferencedBy, []any{"s", 1}},
			"SEARCH schema_references USING COVERING INDEX schema_references_target (subject=? AND version=?)"},
		{"schema held by a version", query{queryHeld, []any{"", 1}},
			"SEARCH subject_versions USING COVERING INDEX subject_versions_schema_id (context=? AND schema_id=?)"},
		{"id mark of a context", query{queryIDMark, []any{".c"}},
			"SEARCH schema_id_mark USING PRIMARY KEY (context=?)"},
		{"id free after the floor", query{queryFreeAfter, []any{1, ""}},
			"SEARCH retired_schema_ids USING PRIMARY KEY (context=? AND id=?)"},
		{"first free id after the floor", query{queryFirstGap, []any{1, ""}},
			"SEARCH schemas USING PRIMARY KEY (context=? AND id>?)"},
	}
	for _, c := range cases {
		rows, err := s.read.QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+c.q.sql, c.q.args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		got := strings.Join(plan, "; ")
		// A SELECT without FROM reads one constant row: no table scan.
		if !strings.Contains(got, c.want) || strings.Contains(strings.ReplaceAll(got, "SCAN CONSTANT ROW", ""), "SCAN") {
			t.Errorf("%s: plan %q, want it to contain %q and no SCAN", c.name, got, c.want)
		}
	}
}

func TestMigrations(t *testing.T) {
	file := func(sql string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(sql)} }
	cases := []struct {
		name    string
		fsys    fstest.MapFS
		wantErr string
		want    []int
	}{
		{"ordered", fstest.MapFS{
			"migrations/0002_b.sql": file("B"),
			"migrations/0001_a.sql": file("A"),
		}, "", []int{1, 2}},
		{"bad name", fstest.MapFS{"migrations/1_a.sql": file("A")}, "not NNNN_name.sql", nil},
		{"gap", fstest.MapFS{
			"migrations/0001_a.sql": file("A"),
			"migrations/0003_c.sql": file("C"),
		}, "want version 0002", nil},
		{"duplicate", fstest.MapFS{
			"migrations/0001_a.sql": file("A"),
			"migrations/0001_b.sql": file("B"),
		}, "want version 0002", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms, err := migrations(c.fsys)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, m := range ms {
				got = append(got, m.version)
			}
			if len(got) != len(c.want) || got[0] != c.want[0] || got[1] != c.want[1] {
				t.Errorf("versions = %v, want %v", got, c.want)
			}
		})
	}
	// The embedded files themselves are valid and start at 0001.
	ms, err := migrations(migrationFiles)
	if err != nil || len(ms) == 0 || !bytes.HasPrefix([]byte(ms[0].name), []byte("0001_")) {
		t.Errorf("embedded migrations: %d files, %v", len(ms), err)
	}
}

// TestPragmas: the settings the package doc promises are in force on both
// pools (the DSN pragmas run on every new connection).
func TestPragmas(t *testing.T) {
	s, err := Open(t.Context(), t.TempDir()+"/registry.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cases := []struct {
		pool   string
		pragma string
		want   string
	}{
		{"write", "journal_mode", "wal"},
		{"write", "synchronous", "2"}, // FULL
		{"write", "foreign_keys", "1"},
		{"write", "busy_timeout", "10000"},
		{"write", "query_only", "0"},
		{"read", "journal_mode", "wal"},
		{"read", "foreign_keys", "1"},
		{"read", "busy_timeout", "10000"},
		{"read", "query_only", "1"},
	}
	for _, c := range cases {
		db := s.write
		if c.pool == "read" {
			db = s.read
		}
		var got string
		if err := db.QueryRowContext(t.Context(), "PRAGMA "+c.pragma).Scan(&got); err != nil {
			t.Fatalf("%s pool: PRAGMA %s: %v", c.pool, c.pragma, err)
		}
		if got != c.want {
			t.Errorf("%s pool: PRAGMA %s = %s, want %s", c.pool, c.pragma, got, c.want)
		}
	}
}

// TestMigration0002: a database written before 0002 (schemas were never
// deleted) gets its ID mark from the largest ID ever stored, and the
// schemas that no version holds any more (left by hard deletes) are
// forgotten with their references; held schemas keep everything.
func TestMigration0002(t *testing.T) {
	ctx := t.Context()
	path := t.TempDir() + "/registry.db"
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	initSQL, err := fs.ReadFile(migrationFiles, "migrations/0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{
		string(initSQL),
		`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT`,
		`INSERT INTO schema_migrations VALUES (1, '0001_init.sql')`,
		`INSERT INTO schemas (id, type, text, fingerprint) VALUES (1, 'AVRO', '"int"', 'fp-1'), (2, 'AVRO', '"long"', 'fp-2'), (7, 'AVRO', '"string"', 'fp-7')`,
		`INSERT INTO schema_references VALUES (2, 0, 'r', 's', 1), (7, 0, 'r', 's', 1)`,
		`INSERT INTO subject_versions (subject, version, schema_id) VALUES ('s', 1, 1), ('t', 1, 2)`,
	}
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
	var next int64
	err = s.Update(ctx, func(tx registry.Tx) error {
		for _, id := range []int64{1, 2} {
			if _, err := tx.SchemaByID(ctx, "", id); err != nil {
				t.Errorf("held schema %d: %v", id, err)
			}
		}
		if _, err := tx.SchemaByID(ctx, "", 7); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("orphan schema 7: error = %v, want ErrNotFound", err)
		}
		if max, err := tx.MaxSchemaID(ctx, ""); err != nil || max != 7 {
			t.Errorf("MaxSchemaID after the migration = %d, %v; want 7", max, err)
		}
		if refs, err := tx.ReferencedBy(ctx, "s", 1); err != nil || len(refs) != 1 || refs[0] != (registry.SchemaKey{ID: 2}) {
			t.Errorf("ReferencedBy(s, 1) = %v, %v; want [2]", refs, err)
		}
		next, err = tx.CreateSchema(ctx, registry.Schema{Type: "AVRO", Text: `"string"`, Fingerprint: "fp-7"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if next != 8 {
		t.Errorf("first ID after the migration = %d, want 8 (above the forgotten 7)", next)
	}
}

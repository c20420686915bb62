package sqlite

import (
	"database/sql"
	"fmt"
	"io/fs"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/storetest"
)

// TestMigration0008: a registry written before contexts, holding plain
// subjects and ":.foo:" ones in its one ID space, reads each :.foo:
// subject's versions in .foo after the upgrade with the same IDs and
// references, and exports (storetest.CheckPreContextUpgrade).
func TestMigration0008(t *testing.T) {
	t.Run("qualified", func(t *testing.T) {
		migratePreContext(t, storetest.PreContextUpgradeRows("0"), storetest.CheckPreContextUpgrade)
	})
	// Subjects the API would not reach as stored (":.foo" beside ":.foo:",
	// ":.:x" beside "x", ":.:") are renamed (storetest.CheckPreContextCollisions).
	t.Run("unnormalised", func(t *testing.T) {
		migratePreContext(t, storetest.PreContextCollisionRows("0"), storetest.CheckPreContextCollisions)
	})
}

func migratePreContext(t *testing.T, rows []string, check func(*testing.T, registry.Store)) {
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
	stmts = append(stmts, rows...)
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
	check(t, s)
}

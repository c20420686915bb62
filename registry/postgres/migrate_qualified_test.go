package postgres

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/postgres/pgtest"
	"github.com/charter-dev/charter/registry/storetest"
)

// TestMigration0007: a registry written before contexts, holding plain
// subjects and ":.foo:" ones in its one ID space, reads each :.foo:
// subject's versions in .foo after the upgrade with the same IDs and
// references, and exports (storetest.CheckPreContextUpgrade). As
// registry/sqlite's TestMigration0008.
func TestMigration0007(t *testing.T) {
	t.Run("qualified", func(t *testing.T) {
		migratePreContext(t, storetest.PreContextUpgradeRows("false"), storetest.CheckPreContextUpgrade)
	})
	// Subjects the API would not reach as stored (":.foo" beside ":.foo:",
	// ":.:x" beside "x", ":.:") are renamed (storetest.CheckPreContextCollisions).
	t.Run("unnormalised", func(t *testing.T) {
		migratePreContext(t, storetest.PreContextCollisionRows("false"), storetest.CheckPreContextCollisions)
	})
}

func migratePreContext(t *testing.T, rows []string, check func(*testing.T, registry.Store)) {
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
	stmts = append(stmts, rows...)
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
	check(t, s)
}

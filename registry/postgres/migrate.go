package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrationFiles holds the schema migrations, migrations/NNNN_name.sql,
// applied in NNNN order. A released file is never edited: a change to the
// schema is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one parsed migrations/NNNN_name.sql file.
type migration struct {
	version int
	name    string // file name
	sql     string
}

var migrationName = regexp.MustCompile(`^(\d{4})_[a-z0-9_]+\.sql$`)

// migrations returns the embedded migrations in version order. It fails on
// a badly named file, a duplicate version or a gap.
func migrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, name := range names {
		base := path.Base(name)
		m := migrationName.FindStringSubmatch(base)
		if m == nil {
			return nil, fmt.Errorf("migration %q: name is not NNNN_name.sql", base)
		}
		v, _ := strconv.Atoi(m[1]) // four digits: cannot fail
		text, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: base, sql: string(text)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %q: want version %04d (versions start at 1, no gap or duplicate)", m.name, i+1)
		}
	}
	return ms, nil
}

// migrate applies the migrations that the schema has not recorded in
// schema_migrations, in order, in one transaction that first takes the
// migration advisory lock of the schema (key): replicas starting at once
// queue, and each finds the schema either fully up to date or untouched.
// A schema recording a version this binary does not know (a newer
// Charter) is an error.
func migrate(ctx context.Context, pool *pgxpool.Pool, key int32) error {
	ms, err := migrations(migrationFiles)
	if err != nil {
		return err
	}
	// READ COMMITTED whatever the server's default: the statements after
	// the lock must see what a migrator before us committed.
	return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, lockClassMigrate, key); err != nil {
			return fmt.Errorf("migrate: take the migration lock: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version integer PRIMARY KEY,
			name    text NOT NULL
		)`); err != nil {
			return fmt.Errorf("migrate: create schema_migrations: %w", err)
		}
		var current int
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
			return fmt.Errorf("migrate: read schema version: %w", err)
		}
		if current > len(ms) {
			return fmt.Errorf("migrate: database schema version %d is newer than this binary's %d", current, len(ms))
		}
		for _, m := range ms[current:] {
			if before := beforeMigration[m.name]; before != nil {
				if err := before(ctx, tx); err != nil {
					return fmt.Errorf("migrate: apply %s: %w", m.name, err)
				}
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("migrate: apply %s: %w", m.name, err)
			}
			if after := afterMigration[m.name]; after != nil {
				if err := after(ctx, tx); err != nil {
					return fmt.Errorf("migrate: apply %s: %w", m.name, err)
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return fmt.Errorf("migrate: record %s: %w", m.name, err)
			}
		}
		return nil
	})
}

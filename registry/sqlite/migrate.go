package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

// migrations returns the embedded migrations in version order. It fails on a
// badly named file, a duplicate version or a gap, so a mistake in the file
// list is caught by any test that opens a store.
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

// checkMigrated fails unless db, which another process owns, records every
// migration this binary knows: a read-only store applies none there.
func checkMigrated(ctx context.Context, db *sql.DB, dbPath string) error {
	ms, err := migrations(migrationFiles)
	if err != nil {
		return err
	}
	var current int
	err = db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current)
	if err != nil && !strings.Contains(err.Error(), "no such table") {
		return fmt.Errorf("migrate: read schema version: %w", err)
	}
	switch {
	case current > len(ms):
		return fmt.Errorf("migrate: database schema version %d is newer than this binary's %d", current, len(ms))
	case current < len(ms):
		return fmt.Errorf("database %s lacks migrations this binary knows (schema version %d, want %d) and another charter process owns it, so they cannot be applied: stop it, or read the database with the Charter it runs", dbPath, current, len(ms))
	}
	return nil
}

// migrate applies the migrations that db has not recorded in
// schema_migrations, in order, in one transaction: after it the schema is
// either fully up to date or unchanged. A database recording a version this
// binary does not know (written by a newer Charter) is an error.
func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := migrations(migrationFiles)
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: one migrator at a time
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback() // no-op after Commit

	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY,
		name    TEXT NOT NULL
	) STRICT`); err != nil {
		return fmt.Errorf("migrate: create schema_migrations: %w", err)
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
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
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("migrate: apply %s: %w", m.name, err)
		}
		if after := afterMigration[m.name]; after != nil {
			if err := after(ctx, tx); err != nil {
				return fmt.Errorf("migrate: apply %s: %w", m.name, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name) VALUES (?, ?)`, m.version, m.name); err != nil {
			return fmt.Errorf("migrate: record %s: %w", m.name, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: commit: %w", err)
	}
	return nil
}

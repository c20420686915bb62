package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/postgres"
	"github.com/charter-dev/charter/registry/sqlite"
)

// Database is how `charter serve` uses its database beyond --db: a file
// path is SQLite; a postgres:// (or postgresql://) URL is PostgreSQL, which
// any number of replicas may share, and which the other settings tune.
type Database struct {
	// MigrateOnly applies the database migrations and exits (deploy
	// pipelines run it once before starting the replicas).
	MigrateOnly bool
	// PoolSize, StatementTimeout, Retries and CacheRefresh are
	// PostgreSQL's (registry/postgres.Options): the connection pool size,
	// the bound of each statement and of each idle moment in a
	// transaction, how many times a write is retried after a
	// serialization failure, a deadlock or a connection lost before
	// sending, and how often the cache epoch is polled when no
	// notification came (the staleness bound of the by-ID caches after a
	// permanent delete through another replica).
	PoolSize         int
	StatementTimeout time.Duration
	Retries          int
	CacheRefresh     time.Duration
}

// addDatabaseFlags declares the flags of d.
func addDatabaseFlags(f *pflag.FlagSet, d *Database) {
	f.BoolVar(&d.MigrateOnly, "migrate-only", false, "apply the database migrations, then exit (run once per deploy, before the replicas)")
	f.IntVar(&d.PoolSize, "db-pool-size", postgres.DefaultMaxConns, "PostgreSQL: connections in the pool (>= 2)")
	f.DurationVar(&d.StatementTimeout, "db-statement-timeout", postgres.DefaultStatementTimeout, "PostgreSQL: longest statement, and longest idle moment inside a transaction")
	f.IntVar(&d.Retries, "db-retries", postgres.DefaultRetries, "PostgreSQL: retries of a write after a serialization failure, a deadlock or a connection lost before sending (0: none)")
	f.DurationVar(&d.CacheRefresh, "db-cache-refresh", postgres.DefaultCacheRefresh, "PostgreSQL: how often to check for invalidations another replica sent when none arrived (the staleness bound of cached schemas by ID)")
}

// validate reports the first database setting that cannot work.
func (d Database) validate() error {
	switch {
	case d.PoolSize < 2:
		return fmt.Errorf("invalid --db-pool-size %d: want at least 2 connections", d.PoolSize)
	case d.StatementTimeout <= 0:
		return fmt.Errorf("invalid --db-statement-timeout %s: want a positive duration such as 30s", d.StatementTimeout)
	case d.Retries < 0:
		return fmt.Errorf("invalid --db-retries %d: want 0 or more", d.Retries)
	case d.CacheRefresh <= 0:
		return fmt.Errorf("invalid --db-cache-refresh %s: want a positive duration such as 1s", d.CacheRefresh)
	}
	return nil
}

// isPostgres reports whether db is a PostgreSQL URL rather than a file.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// displayDB is db as logs show it: a URL without its password.
func displayDB(db string) string {
	if !isPostgres(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	return u.Redacted()
}

// openStore opens the store cfg.DB names, applying its migrations. A
// SQLite file is owned by this process until the store is closed: another
// charter process that owns it makes the open fail at once with
// sqlite.ErrInUse (a line naming the file and that process).
func openStore(ctx context.Context, cfg Config, log *slog.Logger) (registry.Store, error) {
	return openStoreWith(ctx, cfg, log, sqlite.Options{})
}

// openStoreWith is openStore with the SQLite options opts.
func openStoreWith(ctx context.Context, cfg Config, log *slog.Logger, opts sqlite.Options) (registry.Store, error) {
	if !isPostgres(cfg.DB) {
		if err := checkDBPath(cfg.DB); err != nil {
			return nil, err
		}
		store, err := sqlite.OpenWith(ctx, cfg.DB, opts)
		if errors.Is(err, sqlite.ErrInUse) {
			return nil, err // one line, naming the file and its owner
		}
		if err != nil {
			return nil, fmt.Errorf("open database: %w", err)
		}
		return store, nil
	}
	retries := cfg.Retries
	if retries == 0 {
		retries = -1 // postgres.Options: 0 is the default, negative none
	}
	store, err := postgres.Open(ctx, cfg.DB, postgres.Options{
		MaxConns:         cfg.PoolSize,
		StatementTimeout: cfg.StatementTimeout,
		Retries:          retries,
		CacheRefresh:     cfg.CacheRefresh,
		Logger:           log,
	})
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", displayDB(cfg.DB), err)
	}
	return store, nil
}

// OpenDatabase opens the store db names (a SQLite file path, created if
// missing, or a postgres:// URL) with the default settings, applying its
// migrations: charter migrate opens its destination with it. A SQLite file
// another charter process owns (a running charter serve) is refused with
// sqlite.ErrInUse: writing it would leave that server's answers stale.
func OpenDatabase(ctx context.Context, db string, log *slog.Logger) (registry.Store, error) {
	return openStoreWith(ctx, defaultConfig(db), log, sqlite.Options{})
}

// OpenDatabaseReadOnly is OpenDatabase for a store that is only read
// (charter migrate's source): a SQLite file a running charter serve owns is
// opened beside it, read-only (sqlite.Options.ReadOnly), since a reader
// cannot stale the server's answers.
func OpenDatabaseReadOnly(ctx context.Context, db string, log *slog.Logger) (registry.Store, error) {
	return openStoreWith(ctx, defaultConfig(db), log, sqlite.Options{ReadOnly: true})
}

// defaultConfig is the Config of db with the default database settings.
func defaultConfig(db string) Config {
	return Config{DB: db, Database: Database{PoolSize: postgres.DefaultMaxConns, StatementTimeout: postgres.DefaultStatementTimeout,
		Retries: postgres.DefaultRetries, CacheRefresh: postgres.DefaultCacheRefresh}}
}

// DisplayDB is db as logs and messages show it: a URL without its
// password.
func DisplayDB(db string) string { return displayDB(db) }

// IsPostgres reports whether db is a PostgreSQL URL rather than a file.
func IsPostgres(db string) bool { return isPostgres(db) }

// Package sqlite is the SQLite backend of [registry.Store], built on the pure
// Go driver modernc.org/sqlite so the charter binary builds with
// CGO_ENABLED=0.
//
// The database runs in WAL mode: one writer and any number of readers at once.
// A [Store] holds two connection pools over the same file:
//
//   - the write pool has one connection whose transactions start with BEGIN
//     IMMEDIATE; [Store.Update] also takes an in-process lock first, so
//     writers queue in Go (honouring their context) and never meet
//     SQLITE_BUSY from each other;
//   - the read pool's connections are query_only; [Store.View] runs on them
//     concurrently with a writer and sees the last committed state.
//
// Durability: synchronous=FULL, so the WAL is fsynced on every commit and a
// write whose Update returned nil survives kill -9 of the process and a power
// loss. (NORMAL would survive kill -9 as well, since the OS keeps the written
// WAL, but may lose the last commits on power loss; the fsync costs a few
// milliseconds per registration, which a schema registry can afford.)
//
// Other processes may open the same file: busy_timeout makes them wait for
// each other's write transactions instead of failing.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"

	"github.com/charter-dev/charter/registry"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

var _ registry.Store = (*Store)(nil)

// busyTimeoutMillis is how long a connection waits for another process's
// lock before failing with SQLITE_BUSY.
const busyTimeoutMillis = 10_000

// Store is a [registry.Store] over one SQLite database file. It is safe for
// concurrent use. Create it with [Open].
type Store struct {
	write *sql.DB // one connection; BEGIN IMMEDIATE
	read  *sql.DB // query_only connections for View
	// writeSlot is the in-process writer lock: a buffered channel of one, so
	// waiting for it can end with the caller's context.
	writeSlot chan struct{}
	// Prepared statements of each database (stmt.go).
	writeStmts, readStmts *stmtCache
	group                 group // group commit (group.go)
}

// Open opens (creating if needed) the SQLite database at path and applies
// the pending migrations in one transaction. The parent directory must
// exist. It fails with a wrapped driver error when path cannot be opened as a
// database (a directory, a file that is not SQLite, no permission) or when
// the database was migrated by a newer Charter.
func Open(ctx context.Context, path string) (*Store, error) {
	s, err := open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	return s, nil
}

func open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	write, err := sql.Open("sqlite", dsn(abs, false))
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	if err := migrate(ctx, write); err != nil {
		write.Close()
		return nil, err
	}

	read, err := sql.Open("sqlite", dsn(abs, true))
	if err != nil {
		write.Close()
		return nil, err
	}
	n := max(4, runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)
	read.SetConnMaxLifetime(0)
	read.SetConnMaxIdleTime(0)
	if err := read.PingContext(ctx); err != nil {
		read.Close()
		write.Close()
		return nil, err
	}
	return &Store{write: write, read: read, writeSlot: make(chan struct{}, 1),
		writeStmts: newStmtCache(write), readStmts: newStmtCache(read)}, nil
}

// dsn is the modernc.org/sqlite data source name for the file at abs, an
// absolute path. The URI form escapes '?', '#' and '%' in the path.
func dsn(abs string, readOnly bool) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMillis))
	q.Add("_pragma", "foreign_keys(1)")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(FULL)")
		q.Set("_txlock", "immediate")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	return u.String()
}

// View runs fn in a read-only transaction on a snapshot of the last
// committed state; it may run while an Update is in progress. Writes inside
// fn fail (the connection is query_only). fn's error is returned as is.
func (s *Store) View(ctx context.Context, fn func(registry.Tx) error) error {
	if s.readStmts.hasPending() {
		s.readStmts.prepare(ctx)
	}
	return run(ctx, s.read, s.readStmts, &sql.TxOptions{ReadOnly: true}, fn)
}

// Update runs fn in the one write transaction (BEGIN IMMEDIATE), after
// waiting for the in-process writer lock or until ctx is done. It commits,
// durably, iff fn returns nil; fn's error is returned as is. If fn panics
// the transaction is rolled back, the lock released and the panic goes on
// up the stack. fn must not call Update itself (it would wait for ever); it
// may call View, which sees the state before this transaction.
// Concurrent Updates share one transaction and its one fsync (group.go);
// each fn runs in its own savepoint and each Update returns once the
// shared commit is durable.
func (s *Store) Update(ctx context.Context, fn func(registry.Tx) error) error {
	return s.update(ctx, fn)
}

// run runs fn in a transaction of db; it commits iff fn returns nil and
// rolls back otherwise, a panic in fn included.
func run(ctx context.Context, db *sql.DB, stmts *stmtCache, opts *sql.TxOptions, fn func(registry.Tx) error) error {
	sqlTx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_ = sqlTx.Rollback() // the error that matters is fn's, or the panic
		}
	}()
	if err := fn(&tx{tx: stmtTx{sqlTx, stmts}}); err != nil {
		return err
	}
	done = true
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	return nil
}

// Close closes both connection pools. SQLite checkpoints the WAL into the
// database file when the last connection closes.
func (s *Store) Close() error {
	s.readStmts.close()
	s.writeStmts.close()
	rerr := s.read.Close()
	werr := s.write.Close()
	if werr != nil {
		return fmt.Errorf("close sqlite store: %w", werr)
	}
	if rerr != nil {
		return fmt.Errorf("close sqlite store: %w", rerr)
	}
	return nil
}

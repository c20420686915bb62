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
// One process owns the file: [Open] takes an exclusive advisory lock on
// <database>.lock, held until Close, and a second Open of the file, in this
// process or another, fails at once with an [*InUseError] naming the owner's
// PID. A store's answers (and the API's exact view of them) are only right
// while it is the one writer; replicas share PostgreSQL. A read-only store
// ([Options.ReadOnly]) may open a file another process owns; busy_timeout
// makes its reads wait for the owner's locks instead of failing.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
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
	// owner is the lock that makes this store the file's one writer; nil
	// for a read-only or shared store.
	owner *ownership
}

// Open opens (creating if needed) the SQLite database at path and applies
// the pending migrations in one transaction. The parent directory must
// exist. It fails with a wrapped driver error when path cannot be opened as a
// database (a directory, a file that is not SQLite, no permission) or when
// the database was migrated by a newer Charter. The store owns the file
// until Close: while another store (of this process or another) owns it,
// Open fails at once, before writing anything, with an [*InUseError]
// (errors.Is(err, [ErrInUse])), whose message names the file and the
// owner's PID.
func Open(ctx context.Context, path string) (*Store, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith is [Open] with opts.
func OpenWith(ctx context.Context, path string, opts Options) (*Store, error) {
	s, err := open(ctx, path, opts)
	if err != nil {
		var inUse *InUseError
		if errors.As(err, &inUse) {
			return nil, err // it names the file
		}
		return nil, fmt.Errorf("open sqlite store %q: %w", path, err)
	}
	return s, nil
}

func open(ctx context.Context, path string, opts Options) (_ *Store, err error) {
	if path == "" {
		return nil, fmt.Errorf("empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		// No lock file beside a directory: the driver's error.
		if err := probe(ctx, abs); err != nil {
			return nil, err
		}
		return nil, errors.New("is a directory")
	}
	var owner *ownership
	if !opts.Shared {
		owner, err = own(path, abs)
		var inUse *InUseError
		if errors.As(err, &inUse) && opts.ReadOnly {
			owner, err = nil, nil // a reader beside the owner
		}
		if err != nil && !errors.As(err, &inUse) {
			// The driver's reason first (a missing directory, no
			// permission): it is what the lock file met too.
			if perr := probe(ctx, abs); perr != nil {
				return nil, perr
			}
		}
		if err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			_ = owner.release()
		}
	}()
	beside := owner == nil && !opts.Shared // a reader beside the owner
	write, err := openWrite(abs, beside)
	if err != nil {
		return nil, err
	}
	if beside {
		err = checkMigrated(ctx, write, path)
	} else {
		err = migrate(ctx, write)
	}
	if err != nil {
		write.Close()
		return nil, err
	}
	if opts.ReadOnly && !beside {
		// Migrated: from now on the store never writes, and it gives the
		// file up to whoever comes to own it.
		write.Close()
		if write, err = openWrite(abs, true); err != nil {
			return nil, err
		}
		if err := owner.release(); err != nil {
			write.Close()
			return nil, err
		}
		owner = nil
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
		writeStmts: newStmtCache(write), readStmts: newStmtCache(read), owner: owner}, nil
}

// probe is the driver's error opening the database at abs, nil if it
// opens; it writes nothing.
func probe(ctx context.Context, abs string) error {
	db, err := sql.Open("sqlite", dsn(abs, true))
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PingContext(ctx)
}

// openWrite is the pool of the one write connection (query_only if
// readOnly).
func openWrite(abs string, readOnly bool) (*sql.DB, error) {
	write, err := sql.Open("sqlite", dsn(abs, readOnly))
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	return write, nil
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

// Close closes both connection pools, then gives up the ownership of the
// file. SQLite checkpoints the WAL into the database file when the last
// connection closes.
func (s *Store) Close() error {
	s.readStmts.close()
	s.writeStmts.close()
	rerr := s.read.Close()
	werr := s.write.Close()
	_ = s.owner.release()
	s.owner = nil
	if werr != nil {
		return fmt.Errorf("close sqlite store: %w", werr)
	}
	if rerr != nil {
		return fmt.Errorf("close sqlite store: %w", rerr)
	}
	return nil
}

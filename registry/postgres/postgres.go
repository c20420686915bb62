// Package postgres is the PostgreSQL backend of [registry.Store], built on
// pgx, for running any number of `charter serve` replicas on one database.
//
// # Transactions
//
// [Store.Update] runs at READ COMMITTED and, as its first statement, takes
// a transaction-scoped advisory lock that every Charter process on the
// same schema takes for every write: writes are serialised across
// replicas exactly as the single SQLite writer serialises them in one
// process, so what fn reads stays true until it commits (the next version
// number, the latest version a compatibility check judged against, the
// fingerprint that says a schema already has an ID). Each statement after
// the lock sees every write committed before it. Within a process, writers
// queue for one connection in Go first (honouring their context), so
// waiting writers do not take the pool's connections from readers.
// Unique constraints (schema ID, fingerprint, subject and version) back the
// lock: no interleaving could store one schema under two IDs or two
// schemas under one version.
//
// [Store.View] runs at REPEATABLE READ, READ ONLY: one snapshot, taken
// when its first statement runs, so a read that starts after a write was
// acknowledged anywhere sees that write.
//
// Update re-runs fn, up to [Options.Retries] times, after a failure that
// rolled the transaction back and says a retry may succeed: a
// serialization failure or deadlock (SQLSTATE class 40), or a connection
// that failed before a statement was sent. A failed COMMIT whose outcome
// is unknown is never retried.
//
// # Caches across replicas
//
// The registry caches schemas by ID (immutable until forgotten). A
// transaction that forgets schemas raises cache_epoch and sends a NOTIFY
// naming them; every Store LISTENs and passes what other processes forgot
// to the Service ([registry.Invalidator]). Notifications can be lost (the
// listening connection drops), so a Store also polls the epoch every
// [Options.CacheRefresh] (the staleness bound of those caches) and checks
// it inside every Update, after taking the lock: an epoch ahead of the
// last one applied drops every cache before fn runs, so no write ever
// judges with a schema another replica forgot.
//
// # Schemas, locks and migrations
//
// The tables live in the connection's current schema (the first schema
// of search_path that exists: `?search_path=charter` in the URL), so one
// database can hold several registries; advisory lock keys and the
// notification channel are derived from the schema name. [Open] applies
// the embedded migrations (migrations/NNNN_name.sql) in one transaction
// under an advisory lock of their own, so replicas starting together do
// not race; a database migrated by a newer Charter is refused.
package postgres

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/charter-dev/charter/registry"
)

var (
	_ registry.Store       = (*Store)(nil)
	_ registry.Invalidator = (*Store)(nil)
)

// Defaults of the Options.
const (
	// DefaultMaxConns is the connection pool size.
	DefaultMaxConns = 10
	// DefaultStatementTimeout bounds every statement, and every idle
	// moment inside a transaction (so a stalled replica cannot hold the
	// write lock longer).
	DefaultStatementTimeout = 30 * time.Second
	// DefaultRetries is how many times Update re-runs fn after a
	// retryable failure.
	DefaultRetries = 3
	// DefaultCacheRefresh is how often the cache epoch is polled when no
	// notification came: the staleness bound of cached schemas by ID
	// after another replica forgot one.
	DefaultCacheRefresh = time.Second
)

// Advisory lock classes: the first key of pg_advisory_xact_lock(int4,
// int4); the second is the hash of the schema name.
const (
	lockClassWrite   = 0x43485257 // "CHRW"
	lockClassMigrate = 0x4348524d // "CHRM"
)

// Options tune a Store. The zero value takes every default.
type Options struct {
	// MaxConns is the connection pool size (default DefaultMaxConns; at
	// least 2, since fn of an Update may call View). The LISTEN
	// connection comes on top.
	MaxConns int
	// StatementTimeout bounds each statement and each idle moment in a
	// transaction (default DefaultStatementTimeout).
	StatementTimeout time.Duration
	// Retries is how many times Update re-runs fn after a serialization
	// failure, a deadlock or a connection lost before a statement was
	// sent (default DefaultRetries; negative: never).
	Retries int
	// CacheRefresh is how often the cache epoch is polled (default
	// DefaultCacheRefresh; negative: never, for tests).
	CacheRefresh time.Duration
	// NoListen leaves out LISTEN, so that only polling and the check in
	// Update invalidate caches (tests of that fallback).
	NoListen bool
	// Logger receives the listener's reconnections (default
	// slog.Default()).
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.MaxConns == 0 {
		o.MaxConns = DefaultMaxConns
	}
	if o.StatementTimeout == 0 {
		o.StatementTimeout = DefaultStatementTimeout
	}
	if o.Retries == 0 {
		o.Retries = DefaultRetries
	}
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.CacheRefresh == 0 {
		o.CacheRefresh = DefaultCacheRefresh
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Store is a [registry.Store] over one PostgreSQL schema. It is safe for
// concurrent use, and any number of Stores (in any number of processes)
// may share the schema. Create it with [Open].
type Store struct {
	pool *pgxpool.Pool
	opts Options
	// schema is the current schema the tables live in; key the second
	// advisory lock key and channel the NOTIFY channel, both derived
	// from it.
	schema  string
	key     int32
	channel string
	// instance tells this Store's notifications from other processes'.
	instance string
	// writeSlot is the in-process writer queue: a buffered channel of
	// one, so waiting for it can end with the caller's context.
	writeSlot chan struct{}

	inv    invalidator
	cancel context.CancelFunc // stops the background goroutines
	done   sync.WaitGroup
}

// Open connects to the PostgreSQL database at dsn (a postgres:// URL or
// key=value string, as libpq takes them), applies the pending migrations
// and starts listening for other processes' invalidations. It fails when
// the database cannot be reached, when search_path names no existing
// schema, or when the database was migrated by a newer Charter. Errors
// never include the password.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	s, err := open(ctx, dsn, opts.withDefaults())
	if err != nil {
		return nil, fmt.Errorf("open postgres store: %w", err)
	}
	return s, nil
}

func open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	if opts.MaxConns < 2 {
		return nil, fmt.Errorf("pool size %d: want at least 2 connections", opts.MaxConns)
	}
	if opts.StatementTimeout < 0 {
		return nil, fmt.Errorf("statement timeout %s: want a positive duration", opts.StatementTimeout)
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, redact(err, dsn)
	}
	cfg.MaxConns = int32(opts.MaxConns)
	params := cfg.ConnConfig.RuntimeParams
	ms := strconv.FormatInt(opts.StatementTimeout.Milliseconds(), 10)
	params["statement_timeout"] = ms
	params["idle_in_transaction_session_timeout"] = ms
	if params["application_name"] == "" {
		params["application_name"] = "charter"
	}
	// A registration answered 200 must survive a crash of the database
	// too: a server default of synchronous_commit=off is raised to on
	// (unless the DSN asks for off itself).
	if _, set := params["synchronous_commit"]; !set {
		cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
			var v string
			if err := c.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&v); err != nil {
				return err
			}
			if v == "off" {
				_, err := c.Exec(ctx, `SET synchronous_commit = on`)
				return err
			}
			return nil
		}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, redact(err, dsn)
	}
	s := &Store{pool: pool, opts: opts, writeSlot: make(chan struct{}, 1), instance: newInstanceID()}
	var schema *string
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect: %w", redact(err, dsn))
	}
	if schema == nil {
		var path string
		_ = pool.QueryRow(ctx, `SHOW search_path`).Scan(&path)
		pool.Close()
		return nil, fmt.Errorf("no schema of search_path %q exists: create it first (CREATE SCHEMA ...)", path)
	}
	s.schema = *schema
	h := fnv.New32a()
	h.Write([]byte(s.schema))
	s.key = int32(h.Sum32())
	s.channel = fmt.Sprintf("charter_invalidate_%08x", h.Sum32())
	if err := migrate(ctx, pool, s.key); err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.startInvalidation(ctx, cfg.ConnConfig); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

func newInstanceID() string {
	b := make([]byte, 8)
	_, _ = crand.Read(b)
	return hex.EncodeToString(b)
}

// Schema returns the PostgreSQL schema that holds the tables.
func (s *Store) Schema() string { return s.schema }

// Ping checks that the database answers (readiness).
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping postgres: %w", err)
	}
	return nil
}

// View runs fn in a REPEATABLE READ, READ ONLY transaction: one snapshot
// of the committed state. Writes inside fn fail. fn's error is returned as
// is.
func (s *Store) View(ctx context.Context, fn func(registry.Tx) error) error {
	pgTx, err := s.begin(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer rollback(pgTx)
	if err := fn(&tx{q: pgTx}); err != nil {
		return err
	}
	if err := pgTx.Commit(ctx); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	return nil
}

// Update runs fn in a write transaction serialised with every other
// Update on the schema, in any process (see the package doc). It commits
// iff fn returns nil; fn's error is returned as is. After a retryable
// failure it runs fn again from scratch (Options.Retries). If fn panics
// the transaction is rolled back and the panic goes on up the stack. fn
// must not call Update itself; it may call View, which sees the state
// before this transaction.
func (s *Store) Update(ctx context.Context, fn func(registry.Tx) error) error {
	select {
	case s.writeSlot <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("wait for write lock: %w", ctx.Err())
	}
	defer func() { <-s.writeSlot }()
	for attempt := 0; ; attempt++ {
		err := s.update(ctx, fn)
		if err == nil || attempt >= s.opts.Retries || !retryable(err) || ctx.Err() != nil {
			return err
		}
		// 5-20 ms, doubling: the other party of a conflict finishes.
		d := time.Duration(5<<attempt)*time.Millisecond + rand.N(5*time.Millisecond)
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return err
		}
	}
}

// update is one attempt of Update.
func (s *Store) update(ctx context.Context, fn func(registry.Tx) error) error {
	pgTx, err := s.begin(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return err
	}
	defer rollback(pgTx)
	// One round trip: the lock, then (a statement later, so after the
	// wait) the epoch as of the lock.
	var epoch int64
	b := &pgx.Batch{}
	b.Queue(`SELECT pg_advisory_xact_lock($1, $2)`, lockClassWrite, s.key)
	b.Queue(`SELECT epoch FROM cache_epoch`).QueryRow(func(row pgx.Row) error { return row.Scan(&epoch) })
	if err := pgTx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("take the write lock: %w", err)
	}
	s.inv.catchUp(epoch)

	t := &tx{q: pgTx}
	if err := fn(t); err != nil {
		return err
	}
	if err := countWrite(ctx, pgTx); err != nil {
		return err
	}
	var next int64
	if len(t.forgotten) > 0 || t.forgotOther {
		if next, err = s.announce(ctx, pgTx, epoch, t.forgotten, t.forgotOther); err != nil {
			return err
		}
	}
	if err := pgTx.Commit(ctx); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	if next > 0 {
		// This process's Service evicts what it forgot itself.
		s.inv.applied(next)
	}
	return nil
}

// rollback rolls tx back unless it is already committed; used in a
// defer, so it also runs when fn panics.
func rollback(tx pgx.Tx) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = tx.Rollback(ctx) // ErrTxClosed after Commit; otherwise fn's error matters
}

// retryable reports whether err rolled the transaction back and a new
// attempt may succeed: a serialization failure or deadlock, or a
// connection error before anything was sent.
func retryable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "40001" || pe.Code == "40P01"
	}
	return pgconn.SafeToRetry(err)
}

// Close stops listening and closes the pool.
func (s *Store) Close() error {
	s.cancel()
	s.done.Wait()
	s.pool.Close()
	return nil
}

// redact removes dsn's password from err's message, in case a driver
// error quotes the connection string.
func redact(err error, dsn string) error {
	cfg, perr := pgconn.ParseConfig(dsn)
	if perr != nil || cfg.Password == "" || !strings.Contains(err.Error(), cfg.Password) {
		return err
	}
	return redacted{err, cfg.Password}
}

// redacted is an error whose message hides a password.
type redacted struct {
	err      error
	password string
}

func (r redacted) Error() string { return strings.ReplaceAll(r.err.Error(), r.password, "xxxxx") }
func (r redacted) Unwrap() error { return r.err }

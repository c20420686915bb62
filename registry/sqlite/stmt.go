package sqlite

import (
	"context"
	"database/sql"
	"sync"
)

// Prepared statements. database/sql prepares a query given as text on
// every call, and SQLite's parser was a third of a registration's CPU
// (BenchmarkRegisterDistinctSubjects' profile: sqlite3_prepare 32%). A
// stmtCache keeps each query prepared once per database (database/sql
// then prepares it once per connection, Tx.StmtContext reusing it).
//
// A query is prepared only while no transaction holds the connection it
// needs: the write database has one connection, held by the open batch,
// so a query met during a transaction is run as text and noted; the
// noted queries are prepared before the next transaction begins
// (prepare), on the write database when no batch is open.
type stmtCache struct {
	db      *sql.DB
	mu      sync.Mutex
	m       map[string]*sql.Stmt
	pending map[string]bool
}

// maxStmts bounds the queries kept prepared (the store's queries are a
// fixed set, a few of them built from a query's options).
const maxStmts = 256

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, m: make(map[string]*sql.Stmt), pending: make(map[string]bool)}
}

// get returns query's prepared statement, or nil after noting it.
func (c *stmtCache) get(query string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st
	}
	if len(c.m)+len(c.pending) < maxStmts {
		c.pending[query] = true
	}
	return nil
}

// prepare prepares the noted queries; the caller holds no connection of
// the database and, for the write database, makes sure its one
// connection is free (no write batch open). The lock is not held while
// preparing: PrepareContext may wait for a connection of the read pool,
// which the transactions holding them give back only once their queries
// (get) have run. A query that fails to prepare is run as text from
// then on.
func (c *stmtCache) prepare(ctx context.Context) {
	c.mu.Lock()
	qs := make([]string, 0, len(c.pending))
	for q := range c.pending {
		qs = append(qs, q)
	}
	clear(c.pending)
	c.mu.Unlock()
	for _, q := range qs {
		st, err := c.db.PrepareContext(ctx, q)
		c.mu.Lock()
		if old, ok := c.m[q]; ok && old != nil {
			// Prepared meanwhile by another caller.
			if st != nil {
				_ = st.Close()
			}
		} else if err != nil {
			c.m[q] = nil
		} else {
			c.m[q] = st
		}
		c.mu.Unlock()
	}
}

// hasPending reports whether queries wait to be prepared.
func (c *stmtCache) hasPending() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending) > 0
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, st := range c.m {
		if st != nil {
			_ = st.Close()
		}
		delete(c.m, q)
	}
}

// stmtTx is a *sql.Tx whose queries use the cache's prepared
// statements.
type stmtTx struct {
	tx *sql.Tx
	c  *stmtCache
}

func (t stmtTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.c.get(query); st != nil {
		return t.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

func (t stmtTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.c.get(query); st != nil {
		return t.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}

func (t stmtTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.c.get(query); st != nil {
		return t.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

// Package pgtest gives tests a PostgreSQL schema of their own: the
// conformance suite of registry/postgres, the replica tests of
// registry/clienttest and the store benchmarks use it.
//
// The database comes from the environment variable REGISTRY_TEST_POSTGRES_DSN
// (a postgres:// URL; .ci/run starts a throwaway cluster and sets it).
// Without it the tests that need PostgreSQL skip, saying how to run them,
// except in CI (CI=true), where they fail.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDSN names the environment variable holding the test database's DSN.
const EnvDSN = "REGISTRY_TEST_POSTGRES_DSN"

// BaseDSN returns the DSN of the test database. Without EnvDSN it skips
// tb with a message that says how to run the test, or fails it when
// CI=true.
func BaseDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		msg := "no PostgreSQL for this test: set " + EnvDSN +
			"=postgres://USER@127.0.0.1:PORT/DB?sslmode=disable (.ci/run starts a throwaway cluster and sets it)"
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	return dsn
}

// DSN creates a new, empty schema in the test database and returns a DSN
// whose search_path selects it; the schema is dropped (CASCADE) when tb
// ends, after the cleanups registered later (closing the stores) ran.
// Skips or fails as BaseDSN does.
func DSN(tb testing.TB) string {
	tb.Helper()
	base := BaseDSN(tb)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "charter_test_" + hex.EncodeToString(b)
	exec(tb, base, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	tb.Cleanup(func() {
		exec(tb, base, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	})
	return WithSearchPath(tb, base, schema)
}

// WithSearchPath returns dsn with search_path set to schema.
func WithSearchPath(tb testing.TB, dsn, schema string) string {
	tb.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			tb.Fatalf("%s: %v", EnvDSN, err)
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}

// exec runs one statement on a connection of its own.
func exec(tb testing.TB, dsn, sql string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatalf("connect to the test database (%s): %v", EnvDSN, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
}

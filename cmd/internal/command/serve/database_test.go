package serve_test

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/charter-dev/charter/cmd/internal/command/serve"
	"github.com/charter-dev/charter/registry/postgres/pgtest"
)

// runServe runs `serve args...` in-process and returns its error and logs.
func runServe(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var logs bytes.Buffer
	cmd := serve.NewCommand("serve", serve.Deps{Stderr: &logs})
	cmd.SetArgs(append([]string{"--listen", "127.0.0.1:0"}, args...))
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	err := cmd.ExecuteContext(ctx)
	return logs.String(), err
}

// TestDatabaseFlagValidation: the PostgreSQL settings that cannot work
// are refused, naming the flag, before any database is opened.
func TestDatabaseFlagValidation(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--db-pool-size", "1"}, "invalid --db-pool-size 1: want at least 2 connections"},
		{[]string{"--db-statement-timeout", "0s"}, "invalid --db-statement-timeout 0s"},
		{[]string{"--db-retries", "-1"}, "invalid --db-retries -1"},
		{[]string{"--db-cache-refresh", "0s"}, "invalid --db-cache-refresh 0s"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "charter.db")
			_, err := runServe(t, append([]string{"--db", db}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if _, err := os.Stat(db); err == nil {
				t.Errorf("the database was created although the flags were refused")
			}
		})
	}
}

// TestMigrateOnlySQLite: --migrate-only creates and migrates the SQLite
// file, then exits without serving.
func TestMigrateOnlySQLite(t *testing.T) {
	db := filepath.Join(t.TempDir(), "charter.db")
	logs, err := runServe(t, "--db", db, "--migrate-only")
	if err != nil {
		t.Fatalf("serve --migrate-only: %v\n%s", err, logs)
	}
	if !strings.Contains(logs, "database migrated") || strings.Contains(logs, "charter serving") {
		t.Errorf("logs of --migrate-only:\n%s", logs)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("database not created: %v", err)
	}
}

// TestMigrateOnlyPostgres: --migrate-only on a postgres:// URL migrates
// the schema and exits; the logs never show the password; a second run
// finds nothing to do.
func TestMigrateOnlyPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	password, hasPassword := u.User.Password()
	for run := 1; run <= 2; run++ {
		logs, err := runServe(t, "--db", dsn, "--migrate-only")
		if err != nil {
			t.Fatalf("run %d: serve --migrate-only: %v\n%s", run, err, logs)
		}
		if !strings.Contains(logs, "database migrated") {
			t.Errorf("run %d: logs:\n%s", run, logs)
		}
		if hasPassword && password != "" && strings.Contains(logs, password) {
			t.Errorf("run %d: the logs show the password:\n%s", run, logs)
		}
	}
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var n int
	if err := conn.QueryRow(t.Context(), `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatalf("schema_migrations after --migrate-only: %v", err)
	}
	if n < 1 {
		t.Errorf("schema_migrations has %d rows", n)
	}
}

// TestPostgresBadURL: an unreachable database fails start-up with the
// URL, password hidden.
func TestPostgresBadURL(t *testing.T) {
	_, err := runServe(t, "--db", "postgres://charter:s3cret-pw@127.0.0.1:1/charter?sslmode=disable&connect_timeout=2", "--migrate-only")
	if err == nil {
		t.Fatal("serve on an unreachable PostgreSQL: no error")
	}
	if strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("error shows the password: %v", err)
	}
	if !strings.Contains(err.Error(), "open database postgres://charter:xxxxx@127.0.0.1:1/charter") {
		t.Errorf("error %v, want it to name the database (password hidden)", err)
	}
}

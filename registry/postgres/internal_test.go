package postgres

import (
	"testing"

	"github.com/charter-dev/charter/registry/postgres/pgtest"
)

// TestDurableCommits: the pool's connections commit synchronously even
// where the session default is synchronous_commit=off, unless the DSN
// itself sets synchronous_commit.
func TestDurableCommits(t *testing.T) {
	dsn := pgtest.DSN(t)
	for _, tc := range []struct{ suffix, want string }{
		{"&options=-c%20synchronous_commit%3Doff", "on"},
		{"&synchronous_commit=off", "off"},
	} {
		s, err := Open(t.Context(), dsn+tc.suffix, Options{CacheRefresh: -1})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := s.pool.QueryRow(t.Context(), `SHOW synchronous_commit`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("DSN ...%s: synchronous_commit = %q, want %q", tc.suffix, got, tc.want)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

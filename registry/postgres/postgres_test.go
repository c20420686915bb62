package postgres_test

import (
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/postgres"
	"github.com/charter-dev/charter/registry/postgres/pgtest"
	"github.com/charter-dev/charter/registry/storetest"
)

// open opens a store on dsn and closes it when t ends.
func open(t testing.TB, dsn string, opts postgres.Options) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), dsn, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	pgtest.BaseDSN(t) // skip (or fail in CI) once, not per subtest
	storetest.RunConformance(t, func(t *testing.T) registry.Store {
		s, err := postgres.Open(t.Context(), pgtest.DSN(t), postgres.Options{})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return s
	})
}

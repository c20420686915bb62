package serve_test

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/serve"
	"github.com/charter-dev/charter/registry/sqlite"
)

// TestServeSQLiteInUse: charter serve on a SQLite file another charter
// owns fails at once with one line naming the file and the owner; once the
// owner closes it, it serves (here: migrates) the file. A read-only open
// (charter migrate's source) is let in beside the owner.
func TestServeSQLiteInUse(t *testing.T) {
	db := filepath.Join(t.TempDir(), "charter.db")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	owner, err := serve.OpenDatabase(t.Context(), db, log)
	if err != nil {
		t.Fatal(err)
	}
	_, err = runServe(t, "--db", db, "--migrate-only")
	want := fmt.Sprintf("database %s is in use by another charter process (pid %d): Charter's SQLite store serves one process; use PostgreSQL for replicas", db, os.Getpid())
	if !errors.Is(err, sqlite.ErrInUse) || err.Error() != want {
		t.Fatalf("serve beside an owner: %v\nwant: %s", err, want)
	}
	if _, err := serve.OpenDatabase(t.Context(), db, log); !errors.Is(err, sqlite.ErrInUse) {
		t.Errorf("OpenDatabase beside an owner: %v, want ErrInUse", err)
	}
	ro, err := serve.OpenDatabaseReadOnly(t.Context(), db, log)
	if err != nil {
		t.Fatalf("OpenDatabaseReadOnly beside an owner: %v", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if err := owner.Close(); err != nil {
		t.Fatal(err)
	}
	if logs, err := runServe(t, "--db", db, "--migrate-only"); err != nil {
		t.Fatalf("serve after the owner closed: %v\n%s", err, logs)
	}
}

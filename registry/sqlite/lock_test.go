package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/sqlite"
)

// putSchema stores one schema of fingerprint fp and returns its ID.
func putSchema(t *testing.T, s *sqlite.Store, fp string) (int64, error) {
	t.Helper()
	var id int64
	err := s.Update(t.Context(), func(tx registry.Tx) error {
		var err error
		id, err = tx.CreateSchema(t.Context(), registry.Schema{Type: "AVRO", Text: `{"type":"fixed","name":"` + fp + `","size":1}`, Fingerprint: fp})
		return err
	})
	return id, err
}

// TestOpenOwnsTheFile: one store owns a file; a second Open, even in this
// process, fails at once with one line naming the file and the owner's PID,
// and succeeds after Close.
func TestOpenOwnsTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "charter.db")
	a, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sqlite.Open(t.Context(), path)
	want := fmt.Sprintf("database %s is in use by another charter process (pid %d): Charter's SQLite store serves one process; use PostgreSQL for replicas", path, os.Getpid())
	if !errors.Is(err, sqlite.ErrInUse) || err.Error() != want {
		t.Fatalf("second Open: %v\nwant: %s", err, want)
	}
	var inUse *sqlite.InUseError
	if !errors.As(err, &inUse) || inUse.PID != os.Getpid() || inUse.Path != path {
		t.Errorf("second Open: %#v, want an InUseError of %s, pid %d", err, path, os.Getpid())
	}
	// Through a symbolic link too.
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(path, link); err == nil {
		if _, err := sqlite.Open(t.Context(), link); !errors.Is(err, sqlite.ErrInUse) {
			t.Errorf("Open through a symlink: %v, want ErrInUse", err)
		}
	}
	// The owner writes on: WAL, -shm and SQLite's own locks are untouched.
	if _, err := putSchema(t, a, "fp1"); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	if _, err := putSchema(t, b, "fp2"); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenReadOnlyBesideOwner: a read-only store opens a file another owns
// and reads what it commits, never writes, and does not own the file.
func TestOpenReadOnlyBesideOwner(t *testing.T) {
	path := filepath.Join(t.TempDir(), "charter.db")
	owner, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	if _, err := putSchema(t, owner, "fp1"); err != nil {
		t.Fatal(err)
	}
	ro, err := sqlite.OpenWith(t.Context(), path, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Open beside the owner: %v", err)
	}
	defer ro.Close()
	id, err := putSchema(t, owner, "fp2")
	if err != nil {
		t.Fatal(err)
	}
	err = ro.View(t.Context(), func(tx registry.Tx) error {
		_, err := tx.SchemaByID(t.Context(), "", id)
		return err
	})
	if err != nil {
		t.Errorf("read-only store reads the owner's commit: %v", err)
	}
	if _, err := putSchema(t, ro, "fp3"); err == nil {
		t.Error("a read-only store wrote")
	}
	if _, err := sqlite.Open(t.Context(), path); !errors.Is(err, sqlite.ErrInUse) {
		t.Errorf("Open beside owner and reader: %v, want ErrInUse", err)
	}
}

// TestOpenReadOnlyAlone: with no owner, a read-only store applies the
// migrations (owning the file for that time only), then lets another own it.
func TestOpenReadOnlyAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	ro, err := sqlite.OpenWith(t.Context(), path, sqlite.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := putSchema(t, ro, "fp1"); err == nil {
		t.Error("a read-only store wrote")
	}
	owner, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open beside a read-only store: %v", err)
	}
	defer owner.Close()
	if _, err := putSchema(t, owner, "fp1"); err != nil {
		t.Fatal(err)
	}
}

// TestOpenReadOnlyUnmigratedOwned: a read-only store beside an owner applies
// no migration, so a database lacking some is refused, unchanged.
func TestOpenReadOnlyUnmigratedOwned(t *testing.T) {
	path := filepath.Join(t.TempDir(), "charter.db")
	// An owner whose database records one migration less than this
	// binary knows (as an older Charter's would).
	owner, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	db := rawDB(t, path)
	if _, err := db.ExecContext(context.Background(), `DELETE FROM schema_migrations WHERE version = (SELECT MAX(version) FROM schema_migrations)`); err != nil {
		t.Fatal(err)
	}
	_, err = sqlite.OpenWith(t.Context(), path, sqlite.Options{ReadOnly: true})
	if err == nil || !strings.Contains(err.Error(), "lacks migrations") {
		t.Fatalf("read-only Open of an owned, unmigrated database: %v", err)
	}
}

// TestOpenShared: Shared (tests' replicas) opens a file another store owns.
func TestOpenShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "charter.db")
	a, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqlite.OpenWith(t.Context(), path, sqlite.Options{Shared: true})
	if err != nil {
		t.Fatalf("Shared Open: %v", err)
	}
	defer b.Close()
	if _, err := putSchema(t, b, "fp1"); err != nil {
		t.Fatal(err)
	}
}

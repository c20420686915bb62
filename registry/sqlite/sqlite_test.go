package sqlite_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/sqlite"
	"github.com/charter-dev/charter/registry/storetest"
)

// openTemp opens a store on a new file in t's temp dir and returns it with
// the file's path. The caller closes it.
func openTemp(t testing.TB) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "registry.db")
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s, path
}

func TestConformance(t *testing.T) {
	storetest.RunConformance(t, func(t *testing.T) registry.Store {
		s, _ := openTemp(t)
		return s
	})
}

// TestReopen: data survives Close and Open, and opening again applies no
// migration twice.
func TestReopen(t *testing.T) {
	s, path := openTemp(t)
	want := registry.Schema{Type: "AVRO", Text: `"string"`, Fingerprint: "fp-1",
		References: []registry.Reference{{Name: "r", Subject: "x", Version: 2}}}
	err := s.Update(t.Context(), func(tx registry.Tx) error {
		id, err := tx.CreateSchema(t.Context(), want)
		if err != nil {
			return err
		}
		want.ID = id
		if err := tx.PutVersion(t.Context(), registry.SubjectVersion{Subject: "s", Version: 1, SchemaID: id}); err != nil {
			return err
		}
		return tx.SetMode(t.Context(), "", registry.ModeImport)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	for i := range 2 {
		s, err := sqlite.Open(t.Context(), path)
		if err != nil {
			t.Fatalf("reopen %d: %v", i, err)
		}
		err = s.View(t.Context(), func(tx registry.Tx) error {
			got, err := tx.SchemaByID(t.Context(), "", want.ID)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("reopen %d: schema = %+v, want %+v", i, got, want)
			}
			vs, err := tx.Versions(t.Context(), registry.VersionQuery{Subject: "s"})
			if err != nil {
				return err
			}
			if len(vs) != 1 || vs[0].SchemaID != want.ID {
				t.Errorf("reopen %d: versions = %v", i, vs)
			}
			refs, err := tx.ReferencedBy(t.Context(), "x", 2)
			if err != nil {
				return err
			}
			if len(refs) != 1 || refs[0] != (registry.SchemaKey{ID: want.ID}) {
				t.Errorf("reopen %d: ReferencedBy = %v", i, refs)
			}
			m, err := tx.Mode(t.Context(), "")
			if err != nil || m != registry.ModeImport {
				t.Errorf("reopen %d: mode = %q, %v", i, m, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}

	db := rawDB(t, path)
	var n, maxVersion int
	if err := db.QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_migrations`).Scan(&n, &maxVersion); err != nil {
		t.Fatal(err)
	}
	if n != maxVersion || n < 1 {
		t.Errorf("schema_migrations has %d rows up to version %d, want each version once", n, maxVersion)
	}
}

// rawDB opens path with database/sql, bypassing the store, and closes it at
// the end of the test.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestOpenNewerSchema: a database migrated by a newer binary is refused
// rather than used with a schema this code does not know.
func TestOpenNewerSchema(t *testing.T) {
	s, path := openTemp(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	if _, err := db.Exec(`INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_future.sql')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := sqlite.Open(t.Context(), path)
	if err == nil || !strings.Contains(err.Error(), "database schema version 9999 is newer") {
		t.Fatalf("Open of a newer database: error = %v, want one saying the schema is newer", err)
	}
}

// TestOpenBadPath: paths that cannot be a database give an error that names
// the path and the cause, and leave an existing file untouched.
func TestOpenBadPath(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	content := bytes.Repeat([]byte("this is not an SQLite database\n"), 200)
	if err := os.WriteFile(garbage, content, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, want string
	}{
		{"not a database", garbage, "file is not a database"},
		{"directory", dir, "unable to open database file"},
		{"missing parent directory", filepath.Join(dir, "missing", "registry.db"), "unable to open database file"},
		{"empty path", "", "empty path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := sqlite.Open(t.Context(), c.path)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%q) succeeded", c.path)
			}
			msg := err.Error()
			if !strings.Contains(msg, strconv.Quote(c.path)) || !strings.Contains(msg, c.want) {
				t.Errorf("Open(%q) error = %q, want it to name the path and contain %q", c.path, msg, c.want)
			}
		})
	}
	got, err := os.ReadFile(garbage)
	if err != nil || !bytes.Equal(got, content) {
		t.Errorf("Open changed the non-database file (read error %v)", err)
	}
}

// TestViewDuringUpdate: a View runs to completion while an Update is open
// (WAL) and sees the last committed state, not the Update's writes.
func TestViewDuringUpdate(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	written := make(chan struct{})
	release := make(chan struct{})
	updateErr := make(chan error, 1)
	go func() {
		updateErr <- s.Update(t.Context(), func(tx registry.Tx) error {
			_, err := tx.CreateSchema(t.Context(), registry.Schema{Type: "AVRO", Text: `"int"`, Fingerprint: "fp"})
			close(written)
			<-release
			return err
		})
	}()
	<-written
	err := s.View(t.Context(), func(tx registry.Tx) error {
		_, err := tx.SchemaByFingerprint(t.Context(), "", "fp")
		if !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("View during Update sees uncommitted schema: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Errorf("View during Update: %v", err)
	}
	close(release)
	if err := <-updateErr; err != nil {
		t.Fatal(err)
	}
	err = s.View(t.Context(), func(tx registry.Tx) error {
		_, err := tx.SchemaByFingerprint(t.Context(), "", "fp")
		return err
	})
	if err != nil {
		t.Errorf("View after Update: %v", err)
	}
}

// TestViewIsReadOnly: writes inside View fail and change nothing.
func TestViewIsReadOnly(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	err := s.View(t.Context(), func(tx registry.Tx) error {
		return tx.SetMode(t.Context(), "", registry.ModeReadOnly)
	})
	if err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Errorf("SetMode in View: error = %v, want a read-only error", err)
	}
	err = s.View(t.Context(), func(tx registry.Tx) error {
		_, err := tx.Mode(t.Context(), "")
		return err
	})
	if !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("Mode after write attempt in View: %v, want ErrNotFound", err)
	}
}

// TestUpdateWaitHonoursContext: an Update waiting for the writer lock gives
// up with the context's error, without running fn.
func TestUpdateWaitHonoursContext(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	holding := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.Update(t.Context(), func(registry.Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	ran := false
	err := s.Update(ctx, func(registry.Tx) error { ran = true; return nil })
	if !errors.Is(err, context.DeadlineExceeded) || ran {
		t.Errorf("Update behind a held lock: error = %v, fn ran = %v; want DeadlineExceeded, not run", err, ran)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestInvalidWrites: SQLite-specific input checks, each a clear error.
func TestInvalidWrites(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	cases := []struct {
		name     string
		fn       func(ctx context.Context, tx registry.Tx) error
		want     string
		notFound bool
	}{
		{"negative schema ID", func(ctx context.Context, tx registry.Tx) error {
			_, err := tx.CreateSchema(ctx, registry.Schema{ID: -1, Type: "AVRO", Text: `"int"`, Fingerprint: "fp"})
			return err
		}, "invalid id -1", false},
		{"empty fingerprint", func(ctx context.Context, tx registry.Tx) error {
			_, err := tx.CreateSchema(ctx, registry.Schema{Type: "AVRO", Text: `"int"`})
			return err
		}, "empty fingerprint", false},
		{"version 0", func(ctx context.Context, tx registry.Tx) error {
			return tx.PutVersion(ctx, registry.SubjectVersion{Subject: "s", Version: 0, SchemaID: 1})
		}, "versions start at 1", false},
		{"version of unknown schema", func(ctx context.Context, tx registry.Tx) error {
			return tx.PutVersion(ctx, registry.SubjectVersion{Subject: "s", Version: 1, SchemaID: 42})
		}, "schema 42: not found", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.Update(t.Context(), func(tx registry.Tx) error { return c.fn(t.Context(), tx) })
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want one containing %q", err, c.want)
			}
			if got := errors.Is(err, registry.ErrNotFound); got != c.notFound {
				t.Errorf("errors.Is(err, ErrNotFound) = %v, want %v", got, c.notFound)
			}
		})
	}
}

// killChildEnv switches the test binary into the child role of
// TestKill9Durability; its value is the database path.
const killChildEnv = "CHARTER_SQLITE_KILL9_CHILD"

// TestKill9Durability re-executes the test binary as a child that creates
// schemas in a loop and prints each ID once Update has returned nil. The
// parent SIGKILLs it after a few IDs, reopens the database and checks that
// every printed ID is there. (The OS keeps written pages across kill -9, so
// this proves commit-before-return and WAL recovery, not power-loss safety.)
func TestKill9Durability(t *testing.T) {
	if path := os.Getenv(killChildEnv); path != "" {
		killChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), "registry.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9Durability$", "-test.count=1")
	cmd.Env = append(os.Environ(), killChildEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	const want = 25 // IDs to read before the kill
	ids := make(chan int64)
	go func() {
		defer close(ids)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "created "); ok {
				n, err := strconv.ParseInt(id, 10, 64)
				if err == nil {
					ids <- n
				}
			}
		}
	}()
	var printed []int64
	timeout := time.After(60 * time.Second)
read:
	for len(printed) < want {
		select {
		case id, ok := <-ids:
			if !ok {
				break read
			}
			printed = append(printed, id)
		case <-timeout:
			break read
		}
	}
	// The child owns the file: a second store is refused, naming it.
	if len(printed) > 0 {
		_, err := sqlite.Open(t.Context(), path)
		if !errors.Is(err, sqlite.ErrInUse) || !strings.Contains(fmt.Sprint(err), fmt.Sprintf("(pid %d)", cmd.Process.Pid)) {
			t.Errorf("Open while the child owns the file: %v, want ErrInUse naming pid %d", err, cmd.Process.Pid)
		}
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL on Unix
		t.Fatal(err)
	}
	go func() {
		for range ids { // drain what the child printed before dying
		}
	}()
	waitErr := cmd.Wait()
	if len(printed) < want {
		t.Fatalf("child printed %d IDs, want %d (wait: %v); stderr:\n%s", len(printed), want, waitErr, stderr.String())
	}
	if !strings.Contains(fmt.Sprint(waitErr), "killed") {
		t.Fatalf("child did not die of SIGKILL: %v; stderr:\n%s", waitErr, stderr.String())
	}

	// The kernel released the dead child's lock: the file is not stale.
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer s.Close()
	err = s.View(t.Context(), func(tx registry.Tx) error {
		for _, id := range printed {
			got, err := tx.SchemaByID(t.Context(), "", id)
			if err != nil {
				t.Errorf("printed ID %d: %v", id, err)
				continue
			}
			if want := fmt.Sprintf("kill-%d", id); got.Fingerprint != want {
				t.Errorf("schema %d fingerprint = %q, want %q", id, got.Fingerprint, want)
			}
			vs, err := tx.Versions(t.Context(), registry.VersionQuery{Subject: "kill", SchemaID: id})
			if err != nil || len(vs) != 1 || vs[0].Version != int(id) {
				t.Errorf("version of printed ID %d = %v, %v", id, vs, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var check string
	if err := rawDB(t, path).QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check after kill -9 = %q, %v", check, err)
	}
}

// killChild is the child of TestKill9Durability: it writes until killed (or
// for a minute at most, should the parent be gone) and never returns.
func killChild(path string) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var id int64
		err := s.Update(ctx, func(tx registry.Tx) error {
			next, err := tx.MaxSchemaID(ctx, "")
			if err != nil {
				return err
			}
			next++
			id, err = tx.CreateSchema(ctx, registry.Schema{
				ID: next, Type: "AVRO", Text: fmt.Sprintf(`{"type":"fixed","name":"f","size":%d}`, next),
				Fingerprint: fmt.Sprintf("kill-%d", next),
			})
			if err != nil {
				return err
			}
			return tx.PutVersion(ctx, registry.SubjectVersion{Subject: "kill", Version: int(id), SchemaID: id})
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Printf("created %d\n", id) // os.Stdout is unbuffered: one write per line
	}
	os.Exit(3)
}

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Options tune [OpenWith]. The zero value is what [Open] uses: the store
// owns the database file.
type Options struct {
	// ReadOnly opens a store that never writes: Update fails. When no other
	// process owns the file it is owned for the time of the migrations
	// only (which it applies), then released; when another process owns
	// it, nothing is taken and nothing applied: the open fails if the
	// database lacks migrations this binary knows. A reader cannot stale
	// the owner's view of its answers, so charter migrate reads a live
	// registry (--from) this way.
	ReadOnly bool
	// Shared opens the file without owning it, beside another store of
	// this process or of another that owns it. It is for tests that
	// simulate replicas over one file: a store does not see what another
	// writes into the file, so the API's view of its answers goes stale.
	// Never use it to serve.
	Shared bool
}

// ErrInUse is what [Open] fails with (as an [*InUseError]) when another
// store, in this process or another, owns the database file.
var ErrInUse = errors.New("database is in use by another charter process")

// InUseError is the failure to own a database file another store owns.
type InUseError struct {
	Path string // the database file, as given to Open
	PID  int    // the owner's process ID, 0 when unknown
}

func (e *InUseError) Error() string {
	owner := "another charter process"
	if e.PID > 0 {
		owner = fmt.Sprintf("another charter process (pid %d)", e.PID)
	}
	return fmt.Sprintf("database %s is in use by %s: Charter's SQLite store serves one process; use PostgreSQL for replicas", e.Path, owner)
}

// Is makes errors.Is(err, ErrInUse) hold.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// ownership is the exclusive advisory lock a store holds on the sidecar
// file <database>.lock while it is open (flock(2) on Unix, LockFileEx on
// Windows). It is not SQLite's own locking (POSIX fcntl locks on the
// database, -wal and -shm files, which on Linux are independent of flock):
// it only keeps a second store from opening the file, since a store's
// answers are only exact while it is the one writer. The kernel releases it
// when the process ends, kill -9 included, so it is never stale. The file
// holds the owner's PID, for the message of the store refused.
type ownership struct{ f *os.File }

// lockPath is the sidecar lock file of the database at abs: beside the
// file the path resolves to, so that two paths (a symbolic link) to one
// database meet on one lock.
func lockPath(abs string) string {
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	return abs + ".lock"
}

// own takes the ownership of the database at abs (given as path), or fails
// with an [*InUseError] at once when another store holds it.
func own(path, abs string) (*ownership, error) {
	lp := lockPath(abs)
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock file: %w", err)
	}
	ok, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", lp, err)
	}
	if !ok {
		pid := readPID(f)
		f.Close()
		return nil, &InUseError{Path: path, PID: pid}
	}
	// The PID is for the message of a store refused; failing to write it
	// only leaves that message without it.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &ownership{f: f}, nil
}

// release gives the ownership up. The lock file stays: removing it would
// let a store lock an unlinked file while another creates a new one.
func (o *ownership) release() error {
	if o == nil {
		return nil
	}
	_ = unlock(o.f)
	return o.f.Close()
}

// readPID is the PID written in the lock file f, 0 if none.
func readPID(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

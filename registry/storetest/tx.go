package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
)

// testUpdateSeesOwnWrites: inside one Update, reads see the writes made
// before them; after it, View sees them all.
func testUpdateSeesOwnWrites(t *testing.T, s registry.Store) {
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		id, err := tx.CreateSchema(ctx, schema("fp-1"))
		if err != nil {
			return err
		}
		if _, err := tx.SchemaByFingerprint(ctx, "", "fp-1"); err != nil {
			t.Errorf("SchemaByFingerprint in the creating Update: %v", err)
		}
		if err := tx.PutVersion(ctx, sv("s", 1, id, false)); err != nil {
			return err
		}
		got, err := tx.Versions(ctx, registry.VersionQuery{Subject: "s"})
		if err != nil {
			return err
		}
		if want := []registry.SubjectVersion{sv("s", 1, id, false)}; !equalVersions(got, want) {
			t.Errorf("Versions in the writing Update = %v, want %v", got, want)
		}
		if err := tx.SetMode(ctx, "s", registry.ModeImport); err != nil {
			return err
		}
		if m, err := tx.Mode(ctx, "s"); err != nil || m != registry.ModeImport {
			t.Errorf("Mode in the writing Update = %q, %v; want IMPORT", m, err)
		}
		return nil
	})
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		if _, err := tx.SchemaByID(ctx, "", 1); err != nil {
			t.Errorf("SchemaByID(1) after commit: %v", err)
		}
		if m, err := tx.Mode(ctx, "s"); err != nil || m != registry.ModeImport {
			t.Errorf("Mode after commit = %q, %v; want IMPORT", m, err)
		}
		return nil
	})
}

// state is everything the rollback tests look at, in comparable form.
type state struct {
	MaxID          int64
	Versions       []registry.SubjectVersion
	NewFPMissing   bool // SchemaByFingerprint("fp-new") is ErrNotFound
	ID99Missing    bool // SchemaByID(99) is ErrNotFound
	GlobalConfig   string
	SubjectConfig  string
	GlobalMode     string
	SubjectMode    string
	ReferencesToS1 []registry.SchemaKey
}

// snapshot reads the state in one View.
func snapshot(t *testing.T, s registry.Store) state {
	t.Helper()
	var st state
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		var err error
		if st.MaxID, err = tx.MaxSchemaID(ctx, ""); err != nil {
			return err
		}
		if st.Versions, err = tx.Versions(ctx, registry.VersionQuery{IncludeDeleted: true}); err != nil {
			return err
		}
		_, err = tx.SchemaByFingerprint(ctx, "", "fp-new")
		st.NewFPMissing = errors.Is(err, registry.ErrNotFound)
		_, err = tx.SchemaByID(ctx, "", 99)
		st.ID99Missing = errors.Is(err, registry.ErrNotFound)
		c, err := tx.Config(ctx, "")
		st.GlobalConfig = fmt.Sprintf("%+v %v", c, errors.Is(err, registry.ErrNotFound))
		c, err = tx.Config(ctx, "s")
		st.SubjectConfig = fmt.Sprintf("%+v %v", c, errors.Is(err, registry.ErrNotFound))
		m, err := tx.Mode(ctx, "")
		st.GlobalMode = fmt.Sprintf("%q %v", m, errors.Is(err, registry.ErrNotFound))
		m, err = tx.Mode(ctx, "s")
		st.SubjectMode = fmt.Sprintf("%q %v", m, errors.Is(err, registry.ErrNotFound))
		if st.ReferencesToS1, err = tx.ReferencedBy(ctx, "s", 1); err != nil {
			return err
		}
		return nil
	})
	return st
}

// seedForRollback stores a state that writeEverything then changes in
// every table.
func seedForRollback(t *testing.T, s registry.Store) {
	t.Helper()
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		if _, err := tx.CreateSchema(ctx, schema("fp-1")); err != nil {
			return err
		}
		for _, v := range []registry.SubjectVersion{sv("s", 1, 1, false), sv("s", 2, 1, false)} {
			if err := tx.PutVersion(ctx, v); err != nil {
				return err
			}
		}
		if err := tx.SetConfig(ctx, "", registry.Config{Compatibility: compat.Backward}); err != nil {
			return err
		}
		return tx.SetMode(ctx, "s", registry.ModeReadWrite)
	})
}

// writeEverything changes every table: new schema with a reference, new,
// updated and deleted versions, set and deleted config and mode.
func writeEverything(ctx context.Context, tx registry.Tx) error {
	sc := schema("fp-new")
	sc.ID = 99
	sc.References = []registry.Reference{{Name: "s1", Subject: "s", Version: 1}}
	id, err := tx.CreateSchema(ctx, sc)
	if err != nil {
		return err
	}
	if _, err := tx.CreateSchema(ctx, schema("fp-new-2")); err != nil {
		return err
	}
	steps := []func() error{
		func() error { return tx.PutVersion(ctx, sv("s", 3, id, false)) },
		func() error { return tx.PutVersion(ctx, sv("s", 1, id, true)) },
		func() error { return tx.DeleteVersion(ctx, "s", 2) },
		func() error { return tx.SetConfig(ctx, "", registry.Config{Compatibility: compat.None}) },
		func() error { return tx.SetConfig(ctx, "s", registry.Config{Compatibility: compat.Full}) },
		func() error { return tx.SetMode(ctx, "", registry.ModeReadOnly) },
		func() error { return tx.DeleteMode(ctx, "s") },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// testUpdateRollbackOnError: fn's error is returned (errors.Is) and none of
// its writes is visible.
func testUpdateRollbackOnError(t *testing.T, s registry.Store) {
	seedForRollback(t, s)
	before := snapshot(t, s)
	errStop := errors.New("stop here")
	err := s.Update(t.Context(), func(tx registry.Tx) error {
		if err := writeEverything(t.Context(), tx); err != nil {
			return fmt.Errorf("write everything: %w", err)
		}
		return fmt.Errorf("after writes: %w", errStop)
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("Update error = %v, want one wrapping %v", err, errStop)
	}
	if after := snapshot(t, s); !reflect.DeepEqual(after, before) {
		t.Errorf("state after rolled back Update\n got %+v\nwant %+v", after, before)
	}
	// The store still takes writes, and the rolled back IDs may be reused.
	update(t, s, writeEverything)
}

// testUpdateRollbackOnPanic: a panic in fn propagates, or Update returns an
// error; none of fn's writes is visible and the next Update works (no lock
// left held).
func testUpdateRollbackOnPanic(t *testing.T, s registry.Store) {
	seedForRollback(t, s)
	before := snapshot(t, s)
	type boom struct{}
	var (
		recovered any
		err       error
	)
	func() {
		defer func() { recovered = recover() }()
		err = s.Update(t.Context(), func(tx registry.Tx) error {
			if err := writeEverything(t.Context(), tx); err != nil {
				t.Errorf("write everything: %v", err)
				return err
			}
			panic(boom{})
		})
	}()
	switch {
	case recovered != nil:
		if _, ok := recovered.(boom); !ok {
			t.Errorf("recovered %v, want the panic value of fn", recovered)
		}
	case err == nil:
		t.Fatal("Update with a panicking fn returned nil and did not panic")
	}
	if after := snapshot(t, s); !reflect.DeepEqual(after, before) {
		t.Errorf("state after panicking Update\n got %+v\nwant %+v", after, before)
	}
	update(t, s, writeEverything)
}

// testViewReturnsFnError: View passes fn's error through.
func testViewReturnsFnError(t *testing.T, s registry.Store) {
	errStop := errors.New("stop here")
	err := s.View(t.Context(), func(tx registry.Tx) error {
		_, err := tx.SchemaByID(t.Context(), "", 1)
		if !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("SchemaByID(1) on an empty store: %v, want ErrNotFound", err)
		}
		return fmt.Errorf("in view: %w", errStop)
	})
	if !errors.Is(err, errStop) {
		t.Errorf("View error = %v, want one wrapping %v", err, errStop)
	}
}

// testConcurrentUpdates: 8 goroutines each run Updates that allocate a
// schema ID and append the next version of one shared subject (read the
// versions, put last+1). Serialised Updates lose nothing: every ID and
// every version 1..N exactly once, no error.
func testConcurrentUpdates(t *testing.T, s registry.Store) {
	const (
		workers = 8
		each    = 10
		total   = workers * each
	)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		ids  []int64
		errs []error
	)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				var id int64
				err := s.Update(t.Context(), func(tx registry.Tx) error {
					var err error
					id, err = tx.CreateSchema(t.Context(), schema(fmt.Sprintf("fp-%d-%d", w, i)))
					if err != nil {
						return err
					}
					vs, err := tx.Versions(t.Context(), registry.VersionQuery{Subject: "shared", IncludeDeleted: true})
					if err != nil {
						return err
					}
					next := 1
					if len(vs) > 0 {
						next = vs[len(vs)-1].Version + 1
					}
					return tx.PutVersion(t.Context(), sv("shared", next, id, false))
				})
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("worker %d, update %d: %w", w, i, err))
				} else {
					ids = append(ids, id)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		t.Error(err)
	}
	slices.Sort(ids)
	if len(ids) != total || ids[0] != 1 || ids[len(ids)-1] != total || len(slices.Compact(slices.Clone(ids))) != total {
		t.Errorf("allocated IDs = %v, want 1..%d once each", ids, total)
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		vs, err := tx.Versions(ctx, registry.VersionQuery{Subject: "shared", IncludeDeleted: true})
		if err != nil {
			return err
		}
		if len(vs) != total {
			t.Fatalf("shared subject has %d versions, want %d", len(vs), total)
		}
		var bound []int64
		for i, v := range vs {
			if v.Version != i+1 {
				t.Errorf("version at position %d = %d, want %d", i, v.Version, i+1)
			}
			bound = append(bound, v.SchemaID)
		}
		slices.Sort(bound)
		if !slices.Equal(bound, ids) {
			t.Errorf("schema IDs bound to versions = %v, want the allocated %v", bound, ids)
		}
		maxID, err := tx.MaxSchemaID(ctx, "")
		if err != nil {
			return err
		}
		if maxID != total {
			t.Errorf("MaxSchemaID = %d, want %d", maxID, total)
		}
		return nil
	})
}

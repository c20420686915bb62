package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

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

// schema returns a minimal Avro schema with fingerprint fp.
func schema(fp string) registry.Schema {
	return registry.Schema{Type: "AVRO", Text: `{"type":"record","name":"r","fields":[]}`, Fingerprint: fp}
}

// mustUpdate runs fn in s.Update and fails the test on error.
func mustUpdate(t testing.TB, s registry.Store, fn func(ctx context.Context, tx registry.Tx) error) {
	t.Helper()
	if err := s.Update(t.Context(), func(tx registry.Tx) error { return fn(t.Context(), tx) }); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

// createAndForget stores a schema with one version, then (in a second
// Update) deletes the version and forgets the schema, as a permanent
// delete does; it returns the schema's ID.
func createAndForget(t *testing.T, s registry.Store, fp string) int64 {
	t.Helper()
	var id int64
	mustUpdate(t, s, func(ctx context.Context, tx registry.Tx) error {
		var err error
		if id, err = tx.CreateSchema(ctx, schema(fp)); err != nil {
			return err
		}
		return tx.PutVersion(ctx, registry.SubjectVersion{Subject: "s-" + fp, Version: 1, SchemaID: id})
	})
	mustUpdate(t, s, func(ctx context.Context, tx registry.Tx) error {
		if err := tx.DeleteVersion(ctx, "s-"+fp, 1); err != nil {
			return err
		}
		return tx.DeleteSchema(ctx, "", id)
	})
	return id
}

// recorder collects the Invalidations a store delivers.
type recorder struct {
	mu   sync.Mutex
	invs []registry.Invalidation
	got  chan struct{}
}

func record(s *postgres.Store) *recorder {
	r := &recorder{got: make(chan struct{}, 100)}
	s.OnInvalidate(func(inv registry.Invalidation) {
		r.mu.Lock()
		r.invs = append(r.invs, inv)
		r.mu.Unlock()
		r.got <- struct{}{}
	})
	return r
}

// wait returns the next Invalidation, failing the test after timeout.
func (r *recorder) wait(t *testing.T, timeout time.Duration) registry.Invalidation {
	t.Helper()
	select {
	case <-r.got:
	case <-time.After(timeout):
		t.Fatalf("no invalidation within %s", timeout)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	inv := r.invs[0]
	r.invs = r.invs[1:]
	return inv
}

// none fails the test if an Invalidation arrives within d.
func (r *recorder) none(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case <-r.got:
		r.mu.Lock()
		defer r.mu.Unlock()
		t.Fatalf("unexpected invalidation %+v", r.invs)
	case <-time.After(d):
	}
}

// TestInvalidationAcrossStores: a schema forgotten through one store is
// announced to the others sharing the schema (its ID, by NOTIFY, well
// within a second), not to the store that forgot it, whose Service evicts
// it itself. A forget of more IDs than a notification holds is "drop
// everything".
func TestInvalidationAcrossStores(t *testing.T) {
	dsn := pgtest.DSN(t)
	noPoll := postgres.Options{CacheRefresh: -1}
	a, b := open(t, dsn, noPoll), open(t, dsn, noPoll)
	ra, rb := record(a), record(b)
	for i := range 3 {
		start := time.Now()
		id := createAndForget(t, a, fmt.Sprintf("fp-%d", i))
		inv := rb.wait(t, time.Second)
		if inv.All || !reflect.DeepEqual(inv.Forgotten, []int64{id}) {
			t.Errorf("round %d: B got %+v, want Forgotten [%d]", i, inv, id)
		}
		t.Logf("round %d: forget through A seen by B after %s", i, time.Since(start))
	}
	ra.none(t, 200*time.Millisecond)

	// 2,000 IDs do not fit in a notification's payload.
	var ids []int64
	mustUpdate(t, a, func(ctx context.Context, tx registry.Tx) error {
		for i := range 2000 {
			id, err := tx.CreateSchema(ctx, schema(fmt.Sprintf("bulk-%d", i)))
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	mustUpdate(t, a, func(ctx context.Context, tx registry.Tx) error {
		for _, id := range ids {
			if err := tx.DeleteSchema(ctx, "", id); err != nil {
				return err
			}
		}
		return nil
	})
	if inv := rb.wait(t, time.Second); !inv.All {
		t.Errorf("forget of 2,000 IDs: B got %+v, want All", inv)
	}
}

// TestInvalidationFallbackPoll: a store that hears no notification (here:
// none is listened for) still drops its caches within the poll interval
// after another store forgot a schema.
func TestInvalidationFallbackPoll(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := open(t, dsn, postgres.Options{CacheRefresh: -1})
	b := open(t, dsn, postgres.Options{NoListen: true, CacheRefresh: 100 * time.Millisecond})
	rb := record(b)
	start := time.Now()
	createAndForget(t, a, "fp")
	if inv := rb.wait(t, 2*time.Second); !inv.All {
		t.Errorf("B got %+v, want All", inv)
	}
	t.Logf("seen by polling after %s", time.Since(start))
	rb.none(t, 300*time.Millisecond) // the epoch is applied: no repeat
}

// TestInvalidationInUpdate: without notifications or polling, an Update
// still drops the caches before its fn runs when another store forgot a
// schema since: no write judges with a forgotten schema.
func TestInvalidationInUpdate(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := open(t, dsn, postgres.Options{CacheRefresh: -1})
	b := open(t, dsn, postgres.Options{NoListen: true, CacheRefresh: -1})
	rb := record(b)
	createAndForget(t, a, "fp")
	rb.none(t, 100*time.Millisecond)
	mustUpdate(t, b, func(ctx context.Context, tx registry.Tx) error {
		select {
		case <-rb.got:
			rb.mu.Lock()
			defer rb.mu.Unlock()
			if len(rb.invs) != 1 || !rb.invs[0].All {
				t.Errorf("before fn: %+v, want one All", rb.invs)
			}
		default:
			t.Error("fn ran before the caches were dropped")
		}
		return nil
	})
}

// TestListenerReconnects: when the listening connection is terminated,
// the store reconnects, drops its caches (notifications may have been
// lost meanwhile) and hears the next notifications again.
func TestListenerReconnects(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := open(t, dsn, postgres.Options{CacheRefresh: -1})
	// B's connections carry a name of their own, to find its listener.
	name := fmt.Sprintf("charter-test-%d", time.Now().UnixNano())
	b := open(t, dsn+"&application_name="+name, postgres.Options{CacheRefresh: -1})
	rb := record(b)
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var n int
	if err := conn.QueryRow(t.Context(),
		`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`,
		name+" (invalidations)").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("terminated %d listening connections, want B's one", n)
	}
	createAndForget(t, a, "while-down")
	// Reconnected: the missed forget is caught up as All.
	if inv := rb.wait(t, 5*time.Second); !inv.All {
		t.Errorf("after the reconnection B got %+v, want All", inv)
	}
	// And notifications arrive again.
	var id int64
	deadline := time.Now().Add(5 * time.Second)
	for {
		id = createAndForget(t, a, fmt.Sprintf("after-%d", time.Now().UnixNano()))
		inv := rb.wait(t, 5*time.Second)
		if !inv.All && reflect.DeepEqual(inv.Forgotten, []int64{id}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no Forgotten notification after the reconnection (last %+v)", inv)
		}
	}
}

// TestTwoStoresSerialiseWrites: Updates through two stores (two
// replicas) that read a subject's versions and append the next one lose
// nothing and never collide: each reads what the other committed.
func TestTwoStoresSerialiseWrites(t *testing.T) {
	dsn := pgtest.DSN(t)
	stores := []*postgres.Store{open(t, dsn, postgres.Options{}), open(t, dsn, postgres.Options{})}
	const workers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			s := stores[w%2]
			for i := range each {
				errs <- s.Update(t.Context(), func(tx registry.Tx) error {
					id, err := tx.CreateSchema(t.Context(), schema(fmt.Sprintf("fp-%d-%d", w, i)))
					if err != nil {
						return err
					}
					vs, err := tx.Versions(t.Context(), registry.VersionQuery{Subject: "shared", IncludeDeleted: true})
					if err != nil {
						return err
					}
					return tx.PutVersion(t.Context(), registry.SubjectVersion{Subject: "shared", Version: len(vs) + 1, SchemaID: id})
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	err := stores[0].View(t.Context(), func(tx registry.Tx) error {
		vs, err := tx.Versions(t.Context(), registry.VersionQuery{Subject: "shared"})
		if err != nil {
			return err
		}
		ids := map[int64]bool{}
		for i, v := range vs {
			if v.Version != i+1 {
				t.Errorf("version at %d is %d", i, v.Version)
			}
			ids[v.SchemaID] = true
		}
		if len(vs) != workers*each || len(ids) != workers*each {
			t.Errorf("%d versions with %d distinct IDs, want %d", len(vs), len(ids), workers*each)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestUpdateWaitHonoursContext: an Update waiting for another process's
// write lock gives up when its context ends; the holder is unaffected.
func TestUpdateWaitHonoursContext(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := open(t, dsn, postgres.Options{}), open(t, dsn, postgres.Options{})
	holding, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- a.Update(t.Context(), func(tx registry.Tx) error {
			close(holding)
			<-release
			_, err := tx.CreateSchema(t.Context(), schema("holder"))
			return err
		})
	}()
	<-holding
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := b.Update(ctx, func(tx registry.Tx) error {
		t.Error("fn ran while another store held the write lock")
		return nil
	})
	if err == nil {
		t.Fatal("Update waiting for the lock returned nil")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Update gave up after %s, want about 200ms", d)
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("holder's Update: %v", err)
	}
	mustUpdate(t, b, func(ctx context.Context, tx registry.Tx) error {
		_, err := tx.SchemaByFingerprint(ctx, "", "holder")
		return err
	})
}

// TestRetries: fn failing with a serialization failure is run again, up
// to Options.Retries times, each time in a new transaction; fn's own
// errors and exhausted retries are returned.
func TestRetries(t *testing.T) {
	dsn := pgtest.DSN(t)
	serialization := fmt.Errorf("store: %w", &pgconn.PgError{Code: "40001", Message: "could not serialize access"})
	for _, tc := range []struct {
		name      string
		retries   int
		failures  int
		wantCalls int
		wantErr   bool
	}{
		{"retried until it succeeds", 3, 2, 3, false},
		{"retries exhausted", 2, 5, 3, true},
		{"no retries", -1, 1, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t, dsn, postgres.Options{Retries: tc.retries, CacheRefresh: -1})
			calls := 0
			fp := "retry-" + strings.ReplaceAll(tc.name, " ", "-")
			err := s.Update(t.Context(), func(tx registry.Tx) error {
				calls++
				if _, err := tx.CreateSchema(t.Context(), schema(fp)); err != nil {
					return err // a rolled back earlier attempt left nothing
				}
				if calls <= tc.failures {
					return serialization
				}
				return nil
			})
			if calls != tc.wantCalls || (err != nil) != tc.wantErr {
				t.Errorf("fn called %d times, error %v; want %d calls, error %v", calls, err, tc.wantCalls, tc.wantErr)
			}
		})
	}
	s := open(t, dsn, postgres.Options{})
	calls := 0
	errOwn := errors.New("incompatible")
	err := s.Update(t.Context(), func(tx registry.Tx) error { calls++; return errOwn })
	if !errors.Is(err, errOwn) || calls != 1 {
		t.Errorf("fn's own error: %v after %d calls, want it after 1", err, calls)
	}
}

// TestViewIsReadOnly: a write inside View fails.
func TestViewIsReadOnly(t *testing.T) {
	s := open(t, pgtest.DSN(t), postgres.Options{})
	err := s.View(t.Context(), func(tx registry.Tx) error {
		return tx.SetMode(t.Context(), "", registry.ModeReadOnly)
	})
	if err == nil {
		t.Fatal("SetMode in View succeeded")
	}
}

// TestMigrationsConcurrentOpen: stores opened at the same moment on a new
// schema (replicas starting together) all succeed, and every migration is
// recorded once.
func TestMigrationsConcurrentOpen(t *testing.T) {
	dsn := pgtest.DSN(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			s, err := postgres.Open(t.Context(), dsn, postgres.Options{CacheRefresh: -1})
			if err == nil {
				err = s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d: %v", i, err)
		}
	}
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var n, maxVersion int
	if err := conn.QueryRow(t.Context(), `SELECT count(*), max(version) FROM schema_migrations`).Scan(&n, &maxVersion); err != nil {
		t.Fatal(err)
	}
	if n != maxVersion || n < 1 {
		t.Errorf("schema_migrations: %d rows up to version %d, want each version once", n, maxVersion)
	}
}

// TestOpenRefusals: a schema migrated by a newer Charter, and a
// search_path naming no existing schema, are refused with a clear error.
func TestOpenRefusals(t *testing.T) {
	dsn := pgtest.DSN(t)
	s := open(t, dsn, postgres.Options{})
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), `INSERT INTO schema_migrations (version, name) VALUES (999, '0999_future.sql')`); err != nil {
		t.Fatal(err)
	}
	if _, err := postgres.Open(t.Context(), dsn, postgres.Options{}); err == nil || !strings.Contains(err.Error(), "newer than this binary") {
		t.Errorf("Open of a newer schema: %v", err)
	}
	_ = s

	missing := pgtest.WithSearchPath(t, pgtest.BaseDSN(t), "charter_no_such_schema")
	if _, err := postgres.Open(t.Context(), missing, postgres.Options{}); err == nil || !strings.Contains(err.Error(), "CREATE SCHEMA") {
		t.Errorf("Open with a missing schema: %v", err)
	}
}

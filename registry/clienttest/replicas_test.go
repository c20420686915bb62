package clienttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry/postgres/pgtest"
)

// The replica tests run two (or more) `charter serve` processes on one
// PostgreSQL schema, as replicas behind a load balancer run. They need
// REGISTRY_TEST_POSTGRES_DSN (see registry/postgres/pgtest): without it
// they skip, saying so, except in CI, where they fail.

// stormSchema is an Avro record whose "id" is an int or a long, plus one
// field of its own (so every writer's schema is distinct). Under BACKWARD
// an int version may follow an int or be followed by a long, but once a
// long is the latest, an int is refused (a reader of int cannot read a
// long): whether a registration may pass depends on which version is the
// latest when it is judged, which is what a race between replicas would
// get wrong.
func stormSchema(long bool, field string) string {
	typ := "int"
	if long {
		typ = "long"
	}
	fields := []map[string]any{{"name": "id", "type": typ}}
	if field != "" {
		fields = append(fields, map[string]any{"name": field, "type": "string", "default": ""})
	}
	b, _ := json.Marshal(map[string]any{"type": "record", "name": "Storm", "namespace": "charter.replicas", "fields": fields})
	return string(b)
}

// register POSTs schema to subject through s and returns the status and
// the ID of a 200.
func register(ctx context.Context, client *http.Client, s *server, subject, schema string) (int, int64, error) {
	r, err := s.do(ctx, client, http.MethodPost, "/subjects/"+url.PathEscape(subject)+"/versions", map[string]string{"schema": schema})
	if err != nil {
		return 0, 0, err
	}
	if r.Status != http.StatusOK {
		return r.Status, 0, nil
	}
	rr, err := decodeRegister(r.Body)
	return r.Status, rr.ID, err
}

// TestReplicasConcurrentWriters: 64 writers at once, split across two
// replicas: 16 register the same schema to one subject (one ID, one
// version), 16 distinct schemas to distinct subjects (distinct IDs), and
// 32 race successive versions of one subject under BACKWARD, half of
// their schemas only compatible while no long version is the latest.
// Every ID is unique, versions are contiguous, and no incompatible
// version got in.
func TestReplicasConcurrentWriters(t *testing.T) {
	dsn := pgtest.DSN(t)
	replicas := []*server{startServerDB(t, dsn), startServerDB(t, dsn)}
	const (
		sameWriters     = 16
		distinctWriters = 16
		versionWriters  = 32
		attempts        = 4 // registrations per version writer
	)
	// Version 1 of the raced subject has an int id.
	replicas[0].mustDo(t, http.MethodPost, "/subjects/storm-versions/versions", map[string]string{"schema": stormSchema(false, "")}, http.StatusOK)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer client.CloseIdleConnections()

	type result struct {
		group, subject, schema string
		long                   bool
		status                 int
		id                     int64
		err                    error
	}
	var (
		mu      sync.Mutex
		results []result
		wg      sync.WaitGroup
		start   = make(chan struct{})
	)
	do := func(w int, group, subject, schema string, long bool) {
		s := replicas[w%2]
		status, id, err := register(ctx, client, s, subject, schema)
		mu.Lock()
		results = append(results, result{group, subject, schema, long, status, id, err})
		mu.Unlock()
	}
	same := eventSchema(1000, 2)
	for w := range sameWriters {
		wg.Go(func() { <-start; do(w, "same", "storm-same", same, false) })
	}
	for w := range distinctWriters {
		wg.Go(func() { <-start; do(w, "distinct", fmt.Sprintf("storm-distinct-%d", w), eventSchema(2000+w, 1), false) })
	}
	for w := range versionWriters {
		wg.Go(func() {
			<-start
			for i := range attempts {
				long := (w+i)%3 == 0 // a third of the schemas have a long id
				do(w, "versions", "storm-versions", stormSchema(long, fmt.Sprintf("w%d_%d", w, i)), long)
			}
		})
	}
	close(start)
	wg.Wait()

	ids := map[int64]string{} // ID -> the schema answered for it
	var sameIDs []int64
	versioned := map[string]int64{} // schema -> ID, group "versions"
	refused, acceptedLong := 0, 0
	for _, r := range results {
		if r.err != nil {
			t.Fatalf("%s %s: %v", r.group, r.subject, r.err)
		}
		switch {
		case r.status == http.StatusOK:
		case r.status == http.StatusConflict && r.group == "versions" && !r.long:
			refused++
			continue
		default:
			t.Fatalf("%s %s (long id %v): status %d", r.group, r.subject, r.long, r.status)
		}
		if prev, ok := ids[r.id]; ok && prev != r.schema {
			t.Errorf("ID %d answered for two different schemas", r.id)
		}
		ids[r.id] = r.schema
		switch r.group {
		case "same":
			sameIDs = append(sameIDs, r.id)
		case "versions":
			versioned[r.schema] = r.id
			if r.long {
				acceptedLong++
			}
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(sameIDs)))) != 1 {
		t.Errorf("the same schema through two replicas got IDs %v, want one", sameIDs)
	}
	if got := len(ids); got != 1+distinctWriters+len(versioned) {
		t.Errorf("%d distinct IDs, want %d (one shared, %d distinct, %d versions)", got, 1+distinctWriters+len(versioned), distinctWriters, len(versioned))
	}
	b := replicas[1]
	if vs := decodeJSON[[]int](t, "versions", b.mustDo(t, http.MethodGet, "/subjects/storm-same/versions", nil, http.StatusOK)); !slices.Equal(vs, []int{1}) {
		t.Errorf("storm-same versions %v, want [1]", vs)
	}
	for w := range distinctWriters {
		path := fmt.Sprintf("/subjects/storm-distinct-%d/versions", w)
		if vs := decodeJSON[[]int](t, path, b.mustDo(t, http.MethodGet, path, nil, http.StatusOK)); !slices.Equal(vs, []int{1}) {
			t.Errorf("%s = %v, want [1]", path, vs)
		}
	}

	// The raced subject: versions 1..N, one per accepted schema, and a
	// long id never followed by an int one.
	vs := decodeJSON[[]int](t, "versions", b.mustDo(t, http.MethodGet, "/subjects/storm-versions/versions", nil, http.StatusOK))
	n := 1 + len(versioned)
	if len(vs) != n || vs[0] != 1 || vs[len(vs)-1] != n {
		t.Fatalf("storm-versions has versions %v, want 1..%d", vs, n)
	}
	sawLong := false
	for v := 1; v <= n; v++ {
		path := fmt.Sprintf("/subjects/storm-versions/versions/%d", v)
		got := decodeJSON[struct {
			ID     int64  `json:"id"`
			Schema string `json:"schema"`
		}](t, path, replicas[v%2].mustDo(t, http.MethodGet, path, nil, http.StatusOK))
		long := strings.Contains(got.Schema, `"long"`)
		if sawLong && !long {
			t.Errorf("version %d has an int id after a long one: an incompatible version got in", v)
		}
		sawLong = sawLong || long
		if v > 1 {
			var answered int64 = -1
			for schema, id := range versioned {
				if same, _ := sameJSON(schema, got.Schema); same {
					answered = id
				}
			}
			if answered != got.ID {
				t.Errorf("version %d holds ID %d, answered %d for its schema", v, got.ID, answered)
			}
		}
	}
	if refused == 0 || acceptedLong == 0 {
		t.Errorf("the storm exercised no refusal (%d refused, %d long accepted): the test proves nothing", refused, acceptedLong)
	}
	t.Logf("64 writers on 2 replicas: %d registrations answered 200, %d refused 409 (int after long), %d versions of storm-versions",
		len(results)-refused, refused, n)
}

// TestReplicasKill9: two replicas, 64 writers (32 each) registering the
// same successive schemas to 16 shared subjects, so that identical
// registrations race through both replicas. Five times, one replica is
// SIGKILLed mid-storm (and started again for the next round): every
// registration answered 200, through either replica, is readable through
// the other with the same ID and version.
func TestReplicasKill9(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := startServerDB(t, dsn)
	const (
		writers  = 64
		subjects = 16
		rounds   = 5
	)
	steps := make([]int, writers) // answered registrations per writer so far
	var all []answered
	for round := 1; round <= rounds; round++ {
		a := startServerDB(t, dsn)
		got, fromA, fromB := stormUntilKilled(t, a, b, steps, subjects, 150)
		all = append(all, got...)
		t.Logf("round %d: %d registrations answered before and around the SIGKILL (%d through the killed replica, %d through the other)",
			round, len(got), fromA, fromB)
		verifyReplicated(t, b, all)
	}
}

// stormUntilKilled runs the writers, half through a and half through b;
// writer w registers eventSchema(subject, n) for n = steps[w]+1, ... to
// subject kill-(w mod subjects). Once killAfter registrations were
// answered it SIGKILLs a, lets b's writers go on a little, and stops.
func stormUntilKilled(t *testing.T, a, b *server, steps []int, subjects int, killAfter int64) (got []answered, fromA, fromB int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var (
		mu       sync.Mutex
		count    atomic.Int64
		killed   atomic.Bool
		stop     = make(chan struct{})
		failures = make(chan string, len(steps))
		wg       sync.WaitGroup
	)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: len(steps)}}
	defer client.CloseIdleConnections()
	for w := range steps {
		s := b
		if w%2 == 0 {
			s = a
		}
		wg.Go(func() {
			subject := fmt.Sprintf("kill-%d", w%subjects)
			for {
				select {
				case <-stop:
					return
				default:
				}
				n := steps[w] + 1
				schema := eventSchema(w%subjects, n)
				status, id, err := register(ctx, client, s, subject, schema)
				if err == nil && status == http.StatusOK {
					mu.Lock()
					got = append(got, answered{subject, n, id, schema})
					if s == a {
						fromA++
					} else {
						fromB++
					}
					steps[w] = n
					mu.Unlock()
					count.Add(1)
					continue
				}
				if s == a && killed.Load() {
					return // the replica is gone; its answers so far count
				}
				if err != nil {
					failures <- fmt.Sprintf("%s step %d through %s: %v", subject, n, s.URL, err)
				} else {
					failures <- fmt.Sprintf("%s step %d through %s: status %d", subject, n, s.URL, status)
				}
				return
			}
		})
	}
	deadline := time.After(40 * time.Second)
	for count.Load() < killAfter {
		select {
		case f := <-failures:
			close(stop)
			wg.Wait()
			t.Fatalf("registration failed before the kill: %s", f)
		case <-deadline:
			close(stop)
			wg.Wait()
			t.Fatalf("only %d registrations answered in 40s", count.Load())
		case <-time.After(2 * time.Millisecond):
		}
	}
	killed.Store(true)
	a.kill(t)
	// b's writers go on through the kill: b must not notice.
	time.Sleep(300 * time.Millisecond)
	close(stop)
	wg.Wait()
	close(failures)
	for f := range failures {
		if strings.Contains(f, b.URL) {
			t.Errorf("through the surviving replica: %s", f)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(got), fromA, fromB
}

// verifyReplicated requires every answered registration to be readable
// through s with the ID answered and the version its step implies, and
// identical registrations to have got one ID.
func verifyReplicated(t *testing.T, s *server, all []answered) {
	t.Helper()
	type key struct {
		subject string
		version int
	}
	byKey := map[key]answered{}
	for _, a := range all {
		k := key{a.Subject, a.Version}
		if prev, ok := byKey[k]; ok {
			if prev.ID != a.ID {
				t.Errorf("%s version %d: answered ID %d and ID %d for the same schema", a.Subject, a.Version, prev.ID, a.ID)
			}
			continue
		}
		byKey[k] = a
	}
	for _, a := range byKey {
		path := fmt.Sprintf("/subjects/%s/versions/%d", url.PathEscape(a.Subject), a.Version)
		v := decodeJSON[struct {
			Version int    `json:"version"`
			ID      int64  `json:"id"`
			Schema  string `json:"schema"`
		}](t, "GET "+path, s.mustDo(t, http.MethodGet, path, nil, http.StatusOK))
		if v.ID != a.ID || v.Version != a.Version {
			t.Errorf("GET %s through the surviving replica: version %d id %d; answered version %d id %d", path, v.Version, v.ID, a.Version, a.ID)
		}
		if same, err := sameJSON(v.Schema, a.Schema); err != nil || !same {
			t.Errorf("GET %s: schema %s, registered %s (%v)", path, v.Schema, a.Schema, err)
		}
	}
}

// TestReplicaVisibility measures how soon a write through replica A is
// seen through replica B, and prints the distributions:
//
//   - a new version: the first GET .../versions/latest through B after A
//     answered must already return it (a replica never answers a "latest"
//     older than a write acknowledged elsewhere: nothing caches it);
//   - a permanent delete: GET /schemas/ids/{id} through B, whose answer B
//     had cached, turns 404 once B hears A's notification (within 1 s).
func TestReplicaVisibility(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := startServerDB(t, dsn), startServerDB(t, dsn)
	a.mustDo(t, http.MethodPut, "/config/visible", map[string]string{"compatibility": "NONE"}, http.StatusOK)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2}}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	get := func(path string) apiResponse {
		t.Helper()
		r, err := b.do(ctx, client, http.MethodGet, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	const versions = 200
	var latest []time.Duration
	for v := 1; v <= versions; v++ {
		if status, _, err := register(ctx, client, a, "visible", eventSchema(3000+v, 0)); err != nil || status != http.StatusOK {
			t.Fatalf("register version %d through A: %d %v", v, status, err)
		}
		start := time.Now()
		r := get("/subjects/visible/versions/latest")
		latest = append(latest, time.Since(start))
		got := decodeJSON[struct {
			Version int `json:"version"`
		}](t, "latest", r.Body)
		if r.Status != http.StatusOK || got.Version != v {
			t.Errorf("the first GET latest through B after A answered version %d: status %d, version %d", v, r.Status, got.Version)
		}
	}

	const deletes = 40
	var forgotten []time.Duration
	for i := range deletes {
		subject := fmt.Sprintf("gone-%d", i)
		status, id, err := register(ctx, client, a, subject, eventSchema(4000+i, 0))
		if err != nil || status != http.StatusOK {
			t.Fatalf("register %s: %d %v", subject, status, err)
		}
		idPath := fmt.Sprintf("/schemas/ids/%d", id)
		if r := get(idPath); r.Status != http.StatusOK { // B caches the answer
			t.Fatalf("GET %s through B: %d", idPath, r.Status)
		}
		a.mustDo(t, http.MethodDelete, "/subjects/"+subject, nil, http.StatusOK)
		a.mustDo(t, http.MethodDelete, "/subjects/"+subject+"?permanent=true", nil, http.StatusOK)
		start := time.Now()
		for {
			r := get(idPath)
			if r.Status == http.StatusNotFound {
				break
			}
			if time.Since(start) > 5*time.Second {
				t.Fatalf("GET %s through B still %d 5 s after A forgot it", idPath, r.Status)
			}
			time.Sleep(time.Millisecond)
		}
		forgotten = append(forgotten, time.Since(start))
	}
	t.Logf("new version through A, GET latest through B (%d writes): %s", versions, distribution(latest))
	t.Logf("permanent delete through A, GET /schemas/ids through B turns 404 (%d deletes): %s", deletes, distribution(forgotten))
	for name, ds := range map[string][]time.Duration{"latest": latest, "forgotten": forgotten} {
		if m := slices.Max(ds); m > time.Second {
			t.Errorf("%s: slowest visibility %s, want within 1 s", name, m)
		}
	}
}

// distribution summarises ds: min, median, 90th and 99th percentiles, max.
func distribution(ds []time.Duration) string {
	s := slices.Clone(ds)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	q := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	r := func(d time.Duration) string { return d.Round(10 * time.Microsecond).String() }
	return fmt.Sprintf("min %s, p50 %s, p90 %s, p99 %s, max %s", r(s[0]), r(q(0.5)), r(q(0.9)), r(q(0.99)), r(s[len(s)-1]))
}

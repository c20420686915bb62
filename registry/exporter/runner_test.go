package exporter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// memStore is a Store in memory; Update applies fn's writes directly
// (no rollback: the tests never fail an Update).
type memStore struct {
	mu        sync.Mutex
	exporters map[string]Stored
	progress  map[string]map[string]Progress
}

func newMemStore() *memStore {
	return &memStore{exporters: map[string]Stored{}, progress: map[string]map[string]Progress{}}
}

func (m *memStore) View(ctx context.Context, fn func(Tx) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fn(m)
}

func (m *memStore) Update(ctx context.Context, fn func(Tx, Audit) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fn(m, func(string, string, any, any) error { return nil })
}

func (m *memStore) Exporter(_ context.Context, name string) (Stored, bool, error) {
	e, ok := m.exporters[name]
	return e, ok, nil
}

func (m *memStore) Exporters(context.Context) ([]Stored, error) {
	out := []Stored{}
	for _, k := range slices.Sorted(maps.Keys(m.exporters)) {
		out = append(out, m.exporters[k])
	}
	return out, nil
}

func (m *memStore) PutExporter(_ context.Context, e Stored) error {
	m.exporters[e.Name] = e
	return nil
}

func (m *memStore) DeleteExporter(_ context.Context, name string) error {
	delete(m.exporters, name)
	delete(m.progress, name)
	return nil
}

func (m *memStore) ExporterProgress(_ context.Context, name string) (map[string]Progress, error) {
	out := maps.Clone(m.progress[name])
	if out == nil {
		out = map[string]Progress{}
	}
	return out, nil
}

func (m *memStore) PutExporterProgress(_ context.Context, name, subject string, p Progress) error {
	if m.progress[name] == nil {
		m.progress[name] = map[string]Progress{}
	}
	m.progress[name][subject] = p
	return nil
}

func (m *memStore) ClearExporterProgress(_ context.Context, name string) error {
	delete(m.progress, name)
	return nil
}

// fakeSource is a Source in memory.
type fakeSource struct {
	mu       sync.Mutex
	versions map[string][]Version // by subject, ascending
	configs  map[string]json.RawMessage
	modes    map[string]string
	gen      uint64
	// soft holds the soft-deleted versions: not listed, still read.
	soft map[versionKey]bool
}

// purge deletes subject permanently.
func (f *fakeSource) purge(subject string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.versions, subject)
	f.gen++
}

func (f *fakeSource) add(v Version) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.versions[v.Subject] = append(f.versions[v.Subject], v)
	f.gen++
}

func (f *fakeSource) Subjects(context.Context) ([]Subject, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Subject
	for _, name := range slices.Sorted(maps.Keys(f.versions)) {
		s := Subject{Name: name, Config: f.configs[name], Mode: f.modes[name]}
		for _, v := range f.versions[name] {
			if f.soft[versionKey{name, v.Version}] {
				continue
			}
			s.Versions = append(s.Versions, v.Version)
			s.IDs = append(s.IDs, v.ID)
		}
		if len(s.Versions) > 0 {
			out = append(out, s)
		}
	}
	return out, nil
}

func (f *fakeSource) Version(_ context.Context, subject string, n int) (Version, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, v := range f.versions[subject] {
		if v.Version == n {
			return v, nil
		}
	}
	return Version{}, fmt.Errorf("no version %d of %q", n, subject)
}

func (f *fakeSource) Generation(context.Context) (uint64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gen, true
}

// fakeDest records the requests a destination gets; fail, when set,
// answers them all with 500.
type fakeDest struct {
	mu       sync.Mutex
	requests []string // "METHOD path body"
	fail     bool
	auth     []string
	// onPost, when set, runs on each POST before it is answered.
	onPost func()
	// refuse, when set, answers a POST of a version it returns true for
	// as Confluent does a version that holds another schema.
	refuse func(subject string, version int, id int64) bool
	// exporters are the exporters the destination answers (GET
	// /exporters/{name}); probes counts those requests.
	exporters map[string]Exporter
	probes    int
	// held are the IDs of the versions the destination holds, by subject
	// and version (GET /subjects/...).
	held map[string]map[int]int64
	// modes, when not nil, are the subjects' modes (PUT /mode/...): a
	// POST to a subject not in IMPORT is answered 42205, as Charter and
	// Confluent answer a registration with an ID.
	modes map[string]string
}

func (d *fakeDest) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	b, _ := io.ReadAll(r.Body)
	d.auth = append(d.auth, r.Header.Get("Authorization"))
	if d.fail {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error_code":50001,"message":"store down"}`))
		return
	}
	if name, ok := strings.CutPrefix(r.URL.Path, "/exporters/"); ok && r.Method == http.MethodGet {
		// The runner's self probe: answered, not recorded.
		d.probes++
		if ex, ok := d.exporters[name]; ok {
			_ = json.NewEncoder(w).Encode(ex.Redacted())
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error_code":40450,"message":"Exporter not found"}`))
		return
	}
	if subject, ok := strings.CutPrefix(r.URL.Path, "/subjects/"); ok && r.Method == http.MethodGet {
		// What the destination holds: answered from held, not recorded.
		subject, version, _ := strings.Cut(subject, "/versions")
		vs, ok := d.held[subject]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error_code":40401,"message":"Subject not found"}`))
			return
		}
		if version == "" {
			_ = json.NewEncoder(w).Encode(slices.Sorted(maps.Keys(vs)))
			return
		}
		var n int
		fmt.Sscanf(version, "/%d", &n)
		fmt.Fprintf(w, `{"subject":%q,"version":%d,"id":%d}`, subject, n, vs[n])
		return
	}
	d.requests = append(d.requests, strings.TrimSpace(r.Method+" "+r.URL.RequestURI()+" "+string(b)))
	if subject, ok := strings.CutPrefix(r.URL.Path, "/mode/"); ok && r.Method == http.MethodPut && d.modes != nil {
		var body struct{ Mode string }
		_ = json.Unmarshal(b, &body)
		d.modes[subject] = body.Mode
	}
	if subject, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/subjects/"), "/versions"); ok && r.Method == http.MethodPost && d.modes != nil && d.modes[subject] != "IMPORT" {
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprintf(w, `{"error_code":42205,"message":"Subject %s is not in import mode: an explicit schema id is only accepted in IMPORT mode"}`, subject)
		return
	}
	if r.Method == http.MethodPost && d.onPost != nil {
		d.onPost()
	}
	if r.Method == http.MethodPost {
		var body struct {
			ID      int64 `json:"id"`
			Version int   `json:"version"`
		}
		_ = json.Unmarshal(b, &body)
		if d.refuse != nil && d.refuse(strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/subjects/"), "/versions"), body.Version, body.ID) {
			w.WriteHeader(http.StatusUnprocessableEntity)
			fmt.Fprintf(w, `{"error_code":42201,"message":"Version %d already exists with another schema"}`, body.Version)
			return
		}
		fmt.Fprintf(w, `{"id":%d}`, body.ID)
		return
	}
	_, _ = w.Write([]byte(`{}`))
}

func (d *fakeDest) take() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.requests
	d.requests = nil
	return out
}

type runnerEnv struct {
	store *memStore
	src   *fakeSource
	dest  *fakeDest
	url   string
	now   time.Time
	r     *Runner
	// sealer seals the credentials create stores, as the Service does.
	sealer *Sealer
}

// testSealer returns a Sealer of a fixed test secret.
func testSealer(t testing.TB) *Sealer {
	t.Helper()
	s, err := NewSealer([]byte("a test secret of thirty-two bytes or more"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newRunnerEnv(t *testing.T) *runnerEnv {
	t.Helper()
	e := &runnerEnv{store: newMemStore(), src: &fakeSource{versions: map[string][]Version{}, configs: map[string]json.RawMessage{}, modes: map[string]string{}},
		dest: &fakeDest{}, now: time.UnixMilli(1_700_000_000_000)}
	srv := httptest.NewServer(e.dest)
	t.Cleanup(srv.Close)
	e.url = srv.URL
	e.sealer = testSealer(t)
	e.r = NewRunner(e.store, e.src, RunnerOptions{ClusterID: "src", Now: func() time.Time { return e.now }, MaxPerCycle: 100, Sealer: e.sealer})
	return e
}

func (e *runnerEnv) create(t *testing.T, ex Exporter) {
	t.Helper()
	if err := sealUpdate(e.sealer, ex.Config, maps.Clone(ex.Config)); err != nil {
		t.Fatal(err)
	}
	if err := e.store.PutExporter(context.Background(), Stored{Exporter: ex, State: StateStarting}); err != nil {
		t.Fatal(err)
	}
}

func (e *runnerEnv) status(name string) Status {
	s, _, _ := e.store.Exporter(context.Background(), name)
	return s.Status()
}

// TestRunnerCopiesReferencesFirst: a cycle copies each version with its
// source ID and version into the destination context, references first
// and renamed, each destination subject put in IMPORT mode once, then
// the subject config; the next cycle sends nothing; a new version is
// copied alone.
func TestRunnerCopiesReferencesFirst(t *testing.T) {
	e := newRunnerEnv(t)
	e.src.add(Version{Subject: "a", Version: 1, ID: 10, Schema: `"string"`,
		References: []Reference{{Name: "B", Subject: "b", Version: 1}}})
	e.src.add(Version{Subject: "b", Version: 1, ID: 7, Type: "PROTOBUF", Schema: "syntax = \"proto3\";"})
	e.src.configs["a"] = json.RawMessage(`{"compatibility":"FULL"}`)
	e.create(t, Exporter{Name: "x", ContextType: ContextCustom, Context: "m", SubjectRenameFormat: "dc_${subject}",
		Config: map[string]string{ConfigURL: e.url, ConfigUserInfo: "u:p"}})
	e.r.cycle(context.Background())
	want := []string{
		`PUT /mode/:.m:dc_b?force=true {"mode":"IMPORT"}`,
		`POST /subjects/:.m:dc_b/versions {"id":7,"schema":"syntax = \"proto3\";","schemaType":"PROTOBUF","version":1}`,
		`PUT /mode/:.m:dc_a?force=true {"mode":"IMPORT"}`,
		`POST /subjects/:.m:dc_a/versions {"id":10,"references":[{"name":"B","subject":":.m:dc_b","version":1}],"schema":"\"string\"","version":1}`,
		`PUT /config/:.m:dc_a {"compatibility":"FULL"}`,
	}
	if got := e.dest.take(); !slices.Equal(got, want) {
		t.Errorf("first cycle sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st := e.status("x"); st.State != StateRunning || st.Offset != 2 || st.Trace != "" {
		t.Errorf("status = %+v, want RUNNING at offset 2", st)
	}
	if e.dest.auth[0] != "Basic dTpw" {
		t.Errorf("Authorization = %q, want basic u:p", e.dest.auth[0])
	}
	e.r.cycle(context.Background())
	if got := e.dest.take(); len(got) != 0 {
		t.Errorf("an idle cycle sent %q", got)
	}
	e.src.add(Version{Subject: "a", Version: 2, ID: 11, Schema: `"int"`})
	delete(e.src.configs, "a")
	e.r.cycle(context.Background())
	want = []string{
		`POST /subjects/:.m:dc_a/versions {"id":11,"schema":"\"int\"","version":2}`,
		`DELETE /config/:.m:dc_a`,
	}
	if got := e.dest.take(); !slices.Equal(got, want) {
		t.Errorf("third cycle sent:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st := e.status("x"); st.Offset != 3 {
		t.Errorf("offset = %d, want 3", st.Offset)
	}
}

// TestRunnerBacksOff: a failing destination puts the exporter in ERROR
// with the cause as trace; it is retried only once its backoff (doubling
// from MinBackoff) has passed, and goes back to RUNNING when the
// destination answers; a paused exporter is not run.
func TestRunnerBacksOff(t *testing.T) {
	e := newRunnerEnv(t)
	e.src.add(Version{Subject: "a", Version: 1, ID: 1, Schema: `"string"`})
	e.create(t, Exporter{Name: "x", ContextType: ContextNone, Config: map[string]string{ConfigURL: e.url, ConfigUserInfo: "u:secret"}})
	e.dest.fail = true
	e.r.cycle(context.Background())
	st := e.status("x")
	if st.State != StateError || !strings.Contains(st.Trace, "500 error 50001: store down") || strings.Contains(st.Trace, "secret") {
		t.Fatalf("status = %+v, want ERROR with the destination's answer", st)
	}
	if d := e.r.retries["x"].delay; d != 500*time.Millisecond {
		t.Errorf("first backoff %s, want 500ms", d)
	}
	e.dest.fail = false
	e.r.cycle(context.Background()) // within the backoff: skipped
	if got := e.dest.take(); len(got) != 0 || e.status("x").State != StateError {
		t.Errorf("a cycle within the backoff ran: %q", got)
	}
	e.dest.fail = true
	e.now = e.now.Add(600 * time.Millisecond)
	e.r.cycle(context.Background())
	if d := e.r.retries["x"].delay; d != time.Second {
		t.Errorf("second backoff %s, want 1s", d)
	}
	e.dest.fail = false
	e.now = e.now.Add(1100 * time.Millisecond)
	e.r.cycle(context.Background())
	if st := e.status("x"); st.State != StateRunning || st.Trace != "" || st.Offset != 1 {
		t.Errorf("status after recovery = %+v, want RUNNING, no trace, offset 1", st)
	}
	if _, ok := e.r.retries["x"]; ok {
		t.Error("backoff kept after a successful cycle")
	}
	e.dest.take()
	s, _, _ := e.store.Exporter(context.Background(), "x")
	s.State = StatePaused
	_ = e.store.PutExporter(context.Background(), s)
	e.src.add(Version{Subject: "a", Version: 2, ID: 2, Schema: `"int"`})
	e.r.cycle(context.Background())
	if got := e.dest.take(); len(got) != 0 || e.status("x").State != StatePaused {
		t.Errorf("a paused exporter ran: %q", got)
	}
}

// TestRunnerNoURL: an exporter without schema.registry.url is in ERROR
// saying so.
func TestRunnerNoURL(t *testing.T) {
	e := newRunnerEnv(t)
	e.create(t, Exporter{Name: "x", ContextType: ContextAuto})
	e.r.cycle(context.Background())
	if st := e.status("x"); st.State != StateError || !strings.Contains(st.Trace, ConfigURL) {
		t.Errorf("status = %+v, want ERROR naming %s", st, ConfigURL)
	}
}

// TestRunnerLease: of two runners sharing a store with a lease, only the
// holder runs an exporter; the other takes over once the lease lapses.
func TestRunnerLease(t *testing.T) {
	e := newRunnerEnv(t)
	e.src.add(Version{Subject: "a", Version: 1, ID: 1, Schema: `"string"`})
	e.create(t, Exporter{Name: "x", ContextType: ContextNone, Config: map[string]string{ConfigURL: e.url}})
	opts := RunnerOptions{Lease: 30 * time.Second, Now: func() time.Time { return e.now }, Sealer: e.sealer}
	r1, r2 := NewRunner(e.store, e.src, opts), NewRunner(e.store, e.src, opts)
	r1.cycle(context.Background())
	if got := e.dest.take(); len(got) != 2 {
		t.Fatalf("holder sent %q, want mode and version", got)
	}
	e.src.add(Version{Subject: "a", Version: 2, ID: 2, Schema: `"int"`})
	r2.cycle(context.Background())
	if got := e.dest.take(); len(got) != 0 {
		t.Errorf("the runner without the lease sent %q", got)
	}
	e.now = e.now.Add(31 * time.Second)
	r2.cycle(context.Background())
	if got := e.dest.take(); len(got) != 1 || !strings.Contains(got[0], `"version":2`) {
		t.Errorf("after the lease lapsed the other runner sent %q, want version 2", got)
	}
	if s, _, _ := e.store.Exporter(context.Background(), "x"); s.LeaseOwner != r2.owner {
		t.Errorf("lease owner %q, want the second runner's", s.LeaseOwner)
	}
}

// TestRunnerStopsOnCancel: Run returns once its context ends.
func TestRunnerStopsOnCancel(t *testing.T) {
	e := newRunnerEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.r.Run(ctx) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5s of its context ending")
	}
}

// TestRunnerYieldsToChanges: an exporter paused during a cycle stops
// after the subject being copied (its progress kept); one redirected or
// reset during a cycle records nothing of it, so that the next cycle
// copies everything to the new destination.
func TestRunnerYieldsToChanges(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(s *Stored)
		want   map[string]Progress
		state  State
	}{
		{"pause", func(s *Stored) { s.State = StatePaused }, map[string]Progress{"a": {Version: 1, Settings: "//1", Imported: true}}, StatePaused},
		{"redirect", func(s *Stored) { s.Config = map[string]string{ConfigURL: "http://elsewhere:8081"}; s.Offset = 0 }, map[string]Progress{}, StateStarting},
		{"reset", func(s *Stored) { s.Offset = 0; s.State = StateStarting }, map[string]Progress{}, StateStarting},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newRunnerEnv(t)
			e.src.add(Version{Subject: "a", Version: 1, ID: 1, Schema: `"string"`})
			e.src.add(Version{Subject: "b", Version: 1, ID: 2, Schema: `"int"`})
			e.create(t, Exporter{Name: "x", ContextType: ContextNone, Config: map[string]string{ConfigURL: e.url}})
			// The exporter has copied something before (offset 7), so
			// that a reset to 0 shows.
			s, _, _ := e.store.Exporter(context.Background(), "x")
			s.Offset = 7
			_ = e.store.PutExporter(context.Background(), s)
			e.dest.onPost = func() {
				e.dest.onPost = nil
				e.store.mu.Lock()
				defer e.store.mu.Unlock()
				s := e.store.exporters["x"]
				c.change(&s)
				e.store.exporters["x"] = s
				delete(e.store.progress, "x")
			}
			e.r.cycle(context.Background())
			got, _ := e.store.ExporterProgress(context.Background(), "x")
			if !maps.Equal(got, c.want) {
				t.Errorf("progress = %v, want %v", got, c.want)
			}
			if sent := e.dest.take(); slices.ContainsFunc(sent, func(r string) bool { return strings.Contains(r, "/subjects/b/") }) {
				t.Errorf("the cycle went on to b: %q", sent)
			}
			if st := e.status("x"); st.State != c.state || st.Trace != "" {
				t.Errorf("status = %+v, want %s without a trace", st, c.state)
			}
		})
	}
}

// TestRunnerCopiesModes: a source subject's READONLY (or
// READONLY_OVERRIDE) is copied once its versions are in; any other mode
// leaves the destination subject in IMPORT; a new version puts it back
// in IMPORT first.
func TestRunnerCopiesModes(t *testing.T) {
	e := newRunnerEnv(t)
	e.src.add(Version{Subject: "a", Version: 1, ID: 1, Schema: `"string"`})
	e.src.modes["a"] = "READONLY"
	e.create(t, Exporter{Name: "x", ContextType: ContextNone, Config: map[string]string{ConfigURL: e.url}})
	step := func(what string, want ...string) {
		t.Helper()
		e.r.cycle(context.Background())
		if got := e.dest.take(); !slices.Equal(got, want) {
			t.Errorf("%s: sent\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	step("first cycle", `PUT /mode/a?force=true {"mode":"IMPORT"}`, `POST /subjects/a/versions {"id":1,"schema":"\"string\"","version":1}`,
		`PUT /mode/a?force=true {"mode":"READONLY"}`)
	step("idle")
	e.src.mu.Lock()
	delete(e.src.modes, "a")
	e.src.mu.Unlock()
	e.src.add(Version{Subject: "a", Version: 2, ID: 2, Schema: `"int"`})
	step("mode cleared, new version", `PUT /mode/a?force=true {"mode":"IMPORT"}`, `POST /subjects/a/versions {"id":2,"schema":"\"int\"","version":2}`)
	step("idle again")
	e.src.modes["a"] = "READONLY_OVERRIDE"
	step("READONLY_OVERRIDE", `PUT /mode/a?force=true {"mode":"READONLY_OVERRIDE"}`)
	e.src.modes["a"] = "READWRITE"
	step("READWRITE", `PUT /mode/a?force=true {"mode":"IMPORT"}`)
	if p, _ := e.store.ExporterProgress(context.Background(), "x"); p["a"] != (Progress{Version: 2, Settings: "/IMPORT/2", Imported: true}) {
		t.Errorf("progress = %+v", p["a"])
	}
}

// TestRunnerProbesUnreachable: a destination that does not answer at all
// is probed every second during the backoff and retried as soon as it
// answers; one that answers with an error waits out its backoff.
func TestRunnerProbesUnreachable(t *testing.T) {
	e := newRunnerEnv(t)
	e.r.opts.MinBackoff, e.r.opts.MaxBackoff = time.Hour, time.Hour
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: connection refused
	e.src.add(Version{Subject: "a", Version: 1, ID: 1, Schema: `"string"`})
	e.create(t, Exporter{Name: "x", ContextType: ContextNone, Config: map[string]string{ConfigURL: "http://" + addr}})
	ctx := context.Background()
	// due probes as retryDue does, waits for the probe, and asks again.
	due := func(now time.Time) bool {
		e.r.retryDue(ctx, now)
		e.r.wg.Wait()
		return e.r.retryDue(ctx, now)
	}
	e.r.cycle(ctx)
	if st := e.status("x"); st.State != StateError || !strings.Contains(st.Trace, "connection refused") {
		t.Fatalf("status = %+v, want ERROR, connection refused", st)
	}
	e.now = e.now.Add(1100 * time.Millisecond)
	if due(e.now) {
		t.Fatal("retry due while the destination still refuses connections")
	}
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s again: %v", addr, err)
	}
	srv := &http.Server{Handler: e.dest}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	e.now = e.now.Add(500 * time.Millisecond)
	if due(e.now) {
		t.Fatal("probed again within a second")
	}
	e.now = e.now.Add(600 * time.Millisecond)
	if !due(e.now) {
		t.Fatal("retry not due once the destination answers a probe")
	}
	e.r.cycle(ctx)
	if st := e.status("x"); st.State != StateRunning || st.Offset != 1 {
		t.Fatalf("status after the destination came back = %+v, want RUNNING at offset 1", st)
	}
	// An answer, even an error, is no reason to retry before the backoff.
	e.dest.fail = true
	e.src.add(Version{Subject: "a", Version: 2, ID: 2, Schema: `"int"`})
	e.r.cycle(ctx)
	e.now = e.now.Add(5 * time.Second)
	if due(e.now) || e.r.retries["x"].dest != nil {
		t.Error("a destination answering 500 is probed instead of backed off")
	}
}

// TestRunnerRecopiesReregistered: a subject deleted permanently and
// registered again (its version numbers reused by other schemas) is
// copied again; a destination that holds another schema at such a
// version refuses it and the exporter goes to ERROR with a trace that
// says why; a soft-deleted latest version is not mistaken for one.
func TestRunnerRecopiesReregistered(t *testing.T) {
	e := newRunnerEnv(t)
	for v := 1; v <= 3; v++ {
		e.src.add(Version{Subject: "s", Version: v, ID: int64(6 + v), Schema: fmt.Sprintf(`{"type":"fixed","name":"f","size":%d}`, v)})
	}
	e.create(t, Exporter{Name: "x", ContextType: ContextCustom, Context: "m", Config: map[string]string{ConfigURL: e.url}})
	e.r.cycle(context.Background())
	if got := e.dest.take(); len(got) != 4 {
		t.Fatalf("first cycle sent %q", got)
	}

	// Soft-deleting the latest version changes nothing to copy.
	e.src.mu.Lock()
	e.src.soft = map[versionKey]bool{{"s", 3}: true}
	e.src.gen++
	e.src.mu.Unlock()
	e.r.cycle(context.Background())
	if got := e.dest.take(); len(got) != 0 {
		t.Errorf("a soft delete sent %q", got)
	}

	// Deleted permanently, registered again: version 1 is ID 10.
	e.src.mu.Lock()
	e.src.soft = nil
	e.src.mu.Unlock()
	e.src.purge("s")
	e.src.add(Version{Subject: "s", Version: 1, ID: 10, Schema: `"string"`})
	e.r.cycle(context.Background())
	// Its history new, the subject is copied from scratch: its IMPORT
	// mode is set again (the destination's subject may have been
	// deleted permanently meanwhile).
	want := []string{`PUT /mode/:.m:s?force=true {"mode":"IMPORT"}`, `POST /subjects/:.m:s/versions {"id":10,"schema":"\"string\"","version":1}`}
	if got := e.dest.take(); !slices.Equal(got, want) {
		t.Errorf("after the new registration sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st := e.status("x"); st.State != StateRunning || st.Offset != 4 {
		t.Errorf("status = %+v, want RUNNING at offset 4", st)
	}

	// Again, against a destination that holds version 1 with ID 10: it
	// is not replaced.
	e.src.purge("s")
	e.src.add(Version{Subject: "s", Version: 1, ID: 11, Schema: `"int"`})
	e.dest.mu.Lock()
	e.dest.held = map[string]map[int]int64{":.m:s": {1: 10}}
	e.dest.mu.Unlock()
	e.r.cycle(context.Background())
	st := e.status("x")
	if st.State != StateError || !strings.Contains(st.Trace, "is ID 11 at the source but ID 10 was copied") ||
		!strings.Contains(st.Trace, `holds ID 10 at version 1`) {
		t.Errorf("status = %+v, want ERROR naming the re-registration and the version the destination holds", st)
	}
	if got := e.dest.take(); len(got) != 0 {
		t.Errorf("the destination's version was replaced: %q", got)
	}

	// A reset copies from scratch: the same check, and a version the
	// destination holds with the same ID is copied (harmless).
	e.store.ClearExporterProgress(context.Background(), "x")
	e.now = e.now.Add(time.Hour)
	e.r.cycle(context.Background())
	if st := e.status("x"); st.State != StateError || !strings.Contains(st.Trace, `holds ID 10 at version 1`) {
		t.Errorf("after a reset: status = %+v, want ERROR", st)
	}
	e.dest.mu.Lock()
	e.dest.held = map[string]map[int]int64{":.m:s": {1: 11}}
	e.dest.mu.Unlock()
	e.now = e.now.Add(time.Hour)
	e.r.cycle(context.Background())
	if st := e.status("x"); st.State != StateRunning {
		t.Errorf("destination holding the same ID: status = %+v, want RUNNING", st)
	}
}

// selfDest is a destination that is the runner's own registry: what it
// is sent lands in the source, and it answers the exporters of the
// store.
type selfDest struct{ e *runnerEnv }

func (d selfDest) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	switch {
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/exporters/"):
		s, ok, _ := d.e.store.Exporter(r.Context(), strings.TrimPrefix(path, "/exporters/"))
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error_code":40450,"message":"not found"}`))
			return
		}
		_ = json.NewEncoder(w).Encode(s.Exporter.Redacted())
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/subjects/"):
		w.WriteHeader(http.StatusNotFound) // the copies are new
		_, _ = w.Write([]byte(`{"error_code":40401,"message":"not found"}`))
	case r.Method == http.MethodPut && strings.HasPrefix(path, "/mode/"):
		var body struct{ Mode string }
		_ = json.Unmarshal(b, &body)
		d.e.src.mu.Lock()
		d.e.src.modes[strings.TrimPrefix(path, "/mode/")] = body.Mode
		d.e.src.mu.Unlock()
		_, _ = w.Write(b)
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/versions"):
		var body struct {
			Schema  string
			ID      int64
			Version int
		}
		_ = json.Unmarshal(b, &body)
		subject := strings.TrimSuffix(strings.TrimPrefix(path, "/subjects/"), "/versions")
		if _, err := d.e.src.Version(r.Context(), subject, body.Version); err != nil {
			d.e.src.add(Version{Subject: subject, Version: body.Version, ID: body.ID, Schema: body.Schema})
		}
		fmt.Fprintf(w, `{"id":%d}`, body.ID)
	default:
		_, _ = w.Write([]byte(`{}`))
	}
}

// TestRunnerSelfExport: exporters whose destination is their own
// registry stay bounded: contextType NONE (renamed or not) fails before
// writing anything (no copies, no source subject put in IMPORT mode);
// two exporters of every context (":*:"), one CUSTOM and one AUTO, copy
// the registry's subjects once each and never each other's copies.
func TestRunnerSelfExport(t *testing.T) {
	for _, rename := range []string{"dc_${subject}", "${subject}"} {
		t.Run("NONE "+rename, func(t *testing.T) {
			e := newRunnerEnv(t)
			srv := httptest.NewServer(selfDest{e})
			t.Cleanup(srv.Close)
			e.src.add(Version{Subject: "a", Version: 1, ID: 1, Schema: `"string"`})
			e.create(t, Exporter{Name: "x", ContextType: ContextNone, Subjects: []string{"*"}, SubjectRenameFormat: rename,
				Config: map[string]string{ConfigURL: srv.URL}})
			for range 5 {
				e.now = e.now.Add(time.Minute)
				e.r.cycle(context.Background())
			}
			subjects, _ := e.src.Subjects(context.Background())
			if len(subjects) != 1 || subjects[0].Mode != "" {
				t.Errorf("source subjects %+v, want a alone, in no mode", subjects)
			}
			if st := e.status("x"); st.State != StateError || !strings.Contains(st.Trace, "is this registry itself") {
				t.Errorf("status = %+v, want ERROR naming the self export", st)
			}
		})
	}
	t.Run("CUSTOM and AUTO of every context", func(t *testing.T) {
		e := newRunnerEnv(t)
		srv := httptest.NewServer(selfDest{e})
		t.Cleanup(srv.Close)
		e.src.add(Version{Subject: "a", Version: 1, ID: 1, Schema: `"string"`})
		e.src.add(Version{Subject: ":.prod:b", Version: 1, ID: 1, Schema: `"int"`})
		e.create(t, Exporter{Name: "bk", ContextType: ContextCustom, Context: "bk", Subjects: []string{":*:"},
			Config: map[string]string{ConfigURL: srv.URL}})
		e.create(t, Exporter{Name: "auto", ContextType: ContextAuto, Subjects: []string{":*:"},
			Config: map[string]string{ConfigURL: srv.URL}})
		for range 10 {
			e.now = e.now.Add(time.Minute) // past selfTTL: asked again
			e.r.cycle(context.Background())
		}
		subjects, _ := e.src.Subjects(context.Background())
		var names []string
		for _, s := range subjects {
			names = append(names, s.Name)
		}
		want := []string{":.bk.prod:b", ":.bk:a", ":.prod:b", ":.src.prod:b", ":.src:a", "a"}
		if !slices.Equal(names, want) {
			t.Errorf("source subjects %q, want %q", names, want)
		}
		for _, name := range []string{"bk", "auto"} {
			if st := e.status(name); st.State != StateRunning {
				t.Errorf("%s: status = %+v, want RUNNING", name, st)
			}
		}
	})
}

// TestRunnerIsolatesExporters: an exporter whose destination answers
// nothing for seconds does not delay another's copies.
func TestRunnerIsolatesExporters(t *testing.T) {
	e := newRunnerEnv(t)
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	got := make(chan time.Time, 16)
	e.dest.onPost = func() { got <- time.Now() }
	e.create(t, Exporter{Name: "a-slow", ContextType: ContextNone, Config: map[string]string{ConfigURL: slow.URL}})
	e.create(t, Exporter{Name: "b-fast", ContextType: ContextNone, Config: map[string]string{ConfigURL: e.url}})
	r := NewRunner(e.store, e.src, RunnerOptions{ClusterID: "src", Poll: 10 * time.Millisecond, Sealer: e.sealer})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	time.Sleep(50 * time.Millisecond) // the slow exporter's cycle is under way
	for v := 1; v <= 3; v++ {
		start := time.Now()
		e.src.add(Version{Subject: "s", Version: v, ID: int64(v), Schema: fmt.Sprintf(`{"type":"fixed","name":"f","size":%d}`, v)})
		select {
		case at := <-got:
			if d := at.Sub(start); d > 500*time.Millisecond {
				t.Errorf("version %d copied after %s", v, d)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("version %d not copied within 2s while the other destination hangs", v)
		}
	}
}

// TestRunnerRemedyRecopy: the remedy the trace of a re-registered
// subject gives works as written. Version 1 copied with ID 5, the source
// subject deleted permanently and registered again (version 1 is ID 7):
// ERROR, the destination holding ID 5; once the destination's subject
// is deleted permanently (its IMPORT mode gone with it) and the exporter
// resumed, the subject is put in IMPORT mode again and version 1 copied
// with ID 7, RUNNING. A destination subject that leaves IMPORT mode
// otherwise (its mode deleted) is set again and the copy retried once.
func TestRunnerRemedyRecopy(t *testing.T) {
	e := newRunnerEnv(t)
	e.dest.modes = map[string]string{}
	e.src.add(Version{Subject: "s", Version: 1, ID: 5, Schema: `"int"`})
	e.create(t, Exporter{Name: "x", ContextType: ContextCustom, Context: "m", Config: map[string]string{ConfigURL: e.url}})
	e.r.cycle(context.Background())
	if st := e.status("x"); st.State != StateRunning {
		t.Fatalf("first cycle: status = %+v, want RUNNING", st)
	}
	e.dest.take()
	e.dest.mu.Lock()
	e.dest.held = map[string]map[int]int64{":.m:s": {1: 5}}
	e.dest.mu.Unlock()

	e.src.purge("s")
	e.src.add(Version{Subject: "s", Version: 1, ID: 7, Schema: `"string"`})
	e.r.cycle(context.Background())
	st := e.status("x")
	remedy := "delete the destination's subject permanently, then resume the exporter"
	if st.State != StateError || !strings.Contains(st.Trace, "is ID 7 at the source but ID 5 was copied") || !strings.Contains(st.Trace, remedy) {
		t.Fatalf("status = %+v, want ERROR with the remedy", st)
	}

	// The remedy: the destination's subject deleted permanently (its
	// versions and mode gone), the exporter resumed.
	e.dest.mu.Lock()
	e.dest.held = nil
	delete(e.dest.modes, ":.m:s")
	e.dest.mu.Unlock()
	e.dest.take()
	if err := e.store.Update(context.Background(), func(tx Tx, _ Audit) error {
		cur, _, err := tx.Exporter(context.Background(), "x")
		if err != nil {
			return err
		}
		cur.State, cur.Trace = StateRunning, ""
		return tx.PutExporter(context.Background(), cur)
	}); err != nil {
		t.Fatal(err)
	}
	e.now = e.now.Add(time.Hour)
	e.r.cycle(context.Background())
	if st := e.status("x"); st.State != StateRunning {
		t.Fatalf("after the remedy: status = %+v, want RUNNING", st)
	}
	got := e.dest.take()
	want := `POST /subjects/:.m:s/versions {"id":7,"schema":"\"string\"","version":1}`
	if !slices.Contains(got, want) || e.dest.modes[":.m:s"] != "IMPORT" {
		t.Fatalf("after the remedy sent\n%s\nwant %s, the subject in IMPORT (modes %v)", strings.Join(got, "\n"), want, e.dest.modes)
	}

	// The destination subject's mode deleted, the source's history
	// unchanged: a new version is refused 42205, IMPORT set, copied.
	e.dest.mu.Lock()
	delete(e.dest.modes, ":.m:s")
	e.dest.mu.Unlock()
	e.src.add(Version{Subject: "s", Version: 2, ID: 8, Schema: `"long"`})
	e.r.cycle(context.Background())
	if st := e.status("x"); st.State != StateRunning {
		t.Fatalf("mode gone: status = %+v, want RUNNING", st)
	}
	got = e.dest.take()
	post := `POST /subjects/:.m:s/versions {"id":8,"schema":"\"long\"","version":2}`
	want2 := []string{post, `PUT /mode/:.m:s?force=true {"mode":"IMPORT"}`, post}
	if len(got) < 3 || !slices.Equal(got[:3], want2) {
		t.Fatalf("mode gone: sent\n%s\nwant first\n%s", strings.Join(got, "\n"), strings.Join(want2, "\n"))
	}
}

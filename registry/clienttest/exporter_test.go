package clienttest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry/postgres/pgtest"
)

// Exporter acceptance (issue 15, part 2): two charter serve processes on
// loopback, A and B, and an exporter on A to B's context .mirror
// (contextType CUSTOM), following Confluent's schema linking quick start
// (docs.confluent.io, "Schema Linking on Confluent Platform": create an
// exporter on the source, the schemas appear in the destination context
// with their IDs, the destination subjects in IMPORT mode).
const (
	exportSubjects = 50
	exportVersions = 10 // per subject: 500 schemas in all
	exportSecret   = "exp0rt-s3cret"
)

// exportSubject is the name of subject i.
func exportSubject(i int) string { return fmt.Sprintf("mirror-%02d-value", i) }

// registerRange registers versions from..to of every subject on s and
// returns the IDs answered, by subject and version.
func registerRange(t *testing.T, s *server, from, to int, ids map[string]map[int]int64) {
	t.Helper()
	for v := from; v <= to; v++ {
		for i := range exportSubjects {
			subject := exportSubject(i)
			body := s.mustDo(t, http.MethodPost, "/subjects/"+subject+"/versions", map[string]string{"schema": eventSchema(i, v)}, http.StatusOK)
			r := decodeJSON[registerResponse](t, "register answer", body)
			if ids[subject] == nil {
				ids[subject] = map[int]int64{}
			}
			ids[subject][v] = r.ID
		}
	}
}

// exporterStatus is GET /exporters/{name}/status.
type exporterStatus struct {
	Name   string `json:"name"`
	State  string `json:"state"`
	Offset int64  `json:"offset"`
	Ts     int64  `json:"ts"`
	Trace  string `json:"trace"`
}

// waitStatus polls A's exporter status until ok accepts it, failing the
// test at the deadline with the last status seen.
func waitStatus(t *testing.T, s *server, name string, within time.Duration, what string, ok func(exporterStatus) bool) exporterStatus {
	t.Helper()
	deadline := time.Now().Add(within)
	var last exporterStatus
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		r, err := s.do(ctx, http.DefaultClient, http.MethodGet, "/exporters/"+name+"/status", nil)
		cancel()
		if err == nil && r.Status == http.StatusOK {
			last = decodeJSON[exporterStatus](t, "exporter status", r.Body)
			if ok(last) {
				return last
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("exporter %s: not %s within %s; last status %+v (err %v)", name, what, within, last, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// restartAt starts charter serve on db at addr, the address it had, and
// registers its cleanup.
func restartAt(t *testing.T, db, url string) *server {
	t.Helper()
	s, err := launchAt(charterBinary(t), db, strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatalf("restart charter serve on %s: %v", url, err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("charter serve output (%s):\n%s", s.URL, s.output.String())
		}
		s.stop(t)
	})
	return s
}

// TestExporterReplicatesToContext: 500 schemas in 50 subjects registered
// on A, 150 of them while B is stopped (the exporter goes to ERROR with a
// trace, and back to RUNNING once B is back) and 100 just before A is
// killed with SIGKILL (A restarts on its database and resumes), all
// appear on B as :.mirror:SUBJECT with the same versions and IDs, the
// subjects in IMPORT mode, a subject config and a READONLY mode copied;
// the status ends RUNNING at offset 500, and the exporter's credentials
// are never answered nor logged.
func TestExporterReplicatesToContext(t *testing.T) {
	start := time.Now()
	keyFile := secretsKeyFile(t)
	a := startServerDB(t, filepath.Join(t.TempDir(), "charter.db"), "--secrets-key-file", keyFile)
	b := startServer(t)
	ids := map[string]map[int]int64{}
	a.mustDo(t, http.MethodPost, "/exporters", map[string]any{
		"name": "to-b", "contextType": "CUSTOM", "context": ".mirror", "subjects": []string{"mirror-*"},
		"config": map[string]string{
			"schema.registry.url":           b.URL,
			"basic.auth.credentials.source": "USER_INFO",
			"basic.auth.user.info":          "exporter:" + exportSecret,
		},
	}, http.StatusOK)
	for _, path := range []string{"/exporters/to-b", "/exporters/to-b/config"} {
		if body := a.mustDo(t, http.MethodGet, path, nil, http.StatusOK); strings.Contains(string(body), exportSecret) {
			t.Errorf("GET %s answers the credentials: %s", path, body)
		}
	}
	registerRange(t, a, 1, 3, ids)
	a.mustDo(t, http.MethodPut, "/config/"+exportSubject(7), map[string]string{"compatibility": "FULL"}, http.StatusOK)
	waitStatus(t, a, "to-b", 30*time.Second, "RUNNING at offset 150", func(s exporterStatus) bool {
		return s.State == "RUNNING" && s.Offset == 150
	})

	// B stops: the exporter fails with a trace, and catches up once B is
	// back at its address.
	bURL, bDB := b.URL, b.DB
	b.stop(t)
	registerRange(t, a, 4, 6, ids)
	st := waitStatus(t, a, "to-b", 20*time.Second, "ERROR", func(s exporterStatus) bool { return s.State == "ERROR" })
	if st.Trace == "" || strings.Contains(st.Trace, exportSecret) {
		t.Errorf("ERROR status trace = %q, want the cause without credentials", st.Trace)
	}
	b = restartAt(t, bDB, bURL)
	waitStatus(t, a, "to-b", 30*time.Second, "RUNNING at offset 300", func(s exporterStatus) bool {
		return s.State == "RUNNING" && s.Offset == 300 && s.Trace == ""
	})

	// A is killed right after 100 registrations, mid-copy or not: it
	// resumes from its stored progress.
	registerRange(t, a, 7, 8, ids)
	aDB := a.DB
	a.kill(t)
	a = startServerDB(t, aDB, "--secrets-key-file", keyFile)
	registerRange(t, a, 9, 10, ids)
	waitStatus(t, a, "to-b", 40*time.Second, "RUNNING at offset 500", func(s exporterStatus) bool {
		return s.State == "RUNNING" && s.Offset == exportSubjects*exportVersions
	})

	// Every version is on B, in .mirror, with its version number and ID.
	for i := range exportSubjects {
		subject := exportSubject(i)
		for v := 1; v <= exportVersions; v++ {
			body := b.mustDo(t, http.MethodGet, "/subjects/:.mirror:"+subject+"/versions/"+fmt.Sprint(v), nil, http.StatusOK)
			got := decodeJSON[registerResponse](t, "version", body)
			if got.ID != ids[subject][v] || got.Version != v {
				t.Fatalf("B :.mirror:%s version %d: id %d version %d, want id %d (A's)", subject, v, got.ID, got.Version, ids[subject][v])
			}
		}
	}
	if body := b.mustDo(t, http.MethodGet, "/mode/:.mirror:"+exportSubject(0), nil, http.StatusOK); !strings.Contains(string(body), `"IMPORT"`) {
		t.Errorf("B mode of :.mirror:%s = %s, want IMPORT", exportSubject(0), body)
	}
	if body := b.mustDo(t, http.MethodGet, "/config/:.mirror:"+exportSubject(7), nil, http.StatusOK); !strings.Contains(string(body), `"FULL"`) {
		t.Errorf("B config of :.mirror:%s = %s, want FULL (copied from A)", exportSubject(7), body)
	}
	// A subject made READONLY on A is READONLY on B too.
	a.mustDo(t, http.MethodPut, "/mode/"+exportSubject(5), map[string]string{"mode": "READONLY"}, http.StatusOK)
	for deadline := time.Now().Add(20 * time.Second); ; {
		body := b.mustDo(t, http.MethodGet, "/mode/:.mirror:"+exportSubject(5), nil, http.StatusOK)
		if strings.Contains(string(body), `"READONLY"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B mode of :.mirror:%s = %s 20s after A's became READONLY", exportSubject(5), body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// .mirror is a context of B with its own ID space, which a client
	// whose base URL is B/contexts/.mirror sees as a registry of its own;
	// B's default context is empty, and its first schema there gets ID 1
	// whatever .mirror holds.
	if body := string(b.mustDo(t, http.MethodGet, "/contexts", nil, http.StatusOK)); body != `[".",".mirror"]` {
		t.Errorf("B contexts = %s, want [\".\",\".mirror\"]", body)
	}
	if got := decodeJSON[[]string](t, "subjects", b.mustDo(t, http.MethodGet, "/contexts/.mirror/subjects", nil, http.StatusOK)); len(got) != exportSubjects {
		t.Errorf("B /contexts/.mirror/subjects lists %d subjects, want %d: %q", len(got), exportSubjects, got)
	}
	last := exportSubject(exportSubjects - 1)
	got := decodeJSON[registerResponse](t, "version", b.mustDo(t, http.MethodGet, "/contexts/.mirror/subjects/"+last+"/versions/latest", nil, http.StatusOK))
	if got.ID != ids[last][exportVersions] {
		t.Errorf("B /contexts/.mirror %s latest: id %d, want %d", last, got.ID, ids[last][exportVersions])
	}
	b.mustDo(t, http.MethodGet, "/contexts/.mirror/schemas/ids/"+fmt.Sprint(got.ID), nil, http.StatusOK)
	own := decodeJSON[registerResponse](t, "register answer", b.mustDo(t, http.MethodPost, "/subjects/own-value/versions",
		map[string]string{"schema": eventSchema(99, 1)}, http.StatusOK))
	if own.ID != 1 {
		t.Errorf("B's first schema in its default context got ID %d, want 1 (its own ID space)", own.ID)
	}
	for _, s := range []*server{a, b} {
		if strings.Contains(s.output.String(), exportSecret) {
			t.Errorf("server %s logged the exporter's credentials", s.URL)
		}
	}
	// A's database holds the credential sealed (--secrets-key-file).
	notInFiles(t, a.DB+"*", exportSecret)
	t.Logf("500 schemas replicated A → B:.mirror with IDs preserved, through a stop of B and a SIGKILL of A, in %s", time.Since(start).Round(time.Millisecond))
}

// TestExporterOneReplicaCopies: two replicas on one PostgreSQL database
// run the exporter runner each; the lease lets only one copy, so the
// offset counts every version once (two copiers would count each twice),
// and B holds every version with A's IDs.
func TestExporterOneReplicaCopies(t *testing.T) {
	dsn := pgtest.DSN(t)
	r1, r2 := startServerDB(t, dsn), startServerDB(t, dsn)
	b := startServer(t)
	r1.mustDo(t, http.MethodPost, "/exporters", map[string]any{
		"name": "to-b", "contextType": "CUSTOM", "context": ".mirror", "subjects": []string{"mirror-*"},
		"config": map[string]string{"schema.registry.url": b.URL},
	}, http.StatusOK)
	ids := map[string]map[int]int64{}
	const subjects, versions = 10, 3
	for v := 1; v <= versions; v++ {
		for i := range subjects {
			s := []*server{r1, r2}[i%2]
			subject := exportSubject(i)
			body := s.mustDo(t, http.MethodPost, "/subjects/"+subject+"/versions", map[string]string{"schema": eventSchema(i, v)}, http.StatusOK)
			if ids[subject] == nil {
				ids[subject] = map[int]int64{}
			}
			ids[subject][v] = decodeJSON[registerResponse](t, "register answer", body).ID
		}
	}
	// The replicas see each other's writes within a resync (30 s) at
	// worst; the status is the same through either.
	waitStatus(t, r2, "to-b", 45*time.Second, "RUNNING at offset 30", func(s exporterStatus) bool {
		return s.State == "RUNNING" && s.Offset == subjects*versions
	})
	for i := range subjects {
		subject := exportSubject(i)
		for v := 1; v <= versions; v++ {
			got := decodeJSON[registerResponse](t, "version", b.mustDo(t, http.MethodGet, "/subjects/:.mirror:"+subject+"/versions/"+fmt.Sprint(v), nil, http.StatusOK))
			if got.ID != ids[subject][v] {
				t.Fatalf("B :.mirror:%s version %d: id %d, want %d", subject, v, got.ID, ids[subject][v])
			}
		}
	}
	copied := strings.Count(r1.output.String(), `msg="exporter copied versions"`) + strings.Count(r2.output.String(), `msg="exporter copied versions"`)
	holders := 0
	for _, s := range []*server{r1, r2} {
		if strings.Contains(s.output.String(), `msg="exporter copied versions"`) {
			holders++
		}
	}
	if holders != 1 || copied == 0 {
		t.Errorf("%d replicas copied (%d cycles), want exactly one", holders, copied)
	}
}

// TestExporterToContextURL: an exporter with contextType NONE whose
// destination URL is B/contexts/.dr (a Confluent client's way to work in
// a context) lands its subjects in B's .dr context with A's IDs.
func TestExporterToContextURL(t *testing.T) {
	a, b := startServer(t), startServer(t)
	ids := map[string]map[int]int64{}
	registerRange(t, a, 1, 2, ids)
	a.mustDo(t, http.MethodPost, "/exporters", map[string]any{
		"name": "to-dr", "contextType": "NONE", "subjects": []string{exportSubject(3), exportSubject(4)},
		"config": map[string]string{"schema.registry.url": b.URL + "/contexts/.dr"},
	}, http.StatusOK)
	waitStatus(t, a, "to-dr", 30*time.Second, "RUNNING at offset 4", func(s exporterStatus) bool {
		return s.State == "RUNNING" && s.Offset == 4
	})
	for _, subject := range []string{exportSubject(3), exportSubject(4)} {
		for v := 1; v <= 2; v++ {
			got := decodeJSON[registerResponse](t, "version", b.mustDo(t, http.MethodGet, "/subjects/:.dr:"+subject+"/versions/"+fmt.Sprint(v), nil, http.StatusOK))
			if got.ID != ids[subject][v] {
				t.Errorf("B :.dr:%s version %d: id %d, want %d", subject, v, got.ID, ids[subject][v])
			}
		}
	}
	if got := decodeJSON[[]string](t, "subjects", b.mustDo(t, http.MethodGet, "/subjects", nil, http.StatusOK)); len(got) != 2 {
		t.Errorf("B subjects = %q, want the two exported ones only", got)
	}
}

// secretsKeyFile writes a --secrets-key-file for a test server and
// returns its path.
func secretsKeyFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secrets.key")
	if err := os.WriteFile(path, []byte("a test server's secret, thirty-two bytes or more\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// notInFiles fails t when secret appears in any of the files matching
// pattern (a database and its WAL, say).
func notInFiles(t *testing.T, pattern, secret string) {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no file matches %s (%v)", pattern, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("%s holds the exporter's credential in the clear", f)
		}
	}
}

// TestExporterIntoItself: exporters whose destination is their own
// registry stay bounded: NONE (renamed, or not) goes to ERROR before
// writing, and leaves the source's subjects writable (not in IMPORT
// mode); two exporters of every context (":*:"), CUSTOM .bk and AUTO,
// copy each subject once and never each other's copies, however long
// they run.
func TestExporterIntoItself(t *testing.T) {
	a := startServer(t)
	a.mustDo(t, http.MethodPost, "/subjects/self-value/versions", map[string]string{"schema": eventSchema(0, 1)}, http.StatusOK)
	a.mustDo(t, http.MethodPost, "/subjects/:.prod:self-value/versions", map[string]string{"schema": eventSchema(1, 1)}, http.StatusOK)
	cfg := map[string]string{"schema.registry.url": a.URL}
	for _, e := range []map[string]any{
		{"name": "none-renamed", "contextType": "NONE", "subjectRenameFormat": "dc_${subject}", "config": cfg},
		{"name": "none", "contextType": "NONE", "config": cfg},
		{"name": "bk", "contextType": "CUSTOM", "context": ".bk", "subjects": []string{":*:"}, "config": cfg},
		{"name": "auto", "contextType": "AUTO", "subjects": []string{":*:"}, "config": cfg},
	} {
		a.mustDo(t, http.MethodPost, "/exporters", e, http.StatusOK)
	}
	for _, name := range []string{"none-renamed", "none"} {
		st := waitStatus(t, a, name, 20*time.Second, "ERROR", func(s exporterStatus) bool { return s.State == "ERROR" })
		if !strings.Contains(st.Trace, "is this registry itself") {
			t.Errorf("%s: trace %q, want it to name the self export", name, st.Trace)
		}
	}
	for _, name := range []string{"bk", "auto"} {
		waitStatus(t, a, name, 20*time.Second, "RUNNING at offset 2", func(s exporterStatus) bool { return s.State == "RUNNING" && s.Offset == 2 })
	}
	time.Sleep(3 * time.Second) // cycles go on: nothing more is copied
	want := `[".",".bk",".bk.prod",".charter",".charter.prod",".prod"]`
	if body := string(a.mustDo(t, http.MethodGet, "/contexts", nil, http.StatusOK)); body != want {
		t.Errorf("contexts = %s, want %s", body, want)
	}
	want = `[":.bk.prod:self-value",":.bk:self-value",":.charter.prod:self-value",":.charter:self-value",":.prod:self-value","self-value"]`
	if body := string(a.mustDo(t, http.MethodGet, "/subjects", nil, http.StatusOK)); body != want {
		t.Errorf("subjects = %s, want %s (each copied once, no dc_ copies)", body, want)
	}
	for _, name := range []string{"bk", "auto"} {
		if st := waitStatus(t, a, name, time.Second, "RUNNING", func(s exporterStatus) bool { return s.State == "RUNNING" }); st.Offset != 2 {
			t.Errorf("%s: offset %d after more cycles, want 2", name, st.Offset)
		}
	}
	// Producers keep writing to the source's subjects.
	a.mustDo(t, http.MethodPost, "/subjects/self-value/versions", map[string]string{"schema": eventSchema(0, 2)}, http.StatusOK)
}

// TestExporterRemedyAndRecopy: the remedy an exporter's ERROR trace
// gives for a subject deleted permanently and registered again at the
// source works as written (delete the destination's subject
// permanently, resume: RUNNING, the new ID copied), and a reset that
// copies again a version without metadata under one with metadata is
// harmless (RUNNING, the IDs kept; it failed 42205 when the re-sent
// version inherited the later version's metadata).
func TestExporterRemedyAndRecopy(t *testing.T) {
	a, b := startServer(t), startServer(t)
	cfg := map[string]string{"schema.registry.url": b.URL}

	// B: the remedy.
	first := decodeJSON[registerResponse](t, "register", a.mustDo(t, http.MethodPost, "/subjects/re-value/versions", map[string]string{"schema": eventSchema(0, 1)}, http.StatusOK))
	a.mustDo(t, http.MethodPost, "/exporters", map[string]any{
		"name": "re", "contextType": "CUSTOM", "context": ".m", "subjects": []string{"re-value"}, "config": cfg,
	}, http.StatusOK)
	waitStatus(t, a, "re", 30*time.Second, "RUNNING at offset 1", func(s exporterStatus) bool { return s.State == "RUNNING" && s.Offset == 1 })
	a.mustDo(t, http.MethodDelete, "/subjects/re-value", nil, http.StatusOK)
	a.mustDo(t, http.MethodDelete, "/subjects/re-value?permanent=true", nil, http.StatusOK)
	again := decodeJSON[registerResponse](t, "register", a.mustDo(t, http.MethodPost, "/subjects/re-value/versions", map[string]string{"schema": eventSchema(1, 1)}, http.StatusOK))
	if again.ID == first.ID {
		t.Fatalf("the new registration has the old ID %d", again.ID)
	}
	remedy := "delete the destination's subject permanently, then resume the exporter"
	st := waitStatus(t, a, "re", 30*time.Second, "ERROR", func(s exporterStatus) bool { return s.State == "ERROR" })
	if !strings.Contains(st.Trace, remedy) {
		t.Fatalf("trace %q, want the remedy %q", st.Trace, remedy)
	}
	b.mustDo(t, http.MethodDelete, "/subjects/:.m:re-value", nil, http.StatusOK)
	b.mustDo(t, http.MethodDelete, "/subjects/:.m:re-value?permanent=true", nil, http.StatusOK)
	a.mustDo(t, http.MethodPut, "/exporters/re/resume", nil, http.StatusOK)
	waitStatus(t, a, "re", 30*time.Second, "RUNNING", func(s exporterStatus) bool { return s.State == "RUNNING" })
	got := decodeJSON[registerResponse](t, "version", b.mustDo(t, http.MethodGet, "/subjects/:.m:re-value/versions/1", nil, http.StatusOK))
	if got.ID != again.ID {
		t.Errorf("B :.m:re-value version 1: id %d, want the new %d", got.ID, again.ID)
	}
	if body := string(b.mustDo(t, http.MethodGet, "/mode/:.m:re-value", nil, http.StatusOK)); !strings.Contains(body, "IMPORT") {
		t.Errorf("B :.m:re-value mode %s, want IMPORT", body)
	}

	// E: a reset copies v1 (no metadata) again under v2 (metadata).
	a.mustDo(t, http.MethodPost, "/subjects/meta-value/versions", map[string]string{"schema": eventSchema(2, 1)}, http.StatusOK)
	a.mustDo(t, http.MethodPost, "/subjects/meta-value/versions", map[string]any{"schema": eventSchema(2, 2), "metadata": map[string]any{"properties": map[string]string{"owner": "team-a"}}}, http.StatusOK)
	a.mustDo(t, http.MethodPost, "/exporters", map[string]any{
		"name": "meta", "contextType": "CUSTOM", "context": ".e", "subjects": []string{"meta-value"}, "config": cfg,
	}, http.StatusOK)
	waitStatus(t, a, "meta", 30*time.Second, "RUNNING at offset 2", func(s exporterStatus) bool { return s.State == "RUNNING" && s.Offset == 2 })
	a.mustDo(t, http.MethodPut, "/exporters/meta/reset", nil, http.StatusOK)
	waitStatus(t, a, "meta", 30*time.Second, "RUNNING at offset 2 after the reset", func(s exporterStatus) bool {
		return s.State == "RUNNING" && s.Offset == 2
	})
	time.Sleep(time.Second)
	if st := waitStatus(t, a, "meta", time.Second, "RUNNING", func(s exporterStatus) bool { return true }); st.State != "RUNNING" || st.Trace != "" {
		t.Errorf("after the reset: status %+v, want RUNNING without a trace", st)
	}
	for v := 1; v <= 2; v++ {
		src := decodeJSON[registerResponse](t, "version", a.mustDo(t, http.MethodGet, "/subjects/meta-value/versions/"+fmt.Sprint(v), nil, http.StatusOK))
		dst := decodeJSON[registerResponse](t, "version", b.mustDo(t, http.MethodGet, "/subjects/:.e:meta-value/versions/"+fmt.Sprint(v), nil, http.StatusOK))
		if src.ID != dst.ID {
			t.Errorf("meta-value version %d: B id %d, want %d", v, dst.ID, src.ID)
		}
	}
}

package clienttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// answered is one registration the server answered with 200 before it was
// killed: it must survive the SIGKILL exactly.
type answered struct {
	Subject string
	Version int
	ID      int64
	Schema  string
}

// killSubjects is how many subjects are written concurrently, one writer
// each, so that the version of every answered registration is known: it is
// the number of answered registrations in that subject so far.
const killSubjects = 4

// eventSchema returns a distinct Avro schema for writer w, step n: a record
// that gains one optional field per step, so successive versions are
// BACKWARD compatible.
func eventSchema(w, n int) string {
	fields := []map[string]any{{"name": "seq", "type": "long"}}
	for i := 1; i <= n; i++ {
		fields = append(fields, map[string]any{"name": fmt.Sprintf("f%d", i), "type": "string", "default": ""})
	}
	b, _ := json.Marshal(map[string]any{
		"type": "record", "name": fmt.Sprintf("Event%d", w), "namespace": "charter.killtest", "fields": fields,
	})
	return string(b)
}

// registerResponse is the register answer; version is present in newer
// Confluent servers only.
type registerResponse struct {
	ID      int64 `json:"id"`
	Version int   `json:"version"`
}

// TestKill9KeepsAnsweredRegistrations registers schemas from several
// writers, SIGKILLs the server while requests are in flight, restarts it on
// the same database and requires every registration answered 200 to be
// there with the same ID, version and schema; then the server must keep
// working (new IDs above every old one, config intact). Two rounds.
func TestKill9KeepsAnsweredRegistrations(t *testing.T) {
	s := startServer(t)
	db := s.DB
	// A subject config written before the crash must survive it too.
	s.mustDo(t, http.MethodPut, "/config/kill-0", map[string]string{"compatibility": "FULL"}, http.StatusOK)

	var all []answered
	steps := make([]int, killSubjects) // registrations answered per subject so far
	for round := 1; round <= 2; round++ {
		got := registerUntilKilled(t, s, steps, 150)
		if len(got) == 0 {
			t.Fatalf("round %d: no registration was answered before the kill", round)
		}
		all = append(all, got...)
		t.Logf("round %d: %d registrations answered before SIGKILL", round, len(got))

		s = startServerDB(t, db)
		verifyAnswered(t, s, all)
	}

	// The server serves normally after the crashes.
	var maxID int64
	for _, a := range all {
		maxID = max(maxID, a.ID)
	}
	body := s.mustDo(t, http.MethodPost, "/subjects/after-crash/versions", map[string]string{"schema": eventSchema(99, 0)}, http.StatusOK)
	if r := decodeJSON[registerResponse](t, "register after crash", body); r.ID <= maxID {
		t.Errorf("register after crash: id %d, want > %d (the largest ID answered before the crash)", r.ID, maxID)
	}
	cfg := decodeJSON[map[string]any](t, "GET /config/kill-0", s.mustDo(t, http.MethodGet, "/config/kill-0", nil, http.StatusOK))
	if cfg["compatibilityLevel"] != "FULL" {
		t.Errorf("GET /config/kill-0 after crashes: %v, want compatibilityLevel FULL", cfg)
	}
	subjects := decodeJSON[[]string](t, "GET /subjects", s.mustDo(t, http.MethodGet, "/subjects", nil, http.StatusOK))
	for w := range killSubjects {
		if steps[w] > 0 && !slices.Contains(subjects, fmt.Sprintf("kill-%d", w)) {
			t.Errorf("GET /subjects = %v, missing kill-%d", subjects, w)
		}
	}
}

// registerUntilKilled runs one writer per subject; once killAfter
// registrations in all have been answered it SIGKILLs the server while the
// writers are still sending. It returns the registrations answered 200.
// steps[w] is the writer's step count, carried across rounds.
func registerUntilKilled(t *testing.T, s *server, steps []int, killAfter int64) []answered {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var (
		mu       sync.Mutex
		got      []answered
		count    atomic.Int64
		failures = make(chan string, killSubjects)
		wg       sync.WaitGroup
		killed   = make(chan struct{})
	)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: killSubjects}}
	defer client.CloseIdleConnections()
	for w := range killSubjects {
		wg.Add(1)
		go func() {
			defer wg.Done()
			subject := fmt.Sprintf("kill-%d", w)
			for {
				n := steps[w] + 1
				schema := eventSchema(w, n)
				r, err := s.do(ctx, client, http.MethodPost, "/subjects/"+url.PathEscape(subject)+"/versions",
					map[string]string{"schema": schema})
				select {
				case <-killed:
					// After the kill nothing counts: an answer that
					// raced it is not recorded either way.
					if err == nil && r.Status == http.StatusOK {
						// The server answered before dying, so
						// this registration must be durable too.
						if rr, derr := decodeRegister(r.Body); derr == nil {
							mu.Lock()
							got = append(got, answered{subject, n, rr.ID, schema})
							steps[w] = n
							mu.Unlock()
						}
					}
					return
				default:
				}
				if err != nil {
					failures <- fmt.Sprintf("%s step %d before the kill: %v", subject, n, err)
					return
				}
				if r.Status != http.StatusOK {
					failures <- fmt.Sprintf("%s step %d: status %d, body %s", subject, n, r.Status, r.Body)
					return
				}
				rr, err := decodeRegister(r.Body)
				if err != nil {
					failures <- fmt.Sprintf("%s step %d: %v", subject, n, err)
					return
				}
				if rr.Version != 0 && rr.Version != n {
					failures <- fmt.Sprintf("%s step %d: response version %d, want %d", subject, n, rr.Version, n)
					return
				}
				mu.Lock()
				got = append(got, answered{subject, n, rr.ID, schema})
				steps[w] = n
				mu.Unlock()
				count.Add(1)
			}
		}()
	}

	deadline := time.After(30 * time.Second)
	for count.Load() < killAfter {
		select {
		case f := <-failures:
			close(killed)
			s.kill(t)
			wg.Wait()
			t.Fatalf("registration failed: %s", f)
		case <-deadline:
			close(killed)
			s.kill(t)
			wg.Wait()
			t.Fatalf("only %d registrations answered in 30s", count.Load())
		case <-time.After(2 * time.Millisecond):
		}
	}
	close(killed)
	s.kill(t)
	wg.Wait()
	close(failures)
	for f := range failures {
		// Errors racing the kill are expected; anything else is not.
		t.Logf("in flight at the kill: %s", f)
	}
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(got)
}

func decodeRegister(body []byte) (registerResponse, error) {
	var rr registerResponse
	if err := json.Unmarshal(body, &rr); err != nil {
		return rr, fmt.Errorf("decode register response %q: %w", body, err)
	}
	if rr.ID <= 0 {
		return rr, fmt.Errorf("register response %q has no positive id", body)
	}
	return rr, nil
}

// verifyAnswered requires every answered registration to be readable from
// the restarted server: by subject and version, by ID, and by lookup.
func verifyAnswered(t *testing.T, s *server, all []answered) {
	t.Helper()
	ids := map[int64]answered{}
	for _, a := range all {
		if prev, ok := ids[a.ID]; ok {
			t.Errorf("ID %d answered twice for different schemas: %s v%d and %s v%d", a.ID, prev.Subject, prev.Version, a.Subject, a.Version)
		}
		ids[a.ID] = a

		path := fmt.Sprintf("/subjects/%s/versions/%d", url.PathEscape(a.Subject), a.Version)
		v := decodeJSON[struct {
			Subject string `json:"subject"`
			Version int    `json:"version"`
			ID      int64  `json:"id"`
			Schema  string `json:"schema"`
		}](t, "GET "+path, s.mustDo(t, http.MethodGet, path, nil, http.StatusOK))
		if v.Subject != a.Subject || v.Version != a.Version || v.ID != a.ID {
			t.Errorf("GET %s = subject %q version %d id %d; answered before the kill: %q %d %d",
				path, v.Subject, v.Version, v.ID, a.Subject, a.Version, a.ID)
		}
		if same, err := sameJSON(v.Schema, a.Schema); err != nil || !same {
			t.Errorf("GET %s: schema %s, registered %s (%v)", path, v.Schema, a.Schema, err)
		}

		byID := decodeJSON[struct {
			Schema string `json:"schema"`
		}](t, "GET /schemas/ids", s.mustDo(t, http.MethodGet, fmt.Sprintf("/schemas/ids/%d", a.ID), nil, http.StatusOK))
		if same, err := sameJSON(byID.Schema, a.Schema); err != nil || !same {
			t.Errorf("GET /schemas/ids/%d: schema %s, registered %s (%v)", a.ID, byID.Schema, a.Schema, err)
		}

		lookup := decodeJSON[registerResponse](t, "lookup",
			s.mustDo(t, http.MethodPost, "/subjects/"+url.PathEscape(a.Subject), map[string]string{"schema": a.Schema}, http.StatusOK))
		if lookup.ID != a.ID || lookup.Version != a.Version {
			t.Errorf("POST /subjects/%s lookup: id %d version %d, want %d %d", a.Subject, lookup.ID, lookup.Version, a.ID, a.Version)
		}
	}
}

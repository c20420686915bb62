package clienttest

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// groupWriters is how many writers register at once in
// TestKill9MidBatchKeepsAnsweredRegistrations: enough that SQLite's group
// commit (registry/sqlite/group.go) shares each commit between several of
// them, so that the kill lands while a batch is open.
const groupWriters = 16

// TestKill9MidBatchKeepsAnsweredRegistrations registers distinct subjects
// from groupWriters writers at once, so that registrations share
// transactions and fsyncs, SIGKILLs the server while batches are in flight,
// restarts it and requires every registration answered 200 to be there
// with its ID, version and schema; a registration that was in a batch
// not yet committed was never answered, so nothing answered may be lost.
// Three rounds, killed after a different count each time.
func TestKill9MidBatchKeepsAnsweredRegistrations(t *testing.T) {
	s := startServer(t)
	db := s.DB
	var all []answered
	for round, killAfter := range []int64{97, 211, 333} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		var (
			mu     sync.Mutex
			got    []answered
			count  atomic.Int64
			killed = make(chan struct{})
			wg     sync.WaitGroup
			failed = make(chan string, groupWriters)
		)
		client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: groupWriters}}
		for w := range groupWriters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 1; ; n++ {
					subject := fmt.Sprintf("batch-%d-%d-%d", round, w, n)
					schema := eventSchema(100000*round+1000*w+n, 1) // a distinct schema, so a distinct ID
					r, err := s.do(ctx, client, http.MethodPost, "/subjects/"+subject+"/versions", map[string]string{"schema": schema})
					ok := err == nil && r.Status == http.StatusOK
					var rr registerResponse
					if ok {
						if rr, err = decodeRegister(r.Body); err != nil {
							ok = false
						}
					}
					select {
					case <-killed:
						if ok { // answered before the server died: must be durable
							mu.Lock()
							got = append(got, answered{subject, 1, rr.ID, schema})
							mu.Unlock()
						}
						return
					default:
					}
					if !ok {
						failed <- fmt.Sprintf("%s before the kill: %v %+v", subject, err, r)
						return
					}
					mu.Lock()
					got = append(got, answered{subject, 1, rr.ID, schema})
					mu.Unlock()
					count.Add(1)
				}
			}()
		}
		deadline := time.After(30 * time.Second)
	wait:
		for count.Load() < killAfter {
			select {
			case f := <-failed:
				close(killed)
				s.kill(t)
				wg.Wait()
				cancel()
				t.Fatalf("round %d: %s", round, f)
			case <-deadline:
				break wait
			case <-time.After(time.Millisecond):
			}
		}
		close(killed)
		s.kill(t)
		wg.Wait()
		cancel()
		client.CloseIdleConnections()
		if len(got) == 0 {
			t.Fatalf("round %d: no registration answered before the kill", round)
		}
		t.Logf("round %d: %d registrations answered before SIGKILL", round, len(got))
		all = append(all, got...)
		s = startServerDB(t, db)
		verifyAnswered(t, s, all)
	}
}

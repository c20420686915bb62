package clienttest

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"testing"
	"time"
)

// TestConcurrentRegistrationsAgree races many producers that auto-register
// the same schema at start-up, as a fleet of Confluent serializers does:
// every one must get the same ID, and each subject exactly one version.
func TestConcurrentRegistrationsAgree(t *testing.T) {
	s := startServer(t)
	const (
		writers  = 16
		subjects = 4
	)
	schema := eventSchema(7, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: writers}}
	defer client.CloseIdleConnections()

	ids := make([]int64, writers)
	errs := make([]error, writers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			subject := fmt.Sprintf("race-%d", w%subjects)
			r, err := s.do(ctx, client, http.MethodPost, "/subjects/"+subject+"/versions", map[string]string{"schema": schema})
			if err == nil && r.Status != http.StatusOK {
				err = fmt.Errorf("status %d, body %s", r.Status, r.Body)
			}
			if err == nil {
				var rr registerResponse
				rr, err = decodeRegister(r.Body)
				ids[w] = rr.ID
			}
			errs[w] = err
		}()
	}
	close(start)
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", w, err)
		}
		if ids[w] != ids[0] {
			t.Errorf("writer %d got id %d, writer 0 got %d: one schema must have one ID", w, ids[w], ids[0])
		}
	}
	for i := range subjects {
		path := fmt.Sprintf("/subjects/race-%d/versions", i)
		versions := decodeJSON[[]int](t, "GET "+path, s.mustDo(t, http.MethodGet, path, nil, http.StatusOK))
		if !reflect.DeepEqual(versions, []int{1}) {
			t.Errorf("GET %s = %v, want [1]", path, versions)
		}
	}
}

package upcast_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charter-dev/charter/upcast"
)

// orderLog is a mixed-version log: n events over keys k0..k(keys-1),
// versions cycling 1, 2, 3; seq numbers events per key in log order.
func orderLog(t testing.TB, n, keys int) []upcast.Event {
	t.Helper()
	var out []upcast.Event
	for i := range n {
		key := fmt.Sprintf("k%d", i%keys)
		id := fmt.Sprintf("e%d", i)
		cents := int64(i)
		var payload []byte
		switch i % 3 {
		case 0:
			payload = wire(1, encodeAvro(t, orderV1, map[string]any{"id": id, "customer": key, "totalCents": cents}))
		case 1:
			payload = wire(2, encodeAvro(t, orderV2, map[string]any{"orderId": id, "customer": map[string]any{"name": key, "email": nil}, "totalCents": cents}))
		case 2:
			payload = wire(3, encodeAvro(t, orderV3, map[string]any{"orderId": id, "customer": map[string]any{"name": key, "email": nil}, "amount": rat(fmt.Sprintf("%d/100", cents)), "currency": "EUR"}))
		}
		out = append(out, upcast.Event{ID: id, Key: key, Payload: payload})
	}
	return out
}

func TestReplayKeepsPerKeyOrder(t *testing.T) {
	t.Parallel()
	u := orderUpcaster(t)
	log := orderLog(t, 300, 7)
	var mu sync.Mutex
	seen := map[string][]string{}
	var progress []upcast.Progress
	st, err := upcast.Replay(t.Context(), u, upcast.Events(log), func(ctx context.Context, r *upcast.Result) error {
		v, err := r.Value()
		if err != nil {
			return err
		}
		key := v["customer"].(map[string]any)["name"].(string)
		if len(r.EventID)%2 == 0 {
			time.Sleep(50 * time.Microsecond) // shuffle the workers' timing
		}
		mu.Lock()
		seen[key] = append(seen[key], r.EventID)
		mu.Unlock()
		return nil
	}, upcast.WithConcurrency(4), upcast.WithTotal(300), upcast.WithProgress(func(p upcast.Progress) {
		mu.Lock()
		progress = append(progress, p)
		mu.Unlock()
	}, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	for key, ids := range seen {
		var want []string
		for _, ev := range log {
			if ev.Key == key {
				want = append(want, ev.ID)
			}
		}
		if fmt.Sprint(ids) != fmt.Sprint(want) {
			t.Errorf("key %s: sink saw %v, want log order %v", key, ids, want)
		}
	}
	if st.Events != 300 || st.Upcast != 200 || st.FastPath != 100 || st.Failed != 0 {
		t.Errorf("stats = %+v", st)
	}
	wantSteps := map[string]int64{"v1→v2 go(splitCustomer)": 100, "v2→v3 go(centsToAmount)": 200}
	if fmt.Sprint(st.Steps) != fmt.Sprint(wantSteps) {
		t.Errorf("steps = %v, want %v", st.Steps, wantSteps)
	}
	last := progress[len(progress)-1]
	if !last.Done || last.Events != 300 || last.Total != 300 {
		t.Errorf("last progress = %+v", last)
	}
}

func TestReplayFailures(t *testing.T) {
	t.Parallel()
	u := orderUpcaster(t)
	log := orderLog(t, 12, 3)
	log[3].Payload = wire(1, []byte{0x09}) // k0, truncated v1 event
	log[4].Payload = wire(42, nil)         // k1, unknown schema ID
	orig := string(log[3].Payload)

	t.Run("first failure stops without a dead letter", func(t *testing.T) {
		_, err := upcast.Replay(t.Context(), u, upcast.Events(log), func(context.Context, *upcast.Result) error { return nil }, upcast.WithConcurrency(1))
		var ue *upcast.Error
		if !errors.As(err, &ue) || ue.EventID != "e3" || !errors.Is(err, upcast.ErrDecode) {
			t.Errorf("err = %v, want the decode error of e3", err)
		}
	})
	t.Run("dead letter with parked keys", func(t *testing.T) {
		var mu sync.Mutex
		dead := map[string]error{}
		var sunk []string
		st, err := upcast.Replay(t.Context(), u, upcast.Events(log), func(_ context.Context, r *upcast.Result) error {
			mu.Lock()
			sunk = append(sunk, r.EventID)
			mu.Unlock()
			return nil
		}, upcast.WithConcurrency(3), upcast.WithParkKeys(true), upcast.WithDeadLetter(func(_ context.Context, ev upcast.Event, e *upcast.Error) error {
			mu.Lock()
			dead[ev.ID] = e
			mu.Unlock()
			if ev.ID == "e3" && string(ev.Payload) != orig {
				return errors.New("dead letter lost the original bytes")
			}
			return nil
		}))
		if err != nil {
			t.Fatal(err)
		}
		// e3 (k0) and e4 (k1) fail; later events of k0 and k1 are parked.
		var ids []string
		for id := range dead {
			ids = append(ids, id)
		}
		want := "e10 e3 e4 e6 e7 e9"
		if got := strings.Join(sorted(ids), " "); got != want {
			t.Errorf("dead letters %s, want %s", got, want)
		}
		if !errors.Is(dead["e6"], upcast.ErrParked) || !errors.Is(dead["e4"], upcast.ErrUnknownVersion) {
			t.Errorf("kinds: e6 %v, e4 %v", dead["e6"], dead["e4"])
		}
		if st.Failed != 6 || st.Events != 12 || len(sunk) != 6 || st.Failures["key parked after an earlier failure"] != 4 {
			t.Errorf("stats %+v, sunk %v", st, sunk)
		}
	})
	t.Run("sink error stops", func(t *testing.T) {
		st, err := upcast.Replay(t.Context(), u, upcast.Events(orderLog(t, 50, 5)), func(_ context.Context, r *upcast.Result) error {
			if r.EventID == "e7" {
				return errors.New("projection full")
			}
			return nil
		}, upcast.WithConcurrency(2))
		if err == nil || !strings.Contains(err.Error(), `replay: sink, event "e7": projection full`) || st.Events == 0 {
			t.Errorf("err = %v, stats %+v", err, st)
		}
	})
	t.Run("source error stops", func(t *testing.T) {
		var src iter.Seq2[upcast.Event, error] = func(yield func(upcast.Event, error) bool) {
			if yield(log[0], nil) {
				yield(upcast.Event{}, errors.New("disk gone"))
			}
		}
		_, err := upcast.Replay(t.Context(), u, src, func(context.Context, *upcast.Result) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "replay: read source: disk gone") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := upcast.Replay(ctx, u, upcast.Events(log), func(context.Context, *upcast.Result) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
	})
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestImportGraphStaysLight keeps replay jobs free of the server, SQL
// drivers and CLI libraries.
func TestImportGraphStaysLight(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/charter-dev/charter/upcast").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list printed %d packages; the guard would prove nothing", len(deps))
	}
	forbidden := []string{
		"github.com/charter-dev/charter/registry/api",
		"github.com/charter-dev/charter/registry/sqlite",
		"github.com/charter-dev/charter/cmd/",
		"github.com/charter-dev/charter/web",
		"modernc.org/",
		"github.com/mattn/go-sqlite3",
		"github.com/lib/pq",
		"github.com/jackc/",
		"github.com/spf13/cobra",
		"github.com/charmbracelet/lipgloss",
		"net/http/httptest",
	}
	for _, p := range deps {
		// database/sql/driver (interfaces only) comes with shopspring/decimal
		// through the JSONata engine; the SQL package itself must not.
		if p == "github.com/charter-dev/charter/registry" || p == "database/sql" {
			t.Errorf("upcast imports %s", p)
		}
		for _, f := range forbidden {
			if strings.HasPrefix(p, f) {
				t.Errorf("upcast imports %s", p)
			}
		}
	}
}

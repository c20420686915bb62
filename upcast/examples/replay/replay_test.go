package replay_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/sqlite"
	"github.com/charter-dev/charter/upcast"
	"github.com/charter-dev/charter/upcast/examples/replay"
)

func encode(text string, v map[string]any) []byte {
	s, err := avro.Parse(text, nil)
	if err != nil {
		panic(err)
	}
	b, err := s.API().Marshal(s.Hamba(), v)
	if err != nil {
		panic(err)
	}
	return b
}

// mixedLog is a log written over three years: the same customers'
// orders in all three generations, interleaved, framed with schema IDs
// ids[0..2].
func mixedLog(ids [3]int64) []upcast.Event {
	frame := func(id int64, b []byte) []byte { return append(upcast.AppendWire(nil, id), b...) }
	type order struct {
		version int
		id      string
		name    string
		email   string
		cents   int64
	}
	orders := []order{
		{1, "o-1", "Ada", "ada@example.com", 1250},
		{1, "o-2", "Bob", "", 999},
		{2, "o-3", "Ada", "", 50},
		{1, "o-4", "Cy", "cy@example.com", 100},
		{2, "o-5", "Bob", "bob@example.com", 1},
		{3, "o-6", "Ada", "ada@example.com", 10000},
		{3, "o-7", "Cy", "", 2},
		{2, "o-8", "Cy", "", 98},
	}
	var log []upcast.Event
	for _, o := range orders {
		var b []byte
		email := any(nil)
		if o.email != "" {
			email = o.email
		}
		switch o.version {
		case 1:
			c := o.name
			if o.email != "" {
				c += " <" + o.email + ">"
			}
			b = encode(replay.V1, map[string]any{"id": o.id, "customer": c, "totalCents": o.cents})
		case 2:
			b = encode(replay.V2, map[string]any{"orderId": o.id, "customer": map[string]any{"name": o.name, "email": email}, "totalCents": o.cents})
		case 3:
			b = encode(replay.V3, map[string]any{"orderId": o.id, "customer": map[string]any{"name": o.name, "email": email},
				"amount": big.NewRat(o.cents, 100), "currency": "EUR"})
		}
		log = append(log, upcast.Event{ID: o.id, Key: o.name, Payload: frame(ids[o.version-1], b)})
	}
	return log
}

const wantProjection = `Ada      ada@example.com      3 orders     113.00 EUR
Bob      bob@example.com      2 orders      10.00 EUR
Cy       cy@example.com       3 orders       2.00 EUR
`

func noDeadLetters(t *testing.T) upcast.DeadLetter {
	return func(_ context.Context, ev upcast.Event, err *upcast.Error) error {
		t.Errorf("event %s failed: %v", ev.ID, err)
		return nil
	}
}

func TestReplayWithGoSteps(t *testing.T) {
	t.Parallel()
	u, err := upcast.New(upcast.WithSource(replay.Source()), upcast.WithSteps(replay.Steps(false)), upcast.WithSubject(replay.Subject))
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Build(t.Context(), replay.Subject); err != nil {
		t.Fatal(err)
	}
	p, st, err := replay.Rebuild(t.Context(), u, mixedLog([3]int64{1, 2, 3}), noDeadLetters(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.String(); got != wantProjection {
		t.Errorf("projection:\n%s\nwant:\n%s", got, wantProjection)
	}
	want := map[string]int64{"v1→v2 go(splitCustomer)": 3, "v2→v3 go(centsToAmount)": 6}
	if fmt.Sprint(st.Steps) != fmt.Sprint(want) || st.Events != 8 || st.FastPath != 2 || st.Upcast != 6 {
		t.Errorf("stats = %+v", st)
	}
}

// TestReplayWithRegistryRules runs the same replay against the real
// registry, the v2→v3 step being v3's JSONata migration rule.
func TestReplayWithRegistryRules(t *testing.T) {
	t.Parallel()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewServer(api.New(registry.NewService(store, []compat.Format{avro.Format{}}, registry.WithLogger(log)), api.Options{Logger: log}))
	defer srv.Close()
	c, err := client.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := c.SetCompatibilityGroup(ctx, replay.Subject, "application.major.version"); err != nil {
		t.Fatal(err)
	}
	var ids [3]int64
	for i, s := range []client.NewSchema{
		{Text: replay.V1, Metadata: &client.Metadata{Properties: map[string]string{"application.major.version": "1"}}},
		{Text: replay.V2, Metadata: &client.Metadata{Properties: map[string]string{"application.major.version": "2"}}},
		{Text: replay.V3, Metadata: &client.Metadata{Properties: map[string]string{"application.major.version": "3"}},
			RuleSet: &client.RuleSet{MigrationRules: []client.Rule{replay.AmountRule}}},
	} {
		if ids[i], err = c.Register(ctx, replay.Subject, s); err != nil {
			t.Fatal(err)
		}
	}
	u, err := upcast.New(upcast.WithRegistry(c), upcast.WithSteps(replay.Steps(true)))
	if err != nil {
		t.Fatal(err)
	}
	if err := u.Build(ctx, replay.Subject); err != nil {
		t.Fatal(err)
	}
	p, st, err := replay.Rebuild(ctx, u, mixedLog(ids), noDeadLetters(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.String(); got != wantProjection {
		t.Errorf("projection:\n%s\nwant:\n%s", got, wantProjection)
	}
	if st.Steps["v2→v3 rule(centsToAmount)"] != 6 {
		t.Errorf("steps = %v, want 6 runs of the migration rule", st.Steps)
	}
}

func TestFailedEventsAreParkedWithTheirBytes(t *testing.T) {
	t.Parallel()
	u, _ := upcast.New(upcast.WithSource(replay.Source()), upcast.WithSteps(replay.Steps(false)), upcast.WithSubject(replay.Subject))
	log := mixedLog([3]int64{1, 2, 3})
	// Bob's first order has no name: the split fails, and Bob's later
	// order is parked behind it.
	log[1].Payload = append(upcast.AppendWire(nil, 1), encode(replay.V1, map[string]any{"id": "o-2", "customer": " <x@y>", "totalCents": int64(1)})...)
	var mu sync.Mutex
	parked := map[string]*upcast.Error{}
	stored := string(log[1].Payload)
	p, st, err := replay.Rebuild(t.Context(), u, log, func(_ context.Context, ev upcast.Event, e *upcast.Error) error {
		mu.Lock()
		defer mu.Unlock()
		parked[ev.ID] = e
		if ev.ID == "o-2" && string(ev.Payload) != stored {
			return errors.New("lost the stored bytes")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(parked) != 2 || !errors.Is(parked["o-2"], upcast.ErrStep) || !errors.Is(parked["o-5"], upcast.ErrParked) {
		t.Fatalf("parked = %v", parked)
	}
	if e := parked["o-2"]; e.Version != 1 || e.Step == nil || e.Step.Name != "splitCustomer" || !strings.Contains(e.Error(), `customer " <x@y>" has no name`) {
		t.Errorf("o-2 error = %v", e)
	}
	if strings.Contains(p.String(), "Bob") || st.Failed != 2 {
		t.Errorf("projection has Bob or stats wrong: %s %+v", p, st)
	}
}

func TestDowncastForV2Consumers(t *testing.T) {
	t.Parallel()
	u, _ := upcast.New(upcast.WithSource(replay.Source()), upcast.WithSteps(replay.Steps(false)),
		upcast.WithSubject(replay.Subject), upcast.WithTarget(replay.Subject, 2))
	for _, ev := range mixedLog([3]int64{1, 2, 3}) {
		r, err := u.Upcast(t.Context(), ev)
		if err != nil {
			t.Fatalf("%s: %v", ev.ID, err)
		}
		framed, err := r.Framed()
		if err != nil {
			t.Fatal(err)
		}
		// Every output is a v2 event a v2 consumer decodes.
		id, rest, _ := upcast.ParseWire(framed)
		var v map[string]any
		s, _ := avro.Parse(replay.V2, nil)
		if err := s.API().Unmarshal(s.Hamba(), rest, &v); id != 2 || err != nil {
			t.Fatalf("%s: id %d, %v", ev.ID, id, err)
		}
		if _, ok := v["totalCents"].(int64); !ok {
			t.Errorf("%s: %v", ev.ID, v)
		}
	}
}

// Example replays a mixed-version log of OrderPlaced into a projection
// that only knows the latest version.
func Example() {
	ctx := context.Background()
	u, err := upcast.New(
		upcast.WithSource(replay.Source()), // or upcast.WithRegistry(client)
		upcast.WithSteps(replay.Steps(false)),
		upcast.WithSubject(replay.Subject),
	)
	if err != nil {
		panic(err)
	}
	if err := u.Build(ctx, replay.Subject); err != nil { // gaps are found here
		panic(err)
	}
	p, st, err := replay.Rebuild(ctx, u, mixedLog([3]int64{1, 2, 3}), nil)
	if err != nil {
		panic(err)
	}
	fmt.Print(p)
	fmt.Println(st.Events, "events:", st.Upcast, "upcast,", st.FastPath, "already v3")
	// Output:
	// Ada      ada@example.com      3 orders     113.00 EUR
	// Bob      bob@example.com      2 orders      10.00 EUR
	// Cy       cy@example.com       3 orders       2.00 EUR
	// 8 events: 6 upcast, 2 already v3
}

func TestEuros(t *testing.T) {
	for _, cents := range []int64{0, 1, -1, 5, 20, 25, 50, 99, 100, -100, 250, -250, 1001, 123456, 1 << 62, -1 << 63, 1<<63 - 1} {
		want := new(big.Rat).SetFrac(big.NewInt(cents), big.NewInt(100))
		got := replay.Euros(cents)
		// String shows numerator/denominator: equal strings mean the same
		// lowest terms, as SetFrac normalises.
		if got.Cmp(want) != 0 || got.String() != want.String() {
			t.Errorf("Euros(%d) = %s, want %s", cents, got, want)
		}
	}
}

package upcast_test

import (
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/sqlite"
	"github.com/charter-dev/charter/upcast"
)

// Three generations of an order event (Avro).
const (
	orderV1 = `{"type":"record","name":"Order","namespace":"shop","fields":[
		{"name":"id","type":"string"},
		{"name":"customer","type":"string"},
		{"name":"totalCents","type":"long"}]}`
	orderV2 = `{"type":"record","name":"Order","namespace":"shop","fields":[
		{"name":"orderId","type":"string"},
		{"name":"customer","type":{"type":"record","name":"Customer","fields":[
			{"name":"name","type":"string"},{"name":"email","type":["null","string"],"default":null}]}},
		{"name":"totalCents","type":"long"}]}`
	orderV3 = `{"type":"record","name":"Order","namespace":"shop","fields":[
		{"name":"orderId","type":"string"},
		{"name":"customer","type":{"type":"record","name":"Customer","fields":[
			{"name":"name","type":"string"},{"name":"email","type":["null","string"],"default":null}]}},
		{"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":12,"scale":2}},
		{"name":"currency","type":"string","default":"EUR"}]}`
)

// orderSteps are the hand-written steps between the order generations.
func orderSteps(t testing.TB) *upcast.Steps {
	t.Helper()
	s := upcast.NewSteps()
	must(t, s.Register("orders", 1, 2, "splitCustomer", func(v map[string]any) (map[string]any, error) {
		v["orderId"] = v["id"]
		delete(v, "id")
		name, _ := v["customer"].(string)
		v["customer"] = map[string]any{"name": name, "email": nil}
		return v, nil
	}))
	must(t, s.Register("orders", 2, 3, "centsToAmount", func(v map[string]any) (map[string]any, error) {
		cents, _ := v["totalCents"].(int64)
		delete(v, "totalCents")
		v["amount"] = new(big.Rat).SetFrac64(cents, 100)
		return v, nil
	}))
	return s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// staticSource holds one subject's versions.
func staticSource(t testing.TB, subject string, typ compat.SchemaType, texts ...string) *upcast.StaticSource {
	t.Helper()
	src := &upcast.StaticSource{}
	for i, text := range texts {
		must(t, src.Add(client.SubjectSchema{Subject: subject, Version: i + 1, Schema: client.Schema{Type: typ, Text: text}}))
	}
	return src
}

// hambaSchemas caches parsed writer schemas for encoding test events,
// each encoded with its own hamba config (avro.Schema.API).
var hambaSchemas sync.Map

func encodeAvro(t testing.TB, text string, v map[string]any) []byte {
	t.Helper()
	s, ok := hambaSchemas.Load(text)
	if !ok {
		parsed, err := avro.Parse(text, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, _ = hambaSchemas.LoadOrStore(text, parsed)
	}
	as := s.(*avro.Schema)
	b, err := as.API().Marshal(as.Hamba(), v)
	if err != nil {
		t.Fatalf("encode %v: %v", v, err)
	}
	return b
}

func wire(id int64, payload []byte) []byte { return append(upcast.AppendWire(nil, id), payload...) }

// newRegistry runs the real registry handler (as `charter serve` builds
// it) over a fresh SQLite file; requests counts requests by path.
type testRegistry struct {
	*httptest.Server
	client *client.Client

	mu       sync.Mutex
	requests map[string]int
}

func newRegistry(t testing.TB) *testRegistry {
	t.Helper()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := registry.NewService(store, formats.Formats(), registry.WithLogger(log))
	h := api.New(svc, api.Options{Logger: log})
	tr := &testRegistry{requests: map[string]int{}}
	tr.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr.mu.Lock()
		tr.requests[r.Method+" "+r.URL.Path]++
		tr.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		tr.Close()
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	tr.client, err = client.New(tr.URL)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func (tr *testRegistry) count(key string) int {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.requests[key]
}

func (tr *testRegistry) register(t testing.TB, subject string, s client.NewSchema) int64 {
	t.Helper()
	id, err := tr.client.Register(t.Context(), subject, s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// clock is a manual clock for refresh intervals.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func fixedClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

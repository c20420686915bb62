package serve_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/command/serve"
	"github.com/charter-dev/charter/registry/postgres/pgtest"
)

// startServe runs serve.Run on db in the background until the benchmark
// ends and returns its base URL.
func startServe(b *testing.B, db string) string {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ready := make(chan string, 1)
	done := make(chan error, 1)
	cfg := serve.Config{Listen: "127.0.0.1:0", DB: db, MaxBodyBytes: 1 << 20, MaxSchema: 1 << 20}
	go func() { done <- serve.Run(ctx, cfg, log, func(a string) { ready <- a }) }()
	select {
	case a := <-ready:
		b.Cleanup(func() {
			cancel()
			if err := <-done; err != nil {
				b.Errorf("serve %s: %v", db, err)
			}
		})
		return "http://" + a
	case err := <-done:
		cancel()
		b.Fatalf("serve %s: %v", db, err)
		return ""
	}
}

// variant is one deployment under measure: its replicas' URLs, which
// requests alternate between.
type variant struct {
	name string
	urls []string
}

// BenchmarkStores compares, side by side in one run, the REST API over
// SQLite, over PostgreSQL with one replica and over PostgreSQL with two
// replicas (two servers on one schema, requests alternating between
// them), 8 concurrent keep-alive clients over loopback each:
//
//   - register: a new schema under a new subject per request;
//   - by-id: GET /schemas/ids/{id} (served from the by-ID answer cache);
//   - latest: GET /subjects/{s}/versions/latest (a store read per request).
//
// Each reports the request rates and the PostgreSQL/SQLite ratios. It
// needs REGISTRY_TEST_POSTGRES_DSN (registry/postgres/pgtest). Run with
//
//	go test -run '^$' -bench BenchmarkStores ./cmd/internal/command/serve/
func BenchmarkStores(b *testing.B) {
	dsn1, dsn2 := pgtest.DSN(b), pgtest.DSN(b) // a schema each
	variants := []variant{
		{"sqlite", []string{startServe(b, filepath.Join(b.TempDir(), "bench.db"))}},
		{"pg1", []string{startServe(b, dsn1)}},
		{"pg2", []string{startServe(b, dsn2), startServe(b, dsn2)}},
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}
	defer client.CloseIdleConnections()

	// Every variant gets the same fixture: one schema to read back.
	for _, v := range variants {
		if _, err := post(client, v.urls[0]+"/subjects/orders-value/versions", benchSchema("fixture")); err != nil {
			b.Fatal(err)
		}
	}
	var seq atomic.Int64
	ops := []struct {
		name string
		do   func(url string) error
	}{
		{"register", func(url string) error {
			n := seq.Add(1)
			_, err := post(client, fmt.Sprintf("%s/subjects/bench-%d/versions", url, n), benchSchema(fmt.Sprintf("R%d", n)))
			return err
		}},
		{"by-id", func(url string) error {
			_, err := fetch(client, url+"/schemas/ids/1")
			return err
		}},
		{"latest", func(url string) error {
			_, err := fetch(client, url+"/subjects/orders-value/versions/latest")
			return err
		}},
	}
	const workers = 8
	measure := func(b *testing.B, v variant, n int, do func(string) error) float64 {
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for w := range workers {
			wg.Go(func() {
				url := v.urls[w%len(v.urls)]
				for next.Add(1) <= int64(n) {
					if err := do(url); err != nil {
						b.Errorf("%s: %v", v.name, err)
						return
					}
				}
			})
		}
		wg.Wait()
		return float64(n) / time.Since(start).Seconds()
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			rates := make([]float64, len(variants))
			half := max(b.N/2, 1)
			// Alternate halves so that machine noise falls on every
			// variant alike.
			for range 2 {
				for i, v := range variants {
					rates[i] += measure(b, v, half, op.do) / 2
				}
			}
			for i, v := range variants {
				b.ReportMetric(rates[i], v.name+"-req/s")
			}
			b.ReportMetric(rates[1]/rates[0], "pg1/sqlite")
			b.ReportMetric(rates[2]/rates[0], "pg2/sqlite")
			b.ReportMetric(0, "ns/op") // the rates above are the figures
		})
	}
}

// benchSchema is a small Avro record named name.
func benchSchema(name string) string {
	return fmt.Sprintf(`{"schema":"{\"type\":\"record\",\"name\":\"%s\",\"namespace\":\"com.example\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"amount\",\"type\":\"double\"}]}"}`, name)
}

// post POSTs a JSON body and returns the body of a 200 answer.
func post(c *http.Client, url, body string) ([]byte, error) {
	resp, err := c.Post(url, "application/vnd.schemaregistry.v1+json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("POST %s: status %d: %s", url, resp.StatusCode, out)
	}
	return out, nil
}

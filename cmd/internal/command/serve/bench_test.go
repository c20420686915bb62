package serve_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/command/serve"
)

// BenchmarkSchemaByIDLoopback compares, in one run, GET /schemas/ids/{id}
// served by the real `charter serve` (SQLite store, request logging on,
// logs discarded) with a bare net/http handler returning the same bytes,
// both over loopback TCP with the same keep-alive clients. It reports
// both throughputs and their ratio (target: ratio >= 0.6).
func BenchmarkSchemaByIDLoopback(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ready := make(chan string, 1)
	done := make(chan error, 1)
	cfg := serve.Config{
		Listen:       "127.0.0.1:0",
		DB:           filepath.Join(b.TempDir(), "bench.db"),
		MaxBodyBytes: 1 << 20,
		MaxSchema:    1 << 20,
	}
	go func() { done <- serve.Run(ctx, cfg, log, func(a string) { ready <- a }) }()
	var charterURL string
	select {
	case a := <-ready:
		charterURL = "http://" + a
	case err := <-done:
		b.Fatalf("serve: %v", err)
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("serve: %v", err)
		}
	}()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}
	resp, err := client.Post(charterURL+"/subjects/orders-value/versions", "application/vnd.schemaregistry.v1+json",
		strings.NewReader(`{"schema":"{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"com.example\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"amount\",\"type\":\"double\"},{\"name\":\"currency\",\"type\":\"string\",\"default\":\"EUR\"}]}"}`))
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	want := get(b, client, charterURL+"/schemas/ids/1")

	// The bare handler answers the same bytes with the same header.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	bare := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
		_, _ = w.Write(want)
	})}
	go func() { _ = bare.Serve(ln) }()
	defer bare.Close()
	bareURL := "http://" + ln.Addr().String()
	if got := get(b, client, bareURL+"/schemas/ids/1"); !bytes.Equal(got, want) {
		b.Fatalf("bare server answers %s, want %s", got, want)
	}

	const workers = 8
	measure := func(url string, n int) float64 {
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= int64(n) {
					body, err := fetch(client, url)
					if err != nil || len(body) != len(want) {
						b.Errorf("GET %s: %v %s", url, err, body)
						return
					}
				}
			}()
		}
		wg.Wait()
		return float64(n) / time.Since(start).Seconds()
	}
	b.ResetTimer()
	// Alternate halves so that machine noise falls on both sides alike.
	half := max(b.N/2, 1)
	c1 := measure(charterURL+"/schemas/ids/1", half)
	b1 := measure(bareURL+"/schemas/ids/1", half)
	c2 := measure(charterURL+"/schemas/ids/1", half)
	b2 := measure(bareURL+"/schemas/ids/1", half)
	b.StopTimer()
	charterRPS, bareRPS := (c1+c2)/2, (b1+b2)/2
	b.ReportMetric(charterRPS, "charter-req/s")
	b.ReportMetric(bareRPS, "bare-req/s")
	b.ReportMetric(charterRPS/bareRPS, "ratio")
}

func get(b *testing.B, c *http.Client, url string) []byte {
	body, err := fetch(c, url)
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// fetch GETs url and returns the body of a 200 answer.
func fetch(c *http.Client, url string) ([]byte, error) {
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return body, fmt.Errorf("GET %s: status %d", url, resp.StatusCode)
	}
	return body, nil
}

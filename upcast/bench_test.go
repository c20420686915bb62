package upcast_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	hamba "github.com/hamba/avro/v2"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/upcast"
	"github.com/charter-dev/charter/upcast/examples/replay"
)

// JSON Schema generations of the order event, for the JSON benchmark.
const (
	jsonOrderV1 = `{"type":"object","properties":{"id":{"type":"string"},"customer":{"type":"string"},"totalCents":{"type":"integer"},"lines":{"type":"array"}},"required":["id","customer","totalCents"]}`
	jsonOrderV2 = `{"type":"object","properties":{"orderId":{"type":"string"},"customer":{"type":"object","properties":{"name":{"type":"string"},"email":{"type":["string","null"]}},"required":["name"]},"totalCents":{"type":"integer"},"lines":{"type":"array"}},"required":["orderId","customer","totalCents"]}`
	jsonOrderV3 = `{"type":"object","properties":{"orderId":{"type":"string"},"customer":{"type":"object","properties":{"name":{"type":"string"},"email":{"type":["string","null"]}},"required":["name"]},"amount":{"type":"number"},"currency":{"type":"string","default":"EUR"},"lines":{"type":"array"}},"required":["orderId","customer","amount"]}`
)

func jsonSteps() *upcast.Steps {
	s := upcast.NewSteps()
	s.MustRegister("orders", 1, 2, "split", func(v map[string]any) (map[string]any, error) {
		v["orderId"] = v["id"]
		delete(v, "id")
		v["customer"] = map[string]any{"name": v["customer"], "email": nil}
		return v, nil
	})
	s.MustRegister("orders", 2, 3, "amount", func(v map[string]any) (map[string]any, error) {
		cents, _ := v["totalCents"].(float64)
		delete(v, "totalCents")
		v["amount"] = cents / 100
		v["currency"] = "EUR"
		return v, nil
	})
	return s
}

func jsonEvents(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(fmt.Sprintf(`{"id":"o-%d","customer":"Customer %d","totalCents":%d,"lines":[{"sku":"A-%d","qty":2},{"sku":"B","qty":1}]}`, i, i%97, 1000+i, i))
	}
	return out
}

// BenchmarkJSONUpcast compares JSON events v1→v3 through the chain (two Go
// steps, validation against v3, encoding) with a plain decode and encode
// of the same events (target: the chain at ≥ 0.5 of the baseline's
// events/s).
func BenchmarkJSONUpcast(b *testing.B) {
	events := jsonEvents(1024)
	var base, chain float64
	b.Run("baseline-decode-encode", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			var m map[string]any
			if err := json.Unmarshal(events[i%len(events)], &m); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
		base = eventsPerSecond(b)
	})
	for _, mode := range []struct {
		name string
		v    upcast.Validation
	}{{"chain-v1-v3", upcast.ValidateTarget}, {"chain-v1-v3-novalidate", upcast.ValidateOff}} {
		b.Run(mode.name, func(b *testing.B) {
			u, err := upcast.New(upcast.WithSource(staticSource(b, "orders", compat.JSON, jsonOrderV1, jsonOrderV2, jsonOrderV3)),
				upcast.WithSteps(jsonSteps()), upcast.WithSubject("orders"), upcast.WithValidation(mode.v))
			must(b, err)
			must(b, u.Build(b.Context(), "orders"))
			ctx := b.Context()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				r, err := u.Upcast(ctx, upcast.Event{Version: 1, Payload: events[i%len(events)]})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r.Payload(); err != nil {
					b.Fatal(err)
				}
			}
			eps := eventsPerSecond(b)
			if mode.v == upcast.ValidateTarget {
				chain = eps
			}
			if base > 0 {
				b.ReportMetric(eps/base, "ratio-to-baseline")
			}
		})
	}
	if base > 0 && chain > 0 {
		b.Logf("JSON v1→v3 chain: %.0f events/s; baseline decode+encode: %.0f events/s; ratio %.2f (target ≥ 0.5)", chain, base, chain/base)
	}
}

// BenchmarkAvroUpcast compares Avro v1 bytes decoded and upcast to v3
// (two Go steps, conformed to v3) with a plain hamba decode of the same
// bytes (target: ≥ 0.7 of the baseline's events/s). The baseline is
// hamba.Unmarshal into a map[string]any, hamba's generic decoding and
// the faster of its two generic targets (any costs one allocation more);
// the chain's output is a map[string]any too, of the v3 shape.
func BenchmarkAvroUpcast(b *testing.B) {
	v1, err := avro.Parse(replay.V1, nil)
	must(b, err)
	payloads := make([][]byte, 1024)
	for i := range payloads {
		payloads[i] = encodeAvro(b, replay.V1, map[string]any{"id": fmt.Sprintf("o-%d", i), "customer": fmt.Sprintf("Customer %d <c%d@example.com>", i%97, i), "totalCents": int64(1000 + i)})
	}
	var base, chain float64
	b.Run("baseline-hamba-decode", func(b *testing.B) {
		s := v1.Hamba()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			var v map[string]any
			if err := hamba.Unmarshal(s, payloads[i%len(payloads)], &v); err != nil {
				b.Fatal(err)
			}
		}
		base = eventsPerSecond(b)
	})
	b.Run("chain-v1-v3-novalidate", func(b *testing.B) {
		u, err := upcast.New(upcast.WithSource(replay.Source()), upcast.WithSteps(replay.Steps(false)), upcast.WithSubject(replay.Subject), upcast.WithValidation(upcast.ValidateOff))
		must(b, err)
		ctx := b.Context()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			r, err := u.Upcast(ctx, upcast.Event{Version: 1, Payload: payloads[i%len(payloads)]})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := r.Value(); err != nil {
				b.Fatal(err)
			}
		}
		if eps := eventsPerSecond(b); base > 0 {
			b.ReportMetric(eps/base, "ratio-to-baseline")
		}
	})
	b.Run("chain-v1-v3", func(b *testing.B) {
		u, err := upcast.New(upcast.WithSource(replay.Source()), upcast.WithSteps(replay.Steps(false)), upcast.WithSubject(replay.Subject))
		must(b, err)
		must(b, u.Build(b.Context(), replay.Subject))
		ctx := b.Context()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			r, err := u.Upcast(ctx, upcast.Event{Version: 1, Payload: payloads[i%len(payloads)]})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := r.Value(); err != nil {
				b.Fatal(err)
			}
		}
		chain = eventsPerSecond(b)
		if base > 0 {
			b.ReportMetric(chain/base, "ratio-to-baseline")
		}
	})
	// The same chain machinery with light steps (a rename, then grouping two
	// fields into a record), to separate the library's cost from the
	// example steps' own (string parsing, big.Rat decimals).
	b.Run("chain-v1-v3-light-steps", func(b *testing.B) {
		const (
			l1 = `{"type":"record","name":"O","fields":[{"name":"id","type":"string"},{"name":"name","type":"string"},{"name":"email","type":"string"},{"name":"totalCents","type":"long"}]}`
			l2 = `{"type":"record","name":"O","fields":[{"name":"orderId","type":"string"},{"name":"name","type":"string"},{"name":"email","type":"string"},{"name":"totalCents","type":"long"}]}`
			l3 = `{"type":"record","name":"O","fields":[{"name":"orderId","type":"string"},{"name":"customer","type":{"type":"record","name":"C","fields":[{"name":"name","type":"string"},{"name":"email","type":"string"}]}},{"name":"totalCents","type":"long"},{"name":"currency","type":"string","default":"EUR"}]}`
		)
		steps := upcast.NewSteps()
		steps.MustRegister("o", 1, 2, "rename", func(v map[string]any) (map[string]any, error) {
			v["orderId"] = v["id"]
			delete(v, "id")
			return v, nil
		})
		steps.MustRegister("o", 2, 3, "group", func(v map[string]any) (map[string]any, error) {
			v["customer"] = map[string]any{"name": v["name"], "email": v["email"]}
			delete(v, "name")
			delete(v, "email")
			return v, nil
		})
		u, err := upcast.New(upcast.WithSource(staticSource(b, "o", compat.Avro, l1, l2, l3)), upcast.WithSteps(steps), upcast.WithSubject("o"))
		must(b, err)
		light := make([][]byte, 1024)
		for i := range light {
			light[i] = encodeAvro(b, l1, map[string]any{"id": fmt.Sprintf("o-%d", i), "name": fmt.Sprintf("Customer %d", i%97), "email": fmt.Sprintf("c%d@example.com", i), "totalCents": int64(1000 + i)})
		}
		l1s, err := avro.Parse(l1, nil)
		must(b, err)
		ctx := b.Context()
		var lbase float64
		b.Run("baseline-hamba-decode", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				var v map[string]any
				if err := hamba.Unmarshal(l1s.Hamba(), light[i%len(light)], &v); err != nil {
					b.Fatal(err)
				}
			}
			lbase = eventsPerSecond(b)
		})
		b.Run("chain", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				r, err := u.Upcast(ctx, upcast.Event{Version: 1, Payload: light[i%len(light)]})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r.Value(); err != nil {
					b.Fatal(err)
				}
			}
			if eps := eventsPerSecond(b); lbase > 0 {
				b.ReportMetric(eps/lbase, "ratio-to-baseline")
			}
		})
	})
	if base > 0 && chain > 0 {
		b.Logf("Avro v1→v3 chain: %.0f events/s; baseline hamba decode: %.0f events/s; ratio %.2f (target ≥ 0.7)", chain, base, chain/base)
	}
}

// BenchmarkWireDecodeParallel decodes wire-format events of all three
// versions from 8 goroutines: each event's subject comes from the schema
// ID cache, its version from the chain.
func BenchmarkWireDecodeParallel(b *testing.B) {
	var log [][]byte
	for i := range 999 {
		var p []byte
		switch i % 3 {
		case 0:
			p = encodeAvro(b, replay.V1, map[string]any{"id": "o", "customer": "C <c@x>", "totalCents": int64(i)})
		case 1:
			p = encodeAvro(b, replay.V2, map[string]any{"orderId": "o", "customer": map[string]any{"name": "C", "email": nil}, "totalCents": int64(i)})
		case 2:
			p = encodeAvro(b, replay.V3, map[string]any{"orderId": "o", "customer": map[string]any{"name": "C", "email": nil}, "amount": big.NewRat(int64(i), 100), "currency": "EUR"})
		}
		log = append(log, wire(int64(i%3+1), p))
	}
	u, err := upcast.New(upcast.WithSource(replay.Source()), upcast.WithSteps(replay.Steps(false)))
	must(b, err)
	ctx := b.Context()
	b.SetParallelism(max(1, 8/runtime.GOMAXPROCS(0)))
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(n.Add(1))
		for pb.Next() {
			i += 7
			r, err := u.Upcast(ctx, upcast.Event{Payload: log[i%len(log)]})
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := r.Value(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(max(1, 8/runtime.GOMAXPROCS(0))*runtime.GOMAXPROCS(0)), "goroutines")
}

// eventsPerSecond reports and returns the benchmark's events/s.
func eventsPerSecond(b *testing.B) float64 {
	eps := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(eps, "events/s")
	return eps
}

// pairBatch is how many events each side handles per turn in paired.
const pairBatch = 64

// paired runs base and chain in alternating batches of pairBatch events
// (the same events for both; which side goes first alternates too), so
// both see the same machine load on a shared machine. One b.N op is one
// batch of each side. It reports both rates and chain/baseline twice:
// from wall-clock time, and from the process's CPU time (Linux), which
// leaves out time other processes take and keeps the garbage collector's
// background work (split between the sides by when it runs, not by who
// allocated: the side allocating more is, if anything, favoured).
// Allocations per event are measured per side beforehand.
func paired(b *testing.B, base, chain func(i int)) {
	var k int
	ab := testing.AllocsPerRun(1000, func() { base(k); k++ })
	ac := testing.AllocsPerRun(1000, func() { chain(k); k++ })
	var wallB, wallC, cpuB, cpuC time.Duration
	cpuOK := true
	run := func(f func(int), from int, wall, cpu *time.Duration) {
		c0, ok0 := processCPU()
		t0 := time.Now()
		for i := from; i < from+pairBatch; i++ {
			f(i)
		}
		*wall += time.Since(t0)
		c1, ok1 := processCPU()
		*cpu += c1 - c0
		cpuOK = cpuOK && ok0 && ok1
	}
	n := 0
	for b.Loop() {
		if n%2 == 0 {
			run(base, n*pairBatch, &wallB, &cpuB)
			run(chain, n*pairBatch, &wallC, &cpuC)
		} else {
			run(chain, n*pairBatch, &wallC, &cpuC)
			run(base, n*pairBatch, &wallB, &cpuB)
		}
		n++
	}
	events := float64(n * pairBatch)
	// After the loop: b.Loop's first call resets reported metrics.
	b.ReportMetric(events/wallB.Seconds(), "baseline-events/s")
	b.ReportMetric(events/wallC.Seconds(), "chain-events/s")
	b.ReportMetric(wallB.Seconds()/wallC.Seconds(), "chain/baseline")
	if cpuOK && cpuC > 0 {
		b.ReportMetric(cpuB.Seconds()/cpuC.Seconds(), "chain/baseline-cpu")
	}
	b.ReportMetric(ab, "baseline-allocs/event")
	b.ReportMetric(ac, "chain-allocs/event")
}

// BenchmarkPairedJSON is BenchmarkJSONUpcast's comparison, interleaved:
// target chain/baseline ≥ 0.5.
func BenchmarkPairedJSON(b *testing.B) {
	events := jsonEvents(1024)
	u, err := upcast.New(upcast.WithSource(staticSource(b, "orders", compat.JSON, jsonOrderV1, jsonOrderV2, jsonOrderV3)),
		upcast.WithSteps(jsonSteps()), upcast.WithSubject("orders"))
	must(b, err)
	ctx := b.Context()
	paired(b, func(i int) {
		var m map[string]any
		if err := json.Unmarshal(events[i%len(events)], &m); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}, func(i int) {
		var r upcast.Result
		if err := u.UpcastInto(ctx, upcast.Event{Version: 1, Payload: events[i%len(events)]}, &r); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Payload(); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkPairedAvro is BenchmarkAvroUpcast's comparison, interleaved:
// target chain/baseline ≥ 0.7. Both sides read the same v1 bytes; the
// baseline decodes them with hamba.Unmarshal into a map[string]any, the
// chain returns a map[string]any of v3. decode-only is a subject with v1
// only, so Value decodes on the fast path: the library's decoder and
// per-event overhead, without steps or validation. by-hand is no
// library at all: the baseline's decode followed by the example's two
// steps, what a job without upcast would run for the same output.
func BenchmarkPairedAvro(b *testing.B) {
	v1, err := avro.Parse(replay.V1, nil)
	must(b, err)
	payloads := make([][]byte, 1024)
	for i := range payloads {
		payloads[i] = encodeAvro(b, replay.V1, map[string]any{"id": fmt.Sprintf("o-%d", i), "customer": fmt.Sprintf("Customer %d <c%d@example.com>", i%97, i), "totalCents": int64(1000 + i)})
	}
	for _, mode := range []struct {
		name string
		v    upcast.Validation
		src  upcast.Source
	}{
		{"validate", upcast.ValidateTarget, replay.Source()},
		{"novalidate", upcast.ValidateOff, replay.Source()},
		{"decode-only", upcast.ValidateTarget, staticSource(b, replay.Subject, compat.Avro, replay.V1)},
	} {
		b.Run(mode.name, func(b *testing.B) {
			u, err := upcast.New(upcast.WithSource(mode.src), upcast.WithSteps(replay.Steps(false)), upcast.WithSubject(replay.Subject), upcast.WithValidation(mode.v))
			must(b, err)
			ctx := b.Context()
			s := v1.Hamba()
			paired(b, func(i int) {
				var v map[string]any
				if err := hamba.Unmarshal(s, payloads[i%len(payloads)], &v); err != nil {
					b.Fatal(err)
				}
			}, func(i int) {
				// Into a Result of the caller's, as the baseline decodes into
				// a variable of the caller's.
				var r upcast.Result
				if err := u.UpcastInto(ctx, upcast.Event{Version: 1, Payload: payloads[i%len(payloads)]}, &r); err != nil {
					b.Fatal(err)
				}
				if _, err := r.Value(); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
	// implicit: a subject whose v2 only adds a field with a default, so
	// v1 bytes reach v2 by reader/writer resolution while decoding, with
	// no step at all.
	b.Run("implicit", func(b *testing.B) {
		const v2 = `{"type":"record","name":"OrderPlaced","namespace":"com.acme.orders","fields":[
			{"name":"id","type":"string"},
			{"name":"customer","type":"string"},
			{"name":"totalCents","type":"long"},
			{"name":"currency","type":"string","default":"EUR"}]}`
		u, err := upcast.New(upcast.WithSource(staticSource(b, replay.Subject, compat.Avro, replay.V1, v2)), upcast.WithSubject(replay.Subject))
		must(b, err)
		ctx := b.Context()
		s := v1.Hamba()
		paired(b, func(i int) {
			var v map[string]any
			if err := hamba.Unmarshal(s, payloads[i%len(payloads)], &v); err != nil {
				b.Fatal(err)
			}
		}, func(i int) {
			var r upcast.Result
			if err := u.UpcastInto(ctx, upcast.Event{Version: 1, Payload: payloads[i%len(payloads)]}, &r); err != nil {
				b.Fatal(err)
			}
			if _, err := r.Value(); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("by-hand", func(b *testing.B) {
		s := v1.Hamba()
		decode := func(i int) map[string]any {
			var v map[string]any
			if err := hamba.Unmarshal(s, payloads[i%len(payloads)], &v); err != nil {
				b.Fatal(err)
			}
			return v
		}
		paired(b, func(i int) { decode(i) }, func(i int) {
			v, err := replay.SplitCustomer(decode(i))
			if err == nil {
				_, err = replay.CentsToAmount(v)
			}
			if err != nil {
				b.Fatal(err)
			}
		})
	})
}

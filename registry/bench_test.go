package registry_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry"
)

// versionedRecord returns version v of a 20-field record whose versions
// differ in one field's default: every pair is FULL compatible.
func versionedRecord(v int) string {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"Order","namespace":"com.example","fields":[`)
	for i := range 19 {
		fmt.Fprintf(&b, `{"name":"f%d","type":["null","string"],"default":null},`, i)
	}
	fmt.Fprintf(&b, `{"name":"note","type":"string","default":"v%d"}]}`, v)
	return b.String()
}

// BenchmarkRegisterFullTransitive1000 registers a new version under
// FULL_TRANSITIVE against 1,000 previous versions (target: < 50 ms).
// "warm" is a running server (parsed schemas cached); "cold" is the first
// registration after a restart, which parses all 1,000.
func BenchmarkRegisterFullTransitive1000(b *testing.B) {
	ctx := context.Background()
	store := openStore(b)
	formats := []compat.Format{avro.Format{}}
	setup := registry.NewService(store, formats)
	if _, err := setup.SetConfig(ctx, "", levelUpdate(compat.None)); err != nil {
		b.Fatal(err)
	}
	const previous = 1000
	for v := 1; v <= previous; v++ {
		mustRegister(b, setup, "orders-value", registry.RegisterRequest{Schema: versionedRecord(v)})
	}
	if _, err := setup.SetConfig(ctx, "orders-value", levelUpdate(compat.FullTransitive)); err != nil {
		b.Fatal(err)
	}
	next := previous
	register := func(b *testing.B, svc *registry.Service) {
		next++
		ss := mustRegister(b, svc, "orders-value", registry.RegisterRequest{Schema: versionedRecord(next)})
		if ss.Version != next {
			b.Fatalf("version %d, want %d", ss.Version, next)
		}
	}
	b.Run("warm", func(b *testing.B) {
		svc := registry.NewService(store, formats)
		register(b, svc) // fill the parsed cache
		b.ResetTimer()
		start := time.Now()
		for range b.N {
			register(b, svc)
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/register")
	})
	b.Run("cold", func(b *testing.B) {
		start := time.Now()
		for range b.N {
			register(b, registry.NewService(store, formats))
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/register")
	})
}

// BenchmarkRegisterGovernance registers new versions of a 20-field record
// (BACKWARD, the default level) with governance (the engine evaluates and
// records every registration) and without it (a store whose transactions
// hide GovernanceTx), to show what governance costs per registration.
func BenchmarkRegisterGovernance(b *testing.B) {
	for _, tc := range []struct {
		name     string
		governed bool
	}{{"governed", true}, {"plain", false}} {
		b.Run(tc.name, func(b *testing.B) {
			var store registry.Store = openStore(b)
			if !tc.governed {
				store = noGovStore{store}
			}
			svc := registry.NewService(store, []compat.Format{avro.Format{}})
			mustRegister(b, svc, "orders-value", registry.RegisterRequest{Schema: versionedRecord(0)})
			b.ResetTimer()
			start := time.Now()
			for i := range b.N {
				mustRegister(b, svc, "orders-value", registry.RegisterRequest{Schema: versionedRecord(i + 1)})
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/register")
		})
	}
}

// growingRecord is version n of a record that grows by one optional
// field per version (bench's chain): field 1 is a long, fields 2..n
// optional strings with a null default.
func growingRecord(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"Bench","namespace":"dev.charter.bench","fields":[{"name":"id","type":"long"}`)
	for i := 2; i <= n; i++ {
		fmt.Fprintf(&b, `,{"name":"f%d","type":["null","string"],"default":null}`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// BenchmarkRegisterGrowingRecord registers version 1,001 and on of a
// record growing by one optional field per version at FULL_TRANSITIVE
// (issue 18: version 1,000 under 50 ms), the 1,000 earlier versions
// registered at NONE by another Service, so that the one measured
// starts with nothing cached: its first registration (not counted)
// builds the subject's summary.
func BenchmarkRegisterGrowingRecord(b *testing.B) {
	ctx := context.Background()
	store := openStore(b)
	formats := []compat.Format{avro.Format{}}
	setup := registry.NewService(store, formats, registry.WithParsedCacheBytes(-1))
	if _, err := setup.SetConfig(ctx, "chain", levelUpdate(compat.None)); err != nil {
		b.Fatal(err)
	}
	const previous = 1000
	for v := 1; v <= previous; v++ {
		mustRegister(b, setup, "chain", registry.RegisterRequest{Schema: growingRecord(v)})
	}
	if _, err := setup.SetConfig(ctx, "chain", levelUpdate(compat.FullTransitive)); err != nil {
		b.Fatal(err)
	}
	svc := registry.NewService(store, formats)
	next := previous + 1
	start := time.Now()
	mustRegister(b, svc, "chain", registry.RegisterRequest{Schema: growingRecord(next)})
	first := time.Since(start)
	b.ResetTimer() // which drops the metrics reported so far
	start = time.Now()
	for range b.N {
		next++
		mustRegister(b, svc, "chain", registry.RegisterRequest{Schema: growingRecord(next)})
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/register")
	b.ReportMetric(float64(first.Microseconds())/1000, "ms/first")
}

// BenchmarkRegisterDistinctSubjects registers a small record under a new
// subject each time from 8 goroutines (bench's registration load, without
// HTTP), SQLite with group commit.
func BenchmarkRegisterDistinctSubjects(b *testing.B) {
	svc := registry.NewService(openStore(b), []compat.Format{avro.Format{}})
	var next atomic.Int64
	b.SetParallelism(4) // 8 goroutines on 2 cores
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := next.Add(1)
			schema := fmt.Sprintf(`{"type":"record","name":"R%d","namespace":"dev.charter.bench","fields":[{"name":"id","type":"long"},{"name":"v%d","type":"string","default":""}]}`, i, i)
			if _, err := svc.Register(context.Background(), fmt.Sprintf("bench-%d", i), registry.RegisterRequest{Schema: schema}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "registrations/s")
}

// BenchmarkGrowingChainMemory registers versions 1 to 1,000 of the
// growing record at FULL_TRANSITIVE in a fresh Service and reports the
// live heap after (issue 18: the server under 300 MB resident after the
// chain); -memprofile then shows what holds it (inuse_space).
func BenchmarkGrowingChainMemory(b *testing.B) {
	for range b.N {
		ctx := context.Background()
		svc := registry.NewService(openStore(b), []compat.Format{avro.Format{}})
		if _, err := svc.SetConfig(ctx, "chain", levelUpdate(compat.FullTransitive)); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		var last time.Duration
		for v := 1; v <= 1000; v++ {
			t := time.Now()
			mustRegister(b, svc, "chain", registry.RegisterRequest{Schema: growingRecord(v)})
			last = time.Since(t)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if path := os.Getenv("CHARTER_BENCH_HEAP_PROFILE"); path != "" {
			// What the Service holds after the chain (go tool pprof).
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.WriteHeapProfile(f); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
		runtime.KeepAlive(svc)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MB-heap-after")
		b.ReportMetric(float64(last.Microseconds())/1000, "ms/v1000")
		b.ReportMetric(time.Since(start).Seconds(), "s/chain")
	}
}

package registry_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry"
)

// ruleRecorder keeps the rule IDs of every Register verdict.
type ruleRecorder struct {
	mu    sync.Mutex
	rules [][]string
}

func (r *ruleRecorder) Verdict(v registry.Verdict) {
	if v.Source != registry.VerdictRegister {
		return
	}
	ids := []string{}
	for _, f := range v.Findings {
		ids = append(ids, f.RuleID)
	}
	r.mu.Lock()
	r.rules = append(r.rules, ids)
	r.mu.Unlock()
}

func (r *ruleRecorder) StoreOp(string, bool, time.Duration, error) {}

func (r *ruleRecorder) last() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.rules) == 0 {
		return nil
	}
	return r.rules[len(r.rules)-1]
}

// incompatibleRecord is versionedRecord with its note an int without a
// default: incompatible with every earlier version at FULL.
func incompatibleRecord() string {
	return strings.Replace(versionedRecord(0), `{"name":"note","type":"string","default":"v0"}`, `{"name":"note","type":"int"}`, 1)
}

// TestColdSummaryBuiltOutsideWriteTransaction (issue 18): after a
// restart (a new Service on the same store), the first registration into
// a long FULL_TRANSITIVE subject builds the subject's summary in a read
// transaction, not in the write transaction all registrations share: a
// registration to another subject completes while the build is held,
// concurrent registrations to the cold subject build it once, and the
// verdicts are those of a warm summary and of the full comparison.
func TestColdSummaryBuiltOutsideWriteTransaction(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	formats := []compat.Format{avro.Format{}}
	setup := registry.NewService(store, formats)
	if _, err := setup.SetConfig(ctx, "chain", levelUpdate(compat.None)); err != nil {
		t.Fatal(err)
	}
	const n = 300
	for v := 1; v <= n; v++ {
		mustRegister(t, setup, "chain", registry.RegisterRequest{Schema: versionedRecord(v)})
	}
	if _, err := setup.SetConfig(ctx, "chain", levelUpdate(compat.FullTransitive)); err != nil {
		t.Fatal(err)
	}

	// (b) The verdict on an incompatible version: in full (no summary),
	// through a cold summary (built outside), then through it warm.
	bad := registry.RegisterRequest{Schema: incompatibleRecord()}
	verdict := func(svc *registry.Service) (string, []string) {
		rec := &ruleRecorder{}
		svc.Observe(rec)
		_, err := svc.Register(ctx, "chain", bad)
		if err == nil {
			t.Fatal("the incompatible version was registered")
		}
		return err.Error(), rec.last()
	}
	fullErr, fullRules := verdict(registry.NewService(store, []compat.Format{plainAvro{}}))
	if len(fullRules) == 0 {
		t.Fatal("no rule in the full comparison's verdict")
	}
	restarted := registry.NewService(store, formats)
	var builds atomic.Int32
	registry.SetSummaryWarmHook(func(string) { builds.Add(1) })
	t.Cleanup(func() { registry.SetSummaryWarmHook(nil) })
	coldErr, coldRules := verdict(restarted)
	warmErr, warmRules := verdict(restarted)
	if builds.Load() != 1 {
		t.Fatalf("%d summary builds outside the write transaction, want 1", builds.Load())
	}
	for name, got := range map[string][2]any{"cold": {coldErr, coldRules}, "warm": {warmErr, warmRules}} {
		if got[0] != fullErr || !slices.Equal(got[1].([]string), fullRules) {
			t.Fatalf("%s summary: %v %v\nin full: %v %v", name, got[0], got[1], fullErr, fullRules)
		}
	}

	// (a) Another restart: the build is held until another subject's
	// registration has completed.
	svc := registry.NewService(store, formats)
	entered, release := make(chan struct{}), make(chan struct{})
	builds.Store(0)
	registry.SetSummaryWarmHook(func(subject string) {
		if builds.Add(1) == 1 {
			close(entered)
			<-release
		}
	})
	type result struct {
		ss  registry.SubjectSchema
		err error
	}
	chain := make(chan result, 2)
	register := func(v int) {
		ss, err := svc.Register(ctx, "chain", registry.RegisterRequest{Schema: versionedRecord(v)})
		chain <- result{ss, err}
	}
	go register(n + 1)
	select {
	case <-entered:
	case r := <-chain:
		t.Fatalf("the cold registration did not build its summary outside: %v %v", r.ss, r.err)
	case <-time.After(time.Minute):
		t.Fatal("the cold registration did not start building its summary")
	}
	go register(n + 2) // waits for the build under way, or finds it done
	other := make(chan error, 1)
	go func() {
		_, err := svc.Register(ctx, "other", registry.RegisterRequest{Schema: versionedRecord(1)})
		other <- err
	}()
	select {
	case err := <-other:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		close(release)
		t.Fatal("another subject's registration waited for the summary's build")
	}
	close(release)
	versions := []int{}
	for range 2 {
		r := <-chain
		if r.err != nil {
			t.Fatal(r.err)
		}
		versions = append(versions, r.ss.Version)
	}
	slices.Sort(versions)
	if !slices.Equal(versions, []int{n + 1, n + 2}) {
		t.Fatalf("versions %v, want %d and %d", versions, n+1, n+2)
	}
	if got := builds.Load(); got != 1 {
		t.Fatalf("%d summary builds for two concurrent registrations, want 1", got)
	}
	// Versions n+1 and n+2 came through the summary built outside: the
	// verdict is still the full comparison's.
	fullErr, fullRules = verdict(registry.NewService(store, []compat.Format{plainAvro{}}))
	if gotErr, gotRules := verdict(svc); gotErr != fullErr || !slices.Equal(gotRules, fullRules) {
		t.Fatalf("after the build: %v %v\nin full: %v %v", gotErr, gotRules, fullErr, fullRules)
	}
}

// slotTimer sums the durations of the Service's write transactions.
type slotTimer struct{ write atomic.Int64 }

func (*slotTimer) Verdict(registry.Verdict) {}
func (s *slotTimer) StoreOp(_ string, write bool, d time.Duration, _ error) {
	if write {
		s.write.Add(int64(d))
	}
}

// BenchmarkColdFirstRegistration (issue 18): the first registration
// into a 1,000-version FULL_TRANSITIVE subject after a restart, with a
// registration to another subject started as it begins: ms/first is the
// cold registration's latency, ms/write its time in write transactions
// (the write slot every subject shares), ms/other the other subject's
// latency (the same store, through another Service); "record" is a
// 20-field record, "growing" the record growing by a field per version
// (bench's chain).
func BenchmarkColdFirstRegistration(b *testing.B) {
	b.Run("record", func(b *testing.B) { benchColdFirst(b, versionedRecord) })
	b.Run("growing", func(b *testing.B) { benchColdFirst(b, growingRecord) })
}

func benchColdFirst(b *testing.B, schema func(v int) string) {
	ctx := context.Background()
	store := openStore(b)
	formats := []compat.Format{avro.Format{}}
	setup := registry.NewService(store, formats, registry.WithParsedCacheBytes(-1))
	if _, err := setup.SetConfig(ctx, "orders-value", levelUpdate(compat.None)); err != nil {
		b.Fatal(err)
	}
	const previous = 1000
	for v := 1; v <= previous; v++ {
		mustRegister(b, setup, "orders-value", registry.RegisterRequest{Schema: schema(v)})
	}
	if _, err := setup.SetConfig(ctx, "orders-value", levelUpdate(compat.FullTransitive)); err != nil {
		b.Fatal(err)
	}
	// The other registration goes through another Service on the
	// store, whose write slot they share, so that ms/write counts only
	// the cold registration's.
	otherSvc := registry.NewService(store, formats)
	next := previous
	var first, write, other time.Duration
	b.ResetTimer()
	for i := range b.N {
		svc := registry.NewService(store, formats) // a restart
		timer := &slotTimer{}
		svc.Observe(timer)
		next++
		done := make(chan time.Duration, 1)
		go func() {
			time.Sleep(20 * time.Millisecond) // the cold registration has started
			start := time.Now()
			mustRegister(b, otherSvc, fmt.Sprintf("other-%d", i), registry.RegisterRequest{Schema: versionedRecord(1)})
			done <- time.Since(start)
		}()
		start := time.Now()
		mustRegister(b, svc, "orders-value", registry.RegisterRequest{Schema: schema(next)})
		first += time.Since(start)
		other += <-done
		write += time.Duration(timer.write.Load())
	}
	n := float64(b.N)
	b.ReportMetric(float64(first.Microseconds())/1000/n, "ms/first")
	b.ReportMetric(float64(write.Microseconds())/1000/n, "ms/write")
	b.ReportMetric(float64(other.Microseconds())/1000/n, "ms/other")
}

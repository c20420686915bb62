package evidence

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
)

func bigEnum(n int) string {
	syms := make([]string, n)
	for i := range syms {
		syms[i] = fmt.Sprintf("%q", fmt.Sprintf("S%d", i))
	}
	return `{"type":"record","name":"R","fields":[{"name":"x","type":{"type":"enum","name":"E","symbols":[` + strings.Join(syms, ",") + `]}}]}`
}

// TestResolveNotStartedPastTheBound: a 60000-symbol enum minus one,
// under the registry's 2 s bound, starts no hamba resolution (it cannot
// be stopped and costs the square of the symbols), answers at once with
// the reason, and leaves no goroutine running.
func TestResolveNotStartedPastTheBound(t *testing.T) {
	prev, err := avro.Parse(bigEnum(60000), nil)
	if err != nil {
		t.Fatal(err)
	}
	next, err := avro.Parse(bigEnum(59999), nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	goroutines := runtime.NumGoroutine()
	started := resolutionsStarted.Load()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	t0 := time.Now()
	rep, err := Check(ctx, compat.Full, next, []compat.Previous{{Version: 1, Schema: prev}}, Options{})
	took := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	if took > time.Second {
		t.Errorf("took %v", took)
	}
	if n := resolutionsStarted.Load() - started; n != 0 {
		t.Errorf("%d resolutions started past the bound", n)
	}
	if len(rep.Pairs) != 2 {
		t.Fatalf("pairs %+v", rep.Pairs)
	}
	for _, p := range rep.Pairs {
		if p.Result.Events != 0 || p.Result.NotRead != "enum E has 60000 symbols: too large to resolve within the evidence time bound" {
			t.Errorf("%s: %+v", p.Direction, p.Result)
		}
	}
	cancel()
	time.Sleep(50 * time.Millisecond)
	if n := runtime.NumGoroutine(); n > goroutines {
		t.Errorf("%d goroutines before, %d after", goroutines, n)
	}
}

// TestResolveCostFitsTheTime: the estimate grows with writer × reader
// symbols, and without a deadline every resolution fits (nothing is
// abandoned, the caller waits).
func TestResolveCostFitsTheTime(t *testing.T) {
	w, _ := avro.Parse(bigEnum(3000), nil)
	r, _ := avro.Parse(bigEnum(2000), nil)
	if got := resolveCost(r.Hamba(), w.Hamba()); got != 3000*2000 {
		t.Errorf("cost %d", got)
	}
	if !fitsTime(context.Background(), 1<<62) {
		t.Error("no deadline: want fits")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if !fitsTime(ctx, 3000*2000) || fitsTime(ctx, 60000*59999) {
		t.Error("2 s: want 3000×2000 to fit and 60000×59999 not")
	}
}

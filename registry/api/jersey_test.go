package api

import (
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// gatherJersey collects w's gauges by name (without the common prefix).
func gatherJersey(t *testing.T, w *jerseyWindow) map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(w)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		out[f.GetName()[len("kafka_schema_registry_jersey_metrics_"):]] = f.Metric[0].GetGauge().GetValue()
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestJerseyWindow: the jersey-metrics gauges cover the current sample
// and the one before it (30 s each), rates are per second over at least
// one sample, percentiles are bucket bounds, and an idle minute empties
// them.
func TestJerseyWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	w := newJerseyWindow(func() time.Time { return now })
	for range 99 {
		w.record(200, time.Millisecond)
	}
	w.record(500, 500*time.Millisecond)
	now = t0.Add(10 * time.Second)
	got := gatherJersey(t, w)
	bound1ms := 0.1 * math.Pow(1.25, 11) // the first bucket bound above 1 ms
	for name, want := range map[string]float64{
		"request_rate": 100.0 / 30, "request_error_rate": 1.0 / 30,
		"request_latency_avg": 5.99, "request_latency_95": bound1ms, "request_latency_99": bound1ms,
		"request_latency_max": 500,
	} {
		if !near(got[name], want) {
			t.Errorf("%s = %v, want %v", name, got[name], want)
		}
	}
	// A second sample 40 s on: both count, over the 45 s they cover.
	now = t0.Add(40 * time.Second)
	w.record(200, 2*time.Millisecond)
	now = t0.Add(45 * time.Second)
	if got := gatherJersey(t, w); !near(got["request_rate"], 101.0/45) || !near(got["request_latency_max"], 500) {
		t.Errorf("two samples: rate %v (want %v), max %v (want 500)", got["request_rate"], 101.0/45, got["request_latency_max"])
	}
	// The first sample leaves the window after 60 s.
	now = t0.Add(65 * time.Second)
	if got := gatherJersey(t, w); !near(got["request_rate"], 1.0/30) || !near(got["request_latency_max"], 2) {
		t.Errorf("after 65 s: rate %v (want %v), max %v (want 2)", got["request_rate"], 1.0/30, got["request_latency_max"])
	}
	// An idle minute and more: everything 0.
	now = t0.Add(3 * time.Minute)
	for name, v := range gatherJersey(t, w) {
		if v != 0 {
			t.Errorf("idle: %s = %v, want 0", name, v)
		}
	}
}

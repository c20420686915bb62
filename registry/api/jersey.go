package api

import (
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// jerseyWindow keeps the recent-request gauges that Confluent Schema
// Registry reports as its global jersey-metrics MBean (request-rate,
// request-error-rate, request-latency-avg/-95/-99/-max) and that its
// JMX exporter configuration turns into kafka_schema_registry_
// jersey_metrics_* (the request-rate and p99 panels of Confluent's
// Grafana dashboard query them). As Kafka's metrics do, the values cover
// two samples of jerseySample each: the current one and the one before
// it; latencies are in milliseconds, percentiles are read from
// exponential buckets (each bound 25% above the last).
type jerseyWindow struct {
	now func() time.Time

	mu      sync.Mutex
	samples [2]jerseyStats
	cur     int

	rate, errorRate, latAvg, lat95, lat99, latMax *prometheus.Desc
}

// jerseySample is the length of one sample of jerseyWindow (Kafka's
// default metrics.sample.window.ms).
const jerseySample = 30 * time.Second

// jerseyBuckets are the latency bucket bounds in ms: 0.1 ms to about 65 s.
var jerseyBuckets = func() []float64 {
	out := make([]float64, 61)
	for i := range out {
		out[i] = 0.1 * math.Pow(1.25, float64(i))
	}
	return out
}()

type jerseyStats struct {
	start         time.Time
	count, errors int
	sumMs, maxMs  float64
	buckets       []int // len(jerseyBuckets)+1: the last one is above every bound
}

func newJerseyWindow(now func() time.Time) *jerseyWindow {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("kafka_schema_registry_jersey_metrics_"+name, help, nil, nil)
	}
	return &jerseyWindow{
		now:       now,
		rate:      d("request_rate", "Requests per second over the last 30 to 60 s (Confluent's jersey-metrics request-rate)."),
		errorRate: d("request_error_rate", "Answers of 400 and above per second over the last 30 to 60 s (request-error-rate)."),
		latAvg:    d("request_latency_avg", "Mean request latency in ms over the last 30 to 60 s (request-latency-avg); 0 without requests."),
		lat95:     d("request_latency_95", "95th percentile request latency in ms over the last 30 to 60 s (request-latency-95)."),
		lat99:     d("request_latency_99", "99th percentile request latency in ms over the last 30 to 60 s (request-latency-99)."),
		latMax:    d("request_latency_max", "Highest request latency in ms over the last 30 to 60 s (request-latency-max)."),
	}
}

// roll makes the current sample the one that holds t, dropping samples
// that ended before the window; mu is held.
func (w *jerseyWindow) roll(t time.Time) {
	s := &w.samples[w.cur]
	if s.buckets != nil && t.Sub(s.start) < jerseySample {
		return
	}
	if s.buckets != nil && t.Sub(s.start) >= 2*jerseySample {
		w.samples[1-w.cur] = jerseyStats{}
	}
	if s.buckets != nil {
		w.cur = 1 - w.cur
	}
	w.samples[w.cur] = jerseyStats{start: t, buckets: make([]int, len(jerseyBuckets)+1)}
}

// record counts one answer with status code that took d.
func (w *jerseyWindow) record(code int, d time.Duration) {
	ms := float64(d) / float64(time.Millisecond)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.roll(w.now())
	s := &w.samples[w.cur]
	s.count++
	if code >= 400 {
		s.errors++
	}
	s.sumMs += ms
	s.maxMs = max(s.maxMs, ms)
	i := 0
	for i < len(jerseyBuckets) && ms > jerseyBuckets[i] {
		i++
	}
	s.buckets[i]++
}

// Describe sends the descriptors (prometheus.Collector).
func (w *jerseyWindow) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{w.rate, w.errorRate, w.latAvg, w.lat95, w.lat99, w.latMax} {
		ch <- d
	}
}

// Collect sends the gauges over the samples still in the window.
func (w *jerseyWindow) Collect(ch chan<- prometheus.Metric) {
	now := w.now()
	w.mu.Lock()
	var (
		count, errors int
		sumMs, maxMs  float64
		oldest        time.Time
		buckets       = make([]int, len(jerseyBuckets)+1)
	)
	for _, s := range w.samples {
		if s.buckets == nil || now.Sub(s.start) >= 2*jerseySample {
			continue
		}
		if oldest.IsZero() || s.start.Before(oldest) {
			oldest = s.start
		}
		count += s.count
		errors += s.errors
		sumMs += s.sumMs
		maxMs = max(maxMs, s.maxMs)
		for i, n := range s.buckets {
			buckets[i] += n
		}
	}
	w.mu.Unlock()
	// As Kafka's Rate: over the time the samples cover, at least one
	// sample's length.
	elapsed := max(now.Sub(oldest), jerseySample).Seconds()
	percentile := func(p float64) float64 {
		if count == 0 {
			return 0
		}
		want, seen := int(math.Ceil(p*float64(count))), 0
		for i, n := range buckets {
			if seen += n; seen >= want {
				if i == len(jerseyBuckets) {
					return maxMs
				}
				return min(jerseyBuckets[i], maxMs)
			}
		}
		return maxMs
	}
	avg := 0.0
	if count > 0 {
		avg = sumMs / float64(count)
	}
	for _, g := range []struct {
		d *prometheus.Desc
		v float64
	}{
		{w.rate, float64(count) / elapsed}, {w.errorRate, float64(errors) / elapsed},
		{w.latAvg, avg}, {w.lat95, percentile(.95)}, {w.lat99, percentile(.99)}, {w.latMax, maxMs},
	} {
		ch <- prometheus.MustNewConstMetric(g.d, prometheus.GaugeValue, g.v)
	}
}

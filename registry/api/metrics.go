package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/pii"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/srerr"
)

// MetricsOptions configures GET /metrics (Prometheus text format).
type MetricsOptions struct {
	// Public serves /metrics without credentials when authentication is
	// on (Prometheus scrapers often have none); by default it is a read
	// endpoint, like the rest of the API.
	Public bool
	// PerSubject adds charter_subject_versions{subject,schema_type}, one
	// series per subject: off by default, since a registry may hold many
	// thousands of subjects.
	PerSubject bool
	// StateTTL is how long the gauges read from the store (schemas,
	// subjects and versions, deprecations, extensions, contracts, PII
	// findings) are reused before a scrape reads them again (default
	// DefaultMetricsStateTTL): however many scrapers there are, the store
	// is read at most once per StateTTL.
	StateTTL time.Duration
}

// DefaultMetricsStateTTL is the default MetricsOptions.StateTTL.
const DefaultMetricsStateTTL = 10 * time.Second

// metricsStateTimeout bounds each part of a state refresh; a part that
// does not finish in time is left out of that scrape and counted in
// charter_metrics_state_errors_total.
const metricsStateTimeout = 5 * time.Second

// Buckets of the latency histograms, in seconds.
var (
	requestBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	storeBuckets   = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}
)

// metrics is the handler's Prometheus registry and what feeds it: the
// HTTP middleware (per route), the Service (registry.Observer: verdicts and
// store transactions) and a collector that reads the store at scrape time.
type metrics struct {
	reg     *prometheus.Registry
	handler http.Handler

	requests   *prometheus.CounterVec
	durations  *prometheus.HistogramVec
	inFlight   prometheus.Gauge
	apiSuccess prometheus.Counter
	apiFailure prometheus.Counter

	checks    *prometheus.CounterVec
	findings  *prometheus.CounterVec
	storeTime *prometheus.HistogramVec
	storeErrs *prometheus.CounterVec

	state  *stateCollector
	jersey *jerseyWindow

	// unmatched are the routeMetrics of requests that reached no route
	// (answered before routing, or by the fallback), by method.
	unmatchedMu sync.Mutex
	unmatched   map[string]*routeMetrics
	// preflight are the metrics of CORS preflights (cors.go).
	preflight *routeMetrics
}

func newMetrics(s *server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), unmatched: map[string]*routeMetrics{}}
	m.preflight = &routeMetrics{m: m, route: "cors-preflight", method: http.MethodOptions}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "charter_http_requests_total",
		Help: "HTTP requests answered, by route pattern, method and status code.",
	}, []string{"route", "method", "code"})
	m.durations = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "charter_http_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by route pattern, method and status code.",
		Buckets: requestBuckets,
	}, []string{"route", "method", "code"})
	m.inFlight = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "charter_http_requests_in_flight",
		Help: "HTTP requests being answered.",
	})
	m.apiSuccess = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "kafka_schema_registry_api_success_count",
		Help: "API calls answered with a status below 400 (Confluent's JMX api-success-count).",
	})
	m.apiFailure = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "kafka_schema_registry_api_failure_count",
		Help: "API calls answered with a status of 400 or more (Confluent's JMX api-failure-count).",
	})
	m.checks = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "charter_compatibility_checks_total",
		Help: "Compatibility verdicts on a schema compared with at least one earlier version, by source (register, check, dry_run), schema type and verdict (compatible, incompatible).",
	}, []string{"source", "schema_type", "verdict"})
	m.findings = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "charter_compatibility_findings_total",
		Help: "Compatibility findings of those verdicts, by source, schema type and rule ID (charter rules lists them).",
	}, []string{"source", "schema_type", "rule_id"})
	m.storeTime = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "charter_store_transaction_duration_seconds",
		Help:    "Time of a store transaction, by operation and kind (read or write).",
		Buckets: storeBuckets,
	}, []string{"operation", "kind"})
	m.storeErrs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "charter_store_errors_total",
		Help: "Store transactions that failed (answered 50001), by operation and kind; refusals such as 409 are not errors.",
	}, []string{"operation", "kind"})
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "charter_build_info",
		Help:        "Always 1; the labels name the running build.",
		ConstLabels: prometheus.Labels{"version": s.opts.Version, "commit": s.opts.Commit},
	})
	build.Set(1)
	m.state = newStateCollector(s)
	m.jersey = newJerseyWindow(time.Now)
	m.reg.MustRegister(m.requests, m.durations, m.inFlight, m.apiSuccess, m.apiFailure,
		m.checks, m.findings, m.storeTime, m.storeErrs, build, m.state, m.jersey,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{s}, ErrorHandling: promhttp.ContinueOnError})
	return m
}

// slogPrinter passes promhttp's errors to the server's log.
type slogPrinter struct{ s *server }

func (p slogPrinter) Println(v ...any) {
	p.s.log.Error("serve metrics", "error", strings.TrimSuffix(fmt.Sprintln(v...), "\n"))
}

// serveMetrics: GET /metrics. The store-derived gauges are refreshed
// first (at most once per StateTTL).
func (s *server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	s.metrics.state.refresh(r.Context())
	s.metrics.handler.ServeHTTP(w, r)
}

// Verdict counts a compatibility verdict (registry.Observer).
func (m *metrics) Verdict(v registry.Verdict) {
	if v.Compared == 0 {
		return
	}
	typ := string(v.Type)
	verdict := "compatible"
	if !v.Compatible() {
		verdict = "incompatible"
	}
	m.checks.WithLabelValues(v.Source, typ, verdict).Inc()
	for _, f := range v.Findings {
		m.findings.WithLabelValues(v.Source, typ, f.RuleID).Inc()
	}
}

// StoreOp times a store transaction (registry.Observer).
func (m *metrics) StoreOp(op string, write bool, d time.Duration, err error) {
	kind := "read"
	if write {
		kind = "write"
	}
	m.storeTime.WithLabelValues(op, kind).Observe(d.Seconds())
	if err != nil && !isAPIError(err) && !errors.Is(err, context.Canceled) {
		m.storeErrs.WithLabelValues(op, kind).Inc()
	}
}

// isAPIError reports whether err is an answer (an srerr code) rather
// than a failure.
func isAPIError(err error) bool {
	var api *srerr.APIError
	var sentinel *srerr.Error
	return errors.As(err, &api) || errors.As(err, &sentinel)
}

// routeMetrics are the request metrics of one route pattern, with the
// children of each status code resolved once.
type routeMetrics struct {
	m             *metrics
	route, method string
	codes         sync.Map // int → *codeMetrics
}

type codeMetrics struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// route returns the routeMetrics of pattern ("GET /subjects/{subject}").
func (m *metrics) route(pattern string) *routeMetrics {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		method, path = "", pattern
	}
	return &routeMetrics{m: m, route: path, method: method}
}

// unmatchedRoute returns the routeMetrics of requests with method that no
// route answered; unusual methods share one series.
func (m *metrics) unmatchedRoute(method string) *routeMetrics {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
	default:
		method = "other"
	}
	m.unmatchedMu.Lock()
	defer m.unmatchedMu.Unlock()
	rm, ok := m.unmatched[method]
	if !ok {
		rm = &routeMetrics{m: m, route: "unmatched", method: method}
		m.unmatched[method] = rm
	}
	return rm
}

// observe counts one answer with status code that took d.
func (rm *routeMetrics) observe(code int, d time.Duration) {
	c, ok := rm.codes.Load(code)
	if !ok {
		status := strconv.Itoa(code)
		c, _ = rm.codes.LoadOrStore(code, &codeMetrics{
			requests: rm.m.requests.WithLabelValues(rm.route, rm.method, status),
			duration: rm.m.durations.WithLabelValues(rm.route, rm.method, status),
		})
	}
	cm := c.(*codeMetrics)
	cm.requests.Inc()
	cm.duration.Observe(d.Seconds())
	if code < 400 {
		rm.m.apiSuccess.Inc()
	} else {
		rm.m.apiFailure.Inc()
	}
	rm.m.jersey.record(code, d)
}

// piiSuspects is the optional Governance capability the untagged PII
// gauge reads: the PII_UNTAGGED findings of every subject's latest
// version, dismissals left out.
type piiSuspects interface {
	PIISuspects(ctx context.Context, subject string) ([]rule.Finding, error)
}

// deprecationWindows are the days_left buckets of charter_deprecations.
var deprecationWindows = []struct {
	label   string
	maxDays int // inclusive; -1: no bound
}{{"expired", 0}, {"1-7", 7}, {"8-30", 30}, {"31-90", 90}, {"91+", -1}}

// state is one reading of the store-derived gauges.
type state struct {
	inv          *registry.Inventory
	deprecations map[string]int // by days_left window
	extensions   int
	extended     int            // expired items still allowed by an extension
	contracts    map[string]int // by verification: ok, broken
	piiUntagged  int
	piiKnown     bool
	governed     bool
	took         map[string]time.Duration // by part
}

// stateCollector reports the store-derived gauges from the last reading.
type stateCollector struct {
	s     *server
	types []compat.SchemaType
	ttl   time.Duration

	mu   sync.Mutex // held by refresh: one reading at a time
	cur  *state
	read time.Time

	errs *prometheus.CounterVec

	schemas, subjects, versions, subjectVersions *prometheus.Desc
	deprecations, extensions, extended           *prometheus.Desc
	contracts, piiUntagged, took                 *prometheus.Desc
	registered, deleted, role, nodes             *prometheus.Desc
	created, deletedByType                       *prometheus.Desc
}

func newStateCollector(s *server) *stateCollector {
	ttl := s.opts.Metrics.StateTTL
	if ttl <= 0 {
		ttl = DefaultMetricsStateTTL
	}
	c := &stateCollector{s: s, types: s.svc.Types(), ttl: ttl}
	c.errs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "charter_metrics_state_errors_total",
		Help: "Readings of the store-derived gauges that failed or timed out, by part (inventory, deprecations, contracts, pii); the part is left out of that scrape.",
	}, []string{"part"})
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	c.schemas = d("charter_schemas", "Schema IDs held by at least one version (live or soft-deleted), by schema type.", "schema_type")
	c.subjects = d("charter_subjects", "Subjects with a live version, by the schema type of their latest version.", "schema_type")
	c.versions = d("charter_versions", "Subject versions, by schema type and state (live, soft_deleted).", "schema_type", "state")
	c.subjectVersions = d("charter_subject_versions", "Live versions of one subject (serve --metrics-per-subject).", "subject", "schema_type")
	c.deprecations = d("charter_deprecations", "Deprecated fields and versions, by days left before they expire (expired, 1-7, 8-30, 31-90, 91+).", "days_left")
	c.extensions = d("charter_deprecation_extensions", "Running extensions granted to consumers of deprecated items.")
	c.extended = d("charter_deprecations_extended", "Expired deprecations still allowed by a running extension.")
	c.contracts = d("charter_contracts", "Published consumer contracts, by the verification against the subject's version at publication (ok, broken).", "verification")
	c.piiUntagged = d("charter_pii_untagged_findings", "Fields of latest versions that look like personal data and carry no PII tag ("+pii.RuleUntagged+"), reviewed dismissals left out.")
	c.took = d("charter_metrics_state_read_seconds", "Time the last reading of each part of the store-derived gauges took.", "part")
	c.registered = d("kafka_schema_registry_registered_count", "Versions registered and not permanently deleted, soft-deleted ones included (Confluent's JMX registered-count).")
	c.deleted = d("kafka_schema_registry_deleted_count", "Soft-deleted versions (Confluent's JMX deleted-count).")
	c.role = d("kafka_schema_registry_master_slave_role", "1: this node takes writes. Every Charter replica does (writes are serialised in the database), so always 1.")
	c.nodes = d("kafka_schema_registry_node_count", "Schema Registry nodes this node knows of: 1 (Charter replicas do not track each other).")
	// Named as Confluent's JMX exporter configuration names its
	// <type>-schemas-created and -deleted MBeans (jmx-monitoring-stacks'
	// confluent_schemaregistry.yml), which its Grafana dashboards query by
	// schema_type.
	c.created = d("kafka_schema_registry_schemas_created", "Versions registered and not permanently deleted, by schema type (avro, json, protobuf; Confluent's JMX <type>-schemas-created).", "schema_type")
	c.deletedByType = d("kafka_schema_registry_schemas_deleted", "Soft-deleted versions, by schema type (Confluent's JMX <type>-schemas-deleted).", "schema_type")
	return c
}

// confluentTypeName is the schema_type label of Confluent's per-type JMX
// metrics.
func confluentTypeName(t compat.SchemaType) string {
	switch t {
	case compat.Avro:
		return "avro"
	case compat.JSON:
		return "json"
	case compat.Protobuf:
		return "protobuf"
	}
	return ""
}

// Describe sends every descriptor (prometheus.Collector).
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.schemas, c.subjects, c.versions, c.subjectVersions, c.deprecations,
		c.extensions, c.extended, c.contracts, c.piiUntagged, c.took, c.registered, c.deleted, c.role, c.nodes,
		c.created, c.deletedByType} {
		ch <- d
	}
	c.errs.Describe(ch)
}

// refresh reads the state again when the last reading is older than the
// TTL. Concurrent scrapes wait for one reading.
func (c *stateCollector) refresh(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil && time.Since(c.read) < c.ttl {
		return
	}
	st := &state{took: map[string]time.Duration{}}
	part := func(name string, fn func(ctx context.Context) error) {
		ctx, cancel := context.WithTimeout(ctx, metricsStateTimeout)
		defer cancel()
		start := time.Now()
		err := fn(ctx)
		st.took[name] = time.Since(start)
		if err != nil {
			c.errs.WithLabelValues(name).Inc()
			if ctx.Err() == nil || !errors.Is(err, context.Canceled) {
				c.s.log.WarnContext(ctx, "metrics: reading the state failed; left out of this scrape", "part", name, "error", err.Error())
			}
		}
	}
	svc := c.s.svc
	part("inventory", func(ctx context.Context) error {
		inv, err := svc.Inventory(ctx, registry.InventoryOptions{BySubject: c.s.opts.Metrics.PerSubject})
		if err == nil {
			st.inv = &inv
		}
		return err
	})
	part("deprecations", func(ctx context.Context) error {
		ds, err := svc.Governance().AllDeprecations(ctx)
		if err != nil {
			return err
		}
		st.governed = true
		st.deprecations = map[string]int{}
		for _, d := range ds {
			st.deprecations[deprecationWindow(d.DaysLeft)]++
			st.extensions += len(d.Consumers)
			if d.DaysLeft == 0 && d.ExtendedUntil != nil {
				st.extended++
			}
		}
		return nil
	})
	if st.governed {
		part("contracts", func(ctx context.Context) error {
			cs, err := svc.ContractRegistry().Contracts(ctx, "")
			if err != nil {
				return err
			}
			st.contracts = map[string]int{"ok": 0, "broken": 0}
			for _, r := range cs {
				if r.Verification.Broken() {
					st.contracts["broken"]++
				} else {
					st.contracts["ok"]++
				}
			}
			return nil
		})
		if ps, ok := any(svc.Governance()).(piiSuspects); ok {
			part("pii", func(ctx context.Context) error {
				fs, err := ps.PIISuspects(ctx, "")
				if err == nil {
					st.piiUntagged, st.piiKnown = len(fs), true
				}
				return err
			})
		}
	}
	c.cur, c.read = st, time.Now()
}

// deprecationWindow is the days_left bucket of an item with days left.
func deprecationWindow(days int) string {
	for _, w := range deprecationWindows {
		if w.maxDays < 0 || days <= w.maxDays {
			return w.label
		}
	}
	return deprecationWindows[len(deprecationWindows)-1].label
}

// Collect sends the last reading (prometheus.Collector).
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	c.errs.Collect(ch)
	gauge := func(d *prometheus.Desc, v int, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
	gauge(c.role, 1)
	gauge(c.nodes, 1)
	c.mu.Lock()
	st := c.cur
	c.mu.Unlock()
	if st == nil {
		return
	}
	for part, d := range st.took {
		ch <- prometheus.MustNewConstMetric(c.took, prometheus.GaugeValue, d.Seconds(), part)
	}
	if inv := st.inv; inv != nil {
		registered, deleted := 0, 0
		for _, t := range c.types {
			live, del := inv.LiveVersions[t], inv.DeletedVersions[t]
			registered += live + del
			deleted += del
			gauge(c.schemas, inv.Schemas[t], string(t))
			gauge(c.subjects, inv.Subjects[t], string(t))
			gauge(c.versions, live, string(t), "live")
			gauge(c.versions, del, string(t), "soft_deleted")
			if name := confluentTypeName(t); name != "" {
				gauge(c.created, live+del, name)
				gauge(c.deletedByType, del, name)
			}
		}
		gauge(c.registered, registered)
		gauge(c.deleted, deleted)
		for subject, sc := range inv.BySubject {
			gauge(c.subjectVersions, sc.LiveVersions, subject, string(sc.Type))
		}
	}
	if st.deprecations != nil {
		for _, w := range deprecationWindows {
			gauge(c.deprecations, st.deprecations[w.label], w.label)
		}
		gauge(c.extensions, st.extensions)
		gauge(c.extended, st.extended)
	}
	for _, v := range []string{"ok", "broken"} {
		if st.contracts != nil {
			gauge(c.contracts, st.contracts[v], v)
		}
	}
	if st.piiKnown {
		gauge(c.piiUntagged, st.piiUntagged)
	}
}

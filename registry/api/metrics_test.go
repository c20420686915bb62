package api_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/sqlite"
)

// metricsEnv is the API over all three formats with a fixed clock.
type metricsEnv struct {
	t   *testing.T
	h   http.Handler
	log *bytes.Buffer
}

func newMetricsEnv(t *testing.T, opts ...func(*api.Options)) *metricsEnv {
	t.Helper()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	svc := registry.NewService(store, formats.Formats(), registry.WithLogger(log),
		registry.WithClock(func() time.Time { return apiDay0 }))
	o := api.Options{Logger: log, Version: "v-test", Commit: "abc123", Metrics: api.MetricsOptions{StateTTL: time.Nanosecond}}
	for _, f := range opts {
		f(&o)
	}
	return &metricsEnv{t: t, h: api.New(svc, o), log: &logs}
}

// send sends a request and returns its status.
func (e *metricsEnv) send(method, path, body string) int {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec.Code
}

// expect sends a request that must answer want.
func (e *metricsEnv) expect(want int, method, path, body string) {
	e.t.Helper()
	if got := e.send(method, path, body); got != want {
		e.t.Fatalf("%s %s: status %d, want %d", method, path, got, want)
	}
}

// scrape GETs /metrics and parses it: "name{k="v",...}" (labels sorted)
// → value; a histogram gives name_count and name_sum.
func (e *metricsEnv) scrape() map[string]float64 {
	e.t.Helper()
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		e.t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		e.t.Errorf("GET /metrics: Content-Type %q", ct)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		e.t.Fatalf("parse /metrics: %v", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.Metric {
			key := name + labelKey(m.Label)
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[key] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[key] = m.GetGauge().GetValue()
			case dto.MetricType_UNTYPED:
				out[key] = m.GetUntyped().GetValue()
			case dto.MetricType_HISTOGRAM:
				out[name+"_count"+labelKey(m.Label)] = float64(m.GetHistogram().GetSampleCount())
				out[name+"_sum"+labelKey(m.Label)] = m.GetHistogram().GetSampleSum()
			}
		}
	}
	return out
}

func labelKey(ls []*dto.LabelPair) string {
	if len(ls) == 0 {
		return ""
	}
	parts := make([]string, 0, len(ls))
	for _, l := range ls {
		parts = append(parts, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	sort.Strings(parts)
	return "{" + strings.Join(parts, ",") + "}"
}

const (
	metOrder1   = `{"type":"record","name":"Order","fields":[{"name":"id","type":"long"}]}`
	metOrder2   = `{"type":"record","name":"Order","fields":[{"name":"id","type":"long"},{"name":"note","type":"string","default":""}]}`
	metOrderBad = `{"type":"record","name":"Order","fields":[{"name":"id","type":"long"},{"name":"note","type":"string","default":""},{"name":"due","type":"string"}]}`
	metJSON     = `{"type":"object","properties":{"sku":{"type":"string"},"email":{"type":"string"}}}`
	metProto    = "syntax = \"proto3\";\npackage acme;\nmessage Parcel { string id = 1; }\n"
)

// TestMetricsAfterWorkload runs a scripted workload and checks that GET
// /metrics shows exactly the counts it implies: requests by route, method
// and status, Confluent's JMX names, compatibility verdicts by rule ID,
// schemas, subjects and versions by type, governance gauges and store
// timings.
func TestMetricsAfterWorkload(t *testing.T) {
	e := newMetricsEnv(t)
	// Registrations: orders-value v1 (nothing to compare), v2 (compatible),
	// a refused v3 (409: a field without a default under BACKWARD), and
	// v2 again (an existing version: not judged).
	e.expect(200, "POST", "/subjects/orders-value/versions", schemaBody(metOrder1))
	e.expect(200, "POST", "/subjects/orders-value/versions", schemaBody(metOrder2))
	e.expect(409, "POST", "/subjects/orders-value/versions", schemaBody(metOrderBad))
	e.expect(200, "POST", "/subjects/orders-value/versions", schemaBody(metOrder2))
	// One JSON Schema and one Protobuf subject; parcels gets a second
	// version under NONE (not a comparison).
	e.expect(200, "POST", "/subjects/skus-value/versions", schemaBody(metJSON, `"schemaType":"JSON"`))
	e.expect(200, "PUT", "/config/parcels-value", `{"compatibility":"NONE"}`)
	e.expect(200, "POST", "/subjects/parcels-value/versions", schemaBody(metProto, `"schemaType":"PROTOBUF"`))
	e.expect(200, "POST", "/subjects/parcels-value/versions", schemaBody(strings.Replace(metProto, "string id", "int64 id", 1), `"schemaType":"PROTOBUF"`))
	// Compatibility checks: one compatible, one not, one against an
	// empty subject (nothing compared: not counted).
	e.expect(200, "POST", "/compatibility/subjects/orders-value/versions/latest", schemaBody(metOrder2))
	e.expect(200, "POST", "/compatibility/subjects/orders-value/versions/latest", schemaBody(metOrderBad))
	e.expect(200, "POST", "/compatibility/subjects/nobody-value/versions", schemaBody(metOrder1))
	// Soft-delete parcels v1.
	e.expect(200, "DELETE", "/subjects/parcels-value/versions/1", "")
	// Reads, one of them a miss.
	for range 3 {
		e.expect(200, "GET", "/schemas/ids/1", "")
	}
	e.expect(404, "GET", "/subjects/nope/versions", "")
	// Governance: a deprecation with 30 days left, an extension, a
	// contract.
	e.expect(200, "POST", "/governance/subjects/orders-value/deprecations", `{"path":".note","reason":"unused","ttlDays":30}`)
	e.expect(200, "POST", "/governance/subjects/orders-value/deprecations/field:.note/extensions",
		`{"consumer":"billing","days":10,"reason":"migrating","approver":"lead"}`)
	e.expect(200, "POST", "/governance/subjects/orders-value/contracts",
		`{"consumer":"billing","consumerVersion":"1","pact":`+metPact("billing", "orders-value", `{"id":7}`)+`}`)

	got := e.scrape()
	want := map[string]float64{
		`charter_http_requests_total{code="200",method="POST",route="/subjects/{subject}/versions"}`:                         6,
		`charter_http_requests_total{code="409",method="POST",route="/subjects/{subject}/versions"}`:                         1,
		`charter_http_requests_total{code="200",method="GET",route="/schemas/ids/{id}"}`:                                     3,
		`charter_http_requests_total{code="404",method="GET",route="/subjects/{subject}/versions"}`:                          1,
		`charter_http_requests_total{code="200",method="POST",route="/compatibility/subjects/{subject}/versions/{version}"}`: 2,
		`charter_http_request_duration_seconds_count{code="200",method="GET",route="/schemas/ids/{id}"}`:                     3,
		`charter_http_requests_in_flight`:                               1, // the scrape itself
		`kafka_schema_registry_api_success_count`:                       17,
		`kafka_schema_registry_api_failure_count`:                       2,
		`kafka_schema_registry_master_slave_role`:                       1,
		`kafka_schema_registry_node_count`:                              1,
		`kafka_schema_registry_registered_count`:                        5, // orders v1 v2, skus v1, parcels v1 (soft-deleted) v2
		`kafka_schema_registry_deleted_count`:                           1,
		`kafka_schema_registry_schemas_created{schema_type="avro"}`:     2,
		`kafka_schema_registry_schemas_deleted{schema_type="avro"}`:     0,
		`kafka_schema_registry_schemas_created{schema_type="json"}`:     1,
		`kafka_schema_registry_schemas_created{schema_type="protobuf"}`: 2,
		`kafka_schema_registry_schemas_deleted{schema_type="protobuf"}`: 1,

		`charter_compatibility_checks_total{schema_type="AVRO",source="register",verdict="compatible"}`:                          1,
		`charter_compatibility_checks_total{schema_type="AVRO",source="register",verdict="incompatible"}`:                        1,
		`charter_compatibility_checks_total{schema_type="AVRO",source="check",verdict="compatible"}`:                             1,
		`charter_compatibility_checks_total{schema_type="AVRO",source="check",verdict="incompatible"}`:                           1,
		`charter_compatibility_findings_total{rule_id="AVRO_READER_FIELD_MISSING_DEFAULT",schema_type="AVRO",source="register"}`: 1,
		`charter_compatibility_findings_total{rule_id="AVRO_READER_FIELD_MISSING_DEFAULT",schema_type="AVRO",source="check"}`:    1,

		`charter_schemas{schema_type="AVRO"}`:                           2,
		`charter_schemas{schema_type="JSON"}`:                           1,
		`charter_schemas{schema_type="PROTOBUF"}`:                       2,
		`charter_subjects{schema_type="AVRO"}`:                          1,
		`charter_subjects{schema_type="JSON"}`:                          1,
		`charter_subjects{schema_type="PROTOBUF"}`:                      1,
		`charter_versions{schema_type="AVRO",state="live"}`:             2,
		`charter_versions{schema_type="PROTOBUF",state="live"}`:         1,
		`charter_versions{schema_type="PROTOBUF",state="soft_deleted"}`: 1,

		`charter_deprecations{days_left="8-30"}`:    1,
		`charter_deprecations{days_left="expired"}`: 0,
		`charter_deprecation_extensions`:            1,
		`charter_deprecations_extended`:             0,
		`charter_contracts{verification="ok"}`:      1,
		`charter_contracts{verification="broken"}`:  0,

		// One transaction per Register call that got past validation.
		`charter_store_transaction_duration_seconds_count{kind="write",operation="register schema"}`: 7,
		`charter_build_info{commit="abc123",version="v-test"}`:                                       1,
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("/metrics lacks %s", k)
			continue
		}
		if g != w {
			t.Errorf("%s = %v, want %v", k, g, w)
		}
	}
	// The PII gauge needs Governance.PIISuspects: skus-value's email.
	if v, ok := got["charter_pii_untagged_findings"]; ok && v != 1 {
		t.Errorf("charter_pii_untagged_findings = %v, want 1 (skus-value .email)", v)
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total"} {
		if _, ok := got[name]; !ok {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	for k := range got {
		if strings.HasPrefix(k, "charter_subject_versions") {
			t.Errorf("%s without MetricsOptions.PerSubject", k)
		}
	}
	if t.Failed() {
		var keys []string
		for k, v := range got {
			if strings.HasPrefix(k, "charter_") || strings.HasPrefix(k, "kafka_") {
				keys = append(keys, fmt.Sprintf("%s %v", k, v))
			}
		}
		sort.Strings(keys)
		t.Logf("scraped:\n%s", strings.Join(keys, "\n"))
	}
}

// metPact is a message pact of consumer on provider reading contents.
func metPact(consumer, provider, contents string) string {
	return `{"consumer":{"name":"` + consumer + `"},"provider":{"name":"` + provider + `"},` +
		`"messages":[{"description":"an order","contents":` + contents + `}],"metadata":{"pactSpecification":{"version":"3.0.0"}}}`
}

// TestMetricsPerSubject: MetricsOptions.PerSubject adds one series per
// subject.
func TestMetricsPerSubject(t *testing.T) {
	e := newMetricsEnv(t, func(o *api.Options) { o.Metrics.PerSubject = true })
	e.expect(200, "POST", "/subjects/orders-value/versions", schemaBody(metOrder1))
	e.expect(200, "POST", "/subjects/orders-value/versions", schemaBody(metOrder2))
	got := e.scrape()
	if v := got[`charter_subject_versions{schema_type="AVRO",subject="orders-value"}`]; v != 2 {
		t.Errorf("charter_subject_versions of orders-value = %v, want 2", v)
	}
}

// TestMetricsStateCached: within StateTTL a scrape reuses the last
// reading of the store.
func TestMetricsStateCached(t *testing.T) {
	e := newMetricsEnv(t, func(o *api.Options) { o.Metrics.StateTTL = time.Hour })
	e.expect(200, "POST", "/subjects/orders-value/versions", schemaBody(metOrder1))
	if v := e.scrape()["kafka_schema_registry_registered_count"]; v != 1 {
		t.Fatalf("registered_count = %v, want 1", v)
	}
	e.expect(200, "POST", "/subjects/other-value/versions", schemaBody(metOrder2))
	got := e.scrape()
	if v := got["kafka_schema_registry_registered_count"]; v != 1 {
		t.Errorf("registered_count = %v within the TTL, want the cached 1", v)
	}
	if v := got[`charter_store_transaction_duration_seconds_count{kind="read",operation="count inventory"}`]; v != 1 {
		t.Errorf("inventory read %v times, want once", v)
	}
}

// TestMetricsUnmatched: requests no route takes share one series per
// method, whatever their path.
func TestMetricsUnmatched(t *testing.T) {
	e := newMetricsEnv(t)
	e.expect(404, "GET", "/no/such/path", "")
	e.expect(404, "GET", "/another/one", "")
	e.expect(405, "PATCH", "/subjects", "")
	got := e.scrape()
	for k, w := range map[string]float64{
		`charter_http_requests_total{code="404",method="GET",route="unmatched"}`:   2,
		`charter_http_requests_total{code="405",method="PATCH",route="unmatched"}`: 1,
	} {
		if got[k] != w {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
}

// TestAxonOpsMetricsConfluentCompat runs the scenarios of the peer BDD
// suite's metrics_confluent_compat.feature (../shared/conformance/axonops)
// that are about Confluent's metric names, one subtest each under the
// scenario's name. Left out: the audit-log steps (AxonOps' audit log),
// and the scenarios on AxonOps' own names (jersey_metrics_request_total
// and friends by endpoint label, schema_registry_requests_total), which
// no Confluent exporter produces.
func TestAxonOpsMetricsConfluentCompat(t *testing.T) {
	avro := func(name string) string {
		return `{"type":"record","name":"` + name + `","fields":[{"name":"id","type":"int"}]}`
	}
	setup := func(t *testing.T) *metricsEnv {
		e := newMetricsEnv(t)
		e.expect(200, "PUT", "/config", `{"compatibility":"NONE"}`)
		return e
	}
	increased := func(t *testing.T, e *metricsEnv, metric string, before float64) {
		t.Helper()
		if got := e.scrape()[metric]; got <= before {
			t.Errorf("%s = %v, want more than %v", metric, got, before)
		}
	}
	t.Run("master_slave_role gauge reports leader status", func(t *testing.T) {
		if got, ok := setup(t).scrape()["kafka_schema_registry_master_slave_role"]; !ok || got != 1 {
			t.Errorf("kafka_schema_registry_master_slave_role = %v (present %v), want 1", got, ok)
		}
	})
	t.Run("node_count gauge reports cluster size", func(t *testing.T) {
		if got, ok := setup(t).scrape()["kafka_schema_registry_node_count"]; !ok || got != 1 {
			t.Errorf("kafka_schema_registry_node_count = %v (present %v), want 1", got, ok)
		}
	})
	t.Run("All wire-compatible metrics appear in metrics output", func(t *testing.T) {
		e := setup(t)
		e.expect(200, "POST", "/subjects/metrics-existence-test/versions", schemaBody(avro("MetricsExist")))
		got := e.scrape()
		for _, m := range []string{"kafka_schema_registry_registered_count", "kafka_schema_registry_api_success_count",
			"kafka_schema_registry_api_failure_count", "kafka_schema_registry_master_slave_role", "kafka_schema_registry_node_count",
			"kafka_schema_registry_jersey_metrics_request_rate", "kafka_schema_registry_jersey_metrics_request_latency_99"} {
			if _, ok := got[m]; !ok {
				t.Errorf("%s is missing", m)
			}
		}
	})
	t.Run("api_success_count increments on successful requests", func(t *testing.T) {
		e := setup(t)
		before := e.scrape()["kafka_schema_registry_api_success_count"]
		e.expect(200, "GET", "/", "")
		increased(t, e, "kafka_schema_registry_api_success_count", before)
	})
	t.Run("api_failure_count increments on failed requests", func(t *testing.T) {
		e := setup(t)
		before := e.scrape()["kafka_schema_registry_api_failure_count"]
		e.expect(404, "GET", "/subjects/nonexistent-subject-xxxxx/versions/999", "")
		increased(t, e, "kafka_schema_registry_api_failure_count", before)
	})
	t.Run("registered_count increments when a schema is registered", func(t *testing.T) {
		e := setup(t)
		before := e.scrape()["kafka_schema_registry_registered_count"]
		e.expect(200, "POST", "/subjects/metrics-reg-test/versions", schemaBody(avro("MetricsReg")))
		increased(t, e, "kafka_schema_registry_registered_count", before)
	})
	t.Run("schemas_created counter tracks Avro registrations", func(t *testing.T) {
		e := setup(t)
		before := e.scrape()["kafka_schema_registry_registered_count"]
		e.expect(200, "POST", "/subjects/metrics-avro-test/versions", schemaBody(avro("MetricsAvro")))
		if got := e.scrape()[`kafka_schema_registry_schemas_created{schema_type="avro"}`]; got != 1 {
			t.Errorf(`kafka_schema_registry_schemas_created{schema_type="avro"} = %v, want 1`, got)
		}
		increased(t, e, "kafka_schema_registry_registered_count", before)
	})
	t.Run("schemas_created counter tracks JSON Schema registrations", func(t *testing.T) {
		e := setup(t)
		e.expect(200, "POST", "/subjects/metrics-json-test/versions", schemaBody(`{"type":"object","properties":{"id":{"type":"integer"}}}`, `"schemaType":"JSON"`))
		if got := e.scrape()[`kafka_schema_registry_schemas_created{schema_type="json"}`]; got != 1 {
			t.Errorf(`kafka_schema_registry_schemas_created{schema_type="json"} = %v, want 1`, got)
		}
	})
	t.Run("deleted_count increments when a subject is deleted", func(t *testing.T) {
		e := setup(t)
		e.expect(200, "POST", "/subjects/metrics-del-test/versions", schemaBody(avro("MetricsDel")))
		before := e.scrape()["kafka_schema_registry_deleted_count"]
		e.expect(200, "DELETE", "/subjects/metrics-del-test", "")
		increased(t, e, "kafka_schema_registry_deleted_count", before)
	})
	t.Run("schemas_deleted counter tracks deletions by type", func(t *testing.T) {
		e := setup(t)
		e.expect(200, "POST", "/subjects/metrics-del-type-test/versions", schemaBody(avro("MetricsDelType")))
		e.expect(200, "DELETE", "/subjects/metrics-del-type-test", "")
		if got := e.scrape()[`kafka_schema_registry_schemas_deleted{schema_type="avro"}`]; got != 1 {
			t.Errorf(`kafka_schema_registry_schemas_deleted{schema_type="avro"} = %v, want 1`, got)
		}
	})
	t.Run("deleted_count increments when a version is deleted", func(t *testing.T) {
		e := setup(t)
		e.expect(200, "POST", "/subjects/metrics-ver-del/versions", schemaBody(avro("MetricsVerDel")))
		e.expect(200, "POST", "/subjects/metrics-ver-del/versions", schemaBody(`{"type":"record","name":"MetricsVerDel","fields":[{"name":"id","type":"int"},{"name":"name","type":"string","default":""}]}`))
		before := e.scrape()["kafka_schema_registry_deleted_count"]
		e.expect(200, "DELETE", "/subjects/metrics-ver-del/versions/1", "")
		increased(t, e, "kafka_schema_registry_deleted_count", before)
		if got := e.scrape()[`kafka_schema_registry_schemas_deleted{schema_type="avro"}`]; got != 1 {
			t.Errorf(`kafka_schema_registry_schemas_deleted{schema_type="avro"} = %v, want 1`, got)
		}
	})
}

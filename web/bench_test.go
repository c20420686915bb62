package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
)

// Server time per render of the two largest pages (issue 12 §5: under
// 200 ms): go test ./web -run '^$' -bench . -benchtime 20x
//
// Each reports ms/render, the mean time the handler takes from the
// request to the last byte of the page, over SQLite in a temporary
// directory, and ms/first-render, the first request's (the subject list
// then reads and parses every latest schema once; later renders take
// their type and field tags from the Service's cache by schema ID).

// benchRender renders path b.N times and reports the mean in ms.
func benchRender(b *testing.B, h http.Handler, path, mustContain string) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	rec := httptest.NewRecorder()
	first := time.Now()
	h.ServeHTTP(rec, req)
	firstMs := float64(time.Since(first).Microseconds()) / 1000
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), mustContain) {
		b.Fatalf("GET %s: %d, page lacks %q", path, rec.Code, mustContain)
	}
	b.ResetTimer()
	start := time.Now()
	n := 0
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		n++
	}
	ms := float64(time.Since(start).Microseconds()) / 1000 / float64(n)
	b.ReportMetric(ms, "ms/render")
	b.ReportMetric(firstMs, "ms/first-render")
	b.ReportMetric(float64(rec.Body.Len())/1024, "KiB/page")
}

// BenchmarkSubjectsPage: the subject list over 10,000 subjects (Avro,
// each its own schema with 6 fields, a third owned, a tenth PII-tagged,
// a fifth read by a consumer), unfiltered and filtered by tag.
func BenchmarkSubjectsPage(b *testing.B) {
	svc, _ := newService(b)
	ctx := b.Context()
	const n = 10_000
	for i := range n {
		subject := fmt.Sprintf("team%02d.events-%05d-value", i%40, i)
		tag := ""
		if i%10 == 0 {
			tag = `,"confluent:tags":["PII"]`
		}
		schema := fmt.Sprintf(`{"type":"record","name":"E%d","namespace":"acme.t%d","fields":[{"name":"id","type":"string"},{"name":"at","type":"long"},{"name":"kind","type":"string"},{"name":"email","type":"string"%s},{"name":"amount_%d","type":"double"},{"name":"note","type":["null","string"],"default":null}]}`, i, i%40, tag, i)
		if _, err := svc.Register(ctx, subject, registry.RegisterRequest{Schema: schema}); err != nil {
			b.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := svc.Governance().SetOwner(ctx, subject, governance.Owner{Team: fmt.Sprintf("team%02d", i%40), Contact: "#t"}); err != nil {
				b.Fatal(err)
			}
		}
		if i%5 == 0 {
			if _, err := svc.Lineage().DeclareConsumer(ctx, lineage.Consumer{Service: fmt.Sprintf("reader%02d", i%25), Subject: subject, Fields: []string{".id"}, Source: lineage.SourceDeclared}); err != nil {
				b.Fatal(err)
			}
		}
	}
	h := handler(b, svc, nil)
	b.Run("all", func(b *testing.B) { benchRender(b, h, "/ui/subjects", "of 10,000 matching subjects") })
	b.Run("tag=PII", func(b *testing.B) { benchRender(b, h, "/ui/subjects?tag=PII", "of 1,000 matching subjects") })
	b.Run("page=100", func(b *testing.B) { benchRender(b, h, "/ui/subjects?page=100", "Showing 4,951–5,000") })
}

// BenchmarkDeprecationsPage: the migration dashboard with 1,000 field
// deprecations (100 subjects × 10 deprecated fields), every subject read
// by 8 consumers, 4 of which read deprecated fields, and extensions.
func BenchmarkDeprecationsPage(b *testing.B) {
	svc, clk := newService(b)
	ctx := b.Context()
	gov, lin := svc.Governance(), svc.Lineage()
	for i := range 100 {
		subject := fmt.Sprintf("orders-%03d-value", i)
		var fields []string
		for f := range 12 {
			fields = append(fields, fmt.Sprintf(`{"name":"f%02d","type":"string","default":""}`, f))
		}
		schema := fmt.Sprintf(`{"type":"record","name":"O%d","fields":[%s]}`, i, strings.Join(fields, ","))
		if _, err := svc.Register(ctx, subject, registry.RegisterRequest{Schema: schema}); err != nil {
			b.Fatal(err)
		}
		for c := range 8 {
			reads := []string{".f10", ".f11"}
			if c < 4 {
				reads = append(reads, fmt.Sprintf(".f%02d", c), fmt.Sprintf(".f%02d", c+4))
			}
			if _, err := lin.DeclareConsumer(ctx, lineage.Consumer{Service: fmt.Sprintf("team-%d", c), Subject: subject, Fields: reads, Source: lineage.SourceDeclared}); err != nil {
				b.Fatal(err)
			}
		}
		for f := range 10 {
			if _, err := gov.Deprecate(ctx, subject, registry.DeprecateRequest{Item: governance.FieldItem(fmt.Sprintf(".f%02d", f)), TTLDays: 30 + 10*f, Replacement: ".f11"}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := gov.GrantExtension(ctx, subject, governance.FieldItem(".f00"), registry.ExtensionRequest{Consumer: "team-0", Days: 120, Reason: "q3", Approver: "lead"}); err != nil {
			b.Fatal(err)
		}
	}
	clk.Day(45)
	h := handler(b, svc, nil)
	b.Run("all", func(b *testing.B) { benchRender(b, h, "/ui/deprecations", "1,000 deprecations") })
}

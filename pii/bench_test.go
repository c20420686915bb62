package pii_test

import (
	"fmt"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/pii"
)

// benchFields returns n fields shaped like a wide event schema: about one
// in five is personal data, the rest are business fields, some with docs,
// nested two levels deep.
func benchFields(n int) []compat.Field {
	names := []struct{ name, typ, doc string }{
		{"customerEmail", "union{null,string}", "Where receipts go."},
		{"order_id", "string", ""},
		{"shipping_address_line1", "string", ""},
		{"total_amount", "decimal(12,2)", "Order total including tax."},
		{"created_at", "timestamp-millis", ""},
		{"status", "com.acme.Status", ""},
		{"phoneNumber", "string", ""},
		{"sku", "string", "Stock keeping unit."},
		{"quantity", "int", ""},
		{"email_verified", "boolean", ""},
		{"ip_address", "string", ""},
		{"warehouse_code", "string", "Code of the shipping warehouse."},
		{"currency", "string", ""},
		{"discount_code", "union{null,string}", ""},
		{"date_of_birth", "date", ""},
		{"carrier", "string", ""},
		{"notes", "string", "Free text from the customer, may contain anything."},
		{"latitude", "double", ""},
		{"channel", "string", ""},
		{"server_address", "string", ""},
	}
	out := make([]compat.Field, 0, n)
	for i := 0; len(out) < n; i++ {
		b := names[i%len(names)]
		group := fmt.Sprintf("g%d", i/len(names))
		out = append(out, compat.Field{
			Path:     fmt.Sprintf(".%s.%s", group, b.name),
			Name:     b.name,
			FullName: fmt.Sprintf("com.acme.%s.%s", group, b.name),
			Type:     b.typ,
			Doc:      b.doc,
		})
	}
	return out
}

// BenchmarkDetect500 runs the default detector over a 500-field schema.
func BenchmarkDetect500(b *testing.B) {
	fields := benchFields(500)
	d := pii.DefaultDetector()
	b.ReportAllocs()
	found := 0
	for b.Loop() {
		found = len(d.Scan(fields))
	}
	if found == 0 {
		b.Fatal("nothing detected")
	}
	b.ReportMetric(float64(500*b.N)/b.Elapsed().Seconds(), "fields/s")
	b.ReportMetric(float64(found), "flagged")
}

// BenchmarkEvaluate500 evaluates every PII rule on a new version that adds
// 50 fields to 450, with metadata globs, a ruleSet and consumers.
func BenchmarkEvaluate500(b *testing.B) {
	cur := benchFields(500)
	in := pii.Input{
		Previous:  cur[:450],
		Current:   cur,
		Metadata:  pii.Metadata{Tags: map[string][]string{"**.customerEmail": {"PII"}, "com.acme.g1*.*": {"SENSITIVE"}, "**.ip_?ddress": {"PII"}}},
		RuleSet:   pii.RuleSet{DomainRules: []pii.Rule{{Name: "enc", Kind: "TRANSFORM", Mode: "WRITEREAD", Type: "ENCRYPT", Tags: []string{"PII"}}}},
		Consumers: []string{"billing", "fraud"},
	}
	cfg := pii.Config{MaskTags: []string{"PII", "SENSITIVE"}}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = len(pii.Evaluate(in, cfg))
	}
	b.ReportMetric(float64(500*b.N)/b.Elapsed().Seconds(), "fields/s")
	b.ReportMetric(float64(n), "findings")
}

// BenchmarkTagResolver500 resolves effective tags of 500 fields under 20
// globs.
func BenchmarkTagResolver500(b *testing.B) {
	fields := benchFields(500)
	md := pii.Metadata{Tags: map[string][]string{}}
	for i := 0; i < 20; i++ {
		md.Tags[fmt.Sprintf("com.acme.g%d.*", i)] = []string{"T"}
	}
	md.Tags["**.phone?umber"] = []string{"PII"}
	r := pii.NewTagResolver(md)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range fields {
			r.Tags(f)
		}
	}
	b.ReportMetric(float64(500*b.N)/b.Elapsed().Seconds(), "fields/s")
}

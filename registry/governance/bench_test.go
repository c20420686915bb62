package governance_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry/governance"
)

// wideRecord returns an Avro record of n fields (every tenth one looks
// like personal data) plus extra.
func wideRecord(n int, extra string) string {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"Wide","namespace":"bench","fields":[`)
	for i := range n {
		name := fmt.Sprintf("f%d", i)
		if i%10 == 0 {
			name = fmt.Sprintf("contact_email_%d", i)
		}
		fmt.Fprintf(&b, `{"name":%q,"type":"string","default":""},`, name)
	}
	b.WriteString(extra)
	b.WriteString(`{"name":"last","type":"long","default":0}]}`)
	return b.String()
}

// BenchmarkEvaluate is one registration's governance evaluation of a
// 200-field record against its previous version: deprecations, PII,
// removed fields and the semver classification (with a FULL compat
// check). It reports the fields per second.
func BenchmarkEvaluate(b *testing.B) {
	f := avro.Format{}
	prev, err := f.Parse(wideRecord(200, ""), nil)
	if err != nil {
		b.Fatal(err)
	}
	cur, err := f.Parse(wideRecord(200, `{"name":"added","type":"string","default":""},`), nil)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	st := governance.SubjectState{Subject: "wide-value", LatestSemVer: "1.4.2"}
	for i := range 20 {
		st.Deprecations = append(st.Deprecations, governance.NewDeprecation("wide-value", governance.FieldItem(fmt.Sprintf(".f%d", i*7+1)), now, 90, governance.SourceAPI))
	}
	in := governance.Input{Now: now.Add(30 * 24 * time.Hour), Format: f, Level: compat.Backward, State: st,
		Previous:  &governance.Version{Version: 4, Schema: prev},
		Candidate: governance.Version{Version: 5, Schema: cur}}
	res := governance.Evaluate(in)
	if res.SemVer != "1.5.0" || len(res.Findings) == 0 {
		b.Fatalf("semver %s, %d findings", res.SemVer, len(res.Findings))
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		governance.Evaluate(in)
	}
	b.ReportMetric(float64(b.N)*201/time.Since(start).Seconds(), "fields/s")
}

// BenchmarkClassify is the semver classification alone of the same pair.
func BenchmarkClassify(b *testing.B) {
	f := avro.Format{}
	prev, _ := f.Parse(wideRecord(200, ""), nil)
	cur, _ := f.Parse(wideRecord(200, `{"name":"added","type":"string","default":""},`), nil)
	in := governance.ClassifyInput{Format: f, Level: compat.Backward,
		Previous: governance.Version{Version: 1, Schema: prev}, Current: governance.Version{Version: 2, Schema: cur}}
	if c := governance.Classify(in); c.Bump != governance.BumpMinor {
		b.Fatalf("bump %s", c.Bump)
	}
	b.ResetTimer()
	for range b.N {
		governance.Classify(in)
	}
}

// BenchmarkEvaluateWide is BenchmarkEvaluate's evaluation (no
// deprecations) of records of 1,000 to 20,000 fields that gain one field:
// ns/op and ns/field should grow about linearly and stay flat
// respectively (fresh-user report 2, M1: 20,000 fields took 33 s through
// the registry while the semver classifier's reorder check looked every
// record's children up in the whole field list).
func BenchmarkEvaluateWide(b *testing.B) {
	f := avro.Format{}
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(fmt.Sprintf("fields=%d", n), func(b *testing.B) {
			prev, err := f.Parse(wideRecord(n, ""), nil)
			if err != nil {
				b.Fatal(err)
			}
			cur, err := f.Parse(wideRecord(n, `{"name":"added","type":"string","default":""},`), nil)
			if err != nil {
				b.Fatal(err)
			}
			now := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
			in := governance.Input{Now: now, Format: f, Level: compat.Backward,
				State:     governance.SubjectState{Subject: "wide-value", LatestSemVer: "1.0.0"},
				Previous:  &governance.Version{Version: 1, Schema: prev},
				Candidate: governance.Version{Version: 2, Schema: cur}}
			if res := governance.Evaluate(in); res.SemVer != "1.1.0" {
				b.Fatalf("semver %s, want 1.1.0", res.SemVer)
			}
			b.ResetTimer()
			for range b.N {
				governance.Evaluate(in)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n+2), "ns/field")
		})
	}
}

package client_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/sqlite"
)

// benchClient runs the real registry handler over a fresh SQLite file.
func benchClient(b *testing.B) *client.Client {
	b.Helper()
	store, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "charter.db"))
	if err != nil {
		b.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := httptest.NewServer(api.New(registry.NewService(store, formats.Formats(), registry.WithLogger(log)), api.Options{Logger: log}))
	b.Cleanup(func() {
		srv.Close()
		store.Close()
	})
	c, err := client.New(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// benchSubjects is the size of the benchmark registry: subjects of two
// versions each.
const benchSubjects = 300

func benchSource(b *testing.B) *client.Client {
	b.Helper()
	c := benchClient(b)
	for i := range benchSubjects {
		for v := range 2 {
			extra := ""
			if v == 1 {
				extra = `,{"name":"b","type":"long","default":0}`
			}
			text := fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"a","type":"string"}%s]}`, i, extra)
			if _, err := c.Register(b.Context(), fmt.Sprintf("s%03d-value", i), client.NewSchema{Type: compat.Avro, Text: text}); err != nil {
				b.Fatal(err)
			}
		}
	}
	return c
}

// BenchmarkExport300 exports a registry of 300 subjects × 2 versions (the
// real handler over SQLite, in process): one request per version and
// three per subject.
func BenchmarkExport300(b *testing.B) {
	c := benchSource(b)
	for b.Loop() {
		d, err := c.Export(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		if n := d.Counts().Versions; n != 2*benchSubjects {
			b.Fatalf("exported %d versions", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/(2*benchSubjects), "µs/version")
}

// BenchmarkImport300 imports that dump into a fresh registry, with the
// read-back verification (each iteration builds a new registry outside
// the timer).
func BenchmarkImport300(b *testing.B) {
	d, err := benchSource(b).Export(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		dst := benchClient(b)
		b.StartTimer()
		if _, err := dst.Import(b.Context(), d, client.ImportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/(2*benchSubjects), "µs/version")
}

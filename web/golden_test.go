package web_test

import (
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden HTML files in testdata/golden")

// csrfValue scrubs the per-process CSRF tokens from pages.
var csrfValue = regexp.MustCompile(`name="csrf" value="[^"]*"`)

// get fetches path from h as a browser would, failing on a status other
// than want.
func get(t *testing.T, h http.Handler, path string, want int) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Accept", "text/html")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Result().Body)
	if rec.Code != want {
		t.Fatalf("GET %s: %d, want %d\n%s", path, rec.Code, want, body)
	}
	return string(body)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	got = csrfValue.ReplaceAllString(got, `name="csrf" value="CSRF"`)
	path := filepath.Join("testdata", "golden", name+".html")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./web -run TestGolden -update to write it)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs from %s at line %d:\n got: %s\nwant: %s\n(go test ./web -run TestGolden -update rewrites it)", name, path, i+1, g, w)
			}
		}
	}
}

// TestGolden renders every page on the worked example at day 0, and the
// deprecation pages again at day 95, against testdata/golden.
func TestGolden(t *testing.T) {
	svc, clk := newService(t)
	seed(t, svc, clk)
	h := handler(t, svc, nil)
	pages := []struct{ name, path string }{
		{"subjects", "/ui/subjects"},
		{"subjects-filtered", "/ui/subjects?tag=PII&format=AVRO"},
		{"subject-avro", "/ui/subjects/shipments-value"},
		{"subject-protobuf", "/ui/subjects/orders-value"},
		{"subject-json", "/ui/subjects/customers-value"},
		{"compare", "/ui/subjects/shipments-value/compare?from=1&to=2"},
		{"compare-findings", "/ui/subjects/customers-value/compare?from=1&to=2&level=FULL"},
		{"deprecations-day0", "/ui/deprecations"},
		{"deprecation-day0", "/ui/subjects/shipments-value/deprecations/field:.carrier_code"},
		{"lineage", "/ui/subjects/shipments-value/lineage"},
		{"lineage-field", "/ui/subjects/shipments-value/lineage?field=.carrier_code"},
		{"pii", "/ui/pii"},
		{"teams", "/ui/teams"},
		{"team", "/ui/teams/billing"},
		{"audit", "/ui/audit?subject=shipments-value"},
		{"rules", "/ui/rules?category=deprecation"},
		{"login", "/ui/login"},
	}
	for _, p := range pages {
		golden(t, p.name, get(t, h, p.path, http.StatusOK))
	}
	golden(t, "error-404", get(t, h, "/ui/subjects/nope", http.StatusNotFound))
	clk.Day(95)
	golden(t, "deprecations-day95", get(t, h, "/ui/deprecations", http.StatusOK))
	golden(t, "deprecation-day95", get(t, h, "/ui/subjects/shipments-value/deprecations/field:.carrier_code", http.StatusOK))
}

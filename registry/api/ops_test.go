package api_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry/api"
)

// serve sends one request through e's handler with the given headers.
func (e *env) serve(method, path, body string, header ...string) *httptest.ResponseRecorder {
	e.t.Helper()
	var req *http.Request
	if body != "" {
		req = httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

// TestCORS: listed origins get their origin back with credentials, "*"
// lets other origins read without credentials, unlisted origins get no
// CORS header; preflights from allowed origins are answered 204 before
// authentication.
func TestCORS(t *testing.T) {
	const tool, other = "https://tools.example.com", "https://elsewhere.example"
	t.Run("listed", func(t *testing.T) {
		e := newEnv(t, func(o *api.Options) { o.CORSOrigins = []string{tool + "/"} })
		rec := e.serve("GET", "/subjects", "", "Origin", tool)
		h := rec.Header()
		if rec.Code != 200 || h.Get("Access-Control-Allow-Origin") != tool || h.Get("Access-Control-Allow-Credentials") != "true" {
			t.Errorf("listed origin: %d %v", rec.Code, h)
		}
		if !strings.Contains(h.Get("Access-Control-Expose-Headers"), "Charter-Finding") || !strings.Contains(h.Get("Vary"), "Origin") {
			t.Errorf("listed origin: expose %q, vary %q", h.Get("Access-Control-Expose-Headers"), h.Get("Vary"))
		}
		rec = e.serve("GET", "/subjects", "", "Origin", other)
		if v := rec.Header().Get("Access-Control-Allow-Origin"); v != "" || rec.Code != 200 {
			t.Errorf("unlisted origin: %d, Allow-Origin %q", rec.Code, v)
		}
		if v := e.serve("GET", "/subjects", "").Header().Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("no Origin: Allow-Origin %q", v)
		}
		rec = e.serve("OPTIONS", "/subjects/orders-value/versions", "", "Origin", tool,
			"Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "authorization, content-type")
		h = rec.Header()
		if rec.Code != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != tool ||
			!strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") ||
			h.Get("Access-Control-Max-Age") == "" {
			t.Errorf("preflight: %d %v", rec.Code, h)
		}
		// A preflight from an unlisted origin is an ordinary OPTIONS.
		if rec := e.serve("OPTIONS", "/subjects", "", "Origin", other, "Access-Control-Request-Method", "GET"); rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("unlisted preflight: %d %v", rec.Code, rec.Header())
		}
	})
	t.Run("any", func(t *testing.T) {
		e := newEnv(t, func(o *api.Options) { o.CORSOrigins = []string{"*", tool} })
		rec := e.serve("GET", "/subjects", "", "Origin", other)
		if h := rec.Header(); h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("any origin: %v", h)
		}
		rec = e.serve("GET", "/subjects", "", "Origin", tool)
		if h := rec.Header(); h.Get("Access-Control-Allow-Origin") != tool || h.Get("Access-Control-Allow-Credentials") != "true" {
			t.Errorf("listed beside *: %v", h)
		}
	})
	t.Run("auth", func(t *testing.T) {
		e := newAuthEnv(t, "", func(o *api.Options) { o.CORSOrigins = []string{tool} })
		rec := e.serve("OPTIONS", "/subjects/owned/versions", "", "Origin", tool, "Access-Control-Request-Method", "POST")
		if rec.Code != http.StatusNoContent {
			t.Errorf("preflight with authentication on: %d %s", rec.Code, rec.Body.String())
		}
		rec = e.serve("GET", "/subjects", "", "Origin", tool)
		if rec.Code != http.StatusUnauthorized || rec.Header().Get("Access-Control-Allow-Origin") != tool {
			t.Errorf("anonymous GET: %d %v (want 401 that the page can read)", rec.Code, rec.Header())
		}
	})
}

// TestRequestLog: each request's log line carries its ID (echoed in
// X-Request-Id), route, query, remote address, the error_code of an error
// answer and duration_ms; a sane client ID is kept, another replaced.
func TestRequestLog(t *testing.T) {
	e := newEnv(t)
	rec := e.serve("GET", "/subjects/nope/versions?deleted=true", "", api.RequestIDHeader, "trace-42.a:b")
	if got := rec.Header().Get(api.RequestIDHeader); got != "trace-42.a:b" {
		t.Errorf("X-Request-Id %q, want the client's", got)
	}
	line := lastLogLine(t, e)
	for _, want := range []string{"msg=request", "method=GET", "route=/subjects/{subject}/versions", "path=/subjects/nope/versions",
		`query="deleted=true"`, "status=404", "error_code=40401", "duration_ms=", "remote=192.0.2.1:1234", "request_id=trace-42.a:b"} {
		if !strings.Contains(line, want) {
			t.Errorf("log line lacks %q: %s", want, line)
		}
	}
	made := regexp.MustCompile(`^[0-9a-f]{12}-[0-9]+$`)
	seen := map[string]bool{}
	for _, id := range []string{"", strings.Repeat("x", 65), "has space", "new\nline", "quote\"d"} {
		rec := e.serve("GET", "/subjects", "", api.RequestIDHeader, id)
		got := rec.Header().Get(api.RequestIDHeader)
		if !made.MatchString(got) || seen[got] {
			t.Errorf("client ID %q: X-Request-Id %q, want a new one of the server's", id, got)
		}
		seen[got] = true
		if line := lastLogLine(t, e); !strings.Contains(line, "request_id="+got) || strings.Contains(line, "error_code") {
			t.Errorf("log line %s", line)
		}
	}
}

func lastLogLine(t *testing.T, e *env) string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(e.log.String()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "msg=request") {
			return lines[i]
		}
	}
	t.Fatalf("no request line in %s", e.log.String())
	return ""
}

// TestProbes: /livez, /readyz and /health/startup answer as /health/live
// and /health/ready, without credentials.
func TestProbes(t *testing.T) {
	e := newAuthEnv(t, "")
	for _, p := range []string{"/livez", "/readyz", "/health/live", "/health/ready", "/health/startup"} {
		rec := e.serve("GET", p, "")
		if rec.Code != 200 || rec.Body.String() != `{"status":"UP"}` {
			t.Errorf("GET %s: %d %s", p, rec.Code, rec.Body.String())
		}
	}
}

// TestMetricsAccess: with authentication on, /metrics needs credentials
// unless MetricsOptions.Public.
func TestMetricsAccess(t *testing.T) {
	e := newAuthEnv(t, "")
	if rec := e.serve("GET", "/metrics", ""); rec.Code != http.StatusUnauthorized {
		t.Errorf("anonymous GET /metrics: %d, want 401", rec.Code)
	}
	if status, body := e.as(e.principal("carol"), "GET", "/metrics", ""); status != 200 || !strings.Contains(body, "kafka_schema_registry_node_count 1") {
		t.Errorf("GET /metrics as carol: %d", status)
	}
	e = newAuthEnv(t, "", func(o *api.Options) { o.Metrics.Public = true })
	if rec := e.serve("GET", "/metrics", ""); rec.Code != 200 {
		t.Errorf("anonymous GET /metrics with Public: %d, want 200", rec.Code)
	}
	if rec := e.serve("GET", "/subjects", ""); rec.Code != http.StatusUnauthorized {
		t.Errorf("anonymous GET /subjects with metrics public: %d, want 401", rec.Code)
	}
}

package api_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry/api"
)

// TestNoHTMLEscaping checks that `<`, `>` and `&` reach clients as they
// are, in schema texts, error messages and compatibility messages, on
// every endpoint that writes JSON (as Confluent's Jackson writes them).
func TestNoHTMLEscaping(t *testing.T) {
	e := newEnv(t)
	const doc = `a <b> & c`
	rec := `{"type":"record","name":"H","doc":"` + doc + `","fields":[{"name":"a","type":"string"}]}`
	recInt := `{"type":"record","name":"H","doc":"` + doc + `","fields":[{"name":"a","type":"int"}]}`
	e.mustDo("POST", "/subjects/html/versions", schemaBody(rec))
	checks := []struct{ method, path, body, want string }{
		{"GET", "/schemas/ids/1", "", doc},
		{"GET", "/schemas/ids/1", "", doc}, // the cached answer too
		{"GET", "/schemas/ids/1?fetchMaxId=true", "", doc},
		{"GET", "/subjects/html/versions/1", "", doc},
		{"GET", "/schemas", "", doc},
		{"POST", "/subjects/html", schemaBody(rec), doc},
		{"POST", "/subjects/html/versions", schemaBody(recB, `"references":[{"name":"r","subject":"html","version":0}]`), "want >= 1"},
		{"POST", "/compatibility/subjects/html/versions/latest?verbose=true", schemaBody(recInt), "is_compatible"},
		{"PUT", "/config/html", `{"compatibility":"<&>"}`, `level \"<&>\"`},
	}
	for _, c := range checks {
		_, _, body := e.do(c.method, c.path, c.body)
		if !strings.Contains(body, c.want) {
			t.Errorf("%s %s: body %s lacks %q", c.method, c.path, body, c.want)
		}
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if strings.Contains(body, esc) {
				t.Errorf("%s %s: body escapes HTML (%s): %s", c.method, c.path, esc, body)
			}
		}
	}
}

// goNames matches Go identifiers that must not reach clients: package
// qualified names and Go type spellings.
var goNames = regexp.MustCompile(`\b(api|registry|compat|srerr|sqlite|json|http)\.[A-Za-z]|Go value|\bint64\b|\bmap\[|\[\]|\bstruct\s*\{`)

// TestNoGoNamesInMessages sends bodies of every wrong JSON shape to the
// endpoints that read one and checks that no answer names a Go type.
func TestNoGoNamesInMessages(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", "/subjects/s/versions", schemaBody(recA))
	paths := []struct{ method, path string }{
		{"POST", "/subjects/s/versions"},
		{"POST", "/subjects/s"},
		{"POST", "/compatibility/subjects/s/versions/latest"},
		{"PUT", "/config"},
		{"PUT", "/config/s"},
		{"PUT", "/mode/s"},
	}
	bodies := []string{`[]`, `5`, `"x"`, `true`, `{"schema":5}`, `{"schema":{}}`, `{"schemaType":[]}`,
		`{"references":{}}`, `{"references":[5]}`, `{"id":"7"}`, `{"version":[1]}`, `{"metadata":5}`,
		`{"compatibility":5}`, `{"compatibilityLevel":{}}`, `{"normalize":"yes"}`, `{"mode":1}`, `{"id":1e400}`}
	for _, p := range paths {
		for _, b := range bodies {
			status, _, got := e.do(p.method, p.path, b)
			if status < 400 {
				continue
			}
			if goNames.MatchString(got) {
				t.Errorf("%s %s %s: answer names a Go type: %s", p.method, p.path, b, got)
			}
		}
	}
}

// TestClientGone checks that a request whose client has disconnected is
// logged as status 499 at info level with the cause at debug level, never
// as an ERROR or a 500, on reads and writes.
func TestClientGone(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", "/subjects/s/versions", schemaBody(recA))
	debugLog := &bytes.Buffer{}
	log := slog.New(slog.NewTextHandler(debugLog, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := api.New(e.svc, api.Options{Logger: log})
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/subjects/s/versions", schemaBody(recAb)},
		{"POST", "/compatibility/subjects/s/versions/latest", schemaBody(recAint)},
		{"GET", "/subjects/s/versions/1", ""},
		{"GET", "/schemas/ids/1", ""},
		{"POST", "/subjects/s", schemaBody(recA)},
	} {
		debugLog.Reset()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var body io.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
		}
		req := httptest.NewRequest(c.method, c.path, body).WithContext(ctx)
		req.Header.Set("Content-Type", api.ContentType)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		logged := debugLog.String()
		if rec.Code == http.StatusOK {
			t.Logf("%s %s: 200 (answered before the store noticed)", c.method, c.path)
			continue
		}
		if rec.Code != api.StatusClientClosed {
			t.Errorf("%s %s: status %d, want %d; body %s", c.method, c.path, rec.Code, api.StatusClientClosed, rec.Body)
		}
		if strings.Contains(logged, "level=ERROR") || strings.Contains(logged, "50001") {
			t.Errorf("%s %s: a client disconnect logged as an error:\n%s", c.method, c.path, logged)
		}
		if !strings.Contains(logged, "level=DEBUG msg=\"client closed the request\"") || !strings.Contains(logged, "level=INFO msg=request") || !strings.Contains(logged, "status=499") {
			t.Errorf("%s %s: log lacks the debug cause or the 499 request line:\n%s", c.method, c.path, logged)
		}
	}
	// The registry is unchanged.
	e.run([]step{{method: "GET", path: "/subjects/s/versions", json: `[1]`}})
}

// TestNoPathRedirects: paths that net/http would redirect to a cleaned
// form get an error instead (a redirected POST would act on another
// resource); subjects that contain slashes (%2F) still work.
func TestNoPathRedirects(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", "/subjects/versions/versions", schemaBody(recA))
	before := e.snapshot()
	e.run([]step{
		{method: "POST", path: "/subjects//versions", body: schemaBody(recB), status: 422, code: 42208, contains: []string{"must not be empty"}},
		{method: "GET", path: "/subjects//versions", status: 422, code: 42208},
		{method: "POST", path: "/subjects/", body: schemaBody(recA), status: 404, code: 404},
		{method: "GET", path: "/subjects//versions/1", status: 422, code: 42208},
		{method: "PUT", path: "/config//", body: `{"compatibility":"NONE"}`, status: 422, code: 42208},
		{method: "POST", path: "/compatibility/subjects//versions/latest", body: schemaBody(recB), status: 422, code: 42208},
		{method: "GET", path: "/subjects/./versions", status: 404, code: 404},
		{method: "GET", path: "/schemas//ids/1", status: 404, code: 404},
		{method: "GET", path: "//subjects", status: 404, code: 404},
	})
	if after := e.snapshot(); after != before {
		t.Errorf("state changed:\nbefore %s\nafter  %s", before, after)
	}
	e.run([]step{
		{method: "POST", path: "/subjects/a%2F%2Fb/versions", body: schemaBody(recB), json: `{"id":2}`},
		{method: "GET", path: "/subjects", json: `["a//b","versions"]`},
		{method: "GET", path: "/subjects/a%2F%2Fb/versions/", status: 404},
	})
}

// TestLevelAndModeSpelling: levels and modes are accepted in any letter
// case (Confluent upper-cases them) but not with surrounding or inner
// spaces, which Confluent rejects (42203, 42204); a refused value leaves
// the config and mode as they were.
func TestLevelAndModeSpelling(t *testing.T) {
	e := newEnv(t)
	e.mustDo("PUT", "/config/cfg", `{"compatibility":"NONE"}`)
	tests := []struct {
		path, body string
		code       int
		json       string
	}{
		{"/config/cfg", `{"compatibility":"FULL"}`, 0, `{"compatibility":"FULL"}`},
		{"/config/cfg", `{"compatibility":"backward"}`, 0, `{"compatibility":"BACKWARD"}`},
		{"/config/cfg", `{"compatibilityLevel":"Full_Transitive"}`, 0, `{"compatibility":"FULL_TRANSITIVE"}`},
		{"/config/cfg", `{"compatibility":" FULL"}`, 42203, ""},
		{"/config/cfg", `{"compatibility":"FULL "}`, 42203, ""},
		{"/config/cfg", `{"compatibility":"\tFULL\n"}`, 42203, ""},
		{"/config/cfg", `{"compatibility":"FULL TRANSITIVE"}`, 42203, ""},
		{"/config", `{"compatibility":" NONE"}`, 42203, ""},
		{"/mode/cfg", `{"mode":"readonly"}`, 0, `{"mode":"READONLY"}`},
		{"/mode/cfg", `{"mode":"READWRITE"}`, 0, `{"mode":"READWRITE"}`},
		{"/mode/cfg", `{"mode":" READONLY"}`, 42204, ""},
		{"/mode/cfg", `{"mode":"IMPORT "}`, 42204, ""},
	}
	for _, tc := range tests {
		before := e.snapshot() + e.mustDo("GET", "/config/cfg", "") + e.mustDo("GET", "/mode/cfg?defaultToGlobal=true", "")
		if tc.code == 0 {
			e.run([]step{{method: "PUT", path: tc.path, body: tc.body, json: tc.json}})
			continue
		}
		e.run([]step{{method: "PUT", path: tc.path, body: tc.body, status: 422, code: tc.code}})
		if after := e.snapshot() + e.mustDo("GET", "/config/cfg", "") + e.mustDo("GET", "/mode/cfg?defaultToGlobal=true", ""); after != before {
			t.Errorf("PUT %s %s changed the registry:\nbefore %s\nafter  %s", tc.path, tc.body, before, after)
		}
	}
}

package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/exporter"
	"github.com/charter-dev/charter/registry/sqlite"
)

// env is one API over a fresh SQLite store in t.TempDir().
type env struct {
	t   *testing.T
	h   http.Handler
	svc *registry.Service
	log *bytes.Buffer
}

func newEnv(t *testing.T, opts ...func(*api.Options)) *env {
	t.Helper()
	return newEnvFormats(t, []compat.Format{avro.Format{}}, opts...)
}

// newEnvFormats is newEnv with the given schema formats.
func newEnvFormats(t *testing.T, formats []compat.Format, opts ...func(*api.Options)) *env {
	t.Helper()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	var logBuf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	sealer, err := exporter.NewSealer([]byte(exporterSecret))
	if err != nil {
		t.Fatal(err)
	}
	svc := registry.NewService(store, formats, registry.WithLogger(log), registry.WithMaxSchemaSize(64<<10), registry.WithExporterSealer(sealer))
	o := api.Options{Logger: log, MaxBodyBytes: 256 << 10, Version: "v-test", Commit: "abc123"}
	for _, f := range opts {
		f(&o)
	}
	return &env{t: t, h: api.New(svc, o), svc: svc, log: &logBuf}
}

// exporterSecret seals the exporters' credentials of every test env
// (registry.WithExporterSealer).
const exporterSecret = "the API tests' secret, thirty-two bytes or more"

// do sends one request and returns status, Content-Type and body.
func (e *env) do(method, path, body string, header ...string) (int, string, string) {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec.Code, rec.Header().Get("Content-Type"), rec.Body.String()
}

// mustDo sends a request that must answer 200 and returns the body.
func (e *env) mustDo(method, path, body string) string {
	e.t.Helper()
	status, _, got := e.do(method, path, body)
	if status != http.StatusOK {
		e.t.Fatalf("%s %s: status %d, body %s", method, path, status, got)
	}
	return got
}

// schemaBody wraps schema text in a register request body; extra is
// spliced in as more JSON members (e.g. `"id": 5`).
func schemaBody(schema string, extra ...string) string {
	b, _ := json.Marshal(schema)
	parts := append([]string{`"schema":` + string(b)}, extra...)
	return "{" + strings.Join(parts, ",") + "}"
}

// step is one request of a scenario and what it must answer. A zero
// status means 200. code, when set, is the wanted error_code. json, when
// set, must equal the body as JSON; contains/notContains are substrings.
type step struct {
	method, path, body string
	status             int
	code               int
	json               string
	contains           []string
	notContains        []string
}

func (e *env) run(steps []step) {
	e.t.Helper()
	for i, s := range steps {
		status, ctype, body := e.do(s.method, s.path, s.body)
		want := s.status
		if want == 0 {
			want = http.StatusOK
		}
		where := func() string { return s.method + " " + s.path + " (step " + itoa(i+1) + ")" }
		if status != want {
			e.t.Fatalf("%s: status %d, want %d; body %s", where(), status, want, body)
		}
		if ctype != api.ContentType {
			e.t.Errorf("%s: Content-Type %q, want %q", where(), ctype, api.ContentType)
		}
		if status >= 400 {
			var eb struct {
				ErrorCode int    `json:"error_code"`
				Message   string `json:"message"`
			}
			if err := json.Unmarshal([]byte(body), &eb); err != nil {
				e.t.Fatalf("%s: error body %q is not Confluent's error JSON: %v", where(), body, err)
			}
			if eb.Message == "" {
				e.t.Errorf("%s: error without message: %s", where(), body)
			}
			if s.code != 0 && eb.ErrorCode != s.code {
				e.t.Fatalf("%s: error_code %d, want %d; message %q", where(), eb.ErrorCode, s.code, eb.Message)
			}
		}
		if s.json != "" && !jsonEqual(e.t, body, s.json) {
			e.t.Fatalf("%s: body\n  %s\nwant\n  %s", where(), body, s.json)
		}
		for _, c := range s.contains {
			if !strings.Contains(body, c) {
				e.t.Fatalf("%s: body %s does not contain %q", where(), body, c)
			}
		}
		for _, c := range s.notContains {
			if strings.Contains(body, c) {
				e.t.Fatalf("%s: body %s contains %q", where(), body, c)
			}
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func jsonEqual(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("body %q is not JSON: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("test bug: want %q is not JSON: %v", want, err)
	}
	return reflect.DeepEqual(g, w)
}

// snapshot is everything a client can list; a failed write must leave it
// unchanged.
func (e *env) snapshot() string {
	e.t.Helper()
	var b strings.Builder
	for _, p := range []string{"/subjects?deleted=true", "/schemas?deleted=true", "/config", "/mode"} {
		_, _, body := e.do("GET", p, "")
		b.WriteString(p + " " + body + "\n")
	}
	_, _, body := e.do("GET", "/schemas/ids/1?fetchMaxId=true", "")
	b.WriteString(body)
	return b.String()
}

// Schemas used across tests.
const (
	recA    = `{"type":"record","name":"A","fields":[{"name":"a","type":"string"}]}`
	recAb   = `{"type":"record","name":"A","fields":[{"name":"a","type":"string"},{"name":"b","type":"string","default":""}]}`
	recAc   = `{"type":"record","name":"A","fields":[{"name":"a","type":"string"},{"name":"c","type":"string","default":""}]}`
	recAreq = `{"type":"record","name":"A","fields":[{"name":"a","type":"string"},{"name":"b","type":"string"}]}`
	recAint = `{"type":"record","name":"A","fields":[{"name":"a","type":"int"}]}`
	recB    = `{"type":"record","name":"B","fields":[{"name":"x","type":"long"}]}`
)

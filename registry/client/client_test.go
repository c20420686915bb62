package client_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/sqlite"
	"github.com/charter-dev/charter/registry/srerr"
)

// newServer runs the real registry handler (as `charter serve` builds it)
// over a fresh SQLite file and returns its URL.
func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := registry.NewService(store, formats.Formats(), registry.WithLogger(log))
	srv := httptest.NewServer(api.New(svc, api.Options{Logger: log}))
	t.Cleanup(func() {
		srv.Close()
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return srv
}

func newClient(t *testing.T, opts ...client.Option) (*client.Client, *httptest.Server) {
	t.Helper()
	srv := newServer(t)
	c, err := client.New(srv.URL+"/", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

const (
	orderV1 = `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"}]}`
	orderV2 = `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"note","type":"string","default":""}]}`
)

func TestNew(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url     string
		want    string
		wantErr string
	}{
		{url: "http://127.0.0.1:8081", want: "http://127.0.0.1:8081"},
		{url: " https://sr.example.com/contexts/.prod/ ", want: "https://sr.example.com/contexts/.prod"},
		{url: "127.0.0.1:8081", wantErr: "want an http:// or https:// URL"},
		{url: "ftp://x", wantErr: "want an http:// or https:// URL"},
		{url: "http://", wantErr: "no host"},
		{url: "http://a b", wantErr: "invalid character"},
	} {
		c, err := client.New(tc.url)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("New(%q) error = %v, want one containing %q", tc.url, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("New(%q): %v", tc.url, err)
			continue
		}
		if got := c.URL(); got != tc.want {
			t.Errorf("New(%q).URL() = %q, want %q", tc.url, got, tc.want)
		}
	}
}

func TestReadCalls(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t)
	ctx := t.Context()
	rules := &client.RuleSet{MigrationRules: []client.Rule{{
		Name: "addNote", Kind: "TRANSFORM", Mode: "UPGRADE", Type: "JSONATA",
		Expr: `$merge([$, {"note": "x"}])`, OnFailure: "ERROR",
	}}}
	meta := &client.Metadata{Properties: map[string]string{"application.major.version": "1"}}
	id1, err := c.Register(ctx, "orders", client.NewSchema{Text: orderV1, Metadata: meta})
	if err != nil {
		t.Fatal(err)
	}
	id2, err := c.Register(ctx, "orders", client.NewSchema{Text: orderV2, Metadata: meta, RuleSet: rules})
	if err != nil {
		t.Fatal(err)
	}
	if id1 == id2 || id1 <= 0 {
		t.Fatalf("ids %d, %d: want two distinct positive IDs", id1, id2)
	}
	again, err := c.Register(ctx, "orders", client.NewSchema{Text: orderV2, Metadata: meta, RuleSet: rules})
	if err != nil || again != id2 {
		t.Fatalf("re-register = %d, %v; want %d", again, err, id2)
	}

	s, err := c.SchemaByID(ctx, id2)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != id2 || s.Type != compat.Avro || !strings.Contains(s.Text, `"note"`) {
		t.Errorf("SchemaByID = %+v", s)
	}
	if s.RuleSet == nil || !reflect.DeepEqual(s.RuleSet.MigrationRules, rules.MigrationRules) {
		t.Errorf("SchemaByID ruleSet = %+v, want %+v", s.RuleSet, rules)
	}

	vs, err := c.Versions(ctx, "orders")
	if err != nil || !reflect.DeepEqual(vs, []int{1, 2}) {
		t.Errorf("Versions = %v, %v; want [1 2]", vs, err)
	}
	v1, err := c.Version(ctx, "orders", 1)
	if err != nil {
		t.Fatal(err)
	}
	if v1.Subject != "orders" || v1.Version != 1 || v1.ID != id1 || v1.Type != compat.Avro {
		t.Errorf("Version(1) = %+v", v1)
	}
	if v1.Metadata == nil || v1.Metadata.Properties["application.major.version"] != "1" {
		t.Errorf("Version(1) metadata = %+v", v1.Metadata)
	}
	latest, err := c.Latest(ctx, "orders")
	if err != nil || latest.Version != 2 || latest.ID != id2 || latest.RuleSet == nil {
		t.Errorf("Latest = %+v, %v", latest, err)
	}
	byID, err := c.VersionsOfID(ctx, id1)
	if err != nil || !reflect.DeepEqual(byID, []client.SubjectVersion{{Subject: "orders", Version: 1}}) {
		t.Errorf("VersionsOfID = %v, %v", byID, err)
	}
	subjects, err := c.Subjects(ctx)
	if err != nil || !reflect.DeepEqual(subjects, []string{"orders"}) {
		t.Errorf("Subjects = %v, %v", subjects, err)
	}
}

func TestSoftDeletedVersions(t *testing.T) {
	t.Parallel()
	c, srv := newClient(t)
	ctx := t.Context()
	for _, text := range []string{orderV1, orderV2} {
		if _, err := c.Register(ctx, "orders", client.NewSchema{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	req, _ := http.NewRequest("DELETE", srv.URL+"/subjects/orders/versions/1", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("soft delete: status %d", resp.StatusCode)
	}
	vs, err := c.Versions(ctx, "orders")
	if err != nil || !reflect.DeepEqual(vs, []int{2}) {
		t.Errorf("Versions = %v, %v; want [2]", vs, err)
	}
	vs, err = c.Versions(ctx, "orders", client.IncludeDeleted())
	if err != nil || !reflect.DeepEqual(vs, []int{1, 2}) {
		t.Errorf("Versions(IncludeDeleted) = %v, %v; want [1 2]", vs, err)
	}
	if _, err := c.Version(ctx, "orders", 1); !errors.Is(err, srerr.ErrVersionNotFound) {
		t.Errorf("Version(1) of soft-deleted: err = %v, want VERSION_NOT_FOUND", err)
	}
	v1, err := c.Version(ctx, "orders", 1, client.IncludeDeleted())
	if err != nil || v1.Version != 1 || !v1.Deleted {
		t.Errorf("Version(1, IncludeDeleted) = %+v, %v; want version 1 marked deleted", v1, err)
	}
}

func TestErrorsMatchSentinels(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t)
	ctx := t.Context()
	if _, err := c.Register(ctx, "orders", client.NewSchema{Text: orderV1}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		call     func() error
		sentinel *srerr.Error
		msg      string
	}{
		{"schema by unknown ID", func() error { _, err := c.SchemaByID(ctx, 999); return err }, srerr.ErrSchemaNotFound, "get schema 999: "},
		{"versions of unknown subject", func() error { _, err := c.Versions(ctx, "nope"); return err }, srerr.ErrSubjectNotFound, `list versions of subject "nope": `},
		{"unknown version", func() error { _, err := c.Version(ctx, "orders", 7); return err }, srerr.ErrVersionNotFound, `get version 7 of subject "orders": `},
		{"invalid version", func() error { _, err := c.Version(ctx, "orders", 0); return err }, srerr.ErrInvalidVersion, `get version 0 of subject "orders": `},
		{"latest of unknown subject", func() error { _, err := c.Latest(ctx, "nope"); return err }, srerr.ErrSubjectNotFound, `get version latest of subject "nope": `},
		{"invalid schema", func() error {
			_, err := c.Register(ctx, "bad", client.NewSchema{Text: `{"type":"record"}`})
			return err
		}, srerr.ErrInvalidSchema, `register schema under subject "bad": `},
		{"incompatible schema", func() error {
			_, err := c.Register(ctx, "orders", client.NewSchema{Text: `{"type":"record","name":"Order","fields":[{"name":"id","type":"int"}]}`})
			return err
		}, srerr.ErrIncompatibleSchema, `register schema under subject "orders": `},
		{"unknown schema type", func() error {
			_, err := c.Register(ctx, "x", client.NewSchema{Type: "XML", Text: "<a/>"})
			return err
		}, srerr.ErrInvalidSchema, `register schema under subject "x": `},
	} {
		err := tc.call()
		if !errors.Is(err, tc.sentinel) {
			t.Errorf("%s: err = %v, want one matching %s", tc.name, err, tc.sentinel.Name)
			continue
		}
		var api *srerr.APIError
		if !errors.As(err, &api) || api.Message == "" {
			t.Errorf("%s: err %v carries no *srerr.APIError with the server's message", tc.name, err)
		}
		if !strings.HasPrefix(err.Error(), tc.msg) {
			t.Errorf("%s: err = %q, want prefix %q", tc.name, err, tc.msg)
		}
		if tc.sentinel.Status == 404 && !client.IsNotFound(err) {
			t.Errorf("%s: IsNotFound = false", tc.name)
		}
	}
}

// TestNonConfluentErrors covers answers that are not Confluent error
// bodies and error codes outside the table.
func TestNonConfluentErrors(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/schemas/ids/1":
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, "<html>bad gateway</html>")
		case "/schemas/ids/2":
			w.WriteHeader(http.StatusTeapot)
			_, _ = io.WriteString(w, `{"error_code": 41899, "message": "odd"}`)
		case "/schemas/ids/3":
			_, _ = io.WriteString(w, `{"schema": `)
		}
	}))
	defer srv.Close()
	c, err := client.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.SchemaByID(t.Context(), 1)
	var se *client.StatusError
	if !errors.As(err, &se) || se.Status != 502 || se.Body != "<html>bad gateway</html>" {
		t.Errorf("HTML 502: err = %#v", err)
	}
	_, err = c.SchemaByID(t.Context(), 2)
	var api *srerr.APIError
	if !errors.As(err, &api) || api.Err.Code != 41899 || api.Message != "odd" {
		t.Errorf("unknown code: err = %v", err)
	}
	for _, s := range srerr.All() {
		if errors.Is(err, s) {
			t.Errorf("unknown code matched sentinel %s", s.Name)
		}
	}
	_, err = c.SchemaByID(t.Context(), 3)
	if err == nil || !strings.Contains(err.Error(), "decode answer of GET") {
		t.Errorf("truncated answer: err = %v", err)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		user, pass, ok := r.BasicAuth()
		if !ok || user != "u" || pass != "p" {
			w.WriteHeader(401)
			_, _ = io.WriteString(w, `{"error_code":40101,"message":"Unauthorized"}`)
			return
		}
		if r.Header.Get("X-Tenant") != "t1" || r.Header.Get("User-Agent") != "replayer/1" {
			w.WriteHeader(400)
			return
		}
		if !strings.HasPrefix(r.Header.Get("Accept"), client.ContentType) {
			w.WriteHeader(406)
			return
		}
		if r.URL.EscapedPath() != "/ctx/subjects/a%2Fb/versions" {
			w.WriteHeader(404)
			_, _ = io.WriteString(w, `{"error_code":404,"message":"path `+r.URL.EscapedPath()+`"}`)
			return
		}
		_, _ = io.WriteString(w, `[1]`)
	}))
	defer srv.Close()
	var rt countingTransport
	c, err := client.New(srv.URL+"/ctx",
		client.WithBasicAuth("u", "p"), client.WithHeader("X-Tenant", "t1"),
		client.WithUserAgent("replayer/1"), client.WithHTTPClient(&http.Client{Transport: &rt}))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := c.Versions(t.Context(), "a/b")
	if err != nil || !reflect.DeepEqual(vs, []int{1}) {
		t.Fatalf("Versions = %v, %v", vs, err)
	}
	if rt.n.Load() != 1 {
		t.Errorf("injected http.Client carried %d requests, want 1", rt.n.Load())
	}
	noAuth, _ := client.New(srv.URL + "/ctx")
	if _, err := noAuth.Versions(t.Context(), "a/b"); !errors.Is(err, srerr.ErrUnauthorized) {
		t.Errorf("without credentials: err = %v, want UNAUTHORIZED", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.Versions(ctx, "a/b"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
}

type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// TestDeps keeps the client free of server packages: it may import
// srerr and compat's types only.
func TestDeps(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "github.com/charter-dev/charter/registry/client").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	allowed := map[string]bool{
		"github.com/charter-dev/charter/registry/client": true,
		"github.com/charter-dev/charter/registry/srerr":  true,
		"github.com/charter-dev/charter/compat":          true,
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/charter-dev/charter/") && !allowed[p] {
			t.Errorf("registry/client imports %s; it may import only srerr and compat", p)
		}
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") && !strings.HasPrefix(p, "github.com/charter-dev/charter/") {
			t.Errorf("registry/client imports third-party package %s", p)
		}
	}
}

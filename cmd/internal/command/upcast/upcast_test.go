package upcast_test

import (
	"bytes"
	"context"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const (
	orderV1 = `{"type":"record","name":"OrderPlaced","namespace":"shop","fields":[{"name":"id","type":"string"},{"name":"customer","type":"string"},{"name":"totalCents","type":"long"}]}`
	orderV2 = `{"type":"record","name":"OrderPlaced","namespace":"shop","fields":[{"name":"orderId","type":"string"},{"name":"customer","type":{"type":"record","name":"Customer","fields":[{"name":"name","type":"string"},{"name":"email","type":["null","string"],"default":null}]}},{"name":"totalCents","type":"long"}]}`
	orderV3 = `{"type":"record","name":"OrderPlaced","namespace":"shop","fields":[{"name":"orderId","type":"string"},{"name":"customer","type":{"type":"record","name":"Customer","fields":[{"name":"name","type":"string"},{"name":"email","type":["null","string"],"default":null}]}},{"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":12,"scale":2}},{"name":"currency","type":"string","default":"EUR"}]}`

	splitCustomer = `$merge([$sift($, function($v,$k){$k != 'id' and $k != 'customer'}), {'orderId': id, 'customer': {'name': customer}}])`
	centsToAmount = `$merge([$sift($, function($v,$k){$k != 'totalCents'}), {'amount': totalCents / 100}])`
	// brokenAmount divides by 10: the deliberately broken step.
	brokenAmount = `$merge([$sift($, function($v,$k){$k != 'totalCents'}), {'amount': totalCents / 10}])`
)

// newRegistry registers OrderPlaced v1-v3 in three majors, the breaks
// carrying JSONata UPGRADE rules, and returns the registry URL.
func newRegistry(t *testing.T, v3Rule string) string {
	t.Helper()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := registry.NewService(store, []compat.Format{avro.Format{}}, registry.WithLogger(log))
	srv := httptest.NewServer(api.New(svc, api.Options{Logger: log}))
	t.Cleanup(func() {
		srv.Close()
		_ = store.Close()
	})
	c, err := client.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := c.SetCompatibilityGroup(ctx, "OrderPlaced", "major"); err != nil {
		t.Fatal(err)
	}
	rule := func(name, expr string) *client.RuleSet {
		return &client.RuleSet{MigrationRules: []client.Rule{{Name: name, Kind: "TRANSFORM", Type: "JSONATA", Mode: "UPGRADE", Expr: expr}}}
	}
	for i, s := range []client.NewSchema{
		{Text: orderV1, Metadata: &client.Metadata{Properties: map[string]string{"major": "1"}}},
		{Text: orderV2, Metadata: &client.Metadata{Properties: map[string]string{"major": "2"}}, RuleSet: rule("splitCustomer", splitCustomer)},
		{Text: orderV3, Metadata: &client.Metadata{Properties: map[string]string{"major": "3"}}, RuleSet: rule("centsToAmount", v3Rule)},
	} {
		id, err := c.Register(ctx, "OrderPlaced", s)
		if err != nil {
			t.Fatal(err)
		}
		if id != int64(i+1) {
			t.Fatalf("v%d got schema ID %d; the samples assume %d", i+1, id, i+1)
		}
	}
	return srv.URL
}

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n--- got\n%s--- want\n%s", path, got, want)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	good := newRegistry(t, centsToAmount)
	broken := newRegistry(t, brokenAmount)
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		stderr   string
		noGolden bool
	}{
		{name: "ok", args: []string{"--registry", good, "--expect", "testdata/expected.jsonl"}, code: 0},
		{name: "ok_json", args: []string{"--registry", good, "--format", "json"}, code: 0},
		{name: "broken_step", args: []string{"--registry", broken, "--expect", "testdata/expected.jsonl"}, code: 1},
		{name: "target_v2_gap", args: []string{"--registry", good, "--target", "2"}, code: 1},
		{name: "missing samples file", args: []string{"--registry", good, "--samples", "testdata/nope.jsonl"}, code: 2,
			stderr: "charter: open testdata/nope.jsonl: no such file or directory\n", noGolden: true},
		{name: "bad samples line", args: []string{"--registry", good, "--samples", "testdata/expected.jsonl"}, code: 2,
			stderr: "charter: testdata/expected.jsonl: line 1: a value needs its version or schemaId\n", noGolden: true},
		{name: "unknown subject", args: []string{"--registry", good, "--subject", "Nope"}, code: 2,
			stderr: `charter: build chain of Nope: list versions of subject "Nope": Subject 'Nope' not found.` + "\n", noGolden: true},
		{name: "bad format", args: []string{"--registry", good, "--format", "xml"}, code: 2,
			stderr: "charter: invalid --format \"xml\": want text or json\n", noGolden: true},
		{name: "no subject", args: []string{"--registry", good, "--subject", ""}, code: 2,
			stderr: "charter: --subject is required\n", noGolden: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"upcast", "verify", "--subject", "OrderPlaced", "--samples", "testdata/samples.jsonl"}, tc.args...)
			code, stdout, stderr := run(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if tc.noGolden {
				if stderr != tc.stderr || stdout != "" {
					t.Errorf("stderr = %q, want %q (stdout %q)", stderr, tc.stderr, stdout)
				}
				return
			}
			if stderr != "" {
				t.Errorf("stderr = %q, want none", stderr)
			}
			golden(t, tc.name, strings.ReplaceAll(stdout, good, "REGISTRY"))
		})
	}
}

// TestUpcastUsesGlobalConnection: without --registry, upcast reads the
// registry of charter.yaml (as every registry command does) and sends
// --token; it used to fall back to 127.0.0.1:8081 and send no credential.
func TestUpcastUsesGlobalConnection(t *testing.T) {
	reg := newRegistry(t, centsToAmount)
	target, err := url.Parse(reg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var auth []string
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	samples, err := filepath.Abs("testdata/samples.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "charter.yaml"), []byte("version: 1\nregistry: "+proxy.URL+"\nschemas:\n  - files: \"*.avsc\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, stdout, stderr := run(t, "upcast", "verify", "--subject", "OrderPlaced", "--samples", samples, "--token", "s3cret", "-o", "json")
	if code != 0 || !strings.Contains(stdout, `"subject": "OrderPlaced"`) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 || slices.ContainsFunc(auth, func(a string) bool { return a != "Bearer s3cret" }) {
		t.Errorf("requests to charter.yaml's registry carried Authorization %q, want the --token on each", auth)
	}
}

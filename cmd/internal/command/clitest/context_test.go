package clitest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/clitest"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/sqlite"
)

// recorder is a proxy in front of a registry that records the path and
// query of every request it passes on.
type recorder struct {
	URL  string
	mu   sync.Mutex
	reqs []string
}

func newRecorder(t *testing.T, target string) *recorder {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, r.Method+" "+r.URL.RequestURI())
		rec.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	rec.URL = srv.URL
	return rec
}

// take returns the requests recorded since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reqs
	r.reqs = nil
	return out
}

// contextProject writes a charter project whose schemas/NAME.avsc files
// (topic-value: NAME-value) hold files' schemas, and returns its root.
func contextProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "charter.yaml", "version: 1\nschemas:\n  - files: \"schemas/*.avsc\"\n")
	if err := os.Mkdir(filepath.Join(dir, "schemas"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		writeFile(t, filepath.Join(dir, "schemas"), name+".avsc", text)
	}
	return dir
}

// TestEveryCommandHonoursContext runs every command of the tree with
// --context .x against a registry behind a proxy that records each
// request: every request of a registry command is under /contexts/.x/
// (so that the registry qualifies its subjects, levels and IDs in .x),
// and a command that needs no registry sends none. A command added to
// the tree without a case here fails the test.
func TestEveryCommandHonoursContext(t *testing.T) {
	_, real, _ := clitest.NewRegistry(t)
	_, emptyReal, _ := clitest.NewRegistry(t)
	rec, empty := newRecorder(t, real), newRecorder(t, emptyReal)
	dir := t.TempDir()
	ship := writeFile(t, dir, "shipment.avsc", habitShipment)
	event := writeFile(t, dir, "event.avsc", habitEvent)
	pact := writeFile(t, dir, "billing.json", habitPact)
	samples := writeFile(t, dir, "samples.jsonl", `{"id":"a","version":1,"value":{"id":"a"}}`+"\n")
	events := writeFile(t, dir, "events.jsonl", `{"id":"a","version":1,"payload":"Ang="}`+"\n")
	eventLong := writeFile(t, dir, "event-long.avsc", strings.Replace(habitEvent, `"type":"string"}`, `"type":"long"}`, 1))
	eventV2 := writeFile(t, dir, "event2.avsc", strings.Replace(habitEvent, `"type":"string"}`, `"type":"string"},{"name":"note","type":"string","default":""}`, 1))
	proj := contextProject(t, map[string]string{"shipments": habitShipment})
	dumpFile := filepath.Join(dir, "dump.json")
	fromDB := filepath.Join(dir, "from.db")
	st, err := sqlite.Open(t.Context(), fromDB)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := []string{"--context", ".x"}
	for _, s := range [][]string{
		{"register", "shipments-value", ship},
		{"register", "events-value", event},
		{"register", "scratch-value", event},
		{"contracts", "publish", pact, "--subject", "shipments-value", "--consumer-version", "1.0.0"},
		{"config", "set", "gaps-value", "--level", "NONE"},
		{"register", "gaps-value", event},
		{"register", "gaps-value", eventLong},
		{"export", "--file", dumpFile},
	} {
		if r := clitest.Run(t, append(append(s, "--registry", rec.URL), ctx...)...); r.Code != cli.ExitOK {
			t.Fatalf("%v: exit %d: %s", s, r.Code, r.Stderr)
		}
	}
	rec.take()

	none := []string{} // the commands that must send no request
	cases := []struct {
		path string
		args []string
		reg  *recorder // nil: rec
		code int       // 0: exit 0 or 1
	}{
		{path: "charter version"},
		{path: "charter rules"},
		{path: "charter diff", args: []string{ship, event}},
		{path: "charter check", args: []string{"-C", proj, "--against", "registry"}},
		{path: "charter init", args: []string{t.TempDir()}},
		{path: "charter contracts verify", args: []string{pact, "--schema", ship}},
		{path: "charter contracts publish", args: []string{pact, "--subject", "shipments-value", "--consumer-version", "1.0.1"}},
		{path: "charter auth token", args: []string{"--principal", "ci-bot"}},
		{path: "charter auth hash-password"},
		{path: "charter subjects"},
		{path: "charter versions", args: []string{"shipments-value"}},
		{path: "charter get", args: []string{"shipments-value"}},
		{path: "charter lookup", args: []string{"shipments-value", ship}},
		{path: "charter register", args: []string{"scratch-value", eventV2, "--type", "avro"}},
		{path: "charter config set", args: []string{"scratch-value", "--level", "NONE"}},
		{path: "charter config get", args: []string{"scratch-value"}},
		{path: "charter config delete", args: []string{"scratch-value"}},
		{path: "charter mode set", args: []string{"scratch-value", "READONLY"}},
		{path: "charter mode get", args: []string{"scratch-value"}},
		{path: "charter mode delete", args: []string{"scratch-value"}},
		{path: "charter delete", args: []string{"scratch-value", "2"}},
		{path: "charter owners", args: []string{"shipments-value", "--team", "logistics", "--contact", "#logistics"}},
		{path: "charter deprecate", args: []string{"shipments-value", ".carrier_code", "--reason", "carriers are records now"}},
		{path: "charter extend", args: []string{"shipments-value", ".carrier_code", "--consumer", "billing", "--days", "10", "--reason", "Q2", "--approver", "alice"}},
		{path: "charter tags", args: []string{"shipments-value"}},
		{path: "charter dismiss", args: []string{"shipments-value", "--list"}},
		{path: "charter changelog", args: []string{"shipments-value"}},
		{path: "charter audit"},
		{path: "charter lineage impact", args: []string{"--subject", "shipments-value", "--field", ".id"}},
		{path: "charter lineage pii"},
		{path: "charter lineage deprecations", args: []string{"--subject", "shipments-value"}},
		{path: "charter lineage graph"},
		{path: "charter lineage producers set", args: []string{"shipments-value", "fulfillment", "--versions", "1"}},
		{path: "charter lineage producers list", args: []string{"shipments-value"}},
		{path: "charter lineage producers remove", args: []string{"shipments-value", "fulfillment"}},
		{path: "charter lineage consumers set", args: []string{"shipments-value", "crm", "--fields", ".id"}},
		{path: "charter lineage consumers list", args: []string{"shipments-value"}},
		{path: "charter lineage consumers remove", args: []string{"shipments-value", "crm"}},
		{path: "charter upcast verify", args: []string{"--subject", "events-value", "--samples", samples}},
		{path: "charter upcast replay", args: []string{"--subject", "events-value", "--in", events, "--out", filepath.Join(dir, "out.jsonl"), "--no-progress"}},
		{path: "charter export", args: []string{"--file", filepath.Join(dir, "again.json")}},
		{path: "charter import", args: []string{dumpFile}, reg: empty},
		{path: "charter migrate", args: []string{"--from", fromDB, "--to", filepath.Join(dir, "to.db")}},
		{path: "charter completion", args: []string{"bash"}},
	}
	for _, p := range []string{"charter version", "charter rules", "charter diff", "charter init", "charter contracts verify",
		"charter auth token", "charter auth hash-password", "charter migrate", "charter completion"} {
		none = append(none, p)
	}
	tree := leaves(cli.NewRootCommand(cli.Env{Stdout: io.Discard, Stderr: io.Discard}))
	seen := map[string]bool{"charter serve": true} // serve refuses --context (TestServeRefusesClientFlags)
	for _, tc := range cases {
		seen[tc.path] = true
		if _, ok := tree[tc.path]; !ok {
			t.Errorf("%s: no such command in the tree (remove its case)", tc.path)
			continue
		}
		reg := tc.reg
		if reg == nil {
			reg = rec
		}
		args := append(append(strings.Fields(strings.TrimPrefix(tc.path, "charter")), tc.args...), "--registry", reg.URL, "--context", ".x")
		r := clitest.RunStdin(t, "correct horse\n", args...)
		reqs := reg.take()
		switch {
		case tc.code != 0 && r.Code != tc.code:
			t.Errorf("%s --context .x: exit %d, want %d\nstderr: %s", tc.path, r.Code, tc.code, r.Stderr)
		case tc.code == 0 && r.Code != cli.ExitOK && r.Code != cli.ExitViolations:
			t.Errorf("%s --context .x: exit %d\nstderr: %s", tc.path, r.Code, r.Stderr)
		}
		wantNone := false
		for _, p := range none {
			wantNone = wantNone || p == tc.path
		}
		if wantNone && len(reqs) > 0 {
			t.Errorf("%s needs no registry, yet sent %v", tc.path, reqs)
		}
		if !wantNone && len(reqs) == 0 {
			t.Errorf("%s --context .x sent no request: give it a case that reaches the registry", tc.path)
		}
		for _, q := range reqs {
			if _, path, _ := strings.Cut(q, " "); !strings.HasPrefix(path, "/contexts/.x/") {
				t.Errorf("%s --context .x: %s is not under /contexts/.x/: it reads or changes another context", tc.path, q)
			}
		}
	}
	for path := range tree {
		if !seen[path] {
			t.Errorf("%s has no --context case: add one to TestEveryCommandHonoursContext", path)
		}
	}
}

// TestCheckJudgesInContext: charter check --against registry under
// --context (or $CHARTER_CONTEXT) judges the working tree with what the
// registry holds in that context — its versions, its level — as
// registering there would; without it, the default context's.
func TestCheckJudgesInContext(t *testing.T) {
	svc, url, _ := clitest.NewRegistry(t)
	ctx := t.Context()
	if _, err := svc.SetConfig(ctx, ":.staging:", registry.ConfigUpdate{Compatibility: ptr("NONE")}); err != nil {
		t.Fatal(err)
	}
	clitest.Register(t, svc, ":.staging:orders-value", `"string"`)
	clitest.Register(t, svc, ":.staging:orders-value", `"long"`)
	if _, err := svc.SetConfig(ctx, "orders-value", registry.ConfigUpdate{Compatibility: ptr("BACKWARD")}); err != nil {
		t.Fatal(err)
	}
	clitest.Register(t, svc, "orders-value", `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"}]}`)
	proj := contextProject(t, map[string]string{"orders": `"int"`})

	// The default context: a record turned int breaks BACKWARD.
	if r := clitest.Run(t, "--registry", url, "check", "-C", proj, "--against", "registry"); r.Code != cli.ExitViolations {
		t.Errorf("check in the default context: exit %d, want 1\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// .staging is at NONE: anything goes.
	r := clitest.Run(t, "--registry", url, "--context", ".staging", "check", "-C", proj, "--against", "registry", "-o", "json")
	if r.Code != cli.ExitOK {
		t.Fatalf("check --context .staging: exit %d, want 0\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "/contexts/.staging") {
		t.Errorf("check --context .staging: the report does not name the context's registry:\n%s", r.Stdout)
	}
	t.Setenv("CHARTER_CONTEXT", "staging")
	if r := clitest.Run(t, "--registry", url, "check", "-C", proj); r.Code != cli.ExitOK {
		t.Errorf("check with CHARTER_CONTEXT=staging: exit %d, want 0\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// charter.yaml's context: is the project's, after the flag and the
	// variable.
	writeFile(t, proj, "charter.yaml", "version: 1\ncontext: .staging\nschemas:\n  - files: \"schemas/*.avsc\"\n")
	t.Setenv("CHARTER_CONTEXT", "")
	if r := clitest.Run(t, "--registry", url, "check", "-C", proj); r.Code != cli.ExitOK {
		t.Errorf("check with context: .staging in charter.yaml: exit %d, want 0\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := clitest.Run(t, "--registry", url, "--context", ".", "check", "-C", proj); r.Code != cli.ExitViolations {
		t.Errorf("check --context . over charter.yaml's .staging: exit %d, want 1\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	writeFile(t, proj, "charter.yaml", "version: 1\nschemas:\n  - files: \"schemas/*.avsc\"\n")
	// --against registry:URL is reached under the context too.
	t.Setenv("CHARTER_CONTEXT", "")
	if r := clitest.Run(t, "--context", ".staging", "check", "-C", proj, "--against", "registry:"+url); r.Code != cli.ExitOK {
		t.Errorf("check --against registry:URL --context .staging: exit %d, want 0\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

func ptr[T any](v T) *T { return &v }

// TestContextLevelFallsBack: config get and mode get without SUBJECT
// under --context print the context's own level, else what applies in
// it (the global one) with a notice naming the context; --own then is
// one line naming the context. set and delete name the context's scope.
func TestContextLevelFallsBack(t *testing.T) {
	_, url, _ := clitest.NewRegistry(t)
	run := func(args ...string) clitest.Result {
		return clitest.Run(t, append([]string{"--registry", url, "--context", ".x1"}, args...)...)
	}
	r := run("config", "get", "-o", "json")
	var doc struct {
		Scope              string `json:"scope"`
		CompatibilityLevel string `json:"compatibilityLevel"`
	}
	if r.Code != cli.ExitOK || json.Unmarshal([]byte(r.Stdout), &doc) != nil || doc.Scope != "global" || doc.CompatibilityLevel != "BACKWARD" ||
		!strings.Contains(r.Stderr, "context .x1 has no config of its own") {
		t.Errorf("config get in a context without a level: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := run("config", "get", "--own"); r.Code != cli.ExitError || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, "context .x1 has no config of its own") {
		t.Errorf("config get --own in a context without a level: exit %d, stderr %q", r.Code, r.Stderr)
	}
	r = run("mode", "get", "-o", "json")
	if r.Code != cli.ExitOK || !strings.Contains(r.Stdout, `"mode": "READWRITE"`) || !strings.Contains(r.Stdout, `"scope": "global"`) ||
		!strings.Contains(r.Stderr, "context .x1 has no mode of its own") {
		t.Errorf("mode get in a context without a mode: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := run("mode", "get", "--own"); r.Code != cli.ExitError || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, "context .x1 has no mode of its own") {
		t.Errorf("mode get --own in a context without a mode: exit %d, stderr %q", r.Code, r.Stderr)
	}
	// The context's own level, once set.
	if r := run("config", "set", "--level", "FULL", "-o", "json"); r.Code != cli.ExitOK || !strings.Contains(r.Stdout, `"scope": ".x1"`) {
		t.Errorf("config set in a context: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	r = run("config", "get", "-o", "json")
	if r.Code != cli.ExitOK || !strings.Contains(r.Stdout, `"scope": ".x1"`) || !strings.Contains(r.Stdout, "FULL") || r.Stderr != "" {
		t.Errorf("config get in a context with a level: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := run("mode", "set", "READONLY", "-o", "json"); r.Code != cli.ExitOK || !strings.Contains(r.Stdout, `"scope": ".x1"`) {
		t.Errorf("mode set in a context: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := run("mode", "get", "--own"); r.Code != cli.ExitOK || r.Stdout != "READONLY\n" {
		t.Errorf("mode get --own in a context with a mode: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	// The global level is untouched.
	if r := clitest.Run(t, "--registry", url, "config", "get", "-o", "json"); !strings.Contains(r.Stdout, "BACKWARD") {
		t.Errorf("config get without --context: %q", r.Stdout)
	}
}

// TestContextNames: "." is the default context alone (/contexts/./,
// as Confluent's ContextFilter), not every context; a name that is not
// one (":", "::", "a:b", ":*:", "*", a control or bidi character, more
// than 255 bytes) is refused in one line, exit 2, before any request; a
// name the registry accepts (registry.ValidateContextName: ".ü", ".a b")
// is accepted, and escaped in the prefix.
func TestContextNames(t *testing.T) {
	svc, real, _ := clitest.NewRegistry(t)
	clitest.Register(t, svc, "plain-value", `"string"`)
	clitest.Register(t, svc, ":.staging:staged-value", `"string"`)
	rec := newRecorder(t, real)
	subjects := func(args ...string) string {
		r := clitest.Run(t, append([]string{"--registry", rec.URL, "subjects"}, args...)...)
		if r.Code != cli.ExitOK {
			t.Fatalf("subjects %v: exit %d: %s", args, r.Code, r.Stderr)
		}
		return r.Stdout
	}
	for _, name := range []string{".", ":.:"} {
		if got := subjects("--context", name); got != "plain-value\n" {
			t.Errorf("subjects --context %s: %q, want the default context's alone", name, got)
		}
		if reqs := rec.take(); len(reqs) != 1 || !strings.HasPrefix(reqs[0], "GET /contexts/./subjects") {
			t.Errorf("subjects --context %s sent %v, want GET /contexts/./subjects", name, reqs)
		}
	}
	if got := subjects("--context", ".staging"); got != ":.staging:staged-value\n" {
		t.Errorf("subjects --context .staging: %q", got)
	}
	rec.take()
	for _, bad := range []string{":", "::", "a:b", ":*:", "*", ".*", ":*", ".a\tb", ".a\u202Eb", "." + strings.Repeat("x", 256)} {
		r := clitest.Run(t, "--registry", rec.URL, "--context", bad, "subjects")
		if r.Code != cli.ExitError || strings.Count(r.Stderr, "\n") != 1 || !strings.Contains(r.Stderr, "invalid --context") || r.Stdout != "" {
			t.Errorf("--context %q: exit %d, stdout %q, stderr %q; want one line, exit 2", bad, r.Code, r.Stdout, r.Stderr)
		}
		if reqs := rec.take(); len(reqs) != 0 {
			t.Errorf("--context %q sent %v", bad, reqs)
		}
	}
	for name, prefix := range map[string]string{".ü": "/contexts/.%C3%BC/subjects", ".a b": "/contexts/.a%20b/subjects", "a b": "/contexts/.a%20b/subjects",
		":.a b:": "/contexts/.a%20b/subjects", "." + strings.Repeat("x", 255): "/contexts/." + strings.Repeat("x", 255) + "/subjects"} {
		if r := clitest.Run(t, "--registry", rec.URL, "--context", name, "subjects"); r.Code != cli.ExitOK {
			t.Errorf("--context %q: exit %d, stderr %q", name, r.Code, r.Stderr)
		}
		if reqs := rec.take(); len(reqs) != 1 || !strings.HasPrefix(reqs[0], "GET "+prefix) {
			t.Errorf("--context %q sent %v, want GET %s", name, reqs, prefix)
		}
	}
}

// TestContextWholeRegistryCommands: export under --context still dumps
// the whole registry, and says so on stderr; audit keeps to the
// context's entries, its --subject a subject of the context.
func TestContextWholeRegistryCommands(t *testing.T) {
	svc, url, _ := clitest.NewRegistry(t)
	clitest.Register(t, svc, "plain-value", `"string"`)
	clitest.Register(t, svc, ":.staging:staged-value", `"string"`)
	r := clitest.Run(t, "--registry", url, "--context", ".staging", "export")
	if r.Code != cli.ExitOK || !strings.Contains(r.Stdout, "plain-value") || !strings.Contains(r.Stdout, ":.staging:staged-value") ||
		!strings.Contains(r.Stderr, "export dumps the whole registry, every context: --context .staging does not narrow it") {
		t.Errorf("export --context .staging: exit %d, stderr %q", r.Code, r.Stderr)
	}
	audit := func(args ...string) []string {
		r := clitest.Run(t, append([]string{"--registry", url, "audit", "-o", "json"}, args...)...)
		var es []struct{ Subject string }
		if r.Code != cli.ExitOK || json.Unmarshal([]byte(r.Stdout), &es) != nil {
			t.Fatalf("audit %v: exit %d: %s%s", args, r.Code, r.Stdout, r.Stderr)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Subject)
		}
		return out
	}
	if got := audit("--context", ".staging"); len(got) != 1 || got[0] != ":.staging:staged-value" {
		t.Errorf("audit --context .staging: %v, want the context's entries alone", got)
	}
	if got := audit("--context", ".staging", "--subject", "staged-value"); len(got) != 1 || got[0] != ":.staging:staged-value" {
		t.Errorf("audit --context .staging --subject staged-value: %v", got)
	}
	if got := audit("--context", "."); len(got) != 1 || got[0] != "plain-value" {
		t.Errorf("audit --context .: %v, want the default context's entries alone", got)
	}
	if got := audit(); len(got) != 2 {
		t.Errorf("audit without --context: %v, want every context's", got)
	}
}

// TestContextReadsBackWhatItWrote: a command that lists what another
// wrote under --context finds it there, though the registry names the
// subject qualified in its answers (":.ctx:name", the lineage graph's
// subject::.ctx:name): set then list for the lineage producers and
// consumers, owners, tags and deprecate, in a plain context and in ones
// whose names the registry accepts but a URL escapes (".a b", ".ü",
// ".a/b"), each request under the escaped /contexts/{ctx}/ prefix.
func TestContextReadsBackWhatItWrote(t *testing.T) {
	_, real, _ := clitest.NewRegistry(t)
	rec := newRecorder(t, real)
	ship := writeFile(t, t.TempDir(), "shipment.avsc", habitShipment)
	for _, tc := range []struct{ name, prefix string }{
		{".staging", "/contexts/.staging/"},
		{".a b", "/contexts/.a%20b/"},
		{".ü", "/contexts/.%C3%BC/"},
		{".a/b", "/contexts/.a%2Fb/"},
	} {
		run := func(args ...string) clitest.Result {
			t.Helper()
			r := clitest.Run(t, append(args, "--registry", rec.URL, "--context", tc.name)...)
			if r.Code != cli.ExitOK {
				t.Errorf("--context %q %v: exit %d: %s%s", tc.name, args, r.Code, r.Stdout, r.Stderr)
			}
			return r
		}
		run("register", "orders-value", ship)
		steps := []struct {
			set, list []string
			want      string
		}{
			{[]string{"lineage", "producers", "set", "orders-value", "fulfillment", "--versions", "1"},
				[]string{"lineage", "producers", "list", "orders-value"}, "fulfillment"},
			{[]string{"lineage", "consumers", "set", "orders-value", "billing", "--fields", ".id"},
				[]string{"lineage", "consumers", "list", "orders-value"}, "billing"},
			{[]string{"owners", "orders-value", "--team", "logistics", "--contact", "#logistics"},
				[]string{"owners", "orders-value"}, "logistics"},
			{[]string{"tags", "orders-value", "--set", "**.carrier_code=PII"},
				[]string{"tags", "orders-value"}, "PII"},
			{[]string{"deprecate", "orders-value", ".carrier_code", "--reason", "carriers are records now"},
				[]string{"deprecate", "orders-value", "--list"}, "field carrier_code"},
		}
		for _, s := range steps {
			run(s.set...)
			if r := run(s.list...); !strings.Contains(r.Stdout, s.want) {
				t.Errorf("--context %q: %v after %v: %q, want %s in it", tc.name, s.list, s.set, r.Stdout, s.want)
			}
		}
		// completion of remove reads the same graph.
		if r := clitest.Run(t, "__complete", "--registry", rec.URL, "--context", tc.name, "lineage", "consumers", "remove", "orders-value", ""); !strings.Contains(r.Stdout, "billing") {
			t.Errorf("--context %q: completing lineage consumers remove: %q, want billing", tc.name, r.Stdout)
		}
		for _, q := range rec.take() {
			if _, path, _ := strings.Cut(q, " "); !strings.HasPrefix(path, tc.prefix) {
				t.Errorf("--context %q: %s is not under %s", tc.name, q, tc.prefix)
			}
		}
	}
	// The default context saw none of it.
	if r := clitest.Run(t, "--registry", rec.URL, "subjects"); strings.Contains(r.Stdout, "\norders-value") || strings.HasPrefix(r.Stdout, "orders-value") {
		t.Errorf("subjects of the default context: %q", r.Stdout)
	}
}

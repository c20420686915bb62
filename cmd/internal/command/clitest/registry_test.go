package clitest_test

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charter-dev/charter/action/project/projecttest"
	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/clitest"
	regdump "github.com/charter-dev/charter/registry/dump"
)

func init() { buildinfo.Version = "v0.0.0-test" }

// session runs steps against the registry at url and compares their
// transcript with a golden file (see clitest.Transcript).
func session(t *testing.T, golden, url string, steps []clitest.Step, scrub ...string) {
	t.Helper()
	clitest.Golden(t, golden, clitest.Transcript(t, url, steps...), append([]string{url, "$REGISTRY"}, scrub...)...)
}

const schemas = "testdata/schemas/"

// registerSample registers customer-value and two versions of
// orders-value (which references it, with metadata).
var registerSample = []clitest.Step{
	clitest.OK("subjects"),
	clitest.OK("register", "customer-value", schemas+"customer.avsc"),
	clitest.OK("register", "orders-value", schemas+"orders.avsc", "--ref", "acme.Customer=customer-value:1", "--metadata", schemas+"orders.meta.json"),
	clitest.OK("register", "orders-value", schemas+"orders-v2.avsc", "--ref", "acme.Customer=customer-value:latest", "-o", "json"),
	// The same schema again: the version it already is.
	clitest.OK("register", "orders-value", schemas+"orders.avsc", "--ref", "acme.Customer=customer-value:1", "--metadata", schemas+"orders.meta.json"),
	clitest.OK("register", "shipment-value", schemas+"shipment.proto"),
	clitest.Refused("register", "orders-value", schemas+"orders-bad.avsc", "--ref", "acme.Customer=customer-value:1"),
	clitest.Fail("register", "", schemas+"orders.avsc"),
	clitest.Fail("register", "orders-value", schemas+"orders.avsc"),
	clitest.Fail("register", "orders-value", schemas+"orders.avsc", "--ref", "acme.Customer"),
	clitest.Fail("register", "orders-value", schemas+"nope.avsc"),
	clitest.Fail("register", "orders-value", schemas+"orders.meta.json", "--type", "xml"),
	clitest.Fail("register", "orders-value", schemas+"orders.avsc", "--metadata", schemas+"customer.avsc"),
}

func TestRegisterAndRead(t *testing.T) {
	t.Parallel()
	_, url := projecttest.Registry(t)
	session(t, "register.golden", url, registerSample)
	session(t, "read.golden", url, []clitest.Step{
		clitest.OK("subjects"),
		clitest.OK("subjects", "--prefix", "orders", "-o", "json"),
		clitest.OK("versions", "orders-value"),
		clitest.OK("versions", "orders-value", "-o", "json"),
		clitest.OK("get", "orders-value"),
		clitest.OK("get", "orders-value", "1", "-o", "json"),
		clitest.OK("get", "shipment-value", "latest", "--schema-only"),
		clitest.OK("lookup", "orders-value", schemas+"orders.avsc", "--ref", "acme.Customer=customer-value:1", "--metadata", schemas+"orders.meta.json"),
		clitest.OK("lookup", "customer-value", schemas+"customer.avsc", "-o", "json"),
		clitest.Fail("lookup", "customer-value", schemas+"shipment.proto"),
		clitest.Fail("get", "orders-value", "9"),
		clitest.Fail("get", "orders-value", "first"),
		clitest.Fail("get", "nope"),
		clitest.Fail("versions", "nope"),
		clitest.Fail("subjects", "-o", "yaml"),
	})
}

func TestConfigAndMode(t *testing.T) {
	t.Parallel()
	_, url := projecttest.Registry(t)
	session(t, "setup.golden", url, registerSample[1:3])
	session(t, "config.golden", url, []clitest.Step{
		clitest.OK("config", "get"),
		clitest.OK("config", "get", "orders-value"),
		clitest.Fail("config", "get", "orders-value", "--own"),
		clitest.OK("config", "set", "orders-value", "--level", "full_transitive", "--compatibility-group", "application.major.version"),
		clitest.OK("config", "set", "orders-value", "--normalize", "--default-metadata", schemas+"owner.json"),
		clitest.OK("config", "get", "orders-value", "--own", "-o", "json"),
		clitest.OK("config", "set", "--level", "FORWARD"),
		clitest.OK("config", "get", "customer-value"),
		clitest.Fail("config", "set", "orders-value"),
		clitest.Fail("config", "set", "orders-value", "--level", "SIDEWAYS"),
		clitest.Fail("config", "set", "orders-value", "--default-metadata", schemas+"orders.avsc.nope"),
		clitest.OK("config", "delete", "orders-value"),
		clitest.OK("config", "delete"),
		clitest.OK("config", "get"),
	})
	session(t, "mode.golden", url, []clitest.Step{
		clitest.OK("mode", "get"),
		clitest.OK("mode", "set", "orders-value", "readonly"),
		clitest.OK("mode", "get", "orders-value", "-o", "json"),
		clitest.OK("mode", "get", "customer-value"),
		clitest.Fail("mode", "get", "customer-value", "--own"),
		clitest.Fail("register", "orders-value", schemas+"orders-v2.avsc", "--ref", "acme.Customer=customer-value:1"),
		clitest.Fail("mode", "set", "IMPORT"),
		clitest.Fail("mode", "set", "orders-value", "SIDEWAYS"),
		clitest.OK("mode", "delete", "orders-value"),
		clitest.OK("register", "orders-value", schemas+"orders-v2.avsc", "--ref", "acme.Customer=customer-value:1"),
	})
}

func TestDelete(t *testing.T) {
	t.Parallel()
	_, url := projecttest.Registry(t)
	session(t, "setup-delete.golden", url, registerSample[1:4])
	session(t, "delete.golden", url, []clitest.Step{
		clitest.Fail("delete", "customer-value"),
		clitest.OK("delete", "orders-value", "latest"),
		clitest.OK("versions", "orders-value", "--deleted"),
		clitest.Fail("delete", "orders-value", "1", "--permanent"),
		clitest.OK("delete", "orders-value", "2", "--permanent"),
		clitest.OK("delete", "orders-value", "-o", "json"),
		clitest.OK("subjects", "--deleted"),
		clitest.OK("delete", "orders-value", "--permanent"),
		clitest.OK("delete", "customer-value"),
		clitest.OK("subjects"),
		clitest.Fail("delete", "nope"),
		clitest.Fail("delete", "customer-value", "zero"),
	})
}

// TestExportImport exports a registry, imports the dump into a fresh
// one, and compares the two registries through a second export (the same
// bytes but for the import's audit entry: both registries stand on Day0)
// and the read commands; a second import is refused, a merge of the same
// dump keeps everything, a dry run writes nothing.
func TestExportImport(t *testing.T) {
	t.Parallel()
	_, src, _ := clitest.NewRegistry(t)
	_, dst, _ := clitest.NewRegistry(t)
	dir := t.TempDir()
	dump, again := filepath.Join(dir, "dump.json"), filepath.Join(dir, "again.json")
	session(t, "setup-export.golden", src, append(registerSample[1:6:6],
		clitest.OK("delete", "orders-value", "2"),
		clitest.OK("config", "set", "orders-value", "--level", "FULL"),
		clitest.OK("mode", "set", "customer-value", "READONLY"),
	))
	session(t, "export.golden", src, []clitest.Step{
		clitest.OK("export"),
		clitest.OK("export", "--file", dump),
	}, dir, "$TMP")
	session(t, "import.golden", dst, []clitest.Step{
		clitest.OK("import", dump),
		clitest.OK("export", "-f", again),
		clitest.Fail("import", dump),
		clitest.OK("import", dump, "--merge", "--dry-run"),
		clitest.OK("import", dump, "--merge", "-o", "json"),
		clitest.Fail("import", filepath.Join(dir, "nope.json")),
		clitest.Fail("import", schemas+"owner.json"),
	}, dir, "$TMP")
	a, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	d, err := regdump.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	last := d.Audit[len(d.Audit)-1]
	d.Audit = d.Audit[:len(d.Audit)-1]
	if b, err = d.Encode(); err != nil || string(a) != string(b) || last.Action != "registry.import" {
		t.Errorf("the imported registry exports differently (last audit entry %+v):\n%s\nwant\n%s", last, b, a)
	}
	// Every read command answers the same on both registries.
	for _, args := range [][]string{
		{"subjects", "--deleted"},
		{"versions", "orders-value", "--deleted"},
		{"get", "orders-value", "1", "-o", "json"},
		{"get", "orders-value", "2", "--deleted", "-o", "json"},
		{"get", "shipment-value", "-o", "json"},
		{"config", "get", "orders-value", "--own"},
		{"config", "get"},
		{"mode", "get", "customer-value", "--own"},
		{"mode", "get"},
	} {
		x := clitest.Run(t, append([]string{"--registry", src}, args...)...)
		y := clitest.Run(t, append([]string{"--registry", dst}, args...)...)
		if x.Code != cli.ExitOK || x != y {
			t.Errorf("charter %s: source %+v, imported %+v", strings.Join(args, " "), x, y)
		}
	}
	if d.Format != regdump.Format || len(d.Schemas) != 4 {
		t.Errorf("dump: %s with %d schemas", d.Format, len(d.Schemas))
	}
}

// TestGlobalFlagsFromEnvironment: CHARTER_REGISTRY_URL and CHARTER_TOKEN
// stand in for --registry and --token, and the flags beat them.
func TestGlobalFlagsFromEnvironment(t *testing.T) {
	_, reg := projecttest.Registry(t)
	target, err := url.Parse(reg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var auth []string
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()

	t.Setenv("CHARTER_REGISTRY_URL", srv.URL)
	t.Setenv("CHARTER_TOKEN", "s3cret")
	if r := clitest.Run(t, "subjects", "-o", "json"); r.Code != cli.ExitOK || r.Stdout != "{\n  \"subjects\": []\n}\n" {
		t.Errorf("subjects via the environment: %+v", r)
	}
	if r := clitest.Run(t, "subjects", "--token", "other"); r.Code != cli.ExitOK {
		t.Errorf("subjects --token: %+v", r)
	}
	t.Setenv("CHARTER_REGISTRY_URL", "http://127.0.0.1:1")
	if r := clitest.Run(t, "subjects", "--registry", srv.URL); r.Code != cli.ExitOK {
		t.Errorf("--registry beats the environment: %+v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"Bearer s3cret", "Bearer other", "Bearer s3cret"}; strings.Join(auth, ",") != strings.Join(want, ",") {
		t.Errorf("Authorization headers %q, want %q", auth, want)
	}
	r := clitest.Run(t, "versions", "orders-value")
	if r.Code != cli.ExitError || !strings.HasPrefix(r.Stderr, `charter: list versions of subject "orders-value": Get "http://127.0.0.1:1/subjects/orders-value/versions"`) || strings.Count(r.Stderr, "\n") != 1 {
		t.Errorf("unreachable registry: %+v", r)
	}
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := clitest.Run(t, "completion", shell)
		if r.Code != cli.ExitOK || !strings.Contains(r.Stdout, "charter") || r.Stderr != "" {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", shell, r.Code, len(r.Stdout), r.Stderr)
		}
	}
	if r := clitest.Run(t, "completion", "tcsh"); r.Code != cli.ExitError || !strings.Contains(r.Stderr, `unknown shell "tcsh"`) {
		t.Errorf("completion tcsh: %+v", r)
	}
	// Cobra's hidden __complete command lists sub-commands and flags.
	r := clitest.Run(t, "__complete", "con")
	if r.Code != cli.ExitOK || !strings.Contains(r.Stdout, "config\t") || !strings.Contains(r.Stdout, "contracts\t") {
		t.Errorf("__complete con: %+v", r)
	}
	// Subjects and versions complete from the registry.
	_, url := projecttest.Registry(t)
	session(t, "setup-complete.golden", url, registerSample[1:4])
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "or"}, "orders-value\n:4\n"},
		{[]string{"get", "orders-value", ""}, "latest\n1\n2\n:4\n"},
		{[]string{"config", "get", ""}, "customer-value\norders-value\n:4\n"},
		{[]string{"register", "orders-value", ""}, ":0\n"},
	} {
		r := clitest.Run(t, append([]string{"__complete", "--registry", url}, tc.args...)...)
		if got, _, _ := strings.Cut(r.Stdout, "Completion ended"); r.Code != cli.ExitOK || got != tc.want {
			t.Errorf("__complete %s: %q, want %q", strings.Join(tc.args, " "), r.Stdout, tc.want)
		}
	}
}

// TestOutputFlag: --output selects the format of check, diff and rules
// too, --format wins over it, and a bad value names the flag it came from.
func TestOutputFlag(t *testing.T) {
	t.Parallel()
	r := clitest.Run(t, "rules", "--category", "pii", "-o", "json")
	if r.Code != cli.ExitOK || !strings.HasPrefix(r.Stdout, "{\n  \"rules\": [") {
		t.Errorf("rules -o json: %+v", r)
	}
	r = clitest.Run(t, "rules", "--category", "pii", "-o", "json", "--format", "markdown")
	if r.Code != cli.ExitOK || !strings.HasPrefix(r.Stdout, "| ID |") {
		t.Errorf("rules -o json --format markdown: %+v", r)
	}
	r = clitest.Run(t, "diff", "-o", "xml", schemas+"customer.avsc", schemas+"customer.avsc")
	if r.Code != cli.ExitError || !strings.HasPrefix(r.Stderr, `charter: invalid -o/--output "xml": want one of text, json, github, markdown, sarif`) {
		t.Errorf("diff -o xml: %+v", r)
	}
	r = clitest.Run(t, "diff", "--format", "xml", schemas+"customer.avsc", schemas+"customer.avsc")
	if r.Code != cli.ExitError || !strings.HasPrefix(r.Stderr, `charter: invalid --format "xml"`) {
		t.Errorf("diff --format xml: %+v", r)
	}
}

// TestHelpHasExamples: every command of this family, and each of its
// sub-commands, has --help text with an example. (contracts, upcast and
// the governance commands have their own owners and tests.)
func TestHelpHasExamples(t *testing.T) {
	t.Parallel()
	mine := map[string]bool{
		"check": true, "init": true, "diff": true, "rules": true, "serve": true, "version": true,
		"subjects": true, "versions": true, "get": true, "register": true, "lookup": true, "config": true,
		"mode": true, "delete": true, "export": true, "import": true, "migrate": true, "completion": true,
	}
	root := cli.NewRootCommand(cli.Env{})
	seen := 0
	for _, c := range root.Commands() {
		if !mine[c.Name()] {
			continue
		}
		seen++
		paths := [][]string{{c.Name()}}
		for _, sub := range c.Commands() {
			if !sub.Hidden {
				paths = append(paths, []string{c.Name(), sub.Name()})
			}
		}
		for _, p := range paths {
			r := clitest.Run(t, append(p, "--help")...)
			if r.Code != cli.ExitOK || !strings.Contains(r.Stdout, "Examples:\n  ") || !strings.Contains(r.Stdout, "charter "+p[0]) {
				t.Errorf("charter %s --help: exit %d, no example:\n%s", strings.Join(p, " "), r.Code, r.Stdout)
			}
		}
	}
	if seen != len(mine) {
		t.Errorf("found %d of the %d commands", seen, len(mine))
	}
}

// TestDiffRegistry diffs registered versions with each other and with
// files.
func TestDiffRegistry(t *testing.T) {
	t.Parallel()
	_, url := projecttest.Registry(t)
	session(t, "setup-diff.golden", url, registerSample[1:4])
	session(t, "diff.golden", url, []clitest.Step{
		clitest.OK("diff", "registry:orders-value@1", "registry:orders-value@2"),
		clitest.OK("diff", "registry:orders-value@1", "registry:orders-value", "--level", "BACKWARD"),
		clitest.Refused("diff", "registry:orders-value", schemas+"orders-bad.avsc", "--ref", "acme.Customer=customer-value:1", "-o", "json"),
		clitest.Refused("diff", schemas+"orders-bad.avsc", "registry:orders-value@1", "--ref", "acme.Customer=customer-value:1", "--format", "github"),
		clitest.OK("diff", "registry:customer-value@latest", schemas+"customer.avsc"),
		clitest.Fail("diff", "registry:nope", schemas+"customer.avsc"),
		clitest.Fail("diff", "registry:orders-value@first", schemas+"customer.avsc"),
		clitest.Fail("diff", "registry:@1", schemas+"customer.avsc"),
		clitest.Fail("diff", "registry:orders-value@1", schemas+"orders.avsc", "--ref", "acme.Customer=nope:1"),
	})
}

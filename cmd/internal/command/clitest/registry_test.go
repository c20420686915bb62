package clitest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/clitest"
	"github.com/charter-dev/charter/registry/project/projecttest"
)

func init() { buildinfo.Version = "v0.0.0-test" }

// step is one command of a session and the exit code it must return.
type step struct {
	args []string
	code int
}

func ok(args ...string) step   { return step{args, cli.ExitOK} }
func fail(args ...string) step { return step{args, cli.ExitError} }

// refused is a step the registry refuses on content (exit 1).
func refused(args ...string) step { return step{args, cli.ExitViolations} }

// session runs steps against the registry at url and compares their
// transcript ("$ charter …", stdout, stderr, exit code) with a golden
// file. Every error must be one line.
func session(t *testing.T, golden, url string, steps []step, scrub ...string) {
	t.Helper()
	var b strings.Builder
	for _, s := range steps {
		args := append([]string{"--registry", url}, s.args...)
		r := clitest.Run(t, args...)
		fmt.Fprintf(&b, "$ charter %s\n%s", strings.Join(s.args, " "), r.Stdout)
		if r.Stderr != "" {
			fmt.Fprintf(&b, "stderr: %s", r.Stderr)
		}
		if r.Code != cli.ExitOK {
			fmt.Fprintf(&b, "exit %d\n", r.Code)
		}
		b.WriteString("\n")
		if r.Code != s.code {
			t.Errorf("charter %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(s.args, " "), r.Code, s.code, r.Stdout, r.Stderr)
		}
		if r.Code == cli.ExitError && (!strings.HasPrefix(r.Stderr, "charter: ") || strings.Count(r.Stderr, "\n") != 1) {
			t.Errorf("charter %s: stderr %q, want one line starting with \"charter: \"", strings.Join(s.args, " "), r.Stderr)
		}
	}
	clitest.Golden(t, golden, b.String(), append([]string{url, "$REGISTRY"}, scrub...)...)
}

const schemas = "testdata/schemas/"

// registerSample registers customer-value and two versions of
// orders-value (which references it, with metadata).
var registerSample = []step{
	ok("subjects"),
	ok("register", "customer-value", schemas+"customer.avsc"),
	ok("register", "orders-value", schemas+"orders.avsc", "--ref", "acme.Customer=customer-value:1", "--metadata", schemas+"orders.meta.json"),
	ok("register", "orders-value", schemas+"orders-v2.avsc", "--ref", "acme.Customer=customer-value:latest", "-o", "json"),
	// The same schema again: the version it already is.
	ok("register", "orders-value", schemas+"orders.avsc", "--ref", "acme.Customer=customer-value:1", "--metadata", schemas+"orders.meta.json"),
	ok("register", "shipment-value", schemas+"shipment.proto"),
	refused("register", "orders-value", schemas+"orders-bad.avsc", "--ref", "acme.Customer=customer-value:1"),
	fail("register", "", schemas+"orders.avsc"),
	fail("register", "orders-value", schemas+"orders.avsc"),
	fail("register", "orders-value", schemas+"orders.avsc", "--ref", "acme.Customer"),
	fail("register", "orders-value", schemas+"nope.avsc"),
	fail("register", "orders-value", schemas+"orders.meta.json", "--type", "xml"),
	fail("register", "orders-value", schemas+"orders.avsc", "--metadata", schemas+"customer.avsc"),
}

func TestRegisterAndRead(t *testing.T) {
	t.Parallel()
	_, url := projecttest.Registry(t)
	session(t, "register.golden", url, registerSample)
	session(t, "read.golden", url, []step{
		ok("subjects"),
		ok("subjects", "--prefix", "orders", "-o", "json"),
		ok("versions", "orders-value"),
		ok("versions", "orders-value", "-o", "json"),
		ok("get", "orders-value"),
		ok("get", "orders-value", "1", "-o", "json"),
		ok("get", "shipment-value", "latest", "--schema-only"),
		ok("lookup", "orders-value", schemas+"orders.avsc", "--ref", "acme.Customer=customer-value:1", "--metadata", schemas+"orders.meta.json"),
		ok("lookup", "customer-value", schemas+"customer.avsc", "-o", "json"),
		fail("lookup", "customer-value", schemas+"shipment.proto"),
		fail("get", "orders-value", "9"),
		fail("get", "orders-value", "first"),
		fail("get", "nope"),
		fail("versions", "nope"),
		fail("subjects", "-o", "yaml"),
	})
}

func TestConfigAndMode(t *testing.T) {
	t.Parallel()
	_, url := projecttest.Registry(t)
	session(t, "setup.golden", url, registerSample[1:3])
	session(t, "config.golden", url, []step{
		ok("config", "get"),
		ok("config", "get", "orders-value"),
		fail("config", "get", "orders-value", "--own"),
		ok("config", "set", "orders-value", "--level", "full_transitive", "--compatibility-group", "application.major.version"),
		ok("config", "set", "orders-value", "--normalize", "--default-metadata", schemas+"owner.json"),
		ok("config", "get", "orders-value", "--own", "-o", "json"),
		ok("config", "set", "--level", "FORWARD"),
		ok("config", "get", "customer-value"),
		fail("config", "set", "orders-value"),
		fail("config", "set", "orders-value", "--level", "SIDEWAYS"),
		fail("config", "set", "orders-value", "--default-metadata", schemas+"orders.avsc.nope"),
		ok("config", "delete", "orders-value"),
		ok("config", "delete"),
		ok("config", "get"),
	})
	session(t, "mode.golden", url, []step{
		ok("mode", "get"),
		ok("mode", "set", "orders-value", "readonly"),
		ok("mode", "get", "orders-value", "-o", "json"),
		ok("mode", "get", "customer-value"),
		fail("mode", "get", "customer-value", "--own"),
		fail("register", "orders-value", schemas+"orders-v2.avsc", "--ref", "acme.Customer=customer-value:1"),
		fail("mode", "set", "IMPORT"),
		fail("mode", "set", "orders-value", "SIDEWAYS"),
		ok("mode", "delete", "orders-value"),
		ok("register", "orders-value", schemas+"orders-v2.avsc", "--ref", "acme.Customer=customer-value:1"),
	})
}

func TestDelete(t *testing.T) {
	t.Parallel()
	_, url := projecttest.Registry(t)
	session(t, "setup-delete.golden", url, registerSample[1:4])
	session(t, "delete.golden", url, []step{
		fail("delete", "customer-value"),
		ok("delete", "orders-value", "latest"),
		ok("versions", "orders-value", "--deleted"),
		fail("delete", "orders-value", "1", "--permanent"),
		ok("delete", "orders-value", "2", "--permanent"),
		ok("delete", "orders-value", "-o", "json"),
		ok("subjects", "--deleted"),
		ok("delete", "orders-value", "--permanent"),
		ok("delete", "customer-value"),
		ok("subjects"),
		fail("delete", "nope"),
		fail("delete", "customer-value", "zero"),
	})
}

// TestExportImport exports a registry, imports the dump into a fresh
// one, and compares the two registries through a second export and the
// read commands.
func TestExportImport(t *testing.T) {
	t.Parallel()
	_, src := projecttest.Registry(t)
	_, dst := projecttest.Registry(t)
	dir := t.TempDir()
	dump, again := filepath.Join(dir, "dump.json"), filepath.Join(dir, "again.json")
	session(t, "setup-export.golden", src, append(registerSample[1:6:6],
		ok("delete", "orders-value", "2"),
		ok("config", "set", "orders-value", "--level", "FULL"),
		ok("mode", "set", "customer-value", "READONLY"),
	))
	session(t, "export.golden", src, []step{
		ok("export"),
		ok("export", "--file", dump),
	}, dir, "$TMP")
	session(t, "import.golden", dst, []step{
		ok("import", dump),
		fail("import", dump),
		ok("import", dump, "--force", "-o", "json"),
		ok("export", "-f", again),
		fail("import", filepath.Join(dir, "nope.json")),
		fail("import", schemas+"owner.json"),
	}, dir, "$TMP")
	a, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(again)
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Errorf("the imported registry exports differently:\n%s\nwant\n%s", b, a)
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
	var d struct {
		Format  string `json:"format"`
		Schemas []struct {
			ID int64 `json:"id"`
		} `json:"schemas"`
	}
	if err := json.Unmarshal(a, &d); err != nil || d.Format != "charter-registry-dump/v2" || len(d.Schemas) != 4 {
		t.Errorf("dump: %+v, %v", d, err)
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
	if r.Code != cli.ExitError || !strings.HasPrefix(r.Stderr, `charter: invalid --output "xml": want one of text, json, github, markdown, sarif`) {
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
		"mode": true, "delete": true, "export": true, "import": true, "completion": true,
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
	session(t, "diff.golden", url, []step{
		ok("diff", "registry:orders-value@1", "registry:orders-value@2"),
		ok("diff", "registry:orders-value@1", "registry:orders-value", "--level", "BACKWARD"),
		step{[]string{"diff", "registry:orders-value", schemas + "orders-bad.avsc", "--ref", "acme.Customer=customer-value:1", "-o", "json"}, cli.ExitViolations},
		step{[]string{"diff", schemas + "orders-bad.avsc", "registry:orders-value@1", "--ref", "acme.Customer=customer-value:1", "--format", "github"}, cli.ExitViolations},
		ok("diff", "registry:customer-value@latest", schemas+"customer.avsc"),
		fail("diff", "registry:nope", schemas+"customer.avsc"),
		fail("diff", "registry:orders-value@first", schemas+"customer.avsc"),
		fail("diff", "registry:@1", schemas+"customer.avsc"),
		fail("diff", "registry:orders-value@1", schemas+"orders.avsc", "--ref", "acme.Customer=nope:1"),
	})
}

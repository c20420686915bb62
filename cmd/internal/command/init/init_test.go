package initcmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/action/project/projecttest"
	"github.com/charter-dev/charter/cmd/internal/cli"
)

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// TestInitThenCheck is the new user's path: init in a sample repository,
// then check against the previous commit.
func TestInitThenCheck(t *testing.T) {
	t.Parallel()
	const sample = "../../../../action/project/testdata/sample"
	base, head := t.TempDir(), t.TempDir()
	projecttest.CopyTree(t, filepath.Join(sample, "base"), base)
	projecttest.CopyTree(t, filepath.Join(sample, "head"), head)
	for _, d := range []string{base, head} {
		if err := os.Remove(filepath.Join(d, "charter.yaml")); err != nil {
			t.Fatal(err)
		}
	}
	repo := projecttest.GitRepo(t, base, head)

	code, out, errs := run("init", repo, "--registry", "http://localhost:8081")
	if code != cli.ExitOK || errs != "" {
		t.Fatalf("init: exit %d: %s", code, errs)
	}
	cfg := filepath.Join(repo, "charter.yaml")
	wantLines := []string{
		"wrote " + cfg + ": 7 schema files",
		"  schemas/avro/orders.avsc               AVRO      orders-value\n",
		"  proto/acme/shipping/v1/shipment.proto  PROTOBUF  shipment-value\n",
		"  jsonschema/payment.json                JSON      payment-value\n",
		"next: charter check --against git:main",
	}
	for _, w := range wantLines {
		if !strings.Contains(out, w) {
			t.Errorf("init output lacks %q:\n%s", w, out)
		}
	}
	p, err := project.Load(cfg)
	if err != nil {
		t.Fatalf("written config does not load: %v", err)
	}
	if p.Config.Registry != "http://localhost:8081" {
		t.Errorf("registry %q", p.Config.Registry)
	}
	// The starter is untracked in git; check compares the tree with HEAD~1.
	code, out, errs = run("check", "-C", repo, "--against", "git:HEAD~1")
	if code != cli.ExitViolations || errs != "" {
		t.Fatalf("check: exit %d: %s\n%s", code, errs, out)
	}
	for _, w := range []string{"orders-value · AVRO · BACKWARD", "AVRO_READER_FIELD_MISSING_DEFAULT", "shipment-value · PROTOBUF", "✗ failed:"} {
		if !strings.Contains(out, w) {
			t.Errorf("check output lacks %q:\n%s", w, out)
		}
	}

	// A second init keeps the file; --force overwrites; --stdout prints.
	if code, _, errs := run("init", repo); code != cli.ExitError || !strings.Contains(errs, "exists; pass --force") {
		t.Errorf("second init: exit %d, %q", code, errs)
	}
	if code, _, errs := run("init", repo, "--force", "--level", "full", "--strategy", "record"); code != cli.ExitOK {
		t.Errorf("init --force: exit %d, %q", code, errs)
	}
	text, _ := os.ReadFile(cfg)
	if !strings.Contains(string(text), "level: FULL\n") || !strings.Contains(string(text), "strategy: record\n") {
		t.Errorf("--level/--strategy not written:\n%s", text)
	}
	code, out, _ = run("init", repo, "--stdout")
	if code != cli.ExitOK || !strings.HasPrefix(out, "# charter.yaml:") {
		t.Errorf("init --stdout: exit %d\n%s", code, out)
	}
}

func TestInitErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"init", filepath.Join(dir, "nope")}, "is not a directory"},
		{[]string{"init", dir, "--level", "up"}, `--level: invalid compatibility level "up"`},
		{[]string{"init", dir, "--strategy", "name"}, `invalid --strategy "name"`},
		{[]string{"init", dir, dir}, "accepts at most 1 arg"},
	} {
		code, _, errs := run(tc.args...)
		if code != cli.ExitError || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "charter.yaml")); err == nil {
		t.Error("a failed init wrote charter.yaml")
	}
}

// gitInit makes a repository in a new directory on branch with one
// commit of the sample's head tree (charter.yaml removed).
func gitInit(t *testing.T, branch string) string {
	t.Helper()
	dir := t.TempDir()
	projecttest.CopyTree(t, "../../../../action/project/testdata/sample/head", dir)
	if err := os.Remove(filepath.Join(dir, "charter.yaml")); err != nil {
		t.Fatal(err)
	}
	projecttest.Git(t, dir, "init", "-q", "-b", branch)
	projecttest.Git(t, dir, "add", "-A")
	projecttest.Git(t, dir, "commit", "-q", "-m", "schemas")
	return dir
}

// TestInitDefaultBranch: the closing hint names the repository's default
// branch (origin/HEAD, else init.defaultBranch when it exists, else the
// current branch), and gives no git advice outside git.
func TestInitDefaultBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	// No user or system configuration but what a case writes.
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	setDefault := func(b string) {
		if err := os.WriteFile(global, []byte("[init]\n\tdefaultBranch = "+b+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	master := gitInit(t, "master")
	if _, out, _ := run("init", master); !strings.Contains(out, "next: charter check --against git:master (") || strings.Contains(out, "git:main") {
		t.Errorf("master repository: %s", out)
	}

	// init.defaultBranch names a branch this repository does not have:
	// the current one is named instead.
	setDefault("main")
	other := gitInit(t, "master")
	if _, out, _ := run("init", other); !strings.Contains(out, "--against git:master (") {
		t.Errorf("init.defaultBranch=main in a master repository: %s", out)
	}
	// … and the configured one when it exists, whatever is checked out.
	withMain := gitInit(t, "main")
	projecttest.Git(t, withMain, "checkout", "-q", "-b", "feature")
	if _, out, _ := run("init", withMain); !strings.Contains(out, "--against git:main (") {
		t.Errorf("on a feature branch of a main repository: %s", out)
	}

	// A repository with no main line and no remote, on branch feat: no
	// git:feat (the branch compared with itself); the hint says to
	// compare with the branch feat started from.
	setDefault("trunk")
	feat := gitInit(t, "feat")
	if _, out, _ := run("init", feat); strings.Contains(out, "git:feat") ||
		!strings.Contains(out, "next: charter check --against git:BASE, BASE being the branch feat started from (or set registry: and run charter check)") {
		t.Errorf("feat only: %s", out)
	}
	// … and names its one other branch when it has one, or the configured
	// default when it exists.
	projecttest.Git(t, feat, "branch", "develop")
	if _, out, _ := run("init", feat, "--force"); !strings.Contains(out, "next: charter check --against git:develop (") {
		t.Errorf("feat and develop: %s", out)
	}
	projecttest.Git(t, feat, "branch", "trunk")
	if _, out, _ := run("init", feat, "--force"); !strings.Contains(out, "next: charter check --against git:trunk (") {
		t.Errorf("feat, develop and trunk (init.defaultBranch): %s", out)
	}
	// On the main line itself, with nothing else: the working tree
	// against its last commit.
	onTrunk := gitInit(t, "trunk")
	if _, out, _ := run("init", onTrunk); !strings.Contains(out, "next: charter check --against git:trunk (") {
		t.Errorf("trunk only, init.defaultBranch=trunk: %s", out)
	}
	setDefault("main")

	// origin/HEAD wins.
	withMain2 := gitInit(t, "main")
	projecttest.Git(t, withMain2, "update-ref", "refs/remotes/origin/trunk", "HEAD")
	projecttest.Git(t, withMain2, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
	code, out, _ := run("init", withMain2, "--registry", "http://localhost:8081")
	if code != cli.ExitOK || !strings.Contains(out, "next: charter check --against git:origin/trunk (or charter check, against the registry in charter.yaml)") {
		t.Errorf("origin/HEAD: exit %d\n%s", code, out)
	}

	// Outside git: no git advice.
	plain := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(plain))
	projecttest.CopyTree(t, "../../../../action/project/testdata/sample/head", plain)
	if err := os.Remove(filepath.Join(plain, "charter.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, out, _ := run("init", plain); strings.Contains(out, "git:") || !strings.Contains(out, "next: set registry: in charter.yaml and run charter check") {
		t.Errorf("outside git: %s", out)
	}
}

// TestInitCountsSchemaFiles: the counts init prints and writes read
// right for 1 as for several: "1 schema file", "2 schema files".
func TestInitCountsSchemaFiles(t *testing.T) {
	t.Parallel()
	const avsc = `{"type":"record","name":"E","fields":[{"name":"id","type":"string"}]}`
	for n, want := range map[int]string{1: "1 schema file", 2: "2 schema files"} {
		dir := t.TempDir()
		for i := range n {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("e%d.avsc", i)), []byte(avsc), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, out, errs := run("init", dir)
		if code != cli.ExitOK || !strings.HasPrefix(out, "wrote "+filepath.Join(dir, "charter.yaml")+": "+want+"\n") {
			t.Errorf("%d files: exit %d, %q, %q", n, code, out, errs)
		}
		text, err := os.ReadFile(filepath.Join(dir, "charter.yaml"))
		if err != nil || !strings.Contains(string(text), "# Written by `charter init` from "+want+"; edit freely.\n") {
			t.Errorf("%d files: charter.yaml (%v):\n%s", n, err, text)
		}
	}
}

// TestInitSectionsWarningJSON: the starter has commented contracts: and
// pii: sections; no schema file is a warning; -o json is the report.
func TestInitSectionsWarningJSON(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	code, out, errs := run("init", empty)
	if code != cli.ExitOK || errs != "charter: warning: no schema files (.avsc, .proto, .json) under "+empty+": the file maps none; add schemas: entries, or run charter init where the schemas are\n" {
		t.Errorf("no schemas: exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(out, ": 0 schema files") || strings.Contains(out, "next:") {
		t.Errorf("no schemas: stdout %q", out)
	}
	text, err := os.ReadFile(filepath.Join(empty, "charter.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n# contracts:\n#   - pact: \"pacts/*.json\"", "\n# pii:\n#   pii_tags: [PII, SENSITIVE]"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("starter lacks %q:\n%s", want, text)
		}
	}
	// The commented sections, uncommented, are a valid configuration.
	head, tail, _ := strings.Cut(string(text), "\n# Consumer contracts:")
	tail = strings.NewReplacer("# contracts:", "contracts:", "#   ", "  ", "# pii:", "pii:").Replace(tail)
	cfg, err := project.ParseConfig("charter.yaml", []byte(head+"\n# Consumer contracts:"+tail))
	if err == nil && (len(cfg.Contracts) != 1 || cfg.PII.MinConfidence != "medium") {
		t.Errorf("uncommented sections read as %+v, %+v", cfg.Contracts, cfg.PII)
	}
	if err != nil {
		t.Errorf("the contracts: and pii: examples do not load once uncommented: %v", err)
	}

	dir := t.TempDir()
	projecttest.CopyTree(t, "../../../../action/project/testdata/sample/head", dir)
	if err := os.Remove(filepath.Join(dir, "charter.yaml")); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run("init", dir, "-o", "json")
	var rep struct {
		Path     string
		Files    int
		Schemas  []struct{ File, Format, Subject string }
		Warnings []string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != cli.ExitOK || errs != "" {
		t.Fatalf("-o json: exit %d, %v, stderr %q\n%s", code, err, errs, out)
	}
	if rep.Path != filepath.Join(dir, "charter.yaml") || rep.Files != 7 || len(rep.Schemas) != 7 || len(rep.Warnings) != 0 {
		t.Errorf("-o json report %+v", rep)
	}
	if code, _, errs := run("init", t.TempDir(), "--stdout", "-o", "json"); code != cli.ExitError || strings.Count(errs, "\n") != 1 {
		t.Errorf("--stdout -o json: exit %d, %q", code, errs)
	}
}

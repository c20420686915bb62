// Package action_test runs the CI action's entry script locally, as GitHub
// Actions would: a faked GITHUB_* environment, a sample repository whose
// pull request breaks compatibility, and golden annotations, summary and
// step outputs.
package action_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/project/projecttest"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
}

// The sample (testdata/sample/{base,head}) is a pull request that breaks
// compatibility twice: orders.avsc gains a field without a default
// (BACKWARD) and customer.json an enum value (FULL). It also removes
// customerEmail, which is compatible for Avro readers but breaks the billing
// consumer's contract (contracts/billing-orders.pact.json, in both
// commits, listed under contracts: in charter.yaml): the annotations name
// the consumer and the field (CONTRACT_FIELD_MISSING). Regenerate the
// golden annotations and summary with `go test ./action -update` and
// review the diff.
//
// pullRequestRepo makes the sample's pull request: main holds base, the
// checked-out branch "feature" head, and origin (the repository itself)
// is not fetched yet, as in a shallow actions/checkout.
func pullRequestRepo(t *testing.T) string {
	t.Helper()
	repo := projecttest.GitRepo(t, "testdata/sample/base", "testdata/sample/head")
	projecttest.Git(t, repo, "checkout", "-q", "-b", "feature")
	projecttest.Git(t, repo, "branch", "-q", "-f", "main", "HEAD~1")
	projecttest.Git(t, repo, "remote", "add", "origin", repo)
	return repo
}

var versionLine = regexp.MustCompile(`(?m)^charter \S+ \(\S+\)$`)

// TestEntrypointOnPullRequest runs entrypoint.sh (building charter from
// this repository) on a pull request that breaks compatibility.
func TestEntrypointOnPullRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds charter; skipped with -short")
	}
	need(t, "bash", "git", "go")
	repo := pullRequestRepo(t)
	tmp := t.TempDir()
	summary, output := filepath.Join(tmp, "step_summary.md"), filepath.Join(tmp, "github_output")
	for _, f := range []string{summary, output} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, err := filepath.Abs("entrypoint.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(),
		"GITHUB_ACTIONS=true",
		"GITHUB_WORKSPACE="+repo,
		"GITHUB_EVENT_NAME=pull_request",
		"GITHUB_BASE_REF=main",
		"GITHUB_HEAD_REF=feature",
		"GITHUB_STEP_SUMMARY="+summary,
		"GITHUB_OUTPUT="+output,
		"RUNNER_TEMP="+filepath.Join(tmp, "runner"),
		"CHARTER_AGAINST=", "CHARTER_BIN=", "CHARTER_SOURCE=", "CHARTER_REGISTRY_URL=", "NO_COLOR=1",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 1 {
		t.Fatalf("entrypoint exit code %d, want 1 (errors found)\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	// The build group prints the version, which depends on the build.
	golden(t, "annotations.golden", versionLine.ReplaceAllString(stdout.String(), "charter VERSION (COMMIT)"))
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.golden.md", string(md))
	out, err := os.ReadFile(output)
	if err != nil {
		t.Fatal(err)
	}
	if want := "result=failed\nerrors=3\nwarnings=0\nnotices=0\nsubjects=2\n"; string(out) != want {
		t.Errorf("GITHUB_OUTPUT:\n%s\nwant:\n%s", out, want)
	}
	// The base branch was fetched from origin, as on a shallow checkout.
	if got := strings.TrimSpace(projecttest.Git(t, repo, "rev-parse", "origin/main")); got != strings.TrimSpace(projecttest.Git(t, repo, "rev-parse", "main")) {
		t.Errorf("origin/main = %s, want main", got)
	}
}

// TestEntrypointPrebuiltAndPassing uses CHARTER_BIN and a push event
// (baseline HEAD~1) on a repository whose last commit changes nothing.
func TestEntrypointPrebuiltAndPassing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds charter; skipped with -short")
	}
	need(t, "bash", "git", "go")
	bin := filepath.Join(t.TempDir(), "charter")
	build := exec.Command("go", "build", "-o", bin, "../cmd/charter")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The base state: its orders.avsc still has what billing's pact reads.
	repo := projecttest.GitRepo(t, "testdata/sample/base", "testdata/sample/base")
	tmp := t.TempDir()
	output := filepath.Join(tmp, "github_output")
	cmd := exec.Command("bash", "entrypoint.sh")
	cmd.Env = append(os.Environ(), "GITHUB_WORKSPACE="+repo, "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY=", "GITHUB_BASE_REF=",
		"CHARTER_BIN="+bin, "CHARTER_AGAINST=", "CHARTER_REGISTRY_URL=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("entrypoint: %v\n%s", err, out)
	}
	if want := "Charter schema check passed: 0 errors, 0 warnings, 0 notices in 2 subjects (2 unchanged), against git:HEAD~1\n"; string(out) != want {
		t.Errorf("output %q, want %q", out, want)
	}
	if b, _ := os.ReadFile(output); string(b) != "result=passed\nerrors=0\nwarnings=0\nnotices=0\nsubjects=2\n" {
		t.Errorf("GITHUB_OUTPUT %q", b)
	}
}

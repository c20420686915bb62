package check_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/charter-dev/charter/action/project/projecttest"
	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/render"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sample is the sample project: base is the first commit, head the second.
const sample = "../../../../action/project/testdata/sample"

func init() { buildinfo.Version = "v0.0.0-test" }

type result struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb})
	return result{code, out.String(), errb.String()}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
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

// sampleRepo is a git repository with the sample's base and head commits.
func sampleRepo(t *testing.T) string {
	t.Helper()
	return projecttest.GitRepo(t, filepath.Join(sample, "base"), filepath.Join(sample, "head"))
}

// TestCheckFormats runs `charter check --against git:HEAD~1` on a real
// repository of two commits, in every format.
func TestCheckFormats(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	for _, f := range render.Formats {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			r := run(t, "check", "-C", repo, "--against", "git:HEAD~1", "--format", string(f))
			if r.code != cli.ExitViolations || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			golden(t, "check."+string(f), r.stdout)
		})
	}
}

func TestCheckJSONMatchesSchema(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	r := run(t, "check", "-C", repo, "--against", "git:HEAD~1", "--format", "json")
	if r.code != cli.ExitViolations {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	schemaDoc, err := js.UnmarshalJSON(bytes.NewReader(render.ReportSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := js.NewCompiler()
	if err := c.AddResource("report.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("report.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := js.UnmarshalJSON(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("check --format json does not match check-report.schema.json: %v", err)
	}
}

// TestCheckGitHubFiles covers the action's flags: a markdown summary and
// step outputs appended to existing files.
func TestCheckGitHubFiles(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	dir := t.TempDir()
	summary, outputs := filepath.Join(dir, "summary.md"), filepath.Join(dir, "output")
	if err := os.WriteFile(outputs, []byte("earlier=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "check", "-C", repo, "--against", "git:HEAD~1", "--format", "github", "--summary-file", summary, "--github-output", outputs)
	if r.code != cli.ExitViolations {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "check.summary.md", string(md))
	out, err := os.ReadFile(outputs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "earlier=1\nresult=failed\nerrors=4\nwarnings=5\nnotices=1\nsubjects=7\n"; string(out) != want {
		t.Errorf("outputs:\n%s\nwant:\n%s", out, want)
	}
}

func TestCheckPasses(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	r := run(t, "check", "-C", repo, "--against", "git:HEAD")
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "✓ passed: 0 errors, 0 warnings, 0 notices in 6 subjects (6 unchanged), against git:HEAD") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Warnings alone pass: only the removed subject differs.
	r = run(t, "check", "-C", filepath.Join(sample, "base"), "--against", "dir:../base")
	if r.code != cli.ExitOK {
		t.Errorf("unchanged dir: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestCheckColor(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	r := run(t, "check", "-C", repo, "--against", "git:HEAD~1", "--color", "always")
	if !strings.Contains(r.stdout, "\x1b[1;31merror") {
		t.Errorf("--color always: no colour in\n%s", r.stdout)
	}
	// A buffer is not a terminal: auto is plain.
	r = run(t, "check", "-C", repo, "--against", "git:HEAD~1")
	if strings.Contains(r.stdout, "\x1b[") {
		t.Error("--color auto coloured a non-terminal")
	}
}

func TestCheckErrors(t *testing.T) {
	repo := sampleRepo(t)
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "charter.yaml"), []byte("version: 1\nschemas:\n  - files: \"*.avsc\"\n    strategy: sideways\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CHARTER_REGISTRY_URL", "")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no baseline", []string{"check", "-C", repo}, "charter: no baseline to compare with: pass --against git:REF or dir:PATH, or set a registry"},
		{"registry unreachable", []string{"check", "-C", repo, "--registry", "http://127.0.0.1:1"}, "charter: cannot reach the registry at http://127.0.0.1:1"},
		{"registry by --against", []string{"check", "-C", repo, "--against", "registry:http://127.0.0.1:1"}, "charter: cannot reach the registry at http://127.0.0.1:1"},
		{"unknown revision", []string{"check", "-C", repo, "--against", "git:nope"}, `charter: git revision "nope" not found`},
		{"bad against", []string{"check", "-C", repo, "--against", "HEAD"}, `charter: invalid --against "HEAD"`},
		{"bad format", []string{"check", "-C", repo, "--against", "git:HEAD", "--format", "xml"}, `charter: invalid --format "xml"`},
		{"bad color", []string{"check", "-C", repo, "--against", "git:HEAD", "--color", "pink"}, `charter: invalid --color "pink"`},
		{"no config", []string{"check", "-C", t.TempDir(), "--against", "git:HEAD"}, "charter: no charter.yaml found in"},
		{"missing directory", []string{"check", "-C", "/nope-charter-test", "--against", "git:HEAD"}, "charter: find charter.yaml: directory /nope-charter-test: stat /nope-charter-test: no such file or directory"},
		{"bad config", []string{"check", "-C", bad, "--against", "git:HEAD"}, "charter: " + filepath.Join(bad, "charter.yaml") + ":4: at /schemas/0/strategy"},
		{"missing --config", []string{"check", "--config", filepath.Join(bad, "nope.yaml"), "--against", "git:HEAD"}, "charter: read project config:"},
		{"extra argument", []string{"check", "now"}, `charter: unknown command "now"`},
		{"bad fail-on", []string{"check", "-C", repo, "--against", "git:HEAD", "--fail-on", "notice"}, `charter: invalid --fail-on "notice": want error or warning`},
		{"bad report-file", []string{"check", "-C", repo, "--against", "git:HEAD", "--report-file", "charter.sarif"}, `charter: invalid --report-file "charter.sarif": want FORMAT=PATH`},
		{"unknown report format", []string{"check", "-C", repo, "--against", "git:HEAD", "--report-file", "xml=a.xml"}, `charter: invalid --report-file "xml=a.xml": unknown format "xml": want one of text, json, github, markdown, sarif, gitlab, junit`},
		{"unwritable report", []string{"check", "-C", repo, "--against", "git:HEAD", "--report-file", "sarif=" + filepath.Join(bad, "no", "dir", "c.sarif")}, "charter: create report file:"},
		{"unwritable summary", []string{"check", "-C", repo, "--against", "git:HEAD", "--summary-file", filepath.Join(bad, "no", "dir", "s.md")}, "charter: open output file:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.args...)
			if r.code != cli.ExitError {
				t.Errorf("exit %d, want %d", r.code, cli.ExitError)
			}
			if !strings.HasPrefix(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr %q, want one line starting %q", r.stderr, tc.want)
			}
		})
	}
	// The registry URL comes from the environment too.
	t.Setenv("CHARTER_REGISTRY_URL", "http://127.0.0.1:1")
	if r := run(t, "check", "-C", repo); r.code != cli.ExitError || !strings.Contains(r.stderr, "cannot reach the registry at http://127.0.0.1:1") {
		t.Errorf("CHARTER_REGISTRY_URL: exit %d, %q", r.code, r.stderr)
	}
}

// TestHelpHasExamples: every command of this package family documents an
// example in --help.
func TestHelpHasExamples(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"check", "init", "diff", "rules"} {
		r := run(t, cmd, "--help")
		if r.code != cli.ExitOK || !strings.Contains(r.stdout, "Examples:\n  ") || !strings.Contains(r.stdout, "charter "+cmd) {
			t.Errorf("charter %s --help: exit %d\n%s", cmd, r.code, r.stdout)
		}
	}
}

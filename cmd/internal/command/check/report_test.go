package check_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/check"
	"github.com/charter-dev/charter/cmd/internal/render"
)

// schemas is where the render package vendors the published SARIF 2.1.0
// and GitLab Code Quality schemas (with their licences).
const schemas = "../../render/testdata/schemas"

func compile(t *testing.T, file string) *js.Schema {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(schemas, file))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := js.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := js.NewCompiler()
	c.DefaultDraft(js.Draft4)
	if err := c.AddResource("file:///"+file, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("file:///" + file)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestCheckReportFiles: one run writes the SARIF and GitLab reports
// beside its stdout format (as the action does), and both validate
// against their published schemas on the sample project.
func TestCheckReportFiles(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	dir := t.TempDir()
	sarif, gitlab, junit := filepath.Join(dir, "c.sarif"), filepath.Join(dir, "gl.json"), filepath.Join(dir, "c.xml")
	if err := os.WriteFile(sarif, []byte("stale content that must be replaced"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, "check", "-C", repo, "--against", "git:HEAD~1", "--format", "github",
		"--report-file", "sarif="+sarif, "--report-file", "GitLab="+gitlab, "--report-file", "junit="+junit)
	if r.code != cli.ExitViolations || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for file, golden := range map[string]string{sarif: "check.sarif", gitlab: "check.gitlab", junit: "check.junit"} {
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", golden))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the --format output testdata/%s", file, golden)
		}
	}
	sd, err := os.ReadFile(sarif)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := js.UnmarshalJSON(bytes.NewReader(sd))
	if err != nil {
		t.Fatal(err)
	}
	if err := compile(t, "sarif-schema-2.1.0.json").Validate(doc); err != nil {
		t.Errorf("SARIF report does not match the SARIF 2.1.0 schema: %v", err)
	}
	gd, err := os.ReadFile(gitlab)
	if err != nil {
		t.Fatal(err)
	}
	doc, err = js.UnmarshalJSON(bytes.NewReader(gd))
	if err != nil {
		t.Fatal(err)
	}
	issues, _ := doc.([]any)
	if len(issues) != 10 {
		t.Fatalf("GitLab report has %d entries, want the 10 findings", len(issues))
	}
	sch := compile(t, "gitlab-codeclimate.json")
	for i, is := range issues {
		if err := sch.Validate(is); err != nil {
			t.Errorf("GitLab entry %d does not match codeclimate.json: %v", i, err)
		}
	}
	var typed []struct {
		Location struct{ Path string } `json:"location"`
	}
	if err := json.Unmarshal(gd, &typed); err != nil {
		t.Fatal(err)
	}
	if typed[0].Location.Path != "proto/acme/shipping/v1/shipment.proto" {
		t.Errorf("first path %q", typed[0].Location.Path)
	}
}

// TestCheckFailOn: a change with warnings only (a removed subject)
// passes by default and fails under --fail-on warning, in the exit code,
// the step outputs and the verdict.
func TestCheckFailOn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old, cur := filepath.Join(dir, "old"), filepath.Join(dir, "cur")
	for _, d := range []string{old, cur} {
		if err := os.CopyFS(d, os.DirFS(filepath.Join(sample, "base"))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(cur, "schemas", "avro", "legacy.avsc")); err != nil {
		t.Fatal(err)
	}
	args := []string{"check", "-C", cur, "--against", "dir:" + old, "--format", "github"}
	r := run(t, args...)
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "::warning ") || !strings.Contains(r.stdout, "check passed: 0 errors, 1 warning") {
		t.Fatalf("default fail-on: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	outputs := filepath.Join(dir, "out")
	r = run(t, append(args, "--fail-on", "warning", "--github-output", outputs)...)
	if r.code != cli.ExitViolations || !strings.Contains(r.stdout, "check failed: 0 errors, 1 warning") {
		t.Fatalf("--fail-on warning: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(outputs); !strings.HasPrefix(string(b), "result=failed\nerrors=0\nwarnings=1\n") {
		t.Errorf("outputs %q", b)
	}
}

// TestCheckProgress: a check over ProgressMinSubjects subjects or more
// ends with one summary line on stderr when it is not a terminal (and took
// ProgressQuietUnder or more: 0 here); fewer subjects print nothing.
func TestCheckProgress(t *testing.T) {
	defer func(n int, d time.Duration) { check.ProgressMinSubjects, check.ProgressQuietUnder = n, d }(check.ProgressMinSubjects, check.ProgressQuietUnder)
	check.ProgressMinSubjects, check.ProgressQuietUnder = 20, 0
	for _, n := range []int{19, 20} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "charter.yaml"), []byte("version: 1\nschemas:\n  - files: \"*.avsc\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			avsc := fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"id","type":"string"}]}`, i)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("r%02d.avsc", i)), []byte(avsc), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r := run(t, "check", "-C", dir, "--against", "dir:.")
		if r.code != cli.ExitOK {
			t.Fatalf("%d subjects: exit %d\n%s%s", n, r.code, r.stdout, r.stderr)
		}
		want := ""
		if n == 20 {
			want = "check: 20 subjects in "
		}
		if (want == "" && r.stderr != "") || !strings.HasPrefix(r.stderr, want) || (want != "" && !strings.HasSuffix(r.stderr, " subjects/s)\n")) {
			t.Errorf("%d subjects: stderr %q, want %q…", n, r.stderr, want)
		}
	}
}

// TestCheckFilesNeverColoured: only stdout follows --color. With --color
// always, the text on stdout is coloured, and no file the run writes is:
// a report file in every format (text included), the summary and the
// outputs.
func TestCheckFilesNeverColoured(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	dir := t.TempDir()
	args := []string{"check", "-C", repo, "--against", "git:HEAD~1", "--color", "always",
		"--summary-file", filepath.Join(dir, "summary.md"), "--github-output", filepath.Join(dir, "outputs")}
	var files []string
	for _, f := range render.Formats {
		p := filepath.Join(dir, "report."+string(f))
		files = append(files, p)
		args = append(args, "--report-file", string(f)+"="+p)
	}
	files = append(files, filepath.Join(dir, "summary.md"), filepath.Join(dir, "outputs"))
	r := run(t, args...)
	if r.code != cli.ExitViolations || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("--color always: stdout has no colour:\n%s", r.stdout)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) == 0 || bytes.Contains(b, []byte("\x1b")) {
			t.Errorf("%s: empty or coloured (%d bytes):\n%q", filepath.Base(p), len(b), b)
		}
	}
}

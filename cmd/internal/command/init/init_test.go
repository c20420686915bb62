package initcmd_test

import (
	"bytes"
	"context"
	"os"
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

package diff_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/cmd/internal/cli"
)

var update = flag.Bool("update", false, "rewrite golden files")

const sample = "../../../../action/project/testdata/sample"

func init() { buildinfo.Version = "v0.0.0-test" }

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
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

func TestDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		code   int
		golden string
	}{
		{"avro full", []string{"diff", sample + "/base/schemas/avro/orders.avsc", sample + "/head/schemas/avro/orders.avsc"}, cli.ExitViolations, "avro-full.txt"},
		{"avro backward json", []string{"diff", "--level", "backward", "--format", "json", sample + "/base/schemas/avro/orders.avsc", sample + "/head/schemas/avro/orders.avsc"}, cli.ExitViolations, "avro-backward.json"},
		{"json markdown", []string{"diff", "--format", "markdown", "--subject", "payments", sample + "/base/jsonschema/payment.json", sample + "/head/jsonschema/payment.json"}, cli.ExitViolations, "json.md"},
		{"proto with import path", []string{"diff", "--import-path", "../../..", sample + "/base/proto/acme/shipping/v1/shipment.proto", sample + "/head/proto/acme/shipping/v1/shipment.proto"}, cli.ExitViolations, "proto.txt"},
		{"same file", []string{"diff", sample + "/base/schemas/avro/customer.avsc", sample + "/head/schemas/avro/customer.avsc"}, cli.ExitOK, "same.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, out, errs := run(tc.args...)
			if code != tc.code || errs != "" {
				t.Fatalf("exit %d (want %d), stderr %q", code, tc.code, errs)
			}
			golden(t, tc.golden, out)
		})
	}
}

func TestDiffErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", "a.avsc"}, "accepts 2 arg(s), received 1"},
		{[]string{"diff", "nope.avsc", sample + "/head/schemas/avro/orders.avsc"}, "charter: diff: stat nope.avsc: no such file or directory"},
		{[]string{"diff", "--level", "half", "a", "b"}, `--level: invalid compatibility level "half"`},
		{[]string{"diff", "--type", "xml", "a", "b"}, `invalid --type "xml"`},
		{[]string{"diff", "--format", "yaml", "a", "b"}, `invalid --format "yaml"`},
		{[]string{"diff", sample + "/base/charter.yaml", sample + "/head/charter.yaml"}, "cannot tell the format"},
	} {
		code, _, errs := run(tc.args...)
		if code != cli.ExitError || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestDiffColor: the text format is coloured as check's: --color always
// colours, auto does not off a terminal, never does not.
func TestDiffColor(t *testing.T) {
	t.Parallel()
	args := []string{"diff", sample + "/base/schemas/avro/orders.avsc", sample + "/head/schemas/avro/orders.avsc"}
	_, colored, _ := run(append(args, "--color", "always")...)
	_, plain, _ := run(args...)
	_, never, _ := run(append(args, "--color", "never")...)
	if !strings.Contains(colored, "\x1b[") || strings.Contains(plain, "\x1b[") || never != plain {
		t.Errorf("--color: always must colour, auto (not a terminal) and never must not:\n%q\n%q", colored, plain)
	}
	if code, _, errs := run(append(args, "--color", "pink")...); code != cli.ExitError || errs != "charter: invalid --color \"pink\": want auto, always or never\n" {
		t.Errorf("--color pink: exit %d, %q", code, errs)
	}
}

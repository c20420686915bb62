package contracts_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/command/contracts"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current output")

// run runs `charter args...` in-process from testdata/.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb})
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
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s: stdout differs from %s:\n got:\n%s\nwant:\n%s", name, path, got, want)
	}
}

func td(name string) string { return filepath.Join("testdata", name) }

func TestVerifyGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"pass_avro", []string{"contracts", "verify", td("invoicing.json"), "--schema", td("orders.avsc")}, 0},
		{"fail_avro", []string{"contracts", "verify", td("invoicing.json"), td("billing.json"), "--schema", td("orders-breaking.avsc")}, 1},
		{"fail_avro_json", []string{"contracts", "verify", td("invoicing.json"), "--schema", td("orders-breaking.avsc"), "--format", "json"}, 1},
		{"baseline_avro", []string{"contracts", "verify", td("invoicing.json"), "--schema", td("orders.avsc"), "--baseline", td("orders.avsc")}, 0},
		{"pass_protobuf", []string{"contracts", "verify", td("tracking.json"), "--schema", td("shipping.proto"), "--message", "ShipmentBooked"}, 0},
		{"pass_json_type_flag", []string{"contracts", "verify", td("crm.json"), "--schema", td("customer.json"), "--type", "json", "--format", "json"}, 0},
		{"wrong_format_for_pact", []string{"contracts", "verify", td("crm.json"), "--schema", td("shipping.proto")}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr %q, want none", errOut)
			}
			golden(t, tc.name, out)
		})
	}
}

func TestVerifyErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no schema", []string{"contracts", "verify", td("invoicing.json")}, "charter: contracts verify: --schema is required\n"},
		{"no pact", []string{"contracts", "verify", "--schema", td("orders.avsc")}, "charter: requires at least 1 arg(s), only received 0\n"},
		{"bad format", []string{"contracts", "verify", td("invoicing.json"), "--schema", td("orders.avsc"), "--format", "xml"}, `charter: contracts verify: invalid --format "xml": want text or json` + "\n"},
		{"bad output", []string{"contracts", "verify", td("invoicing.json"), "--schema", td("orders.avsc"), "-o", "xml"}, `charter: contracts verify: invalid -o/--output "xml": want text or json` + "\n"},
		{"bad type", []string{"contracts", "verify", td("invoicing.json"), "--schema", td("orders.avsc"), "--type", "xsd"}, `charter: contracts verify: unknown schema type "xsd" (want AVRO, PROTOBUF or JSON)` + "\n"},
		{"unknown extension", []string{"contracts", "verify", td("invoicing.json"), "--schema", td("deprecations.txt")}, "charter: schema testdata/deprecations.txt: cannot tell its type from the extension (use --type AVRO|PROTOBUF|JSON)\n"},
		{"missing pact", []string{"contracts", "verify", td("nope.json"), "--schema", td("orders.avsc")}, "charter: read pact: open testdata/nope.json: no such file or directory\n"},
		{"malformed pact", []string{"contracts", "verify", td("notapact.json"), "--schema", td("orders.avsc")}, "charter: pact testdata/notapact.json: malformed pact: invalid JSON: line 1, column 2: invalid character 'o' in literal null (expecting 'u')\n"},
		{"invalid schema", []string{"contracts", "verify", td("invoicing.json"), "--schema", td("broken.avsc")}, "charter: schema testdata/broken.avsc: "},
		{"missing message", []string{"contracts", "verify", td("tracking.json"), "--schema", td("shipping.proto"), "--message", "Nope"}, "charter: contracts: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, tc.args...)
			if code != cli.ExitError {
				t.Errorf("exit %d, want %d", code, cli.ExitError)
			}
			if out != "" {
				t.Errorf("stdout %q, want none", out)
			}
			if !strings.HasPrefix(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr %q, want one line starting %q", errOut, tc.want)
			}
		})
	}
}

// TestVerifyDeprecationsClock runs the command with an injected clock: the
// TTL message counts days from it, and an expired field breaks the
// contract.
func TestVerifyDeprecationsClock(t *testing.T) {
	errViolations := errors.New("violations")
	for _, tc := range []struct {
		name string
		now  time.Time
		want error
	}{
		{"deprecations_day0", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), nil},
		{"deprecations_day90", time.Date(2025, 3, 31, 0, 0, 0, 0, time.UTC), errViolations},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := contracts.NewCommand("contracts", contracts.Deps{ErrViolations: errViolations, Now: func() time.Time { return tc.now }})
			cmd.SilenceErrors, cmd.SilenceUsage = true, true // as under the root command
			var out bytes.Buffer
			cmd.SetOut(&out)
			cmd.SetErr(&out)
			cmd.SetArgs([]string{"verify", td("returns.json"), "--schema", td("shipments.avsc"), "--deprecations", td("deprecations.json")})
			if err := cmd.Execute(); !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			golden(t, tc.name, out.String())
		})
	}
}

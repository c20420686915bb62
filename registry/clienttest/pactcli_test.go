package clienttest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pactCLI finds the real Pact Broker CLI: env PACT_BROKER_CLI (the npm
// package @pact-foundation/pact-cli's node_modules/.bin/pact-broker, or
// the standalone `pact` binary of @pact-foundation/pact-cli-linux-x64, to
// which "broker" is prepended), else `pact-broker` on PATH. It returns the
// program and the arguments that come before a broker subcommand.
func pactCLI(t *testing.T) (string, []string) {
	t.Helper()
	p := os.Getenv("PACT_BROKER_CLI")
	if p == "" {
		var err error
		if p, err = exec.LookPath("pact-broker"); err != nil {
			missingPactCLI(t, "no Pact CLI: set PACT_BROKER_CLI or put pact-broker on PATH "+
				"(npm install @pact-foundation/pact-cli@18.1.2; .ci/run installs it in /opt/pact-cli)")
		}
	} else if _, err := os.Stat(p); err != nil {
		missingPactCLI(t, "PACT_BROKER_CLI: "+err.Error())
	}
	if filepath.Base(p) == "pact" {
		return p, []string{"broker"}
	}
	return p, nil
}

// missingPactCLI skips the test, or fails it in CI, where it must run.
func missingPactCLI(t *testing.T, why string) {
	t.Helper()
	if inCI() {
		t.Fatalf("%s (CI=true: the Pact CLI test must run)", why)
	}
	t.Skip(why)
}

// runPactCLI runs the CLI with args and returns its combined output and
// exit code (-1 when it did not run to an exit).
func runPactCLI(t *testing.T, prog string, pre []string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, append(append([]string{}, pre...), args...)...)
	var env []string
	for _, kv := range os.Environ() {
		// A broker URL or token from the caller's environment must not
		// redirect the CLI away from the server under test.
		if !strings.HasPrefix(kv, "PACT_BROKER_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "PACT_DO_NOT_TRACK=true")
	out, err := cmd.CombinedOutput()
	t.Logf("%s %s → %v\n%s", filepath.Base(prog), strings.Join(args, " "), err, out)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return string(out), ee.ExitCode()
	default:
		t.Fatalf("run %s: %v\n%s", prog, err, out)
		return "", -1
	}
}

// TestPactCLIPublishAndCanIDeploy runs the real Pact CLI (npm
// @pact-foundation/pact-cli 18.1.2, pact-broker-cli 0.8.8) against
// `charter serve`: `pact-broker publish` stores the pact as billing's
// contract for subject orders (provider name = subject), and
// `pact-broker can-i-deploy` answers yes (exit 0) while the schema
// satisfies the pact and no (exit 1, naming the field) after a breaking
// version drops a field billing reads.
func TestPactCLIPublishAndCanIDeploy(t *testing.T) {
	prog, pre := pactCLI(t)
	s := startServer(t)
	broker := s.URL + "/pact-broker"
	const (
		orderV1 = `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"amount","type":"double"},{"name":"currency","type":"string"}]}`
		orderV2 = `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"amount","type":"double"}]}`
	)
	s.mustDo(t, "POST", "/subjects/orders/versions", map[string]string{"schema": orderV1}, 200)

	out, code := runPactCLI(t, prog, pre, "publish", filepath.Join("testdata", "pactcli", "billing-orders.json"),
		"--consumer-app-version", "1.0.0", "--branch", "main", "--broker-base-url", broker)
	if code != 0 || !strings.Contains(out, "✅ Pact of billing 1.0.0 for orders published to Charter subject orders; it verifies against version 1") ||
		strings.Contains(out, "Warning") {
		t.Fatalf("publish: exit %d\n%s", code, out)
	}
	type contract struct {
		Subject, Consumer, ConsumerVersion, Branch string
	}
	got := decodeJSON[contract](t, "stored contract", s.mustDo(t, "GET", "/governance/subjects/orders/contracts/billing", nil, 200))
	if want := (contract{"orders", "billing", "1.0.0", "main"}); got != want {
		t.Errorf("stored contract %+v, want %+v", got, want)
	}

	canIDeploy := func(version string) (string, int) {
		return runPactCLI(t, prog, pre, "can-i-deploy", "--pacticipant", "billing", "--version", version, "--broker-base-url", broker)
	}
	out, code = canIDeploy("1.0.0")
	if code != 0 || !strings.Contains(out, "All required verification results are published and successful") ||
		!strings.Contains(out, "Computer says yes") {
		t.Errorf("can-i-deploy against v1: exit %d, want 0\n%s", code, out)
	}
	out, code = canIDeploy("0.9.0")
	if code != 1 || !strings.Contains(out, "No contract of billing version 0.9.0 is published to Charter") {
		t.Errorf("can-i-deploy of an unpublished version: exit %d, want 1\n%s", code, out)
	}

	// The producer drops currency: NONE lets the breaking version past
	// compatibility, and an operator who lowers CONTRACT_FIELD_MISSING to
	// a warning past the contract gate (by default it refuses, 42280).
	s.mustDo(t, "PUT", "/config/orders", map[string]string{"compatibility": "NONE"}, 200)
	s.mustDo(t, "POST", "/subjects/orders/versions", map[string]string{"schema": orderV2}, 422)
	s.mustDo(t, "PUT", "/governance/subjects/orders/policy", map[string]any{"rules": map[string]string{"CONTRACT_FIELD_MISSING": "warning"}}, 200)
	s.mustDo(t, "POST", "/subjects/orders/versions", map[string]string{"schema": orderV2}, 200)
	out, code = canIDeploy("1.0.0")
	if code != 1 || !strings.Contains(out, "Computer says no") ||
		!strings.Contains(out, "The contract of billing 1.0.0 does not verify against orders version 2: CONTRACT_FIELD_MISSING .currency") {
		t.Errorf("can-i-deploy against v2: exit %d, want 1\n%s", code, out)
	}
}

package contracts_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCharterDoesNotLinkPactGo guards the split: pact-go (cgo, libpact_ffi)
// lives in the contracts/pactinterop module and never in the charter
// binary's import graph, which must build with CGO_ENABLED=0.
func TestCharterDoesNotLinkPactGo(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not running go list")
	}
	cmd := exec.Command("go", "list", "-deps", "github.com/charter-dev/charter/cmd/charter")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "pact-foundation") || strings.HasPrefix(pkg, "github.com/charter-dev/charter/contracts/pactinterop") {
			t.Errorf("charter imports %s", pkg)
		}
	}
	if !strings.Contains(string(out), "github.com/charter-dev/charter/contracts\n") {
		t.Errorf("charter does not import contracts: the guard checks nothing")
	}
}

package clienttest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCharterHasNoConfluentDeps guards the CGO_ENABLED=0 build of the
// binary: the cgo Confluent client is for these tests only and must never
// reach ./cmd/charter's import graph (charterBinary builds the binary with
// CGO_ENABLED=0 for every server test). go list runs with the default cgo
// setting, so imports from cgo-only files count too.
func TestCharterHasNoConfluentDeps(t *testing.T) {
	cmd := exec.Command(goTool(), "list", "-deps", charterPackage)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", charterPackage, err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || deps[len(deps)-1] != charterPackage {
		t.Fatalf("go list -deps %s printed %d packages, not ending with the package itself", charterPackage, len(deps))
	}
	for _, p := range deps {
		if strings.Contains(p, "confluent-kafka-go") || strings.Contains(p, "librdkafka") {
			t.Errorf("%s imports %s: the binary must not depend on confluent-kafka-go", charterPackage, p)
		}
	}
}

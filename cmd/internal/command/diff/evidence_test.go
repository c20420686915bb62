package diff_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/cli"
)

const oldShipment = `{"type":"record","name":"Shipment","namespace":"acme","fields":[
 {"name":"id","type":"string"},
 {"name":"carrier","type":{"type":"enum","name":"Carrier","symbols":["DHL","UPS","FEDEX"]}}]}`

// TestDiffEvidence: --evidence gives each breaking finding its
// counterexample, and says how many events the compatible direction read
// back equal; with --format json the document stays whole on stdout and
// the summary goes to stderr.
func TestDiffEvidence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old, cur := filepath.Join(dir, "old.avsc"), filepath.Join(dir, "new.avsc")
	if err := os.WriteFile(old, []byte(oldShipment), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cur, []byte(strings.Replace(oldShipment, `,"FEDEX"`, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run("diff", "--evidence", old, cur)
	if code != cli.ExitViolations {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		`counterexample: {"carrier":"FEDEX","id":""} is refused at .carrier`,
		"evidence BACKWARD (NEXT reading PREVIOUS's events): 100 events: ",
		"evidence FORWARD (PREVIOUS reading NEXT's events): 100 events: 100 equal, 0 with a default, 0 with loss, 0 refused; compatible: 100 of 100 generated events read back equal",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = run("diff", "--evidence=10", "--format", "json", "--level", "BACKWARD", old, cur)
	if code != cli.ExitViolations {
		t.Fatalf("json: exit %d\n%s", code, errs)
	}
	var doc struct {
		Findings []struct {
			RuleID, Hint string
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	if len(doc.Findings) != 1 || !strings.Contains(doc.Findings[0].Hint, `"carrier":"FEDEX"`) {
		t.Errorf("findings %+v", doc.Findings)
	}
	if !strings.Contains(errs, "evidence BACKWARD (NEXT reading PREVIOUS's events): 10 events") {
		t.Errorf("stderr: %s", errs)
	}
}

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
		`counterexample: {"carrier":"FEDEX","id":""} is refused at .carrier`, // its own line, as in charter check
		"evidence BACKWARD (NEXT reading PREVIOUS's events): 100 events: ",
		"evidence FORWARD (PREVIOUS reading NEXT's events): 100 events: 100 read back equal; compatible",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = run("diff", "--evidence=10", "--format", "json", "--level", "BACKWARD", old, cur)
	if code != cli.ExitViolations {
		t.Fatalf("json: exit %d\n%s", code, errs)
	}
	// The counterexample is structured, as charter check's
	// (rule.Finding.Evidence).
	var doc struct {
		Findings []struct {
			RuleID   string
			Evidence *struct {
				Events int
				Event  json.RawMessage
				Class  string
				Path   string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, out)
	}
	if len(doc.Findings) != 1 || doc.Findings[0].Evidence == nil {
		t.Fatalf("findings %+v\n%s", doc.Findings, out)
	}
	if e := doc.Findings[0].Evidence; e.Events != 10 || e.Class != "refused" || e.Path != ".carrier" || !strings.Contains(string(e.Event), `"FEDEX"`) {
		t.Errorf("evidence %+v", e)
	}
	code, out, errs = run("diff", "--evidence=10", "--format", "sarif", "--level", "BACKWARD", old, cur)
	if code != cli.ExitViolations || !strings.Contains(out, `"evidence"`) || !strings.Contains(out, `FEDEX`) {
		t.Errorf("sarif: exit %d, no evidence property:\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "evidence BACKWARD (NEXT reading PREVIOUS's events): 10 events") {
		t.Errorf("stderr: %s", errs)
	}
}

// TestDiffEvidenceCases: per case of testdata/evidence (old.EXT, new.EXT,
// want.txt), the lines want.txt lists are in the output of
// charter diff --evidence (want.txt: one expected substring a line; a
// line starting with "!" must not appear). They pin that a finding gets
// only a counterexample at its own path, that a writer no valid event
// can be generated for is "not read" (never "0 of 0 … equal"), that a
// loss no rule names is shown with its event, and that the counts say
// equal, default and loss apart.
func TestDiffEvidenceCases(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join("testdata", "evidence", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			olds, _ := filepath.Glob(filepath.Join(dir, "old.*"))
			if len(olds) != 1 {
				t.Fatalf("want one old.EXT in %s", dir)
			}
			cur := filepath.Join(dir, "new"+filepath.Ext(olds[0]))
			_, out, errs := run("diff", "--evidence", olds[0], cur)
			b, err := os.ReadFile(filepath.Join(dir, "want.txt"))
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(string(b), "\n") {
				if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
					continue
				}
				if not, ok := strings.CutPrefix(l, "!"); ok {
					if strings.Contains(out, not) {
						t.Errorf("output has %q:\n%s", not, out)
					}
					continue
				}
				if !strings.Contains(out, l) {
					t.Errorf("output lacks %q:\n%s\n%s", l, out, errs)
				}
			}
		})
	}
}

// TestDiffEvidenceCount: --evidence takes 1 to evidence.MaxEvents
// events; anything else is refused in one line, exit 2, and so is the
// count given apart (--evidence 5).
func TestDiffEvidenceCount(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := filepath.Join(dir, "old.avsc")
	if err := os.WriteFile(old, []byte(oldShipment), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"-1", "0", "100001", "100000000"} {
		code, out, errs := run("diff", "--evidence="+n, old, old)
		if code != cli.ExitError || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "invalid --evidence "+n+": want a number of events from 1 to 100000") {
			t.Errorf("--evidence=%s: exit %d\n%s\n%s", n, code, out, errs)
		}
	}
	code, out, errs := run("diff", "--evidence=1", old, old)
	if code != 0 || !strings.Contains(out, "1 event: 1 read back equal; compatible") {
		t.Errorf("--evidence=1: exit %d\n%s\n%s", code, out, errs)
	}
	// A count put apart by a space, before or after the schemas: named
	// as such, in one line; a number without --evidence stays an
	// argument too many, and so does one after --evidence=N.
	for _, args := range [][]string{{old, old, "--evidence", "5"}, {"--evidence", "5", old, old}} {
		code, out, errs := run(append([]string{"diff"}, args...)...)
		if code != cli.ExitError || errs != "charter: --evidence takes its count as --evidence=5\n" {
			t.Errorf("%v: exit %d\n%s\n%q", args, code, out, errs)
		}
	}
	for _, args := range [][]string{{old, old, "5"}, {old, old, "--evidence=5", "5"}} {
		code, _, errs := run(append([]string{"diff"}, args...)...)
		if code != cli.ExitError || !strings.Contains(errs, "accepts 2 arg(s), received 3") {
			t.Errorf("%v: exit %d\n%q", args, code, errs)
		}
	}
}

// TestDiffEvidenceJSON: with -o json the subject carries charter check's
// evidence summary (project.EvidenceSummary): the counts, the unexplained
// losses and, when no event was read, notRead; without --evidence there
// is none, so a script tells "not read" from "not requested".
func TestDiffEvidenceJSON(t *testing.T) {
	t.Parallel()
	type summary struct {
		Pairs, Events, Equal, Defaulted, Lossy, Refused int
		NotRead                                         *string
		Unexplained                                     []struct {
			Direction string
			Outcome   struct {
				Class string
				Path  string
				Event json.RawMessage
			}
		}
	}
	doc := func(args ...string) *summary {
		t.Helper()
		_, out, errs := run(append([]string{"diff", "-o", "json"}, args...)...)
		var d struct {
			Subjects []struct{ Evidence *summary }
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Subjects) != 1 {
			t.Fatalf("%v: not one subject: %v\n%s\n%s", args, err, out, errs)
		}
		return d.Subjects[0].Evidence
	}
	dir := t.TempDir()
	old, cur := filepath.Join(dir, "old.avsc"), filepath.Join(dir, "new.avsc")
	if err := os.WriteFile(old, []byte(oldShipment), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cur, []byte(strings.Replace(oldShipment, `,"FEDEX"`, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if e := doc(old, cur); e != nil {
		t.Errorf("no --evidence: evidence %+v", e)
	}
	e := doc("--evidence=10", old, cur)
	if e == nil || e.Pairs != 2 || e.Events != 20 || e.Refused == 0 || e.Equal+e.Defaulted+e.Lossy+e.Refused != 20 || e.NotRead != nil || len(e.Unexplained) != 0 {
		t.Errorf("evidence %+v", e)
	}

	// Losses no rule names: in the document, not only on stderr.
	lossDir := filepath.Join("testdata", "evidence", "avro_loss_no_rule")
	e = doc("--evidence", filepath.Join(lossDir, "old.avsc"), filepath.Join(lossDir, "new.avsc"))
	if e == nil || e.Lossy == 0 || len(e.Unexplained) == 0 {
		t.Fatalf("loss: evidence %+v", e)
	}
	for _, u := range e.Unexplained {
		if o := u.Outcome; u.Direction != "BACKWARD" || o.Class == "" || o.Path == "" || len(o.Event) == 0 {
			t.Errorf("unexplained %+v", u)
		}
	}

	// A side that does not parse alone: notRead, counts zero.
	for name, text := range map[string]string{
		"o.json":     `{"type":"object","properties":{"a":{"$ref":"other.json"}}}`,
		"n.json":     `{"type":"object","properties":{"a":{"$ref":"other.json"},"b":{"type":"string"}}}`,
		"other.json": `{"type":"string"}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e = doc("--evidence", filepath.Join(dir, "o.json"), filepath.Join(dir, "n.json"))
	if e == nil || e.NotRead == nil || !strings.Contains(*e.NotRead, "does not parse alone") || e.Events != 0 {
		t.Errorf("not read: evidence %+v", e)
	}
}

package check_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/cmd/internal/render"
)

// evidenceProject copies the project of three changes (testdata/evidence:
// a removed enum symbol, a field added with a default, a Protobuf
// repeated field made singular) out of this repository, so that paths do
// not depend on where it is checked out, and returns its head directory.
func evidenceProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "evidence"))); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "head")
}

func runEvidence(t *testing.T, args ...string) result {
	t.Helper()
	return run(t, append([]string{"check", "-C", evidenceProject(t), "--against", "dir:../base", "--evidence"}, args...)...)
}

// TestCheckEvidenceFormats: with --evidence every breaking finding
// carries its counterexample and what the reader did, in every format,
// and each changed subject says how many events read back equal.
func TestCheckEvidenceFormats(t *testing.T) {
	t.Parallel()
	for _, f := range render.Formats {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			r := runEvidence(t, "--format", string(f))
			if r.code != cli.ExitViolations || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			golden(t, "evidence.check."+string(f), r.stdout)
		})
	}
}

// TestCheckEvidenceValues reads the json format: the values the other
// formats render.
func TestCheckEvidenceValues(t *testing.T) {
	t.Parallel()
	r := runEvidence(t, "--format", "json")
	if r.code != cli.ExitViolations {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Subjects []struct {
			Subject  string
			Evidence *struct{ Pairs, Events, Equal, Defaulted, Lossy, Refused int }
		}
		Findings []struct {
			RuleID, Severity, Path string
			Evidence               *struct {
				Events              int
				Event, Read         json.RawMessage
				Class, Path, Reader string
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	ev := map[string]string{}
	for _, s := range doc.Subjects {
		if s.Evidence != nil {
			e := s.Evidence
			ev[s.Subject] = strings.Join([]string{itoa(e.Pairs), itoa(e.Events), itoa(e.Equal), itoa(e.Defaulted), itoa(e.Lossy), itoa(e.Refused)}, " ")
		}
	}
	// pairs events equal defaulted lossy refused
	want := map[string]string{
		"customer-value":         "1 100 0 100 0 0", // every event read back, points filled with its default
		"shipment-value":         "1 100 47 0 0 53", // the events that carry FEDEX are refused
		"acme.parcels.v1.Parcel": "1 100 46 0 54 0", // two labels or more: the reader keeps the last
	}
	for s, w := range want {
		if ev[s] != w {
			t.Errorf("%s evidence %q, want %q", s, ev[s], w)
		}
	}
	if len(doc.Findings) != 2 {
		t.Fatalf("findings: %+v", doc.Findings)
	}
	for _, f := range doc.Findings {
		e := f.Evidence
		if e == nil {
			t.Fatalf("%s has no evidence", f.RuleID)
		}
		var got string
		switch f.RuleID {
		case "AVRO_MISSING_ENUM_SYMBOLS":
			got = `{"carrier":"FEDEX","id":"","weight":0} refused .carrier`
			if !strings.Contains(e.Reader, "missing symbol FEDEX") || e.Read != nil {
				t.Errorf("reader %q, read %s", e.Reader, e.Read)
			}
		case "PROTO_REPEATED_TO_SINGULAR":
			got = `{"labels":["a","a"]} loss .Parcel.labels`
			if f.Severity != "warning" || e.Reader != "the reader kept only the last of 2 values" || compactJSON(e.Read) != `{"labels":"a"}` {
				t.Errorf("severity %s, reader %q, read %s", f.Severity, e.Reader, e.Read)
			}
		default:
			t.Fatalf("finding %s", f.RuleID)
		}
		if s := compactJSON(e.Event) + " " + e.Class + " " + e.Path; s != got || e.Events != 100 {
			t.Errorf("%s: evidence %q (%d events), want %q", f.RuleID, s, e.Events, got)
		}
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
	inst, err := js.UnmarshalJSON(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("--evidence json does not match check-report.schema.json: %v", err)
	}
	// SARIF with its evidence properties still matches SARIF 2.1.0.
	sr := runEvidence(t, "--format", "sarif")
	sd, err := js.UnmarshalJSON(strings.NewReader(sr.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if err := compile(t, "sarif-schema-2.1.0.json").Validate(sd); err != nil {
		t.Errorf("--evidence SARIF does not match the SARIF 2.1.0 schema: %v", err)
	}
}

// TestCheckEvidenceCount: --evidence=N reads N events per pair; without
// the flag nothing is read; --evidence 5 is refused with the =5 form.
func TestCheckEvidenceCount(t *testing.T) {
	t.Parallel()
	head := evidenceProject(t)
	r := run(t, "check", "-C", head, "--against", "dir:../base", "--evidence=20")
	if !strings.Contains(r.stdout, "evidence for customer-value: 20 of 20 generated events read back (all with the reader's default) over 1 pair") {
		t.Errorf("--evidence=20:\n%s", r.stdout)
	}
	r = run(t, "check", "-C", head, "--against", "dir:../base")
	if strings.Contains(r.stdout, "evidence") || strings.Contains(r.stdout, "PROTO_REPEATED_TO_SINGULAR") {
		t.Errorf("without --evidence:\n%s", r.stdout)
	}
	for _, n := range []string{"-1", "0", "100001"} {
		r = run(t, "check", "-C", head, "--against", "dir:../base", "--evidence="+n)
		if r.code != cli.ExitError || r.stderr != "charter: invalid --evidence "+n+": want a number of events from 1 to 100000\n" {
			t.Errorf("--evidence=%s: exit %d, %q", n, r.code, r.stderr)
		}
	}
	// The count put apart by a space is named as such, in one line.
	r = run(t, "check", "-C", head, "--against", "dir:../base", "--evidence", "5")
	if r.code != cli.ExitError || r.stderr != "charter: --evidence takes its count as --evidence=5\n" {
		t.Errorf("--evidence 5: exit %d, %q", r.code, r.stderr)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// TestCheckEvidenceGaps (testdata/evidence-gaps): a loss every rule
// accepts is shown with its event (text, and structured in json), and a
// pair whose writer no valid event can be generated for is named "not
// read", never counted as compatible; the json still matches
// check-report.schema.json.
func TestCheckEvidenceGaps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "evidence-gaps"))); err != nil {
		t.Fatal(err)
	}
	head := filepath.Join(dir, "head")
	r := run(t, "check", "-C", head, "--against", "dir:../base", "--evidence")
	for _, want := range []string{
		"evidence for code-value: 100 generated events over 2 pairs: 0 equal, 0 with the reader's default, 0 with loss, 100 refused; not read: FORWARD: no event valid for the writer could be generated",
		"evidence for measure-value: 200 generated events over 2 pairs: 34 equal, 0 with the reader's default, 66 with loss, 100 refused",
		`evidence for measure-value: BACKWARD: no rule names this: {"id":9223372036854775807,"raw":""} loses data at .id: the reader read 9223372036854775807 as 9.223372036854776e+18`,
		`evidence for measure-value: BACKWARD: no rule names this: {"id":0,"raw":"ÿþ\u0000Ã"} loses data at .raw`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "0 of 0") {
		t.Errorf("zero events called compatible:\n%s", r.stdout)
	}
	r = run(t, "check", "-C", head, "--against", "dir:../base", "--evidence", "--format", "json")
	var doc struct {
		Subjects []struct {
			Subject  string
			Evidence struct {
				NotRead     string
				Unexplained []struct {
					Direction string
					Outcome   struct{ Class, Path string }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range doc.Subjects {
		var b strings.Builder
		b.WriteString(s.Evidence.NotRead)
		for _, u := range s.Evidence.Unexplained {
			b.WriteString(" " + u.Direction + " " + u.Outcome.Class + " " + u.Outcome.Path)
		}
		got[s.Subject] = b.String()
	}
	want := map[string]string{
		"code-value":    "FORWARD: no event valid for the writer could be generated",
		"measure-value": " BACKWARD loss .raw BACKWARD loss .id",
	}
	for s, w := range want {
		if got[s] != w {
			t.Errorf("%s: %q, want %q", s, got[s], w)
		}
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
	inst, err := js.UnmarshalJSON(strings.NewReader(r.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("json does not match check-report.schema.json: %v", err)
	}
}

package render_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

// failing is a result with every kind of finding: each severity, with and
// without file, line, path, direction, version and consumer, and text that
// needs escaping in every format.
func failing() *project.Result {
	return &project.Result{
		Against: "git:main",
		Subjects: []project.SubjectResult{
			{Subject: "", File: "broken/x.avsc", Format: compat.Avro, Status: project.StatusInvalid},
			{Subject: "orders-value", File: "schemas/orders.avsc", Format: compat.Avro, Level: compat.Full, Status: project.StatusChanged, Compared: 1, Errors: 2, Warnings: 1},
			{Subject: "pay|ments:v1,x", File: "json/payment.json", Format: compat.JSON, Level: compat.Backward, Status: project.StatusChanged, Compared: 2, Errors: 0, Notices: 1},
			{Subject: "shipments", File: "proto/shipment.proto", Format: compat.Protobuf, Level: compat.Backward, Status: project.StatusUnchanged, Compared: 1},
		},
		Report: rule.Report{Findings: []rule.Finding{
			{RuleID: "SCHEMA_INVALID", Severity: rule.Error, File: "broken/x.avsc", Message: "invalid Avro schema: field \"a\" has no type", Hint: "fix the file, or change its charter.yaml entry"},
			{RuleID: "AVRO_TYPE_MISMATCH", Severity: rule.Error, Subject: "orders-value", File: "schemas/orders.avsc", Line: 6, Path: ".id",
				Message: "the writer's string cannot be read as the reader's long", Hint: "keep the type or use a promotion (int→long)", Direction: "BACKWARD", Version: 3},
			{RuleID: "AVRO_READER_FIELD_MISSING_DEFAULT", Severity: rule.Error, Subject: "orders-value", File: "schemas/orders.avsc", Line: 12, Path: ".lines[].note<string>",
				Message: "field \"note\" is in the reader without a default", Hint: "give \"note\" a default", Direction: "FORWARD"},
			{RuleID: "CONTRACT_FIELD_MISSING", Severity: rule.Warning, Subject: "orders-value", File: "schemas/orders.avsc", Path: ".email",
				Message: "consumer reads \"email\" | 100% of the time,\nand it is gone", Hint: "keep <email> & tell them", Consumer: "billing-service"},
			{RuleID: "SUBJECT_ADDED", Severity: rule.Notice, Subject: "pay|ments:v1,x", File: "json/payment.json",
				Message: "new subject `pay|ments:v1,x`", Hint: "review it as a new contract"},
		}},
	}
}

func passing() *project.Result {
	return &project.Result{
		Against:  "registry:http://localhost:8081",
		Subjects: []project.SubjectResult{{Subject: "a-value", File: "a.avsc", Format: compat.Avro, Level: compat.Backward, Status: project.StatusUnchanged, Compared: 1}},
		Report:   rule.Report{Findings: []rule.Finding{}},
	}
}

func TestCheckGolden(t *testing.T) {
	t.Parallel()
	ext := map[render.Format]string{render.Text: "txt", render.JSON: "json", render.GitHub: "github", render.Markdown: "md", render.SARIF: "sarif", render.GitLab: "gitlab.json", render.JUnit: "junit.xml"}
	for name, res := range map[string]*project.Result{"failing": failing(), "passing": passing()} {
		for _, f := range render.Formats {
			var b bytes.Buffer
			o := render.Options{ToolVersion: "v1.2.3", PathPrefix: "services/sales/"}
			if err := render.Check(&b, f, res, o); err != nil {
				t.Fatal(err)
			}
			golden(t, name+"."+ext[f], b.Bytes())
		}
	}
	var b bytes.Buffer
	if err := render.Check(&b, render.Text, failing(), render.Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "failing.color.txt", b.Bytes())
}

// TestTextColor: colour only when asked, and then severities, rules and
// fixes are styled; the plain text is the same once escapes are removed.
func TestTextColor(t *testing.T) {
	t.Parallel()
	var plain, color bytes.Buffer
	if err := render.Check(&plain, render.Text, failing(), render.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := render.Check(&color, render.Text, failing(), render.Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b[") {
		t.Error("plain text has escape codes")
	}
	for _, want := range []string{"\x1b[1;31merror  \x1b[0m", "\x1b[1;33mwarning\x1b[0m", "\x1b[34mnotice \x1b[0m", "\x1b[32mfix:\x1b[0m"} {
		if !strings.Contains(color.String(), want) {
			t.Errorf("coloured text lacks %q", want)
		}
	}
	if got := stripANSI(color.String()); got != plain.String() {
		t.Errorf("coloured text without escapes differs from plain:\n%s\n---\n%s", got, plain.String())
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < '@' || s[j] > '~') {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// TestJSONMatchesSchema validates the json format against its documented
// JSON Schema.
func TestJSONMatchesSchema(t *testing.T) {
	t.Parallel()
	sch := compileReportSchema(t)
	for name, res := range map[string]*project.Result{"failing": failing(), "passing": passing(), "empty": {Against: "dir:x"}} {
		var b bytes.Buffer
		if err := render.Check(&b, render.JSON, res, render.Options{ToolVersion: "dev"}); err != nil {
			t.Fatal(err)
		}
		doc, err := js.UnmarshalJSON(&b)
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(doc); err != nil {
			t.Errorf("%s: json output does not match check-report.schema.json (document new fields there): %v", name, err)
		}
	}
	// The schema rejects what it should: a finding without a rule.
	bad := map[string]any{"schemaVersion": 1, "tool": map[string]any{"name": "charter", "version": "x"}, "against": "", "passed": true,
		"summary": map[string]any{"subjects": 0, "errors": 0, "warnings": 0, "notices": 0}, "subjects": []any{},
		"findings": []any{map[string]any{"severity": "error", "subject": "s", "message": "m"}}}
	if err := sch.Validate(bad); err == nil {
		t.Error("schema accepts a finding without ruleId")
	}
}

func compileReportSchema(t *testing.T) *js.Schema {
	t.Helper()
	doc, err := js.UnmarshalJSON(bytes.NewReader(render.ReportSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := js.NewCompiler()
	if err := c.AddResource("report.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("report.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func TestSARIFStructure(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := render.Check(&b, render.SARIF, failing(), render.Options{ToolVersion: "dev", PathPrefix: "p/"}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation *struct {
						ArtifactLocation struct{ URI string }     `json:"artifactLocation"`
						Region           *struct{ StartLine int } `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if len(run.Results) != 5 || len(run.Tool.Driver.Rules) != 5 {
		t.Fatalf("%d results, %d rules", len(run.Results), len(run.Tool.Driver.Rules))
	}
	levels := map[string]bool{"error": true, "warning": true, "note": true}
	prints := map[string]bool{}
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID || !levels[r.Level] {
			t.Errorf("result %s: ruleIndex %d, level %s", r.RuleID, r.RuleIndex, r.Level)
		}
		for _, l := range r.Locations {
			if l.PhysicalLocation != nil && !strings.HasPrefix(l.PhysicalLocation.ArtifactLocation.URI, "p/") {
				t.Errorf("uri %q lacks the prefix", l.PhysicalLocation.ArtifactLocation.URI)
			}
			if l.PhysicalLocation != nil && l.PhysicalLocation.Region != nil && l.PhysicalLocation.Region.StartLine < 1 {
				t.Errorf("startLine %d", l.PhysicalLocation.Region.StartLine)
			}
		}
		fp := r.PartialFingerprints["charterFinding/v1"]
		if len(fp) != 32 || prints[fp] {
			t.Errorf("fingerprint %q (repeated: %v)", fp, prints[fp])
		}
		prints[fp] = true
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]render.Format{"text": render.Text, "JSON": render.JSON, "md": render.Markdown, " github ": render.GitHub, "sarif": render.SARIF, "GitLab": render.GitLab, "junit": render.JUnit} {
		if got, err := render.ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := render.ParseFormat("xml"); err == nil || !strings.Contains(err.Error(), "text, json, github, markdown, sarif, gitlab, junit") {
		t.Errorf("ParseFormat(xml): %v", err)
	}
}

func TestRulesGolden(t *testing.T) {
	t.Parallel()
	rules := []rule.Rule{
		{ID: "AVRO_TYPE_MISMATCH", Format: compat.Avro, Category: "compatibility", Severity: rule.Error, Purpose: "Types must match | promote."},
		{ID: "SUBJECT_ADDED", Category: "project", Severity: rule.Notice, Purpose: "A new subject."},
	}
	for f, ext := range map[render.Format]string{render.Text: "txt", render.JSON: "json", render.Markdown: "md"} {
		var b bytes.Buffer
		if err := render.Rules(&b, f, rules, render.Options{}); err != nil {
			t.Fatal(err)
		}
		golden(t, "rules."+ext, b.Bytes())
	}
	if err := render.Rules(&bytes.Buffer{}, render.SARIF, rules, render.Options{}); err == nil {
		t.Error("rules as sarif: no error")
	}
}

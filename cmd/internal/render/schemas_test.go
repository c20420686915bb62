package render_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/compat/rule"
)

// The published schemas the sarif and gitlab formats must satisfy,
// vendored with their licences in testdata/schemas (see its README).
const (
	sarifSchemaFile  = "testdata/schemas/sarif-schema-2.1.0.json"
	gitlabSchemaFile = "testdata/schemas/gitlab-codeclimate.json"
)

// compileSchema compiles a vendored JSON Schema file (its own draft, from
// its $schema) without network access.
func compileSchema(t *testing.T, file string) *js.Schema {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := js.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	url := "file:///" + filepath.Base(file)
	c := js.NewCompiler()
	c.DefaultDraft(js.Draft4)
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("compile %s: %v", file, err)
	}
	return sch
}

func renderDoc(t *testing.T, f render.Format, r *project.Result, o render.Options) any {
	t.Helper()
	var b bytes.Buffer
	if err := render.Check(&b, f, r, o); err != nil {
		t.Fatal(err)
	}
	doc, err := js.UnmarshalJSON(&b)
	if err != nil {
		t.Fatalf("%s output is not JSON: %v", f, err)
	}
	return doc
}

// TestSARIFMatchesPublishedSchema validates the sarif format against the
// OASIS SARIF 2.1.0 schema, and checks the schema rejects a broken log.
func TestSARIFMatchesPublishedSchema(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t, sarifSchemaFile)
	for name, res := range map[string]*project.Result{"failing": failing(), "passing": passing(), "empty": {Against: "dir:x"}} {
		if err := sch.Validate(renderDoc(t, render.SARIF, res, render.Options{ToolVersion: "v1.2.3", PathPrefix: "p/"})); err != nil {
			t.Errorf("%s: sarif output does not match the SARIF 2.1.0 schema: %v", name, err)
		}
	}
	// The schema is strict where we rely on it: a result level outside
	// the four SARIF levels is refused.
	doc := renderDoc(t, render.SARIF, failing(), render.Options{})
	doc.(map[string]any)["runs"].([]any)[0].(map[string]any)["results"].([]any)[0].(map[string]any)["level"] = "fatal"
	if err := sch.Validate(doc); err == nil {
		t.Error("the SARIF schema accepts level \"fatal\"")
	}
}

// TestGitLabMatchesPublishedSchema validates every entry of the gitlab
// format with GitLab's own validator schema (codeclimate.json) and checks
// what GitLab's Code Quality widget reads: a unique fingerprint, a known
// severity, a path relative to the repository and a line.
func TestGitLabMatchesPublishedSchema(t *testing.T) {
	t.Parallel()
	sch := compileSchema(t, gitlabSchemaFile)
	o := render.Options{PathPrefix: "services/sales/", ConfigFile: "services/sales/charter.yaml"}
	doc := renderDoc(t, render.GitLab, failing(), o)
	issues, ok := doc.([]any)
	if !ok || len(issues) != len(failing().Findings) {
		t.Fatalf("gitlab output: %T with %d entries, want an array of %d", doc, len(issues), len(failing().Findings))
	}
	for i, is := range issues {
		if err := sch.Validate(is); err != nil {
			t.Errorf("entry %d does not match GitLab's codeclimate.json: %v", i, err)
		}
	}
	// The schema refuses what GitLab's parser refuses: an entry without
	// a fingerprint, a line that is not a number.
	bad := map[string]any{"description": "d", "severity": "major", "location": map[string]any{"path": "a", "lines": map[string]any{"begin": 1}}}
	if err := sch.Validate(bad); err == nil {
		t.Error("GitLab's schema accepts an entry without a fingerprint")
	}
	bad["fingerprint"] = "f"
	bad["location"] = map[string]any{"path": "a", "lines": map[string]any{"begin": "1"}}
	if err := sch.Validate(bad); err == nil {
		t.Error("GitLab's schema accepts a line that is a string")
	}
	var typed []struct {
		Description, CheckName, Fingerprint, Severity string
		Location                                      struct {
			Path  string
			Lines struct{ Begin int }
		}
	}
	var b bytes.Buffer
	if err := render.Check(&b, render.GitLab, failing(), o); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(bytes.ReplaceAll(b.Bytes(), []byte(`"check_name"`), []byte(`"checkname"`)), &typed); err != nil {
		t.Fatal(err)
	}
	prints := map[string]bool{}
	want := []struct {
		check, severity, path string
		line                  int
	}{
		{"SCHEMA_INVALID", "critical", "services/sales/broken/x.avsc", 1},
		{"AVRO_TYPE_MISMATCH", "critical", "services/sales/schemas/orders.avsc", 6},
		{"AVRO_READER_FIELD_MISSING_DEFAULT", "critical", "services/sales/schemas/orders.avsc", 12},
		{"CONTRACT_FIELD_MISSING", "minor", "services/sales/schemas/orders.avsc", 1},
		{"SUBJECT_ADDED", "info", "services/sales/json/payment.json", 1},
	}
	for i, is := range typed {
		w := want[i]
		if is.CheckName != w.check || is.Severity != w.severity || is.Location.Path != w.path || is.Location.Lines.Begin != w.line {
			t.Errorf("entry %d: %s %s %s:%d, want %s %s %s:%d", i, is.CheckName, is.Severity, is.Location.Path, is.Location.Lines.Begin, w.check, w.severity, w.path, w.line)
		}
		if len(is.Fingerprint) != 32 || prints[is.Fingerprint] {
			t.Errorf("entry %d: fingerprint %q (repeated: %v)", i, is.Fingerprint, prints[is.Fingerprint])
		}
		prints[is.Fingerprint] = true
	}
	if !strings.Contains(typed[1].Description, "orders-value: .id: the writer's string") || !strings.Contains(typed[1].Description, "Fix: keep the type") {
		t.Errorf("description %q lacks subject, path or fix", typed[1].Description)
	}
	// Two findings equal in all but their line still get two fingerprints.
	twice := &project.Result{Report: rule.Report{Findings: []rule.Finding{
		{RuleID: "X", Severity: rule.Error, Subject: "s", File: "a.avsc", Line: 1, Message: "m"},
		{RuleID: "X", Severity: rule.Error, Subject: "s", File: "a.avsc", Line: 2, Message: "m"},
	}}}
	b.Reset()
	if err := render.Check(&b, render.GitLab, twice, render.Options{}); err != nil {
		t.Fatal(err)
	}
	var two []struct{ Fingerprint string }
	if err := json.Unmarshal(b.Bytes(), &two); err != nil || len(two) != 2 || two[0].Fingerprint == two[1].Fingerprint {
		t.Errorf("duplicate findings: %v %+v", err, two)
	}
	// A finding without a file points at charter.yaml.
	b.Reset()
	noFile := &project.Result{Report: rule.Report{Findings: []rule.Finding{{RuleID: "OWNER_MISSING", Severity: rule.Warning, Subject: "s", Message: "m"}}}}
	if err := render.Check(&b, render.GitLab, noFile, render.Options{PathPrefix: "svc/"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"path": "svc/charter.yaml"`) {
		t.Errorf("finding without a file:\n%s", b.String())
	}
}

type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Type string `xml:"type,attr"`
				Text string `xml:",chardata"`
			} `xml:"failure"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func parseJUnit(t *testing.T, r *project.Result, o render.Options) junitDoc {
	t.Helper()
	var b bytes.Buffer
	if err := render.Check(&b, render.JUnit, r, o); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("junit output is not XML: %v\n%s", err, b.String())
	}
	return doc
}

// TestJUnitStructure: a suite per subject (the passing one included), a
// testcase per finding, failures for errors only unless warnings fail.
func TestJUnitStructure(t *testing.T) {
	t.Parallel()
	doc := parseJUnit(t, failing(), render.Options{})
	if doc.Tests != 6 || doc.Failures != 3 || len(doc.Suites) != 4 {
		t.Fatalf("tests %d failures %d suites %d, want 6, 3, 4", doc.Tests, doc.Failures, len(doc.Suites))
	}
	names := []string{}
	for _, s := range doc.Suites {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, "|"); got != "broken/x.avsc|orders-value|pay|ments:v1,x|shipments" {
		t.Errorf("suites %s", got)
	}
	orders := doc.Suites[1]
	if orders.Tests != 3 || orders.Failures != 2 || orders.Cases[0].Name != "AVRO_TYPE_MISMATCH .id" || orders.Cases[0].Failure == nil ||
		!strings.Contains(orders.Cases[0].Failure.Text, "schemas/orders.avsc:6: the writer's string") {
		t.Errorf("orders-value suite: %+v", orders)
	}
	if c := orders.Cases[2]; c.Failure != nil || !strings.HasPrefix(c.SystemOut, "warning: ") || c.Name != "CONTRACT_FIELD_MISSING .email (consumer billing-service)" {
		t.Errorf("warning case: %+v", c)
	}
	if s := doc.Suites[3]; s.Tests != 1 || s.Cases[0].Name != "check" || s.Cases[0].Failure != nil {
		t.Errorf("passing subject: %+v", s)
	}
	// Under fail-on warning the warning fails too, and every format's
	// verdict follows.
	doc = parseJUnit(t, failing(), render.Options{FailOnWarning: true})
	if doc.Failures != 4 {
		t.Errorf("fail-on warning: %d failures, want 4", doc.Failures)
	}
	warnOnly := &project.Result{Against: "git:main", Report: rule.Report{Findings: []rule.Finding{{RuleID: "W", Severity: rule.Warning, Subject: "s", Message: "m"}}}}
	if render.Failed(warnOnly, render.Options{}) || !render.Failed(warnOnly, render.Options{FailOnWarning: true}) {
		t.Error("Failed ignores FailOnWarning")
	}
	var md bytes.Buffer
	if err := render.Check(&md, render.Markdown, warnOnly, render.Options{FailOnWarning: true}); err != nil || !strings.HasPrefix(md.String(), "### ❌ Charter schema check failed") {
		t.Errorf("markdown under fail-on warning: %v\n%s", err, md.String())
	}
}

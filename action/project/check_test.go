package project_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/action/project/projecttest"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
)

// brief renders a finding as "severity RULE subject file:line path direction".
func brief(f rule.Finding) string {
	s := fmt.Sprintf("%s %s %s %s:%d", f.Severity, f.RuleID, f.Subject, f.File, f.Line)
	if f.Path != "" {
		s += " " + f.Path
	}
	if f.Direction != "" {
		s += " " + f.Direction
	}
	return s
}

func briefs(fs []rule.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(brief(f) + "\n")
	}
	return b.String()
}

// sampleFindings are the findings of testdata/sample: head against base.
const sampleFindings = `error PROTO_FIELD_SCALAR_KIND_CHANGED acme.shipping.v1.Shipment proto/acme/shipping/v1/shipment.proto:9 .Shipment.carrier BACKWARD
warning SUBJECT_REMOVED legacy-value schemas/avro/legacy.avsc:0
error AVRO_TYPE_MISMATCH orders-value schemas/avro/orders.avsc:6 .id BACKWARD
error AVRO_READER_FIELD_MISSING_DEFAULT orders-value schemas/avro/orders.avsc:10 .email BACKWARD
warning PII_UNTAGGED orders-value schemas/avro/orders.avsc:10 .email
error JSON_COMBINED_TYPE_SUBSCHEMAS_CHANGED payment-value jsonschema/payment.json:8 #/properties/method BACKWARD
warning JSON_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL payment-value jsonschema/payment.json:5 #/properties/reference BACKWARD
warning PII_UNTAGGED refunds-value schemas/avro/refunds.avsc:6 .order.customer.name
warning PII_UNTAGGED refunds-value schemas/avro/refunds.avsc:6 .order.email
notice SUBJECT_ADDED refunds-value schemas/avro/refunds.avsc:0
`

const sampleSubjects = `acme.shipping.v1.Address PROTOBUF BACKWARD unchanged compared=1 e=0 w=0 n=0
acme.shipping.v1.Shipment PROTOBUF BACKWARD changed compared=1 e=1 w=0 n=0
customer-value AVRO BACKWARD unchanged compared=1 e=0 w=0 n=0
legacy-value AVRO BACKWARD removed compared=0 e=0 w=1 n=0
orders-value AVRO BACKWARD changed compared=1 e=2 w=1 n=0
payment-value JSON FULL changed compared=1 e=1 w=1 n=0
refunds-value AVRO BACKWARD added compared=0 e=0 w=2 n=1
`

func subjectLines(r *project.Result) string {
	var b strings.Builder
	for _, s := range r.Subjects {
		fmt.Fprintf(&b, "%s %s %s %s compared=%d e=%d w=%d n=%d\n", s.Subject, s.Format, s.Level, s.Status, s.Compared, s.Errors, s.Warnings, s.Notices)
	}
	return b.String()
}

func mustFind(t testing.TB, dir string) *project.Project {
	t.Helper()
	p, err := project.Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckAgainstDir(t *testing.T) {
	t.Parallel()
	p := mustFind(t, "testdata/sample/head")
	res, err := project.Check(context.Background(), p, project.Options{Baseline: project.DirBaseline("../base")})
	if err != nil {
		t.Fatal(err)
	}
	if got := briefs(res.Findings); got != sampleFindings {
		t.Errorf("findings:\n%s\nwant:\n%s", got, sampleFindings)
	}
	if got := subjectLines(res); got != sampleSubjects {
		t.Errorf("subjects:\n%s\nwant:\n%s", got, sampleSubjects)
	}
	if res.Against != "dir:../base" || !res.Failed() || res.Passed() {
		t.Errorf("against %q failed %v", res.Against, res.Failed())
	}
	// Messages and hints are split at "; " and both are kept.
	for _, f := range res.Findings {
		if f.Message == "" || f.Hint == "" || strings.Contains(f.Message, "; ") {
			t.Errorf("finding %s: message %q hint %q", brief(f), f.Message, f.Hint)
		}
	}
}

// TestCheckAgainstGit drives a real repository with two commits (base,
// then head) through GitBaseline("HEAD~1"), with the project in a
// subdirectory of the repository.
func TestCheckAgainstGit(t *testing.T) {
	t.Parallel()
	base, head := t.TempDir(), t.TempDir()
	projecttest.CopyTree(t, "testdata/sample/base", filepath.Join(base, "services", "sales"))
	projecttest.CopyTree(t, "testdata/sample/head", filepath.Join(head, "services", "sales"))
	// A file outside the project must not be read.
	if err := os.WriteFile(filepath.Join(base, "outside.avsc"), []byte(`{"type":"record","name":"X","fields":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := projecttest.GitRepo(t, base, head)
	p := mustFind(t, filepath.Join(repo, "services", "sales"))
	res, err := project.Check(context.Background(), p, project.Options{Baseline: project.GitBaseline("HEAD~1")})
	if err != nil {
		t.Fatal(err)
	}
	if got := briefs(res.Findings); got != sampleFindings {
		t.Errorf("findings:\n%s\nwant:\n%s", got, sampleFindings)
	}
	if got := subjectLines(res); got != sampleSubjects {
		t.Errorf("subjects:\n%s\nwant:\n%s", got, sampleSubjects)
	}
	if got := project.RepoPrefix(context.Background(), p.Root); got != "services/sales/" {
		t.Errorf("RepoPrefix = %q, want services/sales/", got)
	}
	// HEAD against itself: every subject unchanged, no finding.
	res, err = project.Check(context.Background(), p, project.Options{Baseline: project.GitBaseline("main")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 || res.Failed() {
		t.Errorf("HEAD against main: %s", briefs(res.Findings))
	}
	for _, s := range res.Subjects {
		if s.Status != project.StatusUnchanged {
			t.Errorf("%s: status %s, want unchanged", s.Subject, s.Status)
		}
	}
	// Unknown revisions and directories outside git are errors, not findings.
	if _, err := project.Check(context.Background(), p, project.Options{Baseline: project.GitBaseline("no-such-branch")}); err == nil ||
		!strings.Contains(err.Error(), `git revision "no-such-branch" not found`) {
		t.Errorf("unknown revision: %v", err)
	}
	notRepo := t.TempDir()
	projecttest.CopyTree(t, "testdata/sample/head", notRepo)
	if _, err := project.Check(context.Background(), mustFind(t, notRepo), project.Options{Baseline: project.GitBaseline("HEAD")}); err == nil ||
		!strings.Contains(err.Error(), "is not in a git work tree") || strings.Contains(err.Error(), "\n") {
		t.Errorf("outside git: %v", err)
	}
}

func TestParseAgainst(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want, err string }{
		{"git:main", "git:main", ""},
		{"git:HEAD~1", "git:HEAD~1", ""},
		{"dir:../old", "dir:../old", ""},
		{"git:", "", "invalid --against"},
		{"main", "", "invalid --against"},
		{"svn:1", "", "invalid --against"},
	} {
		b, err := project.ParseAgainst(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseAgainst(%q) error %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || b.String() != tc.want):
			t.Errorf("ParseAgainst(%q) = %v, %v; want %s", tc.in, b, err, tc.want)
		}
	}
	if _, err := project.GitBaseline("--output=x").Load(context.Background(), mustFind(t, "testdata/sample/head"), nil); err == nil {
		t.Error("a revision that looks like an option was accepted")
	}
}

// TestGateFindingsGetOverrides: the gate's findings (here the PII
// policy's) get the project's severity overrides and the file and line of
// their path.
func TestGateFindingsGetOverrides(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"charter.yaml": `version: 1
schemas:
  - files: "*.avsc"
overrides:
  - subject: "quiet-*"
    severity: {PII_UNTAGGED: "off"}
  - subject: "orders-value"
    severity: {"PII_*": error}
`,
		"orders.avsc":       "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[\n  {\"name\":\"id\",\"type\":\"string\"},\n  {\"name\":\"email\",\"type\":\"string\",\"default\":\"\"}\n]}\n",
		"quiet-x.avsc":      `{"type":"record","name":"Q","fields":[{"name":"id","type":"string","default":""},{"name":"email","type":"string","default":""}]}`,
		"base/orders.avsc":  `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"}]}`,
		"base/quiet-x.avsc": `{"type":"record","name":"Q","fields":[{"name":"id","type":"string","default":""}]}`,
	})
	p := mustFind(t, dir)
	res, err := project.Check(context.Background(), p, project.Options{Baseline: project.DirBaseline("base")})
	if err != nil {
		t.Fatal(err)
	}
	want := "error PII_UNTAGGED orders-value orders.avsc:3 .email\n"
	if got := briefs(res.Findings); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckProjectRules covers the project rules and levels on small
// trees: each case is a baseline and a working tree.
func TestCheckProjectRules(t *testing.T) {
	t.Parallel()
	// The shared config maps both formats while most cases hold one:
	// CONFIG_PATTERN_UNMATCHED is off here (TestCheckUnmatchedPattern).
	const cfg = "version: 1\ndefaults: {severity: {CONFIG_PATTERN_UNMATCHED: \"off\"}}\nschemas:\n  - files: \"**/*.avsc\"\n  - files: \"**/*.proto\"\n    subject: \"{name}-value\"\n"
	rec := func(fields string) string {
		return `{"type":"record","name":"R","namespace":"n","fields":[` + fields + `]}`
	}
	tests := []struct {
		name       string
		cfg        string
		base, head map[string]string
		want       string
	}{
		{
			name: "unparsable working tree file",
			base: map[string]string{"a.avsc": rec(`{"name":"x","type":"int"}`)},
			head: map[string]string{"a.avsc": "{\"type\":\"record\",\n\"name\":\"R\",\"fields\":[{\"name\":\"x\"}]}"},
			want: "error SCHEMA_INVALID a-value a.avsc:0\n",
		},
		{
			name: "proto syntax error has its line",
			base: map[string]string{},
			head: map[string]string{"p.proto": "syntax = \"proto3\";\nmessage M {\n  int32 x = 1\n}\n"},
			want: "error SCHEMA_INVALID p-value p.proto:4\n",
		},
		{
			name: "format changed",
			base: map[string]string{"a.avsc": rec(`{"name":"x","type":"int"}`)},
			head: map[string]string{"a.proto": "syntax = \"proto3\";\nmessage M { int32 x = 1; }\n"},
			// Registration refuses another schema type at any level
			// but NONE, with SCHEMA_TYPE_CHANGED.
			want: "error SCHEMA_TYPE_CHANGED a-value a.proto:0 . BACKWARD\nnotice SUBJECT_FORMAT_CHANGED a-value a.proto:1\n",
		},
		{
			name: "format changed at NONE",
			cfg:  strings.Replace(cfg, "defaults: {", "defaults: {level: NONE, ", 1),
			base: map[string]string{"a.avsc": rec(`{"name":"x","type":"int"}`)},
			head: map[string]string{"a.proto": "syntax = \"proto3\";\nmessage M { int32 x = 1; }\n"},
			want: "notice SUBJECT_FORMAT_CHANGED a-value a.proto:1\n",
		},
		{
			name: "duplicate subject",
			base: map[string]string{},
			head: map[string]string{"x/a.avsc": rec(``), "y/a.avsc": rec(``)},
			want: "error SUBJECT_DUPLICATE a-value y/a.avsc:0\nnotice SUBJECT_ADDED a-value x/a.avsc:0\n",
		},
		{
			name: "unparsable baseline",
			base: map[string]string{"a.avsc": "{nope"},
			head: map[string]string{"a.avsc": rec(`{"name":"x","type":"int"}`)},
			want: "warning BASELINE_SCHEMA_INVALID a-value a.avsc:0\n",
		},
		{
			name: "level NONE accepts anything",
			cfg:  "version: 1\ndefaults: {level: NONE}\nschemas: [{files: \"*.avsc\"}]\n",
			base: map[string]string{"a.avsc": rec(`{"name":"x","type":"int"}`)},
			head: map[string]string{"a.avsc": rec(`{"name":"y","type":"string"}`)},
			want: "",
		},
		{
			name: "FORWARD reports the old reader's view",
			cfg:  "version: 1\ndefaults: {level: FORWARD}\nschemas: [{files: \"*.avsc\"}]\n",
			base: map[string]string{"a.avsc": rec(`{"name":"x","type":"int"}`)},
			head: map[string]string{"a.avsc": "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"n\",\"fields\":[\n{\"name\":\"y\",\"type\":\"string\",\"default\":\"\"}]}"},
			want: "error AVRO_READER_FIELD_MISSING_DEFAULT a-value a.avsc:0 .x FORWARD\n",
		},
		{
			name: "severity off and warning",
			cfg:  "version: 1\ndefaults: {severity: {SUBJECT_ADDED: \"off\", \"AVRO_*\": warning}}\nschemas: [{files: \"*.avsc\"}]\n",
			base: map[string]string{"a.avsc": rec(`{"name":"x","type":"int"}`)},
			head: map[string]string{"a.avsc": rec(`{"name":"x","type":"string"}`), "b.avsc": rec(``)},
			want: "warning AVRO_TYPE_MISMATCH a-value a.avsc:1 .x BACKWARD\n",
		},
		{
			name: "unmapped files are ignored",
			base: map[string]string{},
			head: map[string]string{"notes.txt": "hello", "data.json": "{}"},
			want: "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := tc.cfg
			if c == "" {
				c = cfg
			}
			base, head := t.TempDir(), t.TempDir()
			writeFiles(t, base, tc.base)
			writeFiles(t, head, tc.head)
			writeFiles(t, head, map[string]string{"charter.yaml": c})
			res, err := project.Check(context.Background(), mustFind(t, head), project.Options{Baseline: project.DirBaseline(base)})
			if err != nil {
				t.Fatal(err)
			}
			if got := briefs(res.Findings); got != tc.want {
				t.Errorf("findings:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestCheckNeedsBaseline(t *testing.T) {
	t.Parallel()
	if _, err := project.Check(context.Background(), mustFind(t, "testdata/sample/head"), project.Options{}); err == nil {
		t.Error("Check without a baseline succeeded")
	}
}

func TestFindNoConfig(t *testing.T) {
	t.Parallel()
	_, err := project.Find(t.TempDir())
	if !errors.Is(err, project.ErrNoConfig) || !strings.Contains(err.Error(), "charter init") {
		t.Errorf("Find in an empty dir: %v", err)
	}
}

func TestDiffFiles(t *testing.T) {
	t.Parallel()
	res, err := project.DiffFiles(context.Background(), "testdata/sample/base/schemas/avro/orders.avsc", "testdata/sample/head/schemas/avro/orders.avsc", project.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `error AVRO_TYPE_MISMATCH orders-value testdata/sample/head/schemas/avro/orders.avsc:6 .id BACKWARD
error AVRO_TYPE_MISMATCH orders-value testdata/sample/head/schemas/avro/orders.avsc:6 .id FORWARD
error AVRO_TYPE_MISMATCH orders-value testdata/sample/head/schemas/avro/orders.avsc:8 .quantity FORWARD
error AVRO_READER_FIELD_MISSING_DEFAULT orders-value testdata/sample/head/schemas/avro/orders.avsc:10 .email BACKWARD
`
	if got := briefs(res.Findings); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	// Protobuf imports resolve with --import-path; BACKWARD only.
	res, err = project.DiffFiles(context.Background(), "testdata/sample/base/proto/acme/shipping/v1/shipment.proto", "testdata/sample/head/proto/acme/shipping/v1/shipment.proto",
		project.DiffOptions{Level: compat.Backward, ImportPaths: []string{"../../.."}, Subject: "shipments"})
	if err != nil {
		t.Fatal(err)
	}
	want = "error PROTO_FIELD_SCALAR_KIND_CHANGED shipments testdata/sample/head/proto/acme/shipping/v1/shipment.proto:9 .Shipment.carrier BACKWARD\n"
	if got := briefs(res.Findings); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	if _, err := project.DiffFiles(context.Background(), "testdata/nope.avsc", "testdata/sample/head/schemas/avro/orders.avsc", project.DiffOptions{}); err == nil {
		t.Error("missing file: no error")
	}
	if _, err := project.DiffFiles(context.Background(), "testdata/sample/base/charter.yaml", "testdata/sample/head/charter.yaml", project.DiffOptions{}); err == nil ||
		!strings.Contains(err.Error(), "cannot tell the format") {
		t.Errorf("unknown extension: %v", err)
	}
}

// TestCheckUnmatchedPattern: a schemas pattern that matches no file (a
// typo) is a warning naming it, and fails the check once set to error
// (fresh-user report 2, L3: it passed "in 0 subjects").
func TestCheckUnmatchedPattern(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, cfg string
		want      string
		failed    bool
	}{
		{"typo", "version: 1\nschemas:\n  - files: \"schema/*.avsc\"\n", "warning CONFIG_PATTERN_UNMATCHED  charter.yaml:0\n", false},
		{"typo as error", "version: 1\ndefaults: {severity: {CONFIG_PATTERN_UNMATCHED: error}}\nschemas:\n  - files: \"schema/*.avsc\"\n",
			"error CONFIG_PATTERN_UNMATCHED  charter.yaml:0\n", true},
		{"one of two patterns", "version: 1\nschemas:\n  - files: [\"schemas/*.avsc\", \"schemas/*.avro\"]\n",
			"warning CONFIG_PATTERN_UNMATCHED  charter.yaml:0\nnotice SUBJECT_ADDED a-value schemas/a.avsc:0\n", false},
		{"all match", "version: 1\nschemas:\n  - files: \"schemas/*.avsc\"\n", "notice SUBJECT_ADDED a-value schemas/a.avsc:0\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := t.TempDir(), t.TempDir()
			writeFiles(t, head, map[string]string{"charter.yaml": tc.cfg,
				"schemas/a.avsc": `{"type":"record","name":"A","fields":[{"name":"id","type":"string"}]}`})
			res, err := project.Check(context.Background(), mustFind(t, head), project.Options{Baseline: project.DirBaseline(base)})
			if err != nil {
				t.Fatal(err)
			}
			if got := briefs(res.Findings); got != tc.want || res.Failed() != tc.failed {
				t.Errorf("findings:\n%s(failed %t)\nwant:\n%s(failed %t)", got, res.Failed(), tc.want, tc.failed)
			}
			for _, f := range res.Findings {
				if f.RuleID == project.RuleConfigPatternUnmatched && !strings.Contains(f.Message, `files pattern "schema`) {
					t.Errorf("message %q does not name the pattern", f.Message)
				}
			}
		})
	}
}

package pii_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/compat/protobuf"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/pii"
)

var update = flag.Bool("update", false, "rewrite want.json files from the current output")

type ruleCase struct {
	Input  pii.Input  `json:"input"`
	Config pii.Config `json:"config"`
}

// runRuleCase evaluates testdata/rules/<dir>/input.json and compares the
// findings with want.json (rewritten with -update).
func runRuleCase(t *testing.T, dir string) []rule.Finding {
	t.Helper()
	dir = filepath.Join("testdata", "rules", dir)
	raw, err := os.ReadFile(filepath.Join(dir, "input.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c ruleCase
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("%s/input.json: %v", dir, err)
	}
	if err := c.Config.Validate(); err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	got := pii.Evaluate(c.Input, c.Config)
	if got == nil {
		got = []rule.Finding{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	wantPath := filepath.Join(dir, "want.json")
	if *update {
		if err := os.WriteFile(wantPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s: findings differ\n got: %s\nwant: %s", dir, buf.String(), want)
	}
	return got
}

// TestRuleCases runs every testdata/rules case.
func TestRuleCases(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "rules", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no rule cases: %v", err)
	}
	for _, d := range dirs {
		t.Run(filepath.Base(d), func(t *testing.T) {
			t.Parallel()
			runRuleCase(t, filepath.Base(d))
		})
	}
}

// TestEveryRuleHasTestdata: each policy rule is well formed and has a
// testdata/rules/<id> case that reports it.
func TestEveryRuleHasTestdata(t *testing.T) {
	idRe := regexp.MustCompile(`^PII_[A-Z0-9_]+$`)
	rules := pii.Rules()
	if len(rules) != 3 {
		t.Errorf("%d rules", len(rules))
	}
	for i, r := range rules {
		if i > 0 && rules[i-1].ID >= r.ID {
			t.Errorf("Rules not sorted by ID at %s", r.ID)
		}
		if !idRe.MatchString(r.ID) || r.Purpose == "" || r.Source == "" || r.Category != rule.CategoryPII || r.Severity != rule.Warning || r.Off {
			t.Errorf("rule %+v: ID, purpose, source and category pii are required; every default is warning", r)
		}
		raw, err := os.ReadFile(filepath.Join("testdata", "rules", strings.ToLower(r.ID), "want.json"))
		if err != nil {
			t.Errorf("rule %s: %v", r.ID, err)
			continue
		}
		if !bytes.Contains(raw, []byte(`"ruleId": "`+r.ID+`"`)) {
			t.Errorf("rule %s: its testdata case does not report it", r.ID)
		}
	}
}

func TestConfig(t *testing.T) {
	t.Parallel()
	var c pii.Config
	tests := []struct {
		severity map[string]string
		id       string
		want     rule.Severity
		on       bool
	}{
		{nil, pii.RuleUntagged, rule.Warning, true},
		{nil, "PII_NOPE", rule.Notice, false},
		{map[string]string{pii.RuleUntagged: "error"}, pii.RuleUntagged, rule.Error, true},
		{map[string]string{pii.RuleUntagged: "error"}, pii.RuleUnmasked, rule.Warning, true},
		{map[string]string{pii.RuleUntagged: "warn"}, pii.RuleUntagged, rule.Warning, true},
		{map[string]string{pii.RuleUntagged: "off"}, pii.RuleUntagged, rule.Notice, false},
	}
	for _, tt := range tests {
		c.Severity = tt.severity
		if sev, on := c.SeverityOf(tt.id); sev != tt.want || on != tt.on {
			t.Errorf("%v: SeverityOf(%s) = %v, %v; want %v, %v", tt.severity, tt.id, sev, on, tt.want, tt.on)
		}
	}
	c.Severity = map[string]string{pii.RuleUntagged: "error", pii.RuleUnmasked: "off"}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
	bad := pii.Config{Severity: map[string]string{"PII_NOPE": "warn", pii.RuleUnmasked: "fatal"}, MinConfidence: 7}
	err := bad.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	for _, want := range []string{`unknown PII rule "PII_NOPE"`, `invalid severity "fatal"`, "minConfidence 7"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	var back pii.Config
	if err := json.Unmarshal([]byte(`{"minConfidence":"high","severity":{"PII_UNTAGGED":"error"}}`), &back); err != nil || back.MinConfidence != pii.High {
		t.Errorf("config JSON: %+v, %v", back, err)
	}
}

// TestMinConfidence: a Low match (a city) counts only when asked.
func TestMinConfidence(t *testing.T) {
	t.Parallel()
	in := pii.Input{Current: []compat.Field{{Path: ".city", Name: "city", Type: "string"}}}
	if got := pii.Evaluate(in, pii.Config{}); len(got) != 0 {
		t.Errorf("default: %v", got)
	}
	if got := pii.Evaluate(in, pii.Config{MinConfidence: pii.Low}); len(got) != 1 || !strings.Contains(got[0].Message, "PII_CITY, low confidence") {
		t.Errorf("low: %v", got)
	}
}

// TestAllFields: an existing untagged field is reported only in an audit.
func TestAllFields(t *testing.T) {
	t.Parallel()
	fs := []compat.Field{{Path: ".email", Name: "email", Type: "string"}}
	in := pii.Input{Previous: fs, Current: fs}
	if got := pii.Evaluate(in, pii.Config{}); len(got) != 0 {
		t.Errorf("default: %v", got)
	}
	got := pii.Evaluate(in, pii.Config{AllFields: true})
	if len(got) != 1 || !strings.HasPrefix(got[0].Message, "field .email looks like personal data") {
		t.Errorf("all fields: %v", got)
	}
}

// TestDismissalByPattern: a dismissal for one pattern leaves the others.
func TestDismissalByPattern(t *testing.T) {
	t.Parallel()
	f := compat.Field{Path: ".contact", Name: "contact_phone", Type: "string", Doc: "Email address of the contact"}
	in := pii.Input{Current: []compat.Field{f}, Dismissals: []pii.Dismissal{{Field: ".contact", PatternID: "PII_PHONE", By: "bob", Reason: "switchboard"}}}
	got := pii.Evaluate(in, pii.Config{})
	if len(got) != 1 || !strings.Contains(got[0].Message, "PII_EMAIL") {
		t.Errorf("got %v", got)
	}
	in.Dismissals = append(in.Dismissals, pii.Dismissal{Field: ".contact", By: "bob", Reason: "all"})
	if got := pii.Evaluate(in, pii.Config{}); len(got) != 0 {
		t.Errorf("dismissed for every pattern: %v", got)
	}
}

func mustFields(t *testing.T, f compat.Format, text string) []compat.Field {
	t.Helper()
	s, err := f.Parse(text, nil)
	if err != nil {
		t.Fatal(err)
	}
	return compat.Fields(s)
}

// TestAcceptanceCustomerEmail is issue 4's acceptance: a new field
// customer_email without a PII tag is flagged by the detector; tagged, it
// passes; the rule's severity is configurable per subject.
func TestAcceptanceCustomerEmail(t *testing.T) {
	t.Parallel()
	v1 := mustFields(t, avro.Format{}, `{"type":"record","name":"Customer","namespace":"shop","fields":[{"name":"id","type":"string"}]}`)
	untagged := mustFields(t, avro.Format{}, `{"type":"record","name":"Customer","namespace":"shop","fields":[
		{"name":"id","type":"string"},
		{"name":"customer_email","type":["null","string"],"default":null}]}`)
	tagged := mustFields(t, avro.Format{}, `{"type":"record","name":"Customer","namespace":"shop","fields":[
		{"name":"id","type":"string"},
		{"name":"customer_email","type":["null","string"],"default":null,"confluent:tags":["PII"]}]}`)

	got := pii.Evaluate(pii.Input{Previous: v1, Current: untagged}, pii.Config{})
	if len(got) != 1 || got[0].RuleID != pii.RuleUntagged || got[0].Severity != rule.Warning || got[0].Path != ".customer_email" {
		t.Fatalf("untagged: %v", got)
	}
	if !strings.Contains(got[0].Message, "PII_EMAIL") || !strings.Contains(got[0].Hint, `{"shop.Customer.customer_email": ["PII"]}`) {
		t.Errorf("finding does not name the pattern or the glob: %+v", got[0])
	}
	if got := pii.Evaluate(pii.Input{Previous: v1, Current: tagged}, pii.Config{}); len(got) != 0 {
		t.Errorf("tagged inline: %v", got)
	}
	md := pii.Metadata{Tags: map[string][]string{"shop.Customer.customer_*": {"PII"}}}
	if got := pii.Evaluate(pii.Input{Previous: v1, Current: untagged, Metadata: md}, pii.Config{}); len(got) != 0 {
		t.Errorf("tagged by metadata.tags: %v", got)
	}
	subject := pii.Config{Severity: map[string]string{pii.RuleUntagged: "error"}}
	if got := pii.Evaluate(pii.Input{Previous: v1, Current: untagged}, subject); len(got) != 1 || got[0].Severity != rule.Error {
		t.Errorf("subject at error: %v", got)
	}
	off := pii.Config{Severity: map[string]string{pii.RuleUntagged: "off"}}
	if got := pii.Evaluate(pii.Input{Previous: v1, Current: untagged}, off); len(got) != 0 {
		t.Errorf("subject off: %v", got)
	}
}

// TestProtobufTagsAndMasking: Protobuf field_meta tags count as tags, and a
// field_meta param marks masking.
func TestProtobufTagsAndMasking(t *testing.T) {
	t.Parallel()
	fs := mustFields(t, protobuf.Format{}, `syntax = "proto3";
package shop.v1;
import "confluent/meta.proto";
message Customer {
  string email = 1 [(confluent.field_meta).tags = "PII", (confluent.field_meta).params = {key: "masking", value: "hash"}];
  string phone = 2 [(confluent.field_meta).tags = "PII"];
  string ssn = 3;
}`)
	got := pii.Evaluate(pii.Input{Current: fs}, pii.Config{MaskTags: []string{"PII"}})
	var ids []string
	for _, f := range got {
		ids = append(ids, f.RuleID+" "+f.Path)
	}
	want := []string{"PII_UNMASKED .Customer.phone", "PII_UNTAGGED .Customer.ssn"}
	if strings.Join(ids, ";") != strings.Join(want, ";") {
		t.Errorf("got %q, want %q", ids, want)
	}
}

// TestSameVerdictInEveryFormat: one schema in Avro, Protobuf and JSON
// Schema gets the same findings, and one metadata.tags glob tags the field
// in all three, since each format's FullName is the name Confluent gives it.
func TestSameVerdictInEveryFormat(t *testing.T) {
	t.Parallel()
	formats := []struct {
		name      string
		format    compat.Format
		v1, v2    string
		wantPath  string
		wantGlobs []string // globs that must tag the field
	}{
		{"avro", avro.Format{},
			`{"type":"record","name":"Customer","namespace":"shop","fields":[{"name":"id","type":"string"}]}`,
			`{"type":"record","name":"Customer","namespace":"shop","fields":[{"name":"id","type":"string"},{"name":"customer_email","type":"string"}]}`,
			".customer_email", []string{"**.customer_email", "shop.Customer.*", "shop.Customer.customer_?mail"}},
		{"protobuf", protobuf.Format{},
			"syntax = \"proto3\";\npackage shop;\nmessage Customer {\n  string id = 1;\n}\n",
			"syntax = \"proto3\";\npackage shop;\nmessage Customer {\n  string id = 1;\n  string customer_email = 2;\n}\n",
			".Customer.customer_email", []string{"**.customer_email", "shop.Customer.*", "shop.Customer.customer_?mail"}},
		{"json", jsonschema.Format{},
			`{"type":"object","properties":{"id":{"type":"string"}}}`,
			`{"type":"object","properties":{"id":{"type":"string"},"customer_email":{"type":"string"}}}`,
			".customer_email", []string{"**.customer_email", "$.*", "$.customer_?mail"}},
	}
	for _, tt := range formats {
		t.Run(tt.name, func(t *testing.T) {
			prev, cur := mustFields(t, tt.format, tt.v1), mustFields(t, tt.format, tt.v2)
			got := pii.Evaluate(pii.Input{Previous: prev, Current: cur, Consumers: []string{"billing"}}, pii.Config{})
			if len(got) != 2 || got[0].RuleID != pii.RuleNewFieldWithConsumers || got[1].RuleID != pii.RuleUntagged ||
				got[0].Path != tt.wantPath || got[1].Path != tt.wantPath {
				t.Fatalf("got %v", got)
			}
			for _, g := range tt.wantGlobs {
				md := pii.Metadata{Tags: map[string][]string{g: {"PII"}}}
				got := pii.Evaluate(pii.Input{Previous: prev, Current: cur, Metadata: md}, pii.Config{})
				if len(got) != 0 {
					t.Errorf("glob %q does not tag the field: %v", g, got)
				}
			}
		})
	}
}

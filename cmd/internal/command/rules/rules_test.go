package rules_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/rules"
	"github.com/charter-dev/charter/cmd/internal/cli"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/rule"
)

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Env{Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// TestRulesListsEveryRule: every rule of the catalog appears once, with
// its purpose, and the count line says how many.
func TestRulesListsEveryRule(t *testing.T) {
	t.Parallel()
	code, out, errs := run("rules")
	if code != cli.ExitOK || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := len(rules.All())
	if got := len(lines) - 3; got != want { // header, blank line, count
		t.Errorf("%d rule lines, want %d", got, want)
	}
	byFormat := map[compat.SchemaType]int{}
	for _, r := range rules.All() {
		byFormat[r.Format]++
		if !strings.Contains(out, r.ID+" ") || !strings.Contains(out, r.Purpose) {
			t.Errorf("rule %s (%s) missing", r.ID, r.Purpose)
		}
	}
	for _, e := range formats.All() {
		if byFormat[e.Type] == 0 {
			t.Errorf("no %s rules listed", e.Type)
		}
	}
	if !strings.Contains(out, "SUBJECT_FORMAT_CHANGED") || !strings.HasSuffix(out, "\n"+itoa(want)+" rules\n") {
		t.Errorf("tail of output:\n%s", out[max(0, len(out)-200):])
	}
}

// TestRulesJSONIsTheCatalog: `charter rules -o json` is the catalog, rule
// for rule, with the severity check reports by default (rules.All);
// CONTRACT_FIELD_MISSING is an error, as check and the registry report it.
func TestRulesJSONIsTheCatalog(t *testing.T) {
	t.Parallel()
	code, out, errs := run("rules", "-o", "json")
	if code != cli.ExitOK || errs != "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Rules []rule.Rule `json:"rules"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(doc.Rules, rules.All()) {
		t.Errorf("rules -o json differs from the catalog: %d rules, catalog %d", len(doc.Rules), len(rules.All()))
	}
	severity := map[string]string{}
	for _, r := range doc.Rules {
		severity[r.ID] = r.DefaultSeverity()
	}
	for id, want := range map[string]string{
		"CONTRACT_FIELD_MISSING":      "error",
		"CONTRACT_FIELD_OPTIONAL":     "warning",
		"PII_UNTAGGED":                "warning",
		"DEPRECATION_REMOVAL_GUARDED": "error",
		"EVENT_INLINE_BINARY":         "off",
		"SUBJECT_ADDED":               "notice",
		"AVRO_TYPE_MISMATCH":          "error",
	} {
		if severity[id] != want {
			t.Errorf("%s: %q, want %q", id, severity[id], want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestRulesFilters(t *testing.T) {
	t.Parallel()
	code, out, _ := run("rules", "--type", "protobuf", "--format", "json")
	if code != cli.ExitOK {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		Rules []rule.Rule `json:"rules"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rules.All() {
		if r.Format == compat.Protobuf {
			n++
		}
	}
	if len(doc.Rules) != n {
		t.Errorf("%d protobuf rules, want %d", len(doc.Rules), n)
	}
	// A format's rules are errors; the evidence rules (compat/evidence),
	// which events prove, are warnings.
	evidenceRule := map[string]bool{}
	for _, r := range evidence.Rules() {
		evidenceRule[r.ID] = true
	}
	for _, r := range doc.Rules {
		want := rule.Error
		if evidenceRule[r.ID] {
			want = rule.Warning
		}
		if r.Format != compat.Protobuf || r.Category != "compatibility" || r.Severity != want || r.Purpose == "" {
			t.Errorf("rule %+v", r)
		}
	}
	projectRules := 0
	for _, r := range rules.All() {
		if r.Category == rule.CategoryProject {
			projectRules++
		}
	}
	code, out, _ = run("rules", "--category", "project", "--format", "markdown")
	if code != cli.ExitOK || projectRules < 7 || strings.Count(out, "\n") != 2+projectRules || !strings.Contains(out, "| `SUBJECT_REMOVED` | any | project | warning |") {
		t.Errorf("project rules as markdown: exit %d\n%s", code, out)
	}
	for _, args := range [][]string{{"rules", "--type", "xml"}, {"rules", "--format", "sarif"}, {"rules", "x"}} {
		if code, _, errs := run(args...); code != cli.ExitError || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}

// TestRulesOffByDefault: a rule that reports nothing until configured
// (rule.Rule.Off) shows "off" as its default severity in text and
// Markdown, and "off": true beside its switched-on severity in JSON; every
// other rule shows its severity. Checked for every rule of every format.
func TestRulesOffByDefault(t *testing.T) {
	t.Parallel()
	_, text, _ := run("rules")
	_, md, _ := run("rules", "--format", "markdown")
	_, js, _ := run("rules", "--format", "json")
	var doc struct {
		Rules []rule.Rule `json:"rules"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	inJSON := map[string]rule.Rule{}
	for _, r := range doc.Rules {
		inJSON[r.ID] = r
	}
	textSeverity := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) >= 4 {
			textSeverity[f[0]] = f[3]
		}
	}
	offs := 0
	for _, r := range rules.All() {
		if r.Format != "" {
			continue
		}
		want := r.Severity.String()
		if r.Off {
			want = "off"
			offs++
		}
		if got := textSeverity[r.ID]; got != want {
			t.Errorf("text: %s shows %q, want %q", r.ID, got, want)
		}
		if !strings.Contains(md, "| `"+r.ID+"` | any | "+r.Category+" | "+want+" |") {
			t.Errorf("markdown: no row for %s with severity %q", r.ID, want)
		}
		if j := inJSON[r.ID]; j.Off != r.Off || j.Severity != r.Severity {
			t.Errorf("json: %s off=%v severity=%v, want off=%v severity=%v", r.ID, j.Off, j.Severity, r.Off, r.Severity)
		}
	}
	if offs == 0 {
		t.Fatal("no off-by-default rule registered: the test checks nothing about them")
	}
}

// TestRulesProfiles: each Protobuf rule shows the profiles that run it,
// in text (PROFILES column) and JSON ("profiles"); other rules none.
func TestRulesProfiles(t *testing.T) {
	t.Parallel()
	_, text, _ := run("rules")
	_, js, _ := run("rules", "--format", "json")
	var doc struct {
		Rules []rule.Rule `json:"rules"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"PROTO_MESSAGE_REMOVED":            "CONFLUENT",
		"PROTO_FIELD_WIRE_COMPATIBLE_TYPE": "WIRE",
		"PROTO_FIELD_SAME_ONEOF":           "WIRE,WIRE_JSON",
		"PROTO_PACKAGE_CHANGED":            "CONFLUENT,WIRE,WIRE_JSON",
	}
	columns := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) >= 5 {
			columns[f[0]] = f
		}
	}
	if h := columns["ID"]; len(h) < 5 || h[4] != "PROFILES" {
		t.Fatalf("header %v: want PROFILES after SEVERITY", h)
	}
	for _, r := range doc.Rules {
		got := strings.Join(r.Profiles, ",")
		if (r.Format == compat.Protobuf) != (got != "") {
			t.Errorf("%s (%s): profiles %q", r.ID, r.Format, got)
		}
		if w, ok := want[r.ID]; ok {
			if got != w || columns[r.ID][4] != w {
				t.Errorf("%s: json profiles %q, text %q; want %q", r.ID, got, columns[r.ID][4], w)
			}
		}
	}
}

// TestRulesByIDAndColor: RULE_ID arguments pick rules; --color always
// colours the text table, never and a non-terminal do not.
func TestRulesByIDAndColor(t *testing.T) {
	t.Parallel()
	code, out, errs := run("rules", "pii_untagged", "SUBJECT_REMOVED", "-o", "json")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Rules []rule.Rule `json:"rules"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range doc.Rules {
		ids = append(ids, r.ID)
	}
	if strings.Join(ids, ",") != "SUBJECT_REMOVED,PII_UNTAGGED" && strings.Join(ids, ",") != "PII_UNTAGGED,SUBJECT_REMOVED" {
		t.Errorf("rules %v, want PII_UNTAGGED and SUBJECT_REMOVED", ids)
	}
	if code, _, errs := run("rules", "NO_SUCH_RULE"); code != cli.ExitError || errs != "charter: unknown rule \"NO_SUCH_RULE\" (charter rules lists them all)\n" {
		t.Errorf("unknown rule: exit %d, %q", code, errs)
	}
	_, colored, _ := run("rules", "SUBJECT_REMOVED", "--color", "always")
	_, plain, _ := run("rules", "SUBJECT_REMOVED")
	_, never, _ := run("rules", "SUBJECT_REMOVED", "--color", "never")
	if !strings.Contains(colored, "\x1b[") || strings.Contains(plain, "\x1b[") || never != plain {
		t.Errorf("--color always must colour, auto off a terminal and never must not:\n%q\n%q", colored, plain)
	}
	if code, _, errs := run("rules", "--color", "pink"); code != cli.ExitError || !strings.Contains(errs, `invalid --color "pink": want auto, always or never`) {
		t.Errorf("--color pink: exit %d, %q", code, errs)
	}
}

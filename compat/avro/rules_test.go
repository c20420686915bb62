package avro_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/rule"
)

var update = flag.Bool("update", false, "rewrite want.json and golden files from the current output")

// mustParseFile parses an .avsc file.
func mustParseFile(tb testing.TB, path string) compat.Schema {
	tb.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := avro.Format{}.Parse(string(text), nil)
	if err != nil {
		tb.Fatalf("parse %s: %v", path, err)
	}
	return s
}

// testCase checks testdata/<dir>: reader.avsc read against writer.avsc
// must give exactly the violations in want.json.
func testCase(t *testing.T, dir string) []compat.Violation {
	t.Helper()
	dir = filepath.Join("testdata", dir)
	reader := mustParseFile(t, filepath.Join(dir, "reader.avsc"))
	writer := mustParseFile(t, filepath.Join(dir, "writer.avsc"))
	got := avro.Format{}.CheckRead(reader, writer)
	if got == nil {
		got = []compat.Violation{}
	}
	wantPath := filepath.Join(dir, "want.json")
	if *update {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(got); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(wantPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatal(err)
	}
	var want []compat.Violation
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("%s: %v", wantPath, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: got %d violations, want %d:\n got: %v\nwant: %v", dir, len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: violation %d:\n got: %v\nwant: %v", dir, i, got[i], want[i])
		}
	}
	return got
}

// testRule checks the rule's testdata case and that it reports the rule.
func testRule(t *testing.T, ruleID string) {
	t.Helper()
	got := testCase(t, strings.ToLower(ruleID))
	for _, v := range got {
		if v.RuleID == ruleID {
			return
		}
	}
	t.Errorf("testdata/%s does not report %s", strings.ToLower(ruleID), ruleID)
}

func TestRuleReaderFieldMissingDefault(t *testing.T) {
	testRule(t, avro.RuleReaderFieldMissingDefault)
}
func TestRuleTypeMismatch(t *testing.T)         { testRule(t, avro.RuleTypeMismatch) }
func TestRuleNameMismatch(t *testing.T)         { testRule(t, avro.RuleNameMismatch) }
func TestRuleFixedSizeMismatch(t *testing.T)    { testRule(t, avro.RuleFixedSizeMismatch) }
func TestRuleMissingEnumSymbols(t *testing.T)   { testRule(t, avro.RuleMissingEnumSymbols) }
func TestRuleMissingUnionBranch(t *testing.T)   { testRule(t, avro.RuleMissingUnionBranch) }
func TestRuleDecimalScaleMismatch(t *testing.T) { testRule(t, avro.RuleDecimalScaleMismatch) }
func TestRuleLogicalTypeMismatch(t *testing.T)  { testRule(t, avro.RuleLogicalTypeMismatch) }
func TestRuleDecimalPrecisionNarrowed(t *testing.T) {
	testRule(t, avro.RuleDecimalPrecisionNarrowed)
}

// TestCompatibleCases runs every testdata/compatible case (want.json []).
func TestCompatibleCases(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "compatible", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no compatible cases: %v", err)
	}
	for _, d := range dirs {
		name := filepath.Base(d)
		t.Run(name, func(t *testing.T) {
			if got := testCase(t, filepath.Join("compatible", name)); len(got) != 0 {
				t.Errorf("want compatible, got %v", got)
			}
		})
	}
}

// TestEveryRuleHasTestdata fails when a registered Avro rule has no
// testdata directory, or when its case does not report it.
func TestEveryRuleHasTestdata(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range avro.Rules() {
		if r.Format != compat.Avro || seen[r.ID] {
			t.Errorf("rule %s: format %s, listed before: %v", r.ID, r.Format, seen[r.ID])
		}
		seen[r.ID] = true
		dir := filepath.Join("testdata", strings.ToLower(r.ID))
		for _, f := range []string{"reader.avsc", "writer.avsc", "want.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("rule %s: %v", r.ID, err)
			}
		}
		raw, err := os.ReadFile(filepath.Join(dir, "want.json"))
		if err == nil && !bytes.Contains(raw, []byte(`"`+r.ID+`"`)) {
			t.Errorf("rule %s: %s/want.json does not expect it", r.ID, dir)
		}
		if !strings.HasPrefix(r.ID, "AVRO_") || strings.ToUpper(r.ID) != r.ID {
			t.Errorf("rule %s: IDs are SCREAMING_SNAKE with the AVRO_ prefix", r.ID)
		}
		if r.Purpose == "" || r.Source == "" {
			t.Errorf("rule %s: Purpose and Source are required", r.ID)
		}
	}
}

// isRule reports whether id is a rule of avro.Rules.
func isRule(id string) bool {
	return slices.ContainsFunc(avro.Rules(), func(r rule.Rule) bool { return r.ID == id })
}

package jsonschema_test

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
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/compat/rule"
)

var update = flag.Bool("update", false, "rewrite want.json and golden files from the current output")

// mustParseFile parses a JSON Schema file.
func mustParseFile(tb testing.TB, path string) *jsonschema.Schema {
	tb.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := jsonschema.Parse(string(text), nil)
	if err != nil {
		tb.Fatalf("parse %s: %v", path, err)
	}
	return s
}

// mustParse parses schema text.
func mustParse(tb testing.TB, text string, deps ...compat.Dependency) *jsonschema.Schema {
	tb.Helper()
	s, err := jsonschema.Parse(text, deps)
	if err != nil {
		tb.Fatalf("parse %s: %v", text, err)
	}
	return s
}

// writeJSON writes v as indented JSON.
func writeJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// testCase checks testdata/<dir>: reader.json read against writer.json (the
// new schema reading data of the old one) must give exactly the violations
// in want.json. An optional format.json ({"maxComparisons": n}) sets the
// work budget.
func testCase(t *testing.T, f jsonschema.Format, dir string) []compat.Violation {
	t.Helper()
	dir = filepath.Join("testdata", dir)
	if raw, err := os.ReadFile(filepath.Join(dir, "format.json")); err == nil {
		var opts struct {
			MaxComparisons int `json:"maxComparisons"`
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&opts); err != nil {
			t.Fatalf("%s/format.json: %v", dir, err)
		}
		f.MaxComparisons = opts.MaxComparisons
	}
	reader := mustParseFile(t, filepath.Join(dir, "reader.json"))
	writer := mustParseFile(t, filepath.Join(dir, "writer.json"))
	got := f.CheckRead(reader, writer)
	if got == nil {
		got = []compat.Violation{}
	}
	wantPath := filepath.Join(dir, "want.json")
	if *update {
		writeJSON(t, wantPath, got)
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

// TestRules runs each rule's testdata case (testdata/<rule_id_lower>) and
// checks that it reports the rule, with a JSON pointer path and a message.
func TestRules(t *testing.T) {
	for _, r := range jsonschema.Rules() {
		t.Run(r.ID, func(t *testing.T) {
			got := testCase(t, jsonschema.Format{}, strings.ToLower(r.ID))
			found := false
			for _, v := range got {
				if v.RuleID == r.ID {
					found = true
				}
				if !strings.HasPrefix(v.Path, "#/") || v.Message == "" || strings.ContainsAny(v.Message, "\n\r") {
					t.Errorf("violation %+v: want a #/ path and a one-line message", v)
				}
				if !isRule(v.RuleID) {
					t.Errorf("violation %+v: rule not registered", v)
				}
			}
			if !found {
				t.Errorf("testdata/%s does not report %s: %v", strings.ToLower(r.ID), r.ID, got)
			}
		})
	}
}

// TestCompatibleCases runs every testdata/compatible case: the reader must
// read the writer without a violation.
func TestCompatibleCases(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "compatible", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no compatible cases: %v", err)
	}
	for _, d := range dirs {
		name := filepath.Base(d)
		t.Run(name, func(t *testing.T) {
			if got := testCase(t, jsonschema.Format{}, filepath.Join("compatible", name)); len(got) != 0 {
				t.Errorf("want compatible, got %v", got)
			}
		})
	}
}

// TestEveryRuleHasTestdata fails when a registered JSON rule has no
// testdata directory or its case does not expect it, and when a testdata
// directory names no rule.
func TestEveryRuleHasTestdata(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range jsonschema.Rules() {
		if r.Format != compat.JSON || seen[r.ID] {
			t.Errorf("rule %s: format %s, listed before: %v", r.ID, r.Format, seen[r.ID])
		}
		seen[r.ID] = true
		dir := filepath.Join("testdata", strings.ToLower(r.ID))
		for _, f := range []string{"reader.json", "writer.json", "want.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("rule %s: %v", r.ID, err)
			}
		}
		raw, err := os.ReadFile(filepath.Join(dir, "want.json"))
		if err == nil && !bytes.Contains(raw, []byte(`"`+r.ID+`"`)) {
			t.Errorf("rule %s: %s/want.json does not expect it", r.ID, dir)
		}
		if !strings.HasPrefix(r.ID, "JSON_") || strings.ToUpper(r.ID) != r.ID {
			t.Errorf("rule %s: IDs are SCREAMING_SNAKE with the JSON_ prefix", r.ID)
		}
		if r.Purpose == "" || r.Source == "" {
			t.Errorf("rule %s: Purpose and Source are required", r.ID)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join("testdata", "json_*"))
	for _, d := range dirs {
		id := strings.ToUpper(filepath.Base(d))
		if !isRule(id) {
			t.Errorf("%s: no JSON rule %s", d, id)
		}
	}
}

// isRule reports whether id is a rule of jsonschema.Rules.
func isRule(id string) bool {
	return slices.ContainsFunc(jsonschema.Rules(), func(r rule.Rule) bool { return r.ID == id })
}

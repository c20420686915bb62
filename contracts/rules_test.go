package contracts_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
)

var update = flag.Bool("update", false, "rewrite want.json and golden files from the current output")

// testNow is the clock of every testdata case.
var testNow = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)

// caseResult is what a testdata case's want.json holds.
type caseResult struct {
	Reads    []string            `json:"reads"`
	Findings []contracts.Finding `json:"findings"`
}

// schemaFile finds the case's schema: <case>.avsc, .proto or .schema.json.
func schemaFile(tb testing.TB, base string) (string, compat.SchemaType) {
	tb.Helper()
	for ext, t := range map[string]compat.SchemaType{".avsc": compat.Avro, ".proto": compat.Protobuf, ".schema.json": compat.JSON} {
		if _, err := os.Stat(base + ext); err == nil {
			return base + ext, t
		}
	}
	tb.Fatalf("no schema for %s", base)
	return "", ""
}

// runCase verifies testdata/pacts/<name>.json against its schema (and
// deprecations, when <name>.deprecations.json exists) and compares the
// result with <name>.want.json.
func runCase(t *testing.T, name string) caseResult {
	t.Helper()
	base := filepath.Join("testdata", "pacts", name)
	c, err := contracts.ReadContract(base + ".json")
	if err != nil {
		t.Fatal(err)
	}
	path, typ := schemaFile(t, base)
	s, err := contracts.ReadSchemaFile(path, typ)
	if err != nil {
		t.Fatal(err)
	}
	opts := contracts.Options{Now: testNow}
	for _, ext := range []string{".avsc", ".proto", ".schema.json"} {
		if _, err := os.Stat(base + ".baseline" + ext); err == nil {
			if opts.Baseline, err = contracts.ReadSchemaFile(base+".baseline"+ext, typ); err != nil {
				t.Fatal(err)
			}
		}
	}
	if raw, err := os.ReadFile(base + ".deprecations.json"); err == nil {
		var deps contracts.DeprecationMap
		if err := json.Unmarshal(raw, &deps); err != nil {
			t.Fatalf("%s.deprecations.json: %v", base, err)
		}
		opts.Deprecations = deps
	}
	rep, err := contracts.Verify([]*contracts.Contract{c}, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := caseResult{Reads: rep.Contracts[0].Reads, Findings: rep.Contracts[0].Findings}
	wantPath := base + ".want.json"
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
	var want caseResult
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatalf("%s: %v", wantPath, err)
	}
	gj, _ := json.MarshalIndent(got, "", "  ")
	wj, _ := json.MarshalIndent(want, "", "  ")
	if !bytes.Equal(gj, wj) {
		t.Errorf("%s:\n got: %s\nwant: %s", name, gj, wj)
	}
	return got
}

// testRule runs the rule's case and checks that it reports the rule.
func testRule(t *testing.T, ruleID string) {
	t.Helper()
	got := runCase(t, strings.ToLower(ruleID))
	for _, f := range got.Findings {
		if f.RuleID == ruleID {
			return
		}
	}
	t.Errorf("case %s does not report %s: %v", strings.ToLower(ruleID), ruleID, got.Findings)
}

func TestRuleFieldMissing(t *testing.T)       { testRule(t, contracts.RuleFieldMissing) }
func TestRuleTypeMismatch(t *testing.T)       { testRule(t, contracts.RuleTypeMismatch) }
func TestRuleRequiredDropped(t *testing.T)    { testRule(t, contracts.RuleRequiredDropped) }
func TestRuleFieldOptional(t *testing.T)      { testRule(t, contracts.RuleFieldOptional) }
func TestRuleEnumValueRemoved(t *testing.T)   { testRule(t, contracts.RuleEnumValueRemoved) }
func TestRuleEnumValueUnmatched(t *testing.T) { testRule(t, contracts.RuleEnumValueUnmatched) }
func TestRuleExampleUndecodable(t *testing.T) { testRule(t, contracts.RuleExampleUndecodable) }
func TestRuleContentsUnchecked(t *testing.T)  { testRule(t, contracts.RuleContentsUnchecked) }
func TestRuleFieldDeprecated(t *testing.T)    { testRule(t, contracts.RuleFieldDeprecated) }
func TestRuleFieldExpired(t *testing.T)       { testRule(t, contracts.RuleFieldExpired) }
func TestRuleFieldExtended(t *testing.T)      { testRule(t, contracts.RuleFieldExtended) }

// TestCompatibleCases: contracts that a schema satisfies give no error.
func TestCompatibleCases(t *testing.T) {
	for _, name := range []string{"compatible_avro", "compatible_protobuf", "compatible_jsonschema"} {
		t.Run(name, func(t *testing.T) {
			got := runCase(t, name)
			for _, f := range got.Findings {
				if f.Breaks() {
					t.Errorf("breaking finding in a compatible case: %v", f)
				}
			}
		})
	}
}

// TestEveryRuleHasACase is the meta-test: each rule has its testdata case.
func TestEveryRuleHasACase(t *testing.T) {
	for _, r := range contracts.Rules() {
		base := filepath.Join("testdata", "pacts", strings.ToLower(r.ID))
		for _, f := range []string{base + ".json", base + ".want.json"} {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("rule %s has no testdata case: %v", r.ID, err)
			}
		}
		if r.Purpose == "" || r.Source == "" || r.Category != rule.CategoryContract {
			t.Errorf("rule %s lacks purpose, source or category", r.ID)
		}
	}
}

// TestReadsAreSchemaFieldPaths: every field a contract reads that the
// schema has is named by the path compat.Fields gives it, so lineage,
// deprecations and PII tags (all keyed by compat.Field paths) line up.
func TestReadsAreSchemaFieldPaths(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join("testdata", "pacts", "*.want.json"))
	for _, wantPath := range cases {
		name := strings.TrimSuffix(filepath.Base(wantPath), ".want.json")
		t.Run(name, func(t *testing.T) {
			base := filepath.Join("testdata", "pacts", name)
			path, typ := schemaFile(t, base)
			s, err := contracts.ReadSchemaFile(path, typ)
			if err != nil {
				t.Fatal(err)
			}
			fields := compat.Fields(s)
			if fields == nil {
				t.Skipf("%s does not list fields yet", typ)
			}
			known := map[string]bool{}
			for _, f := range fields {
				known[f.Path] = true
			}
			got := runCase(t, name)
			missing := map[string]bool{}
			for _, f := range got.Findings {
				if f.RuleID == contracts.RuleFieldMissing {
					missing[f.Path] = true
				}
			}
			for _, r := range got.Reads {
				if !known[r] && !missing[r] {
					t.Errorf("read %s is not a compat.Fields path of %s", r, path)
				}
			}
		})
	}
}

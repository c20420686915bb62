package avro_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
)

// sharedDir returns ../shared relative to the repository root (the
// directory holding go.mod). When it is absent the test is skipped, except
// with CI=true, where it fails.
func sharedDir(t *testing.T, sub string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", sub)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("conformance data %s is missing (CI=true): %v", p, err)
		}
		t.Skipf("conformance data %s not present; skipping (set CI=true to make this a failure)", p)
	}
	return p
}

// deliberate lists oracle-avro cases where Charter deliberately disagrees
// with Java/Python/hamba Avro, with the rules Charter reports instead.
var deliberate = map[string]struct {
	rules []string
	why   string
}{
	"logical-decimal-precision-changed": {
		rules: []string{avro.RuleDecimalScaleMismatch, avro.RuleDecimalPrecisionNarrowed},
		why: `Avro 1.12 specification, "Logical Types" / "Decimal": "two schemas that are decimal logical types match ` +
			`if their scales and precisions match"; scale 4→2 and precision 12→10 change and truncate stored values`,
	},
	"logical-millis-to-micros": {
		rules: []string{avro.RuleLogicalTypeMismatch},
		why: `Avro 1.12 specification, "Logical Types": timestamp-millis stores milliseconds and timestamp-micros ` +
			`microseconds from the epoch, so reading one as the other silently scales every instant by 1000`,
	},
}

// pythonToRule maps Python/Java Avro incompatibility names to Charter rules.
var pythonToRule = map[string]string{
	"READER_FIELD_MISSING_DEFAULT_VALUE": avro.RuleReaderFieldMissingDefault,
	"TYPE_MISMATCH":                      avro.RuleTypeMismatch,
	"NAME_MISMATCH":                      avro.RuleNameMismatch,
	"FIXED_SIZE_MISMATCH":                avro.RuleFixedSizeMismatch,
	"MISSING_ENUM_SYMBOLS":               avro.RuleMissingEnumSymbols,
	"MISSING_UNION_BRANCH":               avro.RuleMissingUnionBranch,
}

type oracleLine struct {
	Case   string `json:"case"`
	Python struct {
		Compatibility     string   `json:"compatibility"`
		Incompatibilities []string `json:"incompatibilities"`
	} `json:"python_avro_1_11_1"`
	Hamba struct {
		Compatibility string `json:"compatibility"`
	} `json:"hamba_avro_v2_31_0"`
}

// TestConformanceOracleAvro reads ../shared/conformance/oracle-avro in
// place: 43 reader/writer pairs labelled by Python Avro 1.11.1 (primary),
// Java Avro 1.8.2 and hamba. Charter must give Python's verdict and the
// same incompatibility kinds, except for the deliberate cases above.
func TestConformanceOracleAvro(t *testing.T) {
	dir := sharedDir(t, filepath.Join("conformance", "oracle-avro"))
	f, err := os.Open(filepath.Join(dir, "expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []oracleLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l oracleLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("expected.jsonl: %v", err)
		}
		cases = append(cases, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) != 43 {
		t.Errorf("expected.jsonl has %d cases, want 43", len(cases))
	}
	agree, pinned := 0, 0
	for _, c := range cases {
		t.Run(c.Case, func(t *testing.T) {
			reader := mustParseFile(t, filepath.Join(dir, c.Case, "reader.avsc"))
			writer := mustParseFile(t, filepath.Join(dir, c.Case, "writer.avsc"))
			got := avro.Format{}.CheckRead(reader, writer)
			gotRules := ruleSet(got)
			if d, ok := deliberate[c.Case]; ok {
				if c.Python.Compatibility != "COMPATIBLE" {
					t.Fatalf("oracle changed: Python now says %s; revisit the deliberate verdict", c.Python.Compatibility)
				}
				if want := sorted(d.rules); !slices.Equal(gotRules, want) {
					t.Fatalf("deliberate verdict: got %v, want %v (%s)", got, want, d.why)
				}
				pinned++
				return
			}
			var want []string
			for _, inc := range c.Python.Incompatibilities {
				r, ok := pythonToRule[inc]
				if !ok {
					t.Fatalf("unknown Python incompatibility %q", inc)
				}
				want = append(want, r)
			}
			want = sorted(want)
			if (c.Python.Compatibility == "COMPATIBLE") != (len(got) == 0) || !slices.Equal(gotRules, want) {
				t.Fatalf("Python says %s %v; Charter says %v", c.Python.Compatibility, want, got)
			}
			agree++
		})
	}
	t.Logf("oracle-avro: %d/%d agree with python_avro_1_11_1, %d/%d pinned deliberate disagreements, %d total",
		agree, len(cases), pinned, len(cases), agree+pinned)
}

func ruleSet(vs []compat.Violation) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v.RuleID) {
			out = append(out, v.RuleID)
		}
	}
	return sorted(out)
}

func sorted(ss []string) []string {
	out := slices.Clone(ss)
	sort.Strings(out)
	return slices.Compact(out)
}

// TestConformanceApicurio reads Apicurio's Avro compatibility fixtures in
// place (Apache-2.0; see ../shared/conformance/apicurio/SOURCES.md):
// "backward" = updated is BACKWARD- and not FORWARD-compatible with
// original, "both" = both, "none" = neither.
func TestConformanceApicurio(t *testing.T) {
	dir := sharedDir(t, filepath.Join("conformance", "apicurio", "avro"))
	raw, err := os.ReadFile(filepath.Join(dir, "compatibility-test-data.json"))
	if err != nil {
		t.Fatal(err)
	}
	var data struct {
		Tests []struct {
			ID            string          `json:"id"`
			Enabled       bool            `json:"enabled"`
			Compatibility string          `json:"compatibility"`
			Original      json.RawMessage `json:"original"`
			Updated       json.RawMessage `json:"updated"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	pass := 0
	for _, tc := range data.Tests {
		if !tc.Enabled {
			continue
		}
		t.Run(tc.ID, func(t *testing.T) {
			f := avro.Format{}
			orig, err := f.Parse(string(tc.Original), nil)
			if err != nil {
				t.Fatal(err)
			}
			upd, err := f.Parse(string(tc.Updated), nil)
			if err != nil {
				t.Fatal(err)
			}
			prev := []compat.Previous{{Version: 1, Schema: orig}}
			back := compat.Check(f, compat.Backward, upd, prev)
			fwd := compat.Check(f, compat.Forward, upd, prev)
			wantBack, wantFwd := false, false
			switch tc.Compatibility {
			case "backward":
				wantBack = true
			case "both":
				wantBack, wantFwd = true, true
			case "none":
			default:
				t.Fatalf("unknown label %q", tc.Compatibility)
			}
			if back.Compatible() != wantBack || fwd.Compatible() != wantFwd {
				t.Fatalf("label %s: backward=%v %v, forward=%v %v",
					tc.Compatibility, back.Compatible(), back.Findings, fwd.Compatible(), fwd.Findings)
			}
			pass++
		})
	}
	t.Logf("apicurio avro: %d/%d pass", pass, len(data.Tests))
	if len(data.Tests) != 4 {
		t.Errorf("apicurio avro has %d cases, want 4", len(data.Tests))
	}
}

package protobuf_test

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
	"github.com/charter-dev/charter/compat/protobuf"
	"github.com/charter-dev/charter/compat/rule"
)

var update = flag.Bool("update", false, "rewrite want.json and golden files from the current output")

// profileOrder is the order in which a rule's testdata case picks the
// profile it runs with: the first profile that contains the rule.
var profileOrder = []protobuf.Profile{protobuf.ProfileRegistry, protobuf.ProfileRegistryJSON, protobuf.ProfileWire, protobuf.ProfileWireJSON}

func profileFor(ruleID string) protobuf.Profile {
	for _, p := range profileOrder {
		if slices.Contains(protobuf.ProfileRules(p), ruleID) {
			return p
		}
	}
	return protobuf.ProfileRegistry
}

// mustParseFile parses a .proto file of testdata.
func mustParseFile(tb testing.TB, path string) compat.Schema {
	tb.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := protobuf.Format{}.Parse(string(text), nil)
	if err != nil {
		tb.Fatalf("parse %s: %v", path, err)
	}
	return s
}

// testCase checks testdata/<dir>: reader.proto read against writer.proto
// with profile p must give exactly the violations in want.json.
func testCase(t *testing.T, dir string, p protobuf.Profile) []compat.Violation {
	t.Helper()
	dir = filepath.Join("testdata", dir)
	reader := mustParseFile(t, filepath.Join(dir, "reader.proto"))
	writer := mustParseFile(t, filepath.Join(dir, "writer.proto"))
	got := protobuf.Format{Profile: p}.CheckRead(reader, writer)
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
	if !slices.Equal(got, want) {
		t.Fatalf("%s (profile %q):\n got: %v\nwant: %v", dir, p, got, want)
	}
	for _, v := range got {
		if strings.ContainsAny(v.Message, "\n\r") || v.Path == "" || !strings.HasPrefix(v.Path, ".") {
			t.Errorf("%s: violation not one line or without a path: %+v", dir, v)
		}
	}
	return got
}

// testRule checks the rule's testdata case and that it reports the rule.
func testRule(t *testing.T, ruleID string) {
	t.Helper()
	got := testCase(t, strings.ToLower(ruleID), profileFor(ruleID))
	for _, v := range got {
		if v.RuleID == ruleID {
			return
		}
	}
	t.Errorf("testdata/%s does not report %s", strings.ToLower(ruleID), ruleID)
}

func TestRulePackageChanged(t *testing.T)         { testRule(t, protobuf.RulePackageChanged) }
func TestRuleMessageRemoved(t *testing.T)         { testRule(t, protobuf.RuleMessageRemoved) }
func TestRuleFieldKindChanged(t *testing.T)       { testRule(t, protobuf.RuleFieldKindChanged) }
func TestRuleFieldScalarKindChanged(t *testing.T) { testRule(t, protobuf.RuleFieldScalarKindChanged) }
func TestRuleFieldNamedTypeChanged(t *testing.T)  { testRule(t, protobuf.RuleFieldNamedTypeChanged) }
func TestRuleFieldNumericLabelChanged(t *testing.T) {
	testRule(t, protobuf.RuleFieldNumericLabelChanged)
}
func TestRuleRequiredFieldAdded(t *testing.T)   { testRule(t, protobuf.RuleRequiredFieldAdded) }
func TestRuleRequiredFieldRemoved(t *testing.T) { testRule(t, protobuf.RuleRequiredFieldRemoved) }
func TestRuleFieldMovedToExistingOneof(t *testing.T) {
	testRule(t, protobuf.RuleFieldMovedToExistingOneof)
}
func TestRuleMultipleFieldsMovedToOneof(t *testing.T) {
	testRule(t, protobuf.RuleMultipleFieldsMovedToOneof)
}
func TestRuleOneofFieldRemoved(t *testing.T)    { testRule(t, protobuf.RuleOneofFieldRemoved) }
func TestRuleFieldNameChanged(t *testing.T)     { testRule(t, protobuf.RuleFieldNameChanged) }
func TestRuleFieldJSONNameChanged(t *testing.T) { testRule(t, protobuf.RuleFieldJSONNameChanged) }
func TestRuleEnumValueNameChanged(t *testing.T) { testRule(t, protobuf.RuleEnumValueNameChanged) }
func TestRuleFieldWireCompatibleType(t *testing.T) {
	testRule(t, protobuf.RuleFieldWireCompatibleType)
}
func TestRuleFieldWireJSONCompatibleType(t *testing.T) {
	testRule(t, protobuf.RuleFieldWireJSONCompatibleType)
}
func TestRuleFieldWireCompatibleCardinality(t *testing.T) {
	testRule(t, protobuf.RuleFieldWireCompatibleCardinality)
}
func TestRuleFieldWireJSONCompatibleCardinality(t *testing.T) {
	testRule(t, protobuf.RuleFieldWireJSONCompatibleCardinality)
}
func TestRuleFieldSameOneof(t *testing.T)   { testRule(t, protobuf.RuleFieldSameOneof) }
func TestRuleFieldSameDefault(t *testing.T) { testRule(t, protobuf.RuleFieldSameDefault) }
func TestRuleFieldNoDeleteUnlessNumberReserved(t *testing.T) {
	testRule(t, protobuf.RuleFieldNoDeleteUnlessNumberReserved)
}
func TestRuleFieldNoDeleteUnlessNameReserved(t *testing.T) {
	testRule(t, protobuf.RuleFieldNoDeleteUnlessNameReserved)
}
func TestRuleEnumValueNoDeleteUnlessNumberReserved(t *testing.T) {
	testRule(t, protobuf.RuleEnumValueNoDeleteUnlessNumberReserved)
}
func TestRuleEnumValueNoDeleteUnlessNameReserved(t *testing.T) {
	testRule(t, protobuf.RuleEnumValueNoDeleteUnlessNameReserved)
}
func TestRuleReservedMessageNoDelete(t *testing.T) { testRule(t, protobuf.RuleReservedMessageNoDelete) }
func TestRuleReservedEnumNoDelete(t *testing.T)    { testRule(t, protobuf.RuleReservedEnumNoDelete) }
func TestRuleMessageSameJSONFormat(t *testing.T)   { testRule(t, protobuf.RuleMessageSameJSONFormat) }
func TestRuleEnumSameJSONFormat(t *testing.T)      { testRule(t, protobuf.RuleEnumSameJSONFormat) }

// TestCompatibleCases runs every testdata/compatible case with the default
// profile (want.json []).
func TestCompatibleCases(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "compatible", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no compatible cases: %v", err)
	}
	for _, d := range dirs {
		name := filepath.Base(d)
		t.Run(name, func(t *testing.T) {
			if got := testCase(t, filepath.Join("compatible", name), protobuf.ProfileRegistry); len(got) != 0 {
				t.Errorf("want compatible, got %v", got)
			}
		})
	}
}

// TestEveryRuleHasTestdata fails when a registered Protobuf rule has no
// testdata directory, when its case does not report it, or when no profile
// runs it.
func TestEveryRuleHasTestdata(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range protobuf.Rules() {
		if r.Format != compat.Protobuf || seen[r.ID] {
			t.Errorf("rule %s: format %s, listed before: %v", r.ID, r.Format, seen[r.ID])
		}
		seen[r.ID] = true
		dir := filepath.Join("testdata", strings.ToLower(r.ID))
		for _, f := range []string{"reader.proto", "writer.proto", "want.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("rule %s: %v", r.ID, err)
			}
		}
		raw, err := os.ReadFile(filepath.Join(dir, "want.json"))
		if err == nil && !bytes.Contains(raw, []byte(`"`+r.ID+`"`)) {
			t.Errorf("rule %s: %s/want.json does not expect it", r.ID, dir)
		}
		if !strings.HasPrefix(r.ID, "PROTO_") || strings.ToUpper(r.ID) != r.ID {
			t.Errorf("rule %s: IDs are SCREAMING_SNAKE with the PROTO_ prefix", r.ID)
		}
		if r.Purpose == "" || r.Source == "" {
			t.Errorf("rule %s: Purpose and Source are required", r.ID)
		}
		inProfile := false
		for _, p := range profileOrder {
			inProfile = inProfile || slices.Contains(protobuf.ProfileRules(p), r.ID)
		}
		if !inProfile {
			t.Errorf("rule %s is in no profile", r.ID)
		}
	}
}

// isRule reports whether id is a rule of protobuf.Rules.
func isRule(id string) bool {
	return slices.ContainsFunc(protobuf.Rules(), func(r rule.Rule) bool { return r.ID == id })
}

// TestProfileByName: the names a subject selects a profile by, in any case,
// "" for the default, and an error naming the valid ones.
func TestProfileByName(t *testing.T) {
	for _, tc := range []struct {
		name, want, err string
	}{
		{"", string(protobuf.ProfileRegistry), ""},
		{"CONFLUENT", string(protobuf.ProfileRegistry), ""},
		{"confluent", string(protobuf.ProfileRegistry), ""},
		{"WIRE", "WIRE", ""},
		{"wire_json", "WIRE_JSON", ""},
		{"REGISTRY_JSON", "", `unknown Protobuf profile "REGISTRY_JSON": want CONFLUENT, WIRE, WIRE_JSON`},
		{"buf", "", `unknown Protobuf profile "buf": want CONFLUENT, WIRE, WIRE_JSON`},
	} {
		p, err := protobuf.ProfileByName(tc.name)
		if string(p) != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("ProfileByName(%q) = %q, %v; want %q, %q", tc.name, p, err, tc.want, tc.err)
		}
		f, err := compat.WithProfile(protobuf.Format{}, tc.name)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("WithProfile(%q): error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || f.(protobuf.Format).Profile != protobuf.Profile(tc.want) {
			t.Errorf("WithProfile(%q) = %+v, %v; want profile %q", tc.name, f, err, tc.want)
		}
	}
}

// TestRuleProfiles: Rules names, for each rule, the selectable profiles
// that run it, so that every rule can fire under some configuration.
func TestRuleProfiles(t *testing.T) {
	want := map[string][]string{
		protobuf.RulePackageChanged:              {"CONFLUENT", "WIRE", "WIRE_JSON"},
		protobuf.RuleMessageRemoved:              {"CONFLUENT"},
		protobuf.RuleFieldWireCompatibleType:     {"WIRE"},
		protobuf.RuleFieldWireJSONCompatibleType: {"WIRE_JSON"},
		protobuf.RuleFieldNameChanged:            {"WIRE_JSON"},
		protobuf.RuleFieldSameOneof:              {"WIRE", "WIRE_JSON"},
	}
	for _, r := range protobuf.Rules() {
		if len(r.Profiles) == 0 {
			t.Errorf("rule %s runs in no selectable profile", r.ID)
		}
		for _, name := range r.Profiles {
			p, err := protobuf.ProfileByName(name)
			if err != nil || !slices.Contains(protobuf.ProfileRules(p), r.ID) {
				t.Errorf("rule %s lists profile %s, which does not run it (%v)", r.ID, name, err)
			}
		}
		if w, ok := want[r.ID]; ok && !slices.Equal(r.Profiles, w) {
			t.Errorf("rule %s: profiles %v, want %v", r.ID, r.Profiles, w)
		}
	}
}

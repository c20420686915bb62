package governance_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/compat/protobuf"
	"github.com/charter-dev/charter/registry/governance"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const (
	avroBase = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"long"},{"name":"carrier_code","type":"string"},` +
		`{"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","SHIPPED"]}},` +
		`{"name":"carrier","type":{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}},` +
		`{"name":"weight","type":"int"}]}`
	protoBase  = "syntax = \"proto3\";\npackage acme;\n\nmessage Shipment {\n  string id = 1;\n  // The carrier's code.\n  string carrier_code = 2;\n  int32 weight = 3;\n}\n"
	jsonBase   = `{"type":"object","properties":{"id":{"type":"string"},"carrier_code":{"type":"string"},"weight":{"type":"integer"}},"required":["id"]}`
	jsonClosed = `{"type":"object","additionalProperties":false,"properties":{"id":{"type":"string"},"carrier_code":{"type":"string"}},"required":["id"]}`
)

// avroWith returns avroBase with replacements applied in order.
func with(base string, pairs ...string) string {
	return strings.NewReplacer(pairs...).Replace(base)
}

func mustParse(t *testing.T, f compat.Format, text string) compat.Schema {
	t.Helper()
	s, err := f.Parse(text, nil)
	if err != nil {
		t.Fatalf("parse %s: %v\n%s", f.Type(), err, text)
	}
	return s
}

type classifyCase struct {
	name      string
	format    compat.Format
	level     compat.Level
	prev, cur string
	prevMeta  string
	curMeta   string
	prevRules string
	curRules  string
	deps      []governance.Deprecation
	wantBump  governance.Bump
	wantKinds []string
}

// classifyCases: at least 20 change kinds across the three formats, each
// with the bump the package doc promises.
func classifyCases() []classifyCase {
	carrier := governance.NewDeprecation("shipments-value", governance.FieldItem(".carrier_code"), day(0), 90, governance.SourceAPI)
	carrier.Replacement = ".carrier.code"
	return []classifyCase{
		{name: "avro/field added with default", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `{"name":"weight","type":"int"}`, `{"name":"weight","type":"int"},{"name":"note","type":"string","default":""}`),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldAdded}},
		{name: "avro/field added without default", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `{"name":"weight","type":"int"}`, `{"name":"weight","type":"int"},{"name":"note","type":"string"}`),
			wantBump: governance.BumpMajor, wantKinds: []string{governance.KindFieldAdded}},
		{name: "avro/field removed", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `,{"name":"weight","type":"int"}`, ``),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldRemoved}},
		{name: "avro/field removed under FORWARD", format: avro.Format{}, level: compat.Forward, prev: avroBase,
			cur:      with(avroBase, `,{"name":"weight","type":"int"}`, ``),
			wantBump: governance.BumpMajor, wantKinds: []string{governance.KindFieldRemoved}},
		{name: "avro/type promoted int to long", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `{"name":"weight","type":"int"}`, `{"name":"weight","type":"long"}`),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldTypeChanged}},
		{name: "avro/type narrowed long to int", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `{"name":"id","type":"long"}`, `{"name":"id","type":"int"}`),
			wantBump: governance.BumpMajor, wantKinds: []string{governance.KindFieldTypeChanged}},
		{name: "avro/field documented", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `{"name":"id","type":"long"}`, `{"name":"id","type":"long","doc":"Shipment number."}`),
			wantBump: governance.BumpPatch, wantKinds: []string{governance.KindFieldDocChanged}},
		{name: "avro/fields reordered", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `{"name":"id","type":"long"},{"name":"carrier_code","type":"string"}`, `{"name":"carrier_code","type":"string"},{"name":"id","type":"long"}`),
			wantBump: governance.BumpPatch, wantKinds: []string{governance.KindFieldsReordered}},
		{name: "avro/field deprecated", format: avro.Format{}, prev: avroBase, deps: []governance.Deprecation{carrier},
			cur:      with(avroBase, `{"name":"carrier_code","type":"string"}`, `{"name":"carrier_code","type":"string","deprecated":true}`),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldDeprecated}},
		{name: "avro/enum symbol added", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `["NEW","SHIPPED"]`, `["NEW","SHIPPED","LOST"]`),
			wantBump: governance.BumpMinor, wantKinds: []string{avro.RuleMissingEnumSymbols}},
		{name: "avro/enum symbol added under FULL", format: avro.Format{}, level: compat.Full, prev: avroBase,
			cur:      with(avroBase, `["NEW","SHIPPED"]`, `["NEW","SHIPPED","LOST"]`),
			wantBump: governance.BumpMajor, wantKinds: []string{avro.RuleMissingEnumSymbols}},
		{name: "avro/enum symbol removed", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `["NEW","SHIPPED"]`, `["NEW"]`),
			wantBump: governance.BumpMajor, wantKinds: []string{avro.RuleMissingEnumSymbols}},
		{name: "avro/enum symbol removed under NONE is judged as BACKWARD", format: avro.Format{}, level: compat.None, prev: avroBase,
			cur:      with(avroBase, `["NEW","SHIPPED"]`, `["NEW"]`),
			wantBump: governance.BumpMajor, wantKinds: []string{avro.RuleMissingEnumSymbols}},
		{name: "avro/field tagged PII", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `{"name":"carrier_code","type":"string"}`, `{"name":"carrier_code","type":"string","confluent:tags":["PII"]}`),
			wantBump: governance.BumpPatch, wantKinds: []string{governance.KindFieldTagsChanged}},
		{name: "avro/record doc changed", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `"namespace":"acme",`, `"namespace":"acme","doc":"A parcel on its way.",`),
			wantBump: governance.BumpPatch, wantKinds: []string{governance.KindDocChanged}},
		{name: "avro/nested field added", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `{"name":"code","type":"string"}`, `{"name":"code","type":"string"},{"name":"name","type":"string","default":""}`),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldAdded}},
		{name: "avro/field made nullable", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `{"name":"carrier_code","type":"string"}`, `{"name":"carrier_code","type":["null","string"],"default":null}`),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldTypeChanged, governance.KindFieldDefaultAdded}},
		{name: "avro/default added", format: avro.Format{}, prev: avroBase,
			cur:      with(avroBase, `{"name":"weight","type":"int"}`, `{"name":"weight","type":"int","default":0}`),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldDefaultAdded}},
		{name: "avro/default removed", format: avro.Format{}, prev: with(avroBase, `{"name":"weight","type":"int"}`, `{"name":"weight","type":"int","default":0}`),
			cur:      avroBase,
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldDefaultRemoved}},
		{name: "avro/identical schema, new version", format: avro.Format{}, prev: avroBase, cur: avroBase,
			wantBump: governance.BumpPatch, wantKinds: []string{governance.KindNoStructuralChange}},
		{name: "avro/metadata property changed", format: avro.Format{}, prev: avroBase, cur: avroBase,
			prevMeta: `{"properties":{"owner":"logistics"}}`, curMeta: `{"properties":{"owner":"shipping"},"tags":{"**.carrier_code":["PII"]}}`,
			wantBump: governance.BumpPatch, wantKinds: []string{governance.KindMetadataChanged, governance.KindMetadataChanged}},
		{name: "avro/rule added", format: avro.Format{}, prev: avroBase, cur: avroBase,
			curRules: `{"domainRules":[{"name":"encrypt_pii","kind":"TRANSFORM","mode":"WRITEREAD","type":"ENCRYPT","tags":["PII"]}]}`,
			wantBump: governance.BumpPatch, wantKinds: []string{governance.KindRuleSetChanged}},

		{name: "protobuf/field added", format: protobuf.Format{}, prev: protoBase,
			cur:      with(protoBase, "  int32 weight = 3;\n", "  int32 weight = 3;\n  string note = 4;\n"),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldAdded}},
		{name: "protobuf/field removed", format: protobuf.Format{}, prev: protoBase,
			cur:      with(protoBase, "  int32 weight = 3;\n", ""),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldRemoved}},
		{name: "protobuf/field renamed, number kept", format: protobuf.Format{}, prev: protoBase,
			cur:      with(protoBase, "carrier_code = 2", "carrier = 2"),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldRenamed}},
		{name: "protobuf/field kind changed", format: protobuf.Format{}, prev: protoBase,
			cur:      with(protoBase, "string carrier_code = 2", "int64 carrier_code = 2"),
			wantBump: governance.BumpMajor, wantKinds: []string{governance.KindFieldTypeChanged}},
		{name: "protobuf/comment changed", format: protobuf.Format{}, prev: protoBase,
			cur:      with(protoBase, "The carrier's code.", "The carrier's IATA code."),
			wantBump: governance.BumpPatch, wantKinds: []string{governance.KindFieldDocChanged}},
		{name: "protobuf/field deprecated", format: protobuf.Format{}, prev: protoBase,
			cur:      with(protoBase, "carrier_code = 2;", "carrier_code = 2 [deprecated = true];"),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldDeprecated}},
		{name: "protobuf/message added", format: protobuf.Format{}, prev: protoBase,
			cur:      protoBase + "\nmessage Carrier {\n  string code = 1;\n}\n",
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindMessageAdded}},

		{name: "protobuf/field no longer deprecated", format: protobuf.Format{}, prev: with(protoBase, "carrier_code = 2;", "carrier_code = 2 [deprecated = true];"),
			cur:      protoBase,
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldUndeprecated}},
		{name: "protobuf/message removed", format: protobuf.Format{}, prev: protoBase + "\nmessage Carrier {\n  string code = 1;\n}\n",
			cur:      protoBase,
			wantBump: governance.BumpMajor, wantKinds: []string{governance.KindMessageRemoved}},
		{name: "json/default added", format: jsonschema.Format{}, prev: jsonBase,
			cur:      with(jsonBase, `"weight":{"type":"integer"}`, `"weight":{"type":"integer","default":0}`),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldDefaultAdded}},
		{name: "json/annotation added", format: jsonschema.Format{}, prev: jsonBase,
			cur:      with(jsonBase, `"carrier_code":{"type":"string"}`, `"carrier_code":{"type":"string","x-owner":"logistics"}`),
			wantBump: governance.BumpPatch, wantKinds: []string{governance.KindFieldAnnotation}},
		{name: "json/description changed", format: jsonschema.Format{}, prev: jsonBase,
			cur:      with(jsonBase, `"id":{"type":"string"}`, `"id":{"type":"string","description":"Shipment number."}`),
			wantBump: governance.BumpPatch, wantKinds: []string{governance.KindFieldDocChanged}},
		{name: "json/property added to open content model", format: jsonschema.Format{}, prev: jsonBase,
			cur:      with(jsonBase, `"weight":{"type":"integer"}`, `"weight":{"type":"integer"},"note":{"type":"string"}`),
			wantBump: governance.BumpMajor, wantKinds: []string{governance.KindFieldAdded}},
		{name: "json/property added to closed content model", format: jsonschema.Format{}, prev: jsonClosed,
			cur:      with(jsonClosed, `"carrier_code":{"type":"string"}`, `"carrier_code":{"type":"string"},"note":{"type":"string"}`),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldAdded}},
		{name: "json/property required", format: jsonschema.Format{}, prev: jsonBase,
			cur:      with(jsonBase, `"required":["id"]`, `"required":["id","carrier_code"]`),
			wantBump: governance.BumpMajor, wantKinds: []string{governance.KindFieldRequired}},
		{name: "json/property deprecated", format: jsonschema.Format{}, prev: jsonBase,
			cur:      with(jsonBase, `"carrier_code":{"type":"string"}`, `"carrier_code":{"type":"string","deprecated":true}`),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldDeprecated}},
		{name: "json/type widened integer to number", format: jsonschema.Format{}, prev: jsonBase,
			cur:      with(jsonBase, `"weight":{"type":"integer"}`, `"weight":{"type":"number"}`),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldTypeChanged}},
		{name: "json/property removed from open content model", format: jsonschema.Format{}, prev: jsonBase,
			cur:      with(jsonBase, `,"weight":{"type":"integer"}`, ``),
			wantBump: governance.BumpMinor, wantKinds: []string{governance.KindFieldRemoved}},
		{name: "json/schema type changed", format: jsonschema.Format{}, prev: jsonBase, cur: `{"type":"string"}`,
			wantBump: governance.BumpMajor, wantKinds: nil},
	}
}

// TestClassify: each change kind gets its bump and its change kinds; the
// sentences are compared with testdata/classify.golden.
func TestClassify(t *testing.T) {
	var golden strings.Builder
	kinds := map[string]bool{}
	for _, tc := range classifyCases() {
		t.Run(tc.name, func(t *testing.T) {
			level := tc.level
			if level == "" {
				level = compat.Backward
			}
			c := governance.Classify(governance.ClassifyInput{
				Format: tc.format, Level: level, TTLDays: 90, Deprecations: tc.deps,
				Previous: governance.Version{Version: 1, Schema: mustParse(t, tc.format, tc.prev), Metadata: raw(tc.prevMeta), RuleSet: raw(tc.prevRules)},
				Current:  governance.Version{Version: 2, Schema: mustParse(t, tc.format, tc.cur), Metadata: raw(tc.curMeta), RuleSet: raw(tc.curRules)},
			})
			if c.Bump != tc.wantBump {
				t.Errorf("bump %s, want %s; changes:\n%s", c.Bump, tc.wantBump, changeLines(c.Changes))
			}
			var got []string
			for _, ch := range c.Changes {
				got = append(got, ch.Kind)
				kinds[ch.Kind] = true
			}
			if tc.wantKinds != nil && !slices.Equal(got, tc.wantKinds) {
				t.Errorf("kinds %v, want %v; changes:\n%s", got, tc.wantKinds, changeLines(c.Changes))
			}
			fmt.Fprintf(&golden, "## %s: %s\n%s", tc.name, c.Bump, changeLines(c.Changes))
		})
	}
	if len(kinds) < 20 {
		t.Errorf("the cases cover %d change kinds, want at least 20: %v", len(kinds), kinds)
	}
	compareGolden(t, "classify.golden", golden.String())
}

func changeLines(cs []governance.Change) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "- %s %s: %s\n", c.Bump, c.Kind, c.Text)
	}
	return b.String()
}

func raw(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// TestSemVerNext: bumps from a version.
func TestSemVerNext(t *testing.T) {
	v, err := governance.ParseSemVer("1.4.2")
	if err != nil {
		t.Fatal(err)
	}
	for b, want := range map[governance.Bump]string{governance.BumpMajor: "2.0.0", governance.BumpMinor: "1.5.0", governance.BumpPatch: "1.4.3", governance.BumpNone: "1.4.2"} {
		if got := v.Next(b).String(); got != want {
			t.Errorf("1.4.2 + %s = %s, want %s", b, got, want)
		}
	}
	for _, bad := range []string{"1.4", "1.x.0", "-1.0.0", ""} {
		if _, err := governance.ParseSemVer(bad); err == nil {
			t.Errorf("ParseSemVer(%q) accepted it", bad)
		}
	}
}

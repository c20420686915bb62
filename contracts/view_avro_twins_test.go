package contracts_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/contracts"
)

// Fingerprint twins: Avro schemas that differ only in what hamba's codec
// cache key (the Parsing Canonical Form's fingerprint) leaves out. The
// Avro view encodes each example with the schema to check it; with
// hamba's shared default config, the twin verified second was judged with
// the encoder built for the first (a version adding a default to "b" was
// refused with CONTRACT_EXAMPLE_UNDECODABLE "avro: missing required field
// b" after one without it), while a fresh process accepted it.

type avroTwin struct {
	name     string
	a, b     string // the twins
	contents string // the pact's example message
}

func avroTwinRecord(fields ...string) string {
	return `{"type":"record","name":"U","fields":[` + strings.Join(fields, ",") + `]}`
}

var avroTwins = []avroTwin{
	{
		// The tester's reproduction.
		name:     "default added",
		a:        avroTwinRecord(`{"name":"a","type":"string"}`, `{"name":"b","type":"string"}`),
		b:        avroTwinRecord(`{"name":"a","type":"string"}`, `{"name":"b","type":"string","default":"x"}`),
		contents: `{"a":"s"}`,
	},
	{
		name:     "default changed",
		a:        avroTwinRecord(`{"name":"a","type":"string"}`, `{"name":"b","type":"long","default":1}`),
		b:        avroTwinRecord(`{"name":"a","type":"string"}`, `{"name":"b","type":"long","default":2}`),
		contents: `{"a":"s"}`,
	},
	{
		name: "nested default added",
		a: avroTwinRecord(`{"name":"a","type":"string"}`,
			`{"name":"r","type":{"type":"record","name":"R","fields":[{"name":"x","type":"int"},{"name":"y","type":"string"}]}}`),
		b: avroTwinRecord(`{"name":"a","type":"string"}`,
			`{"name":"r","type":{"type":"record","name":"R","fields":[{"name":"x","type":"int"},{"name":"y","type":"string","default":"p"}]}}`),
		contents: `{"a":"s","r":{"x":1}}`,
	},
	{
		name: "record default added",
		a: avroTwinRecord(`{"name":"a","type":"string"}`,
			`{"name":"r","type":{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}}`),
		b: avroTwinRecord(`{"name":"a","type":"string"}`,
			`{"name":"r","type":{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]},"default":{"x":3}}`),
		contents: `{"a":"s"}`,
	},
	{
		name:     "enum default added",
		a:        avroTwinRecord(`{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}}`, `{"name":"f","type":"E"}`),
		b:        avroTwinRecord(`{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"],"default":"B"}}`, `{"name":"f","type":"E","default":"A"}`),
		contents: `{"e":"B"}`,
	},
	{
		name:     "doc",
		a:        avroTwinRecord(`{"name":"a","type":"string"}`, `{"name":"b","type":"string"}`),
		b:        `{"type":"record","name":"U","doc":"a U","fields":[{"name":"a","type":"string","doc":"the a"},{"name":"b","type":"string","doc":"the b"}]}`,
		contents: `{"a":"s"}`,
	},
	{
		name:     "aliases",
		a:        avroTwinRecord(`{"name":"a","type":"string"}`, `{"name":"b","type":"string"}`),
		b:        `{"type":"record","name":"U","aliases":["V"],"fields":[{"name":"a","type":"string","aliases":["aa"]},{"name":"b","type":"string","aliases":["bb"]}]}`,
		contents: `{"a":"s"}`,
	},
	{
		name:     "logical type",
		a:        avroTwinRecord(`{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}}`, `{"name":"b","type":"string"}`),
		b:        avroTwinRecord(`{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":6,"scale":3}}`, `{"name":"b","type":"string","default":"x"}`),
		contents: `{"d":1.5}`,
	},
}

func twinPact(contents string) string {
	return `{"consumer":{"name":"reader"},"provider":{"name":"writer"},"messages":[{"description":"a U",` +
		`"contents":` + contents + `}],"metadata":{"pactSpecification":{"version":"3.0.0"}}}`
}

// verifyTwin verifies the pact with contents against schema text in this
// process and returns the findings as "RULE path: message".
func verifyTwin(tb testing.TB, text, contents string) []string {
	tb.Helper()
	s, err := avro.Parse(text, nil)
	if err != nil {
		tb.Fatalf("%s: %v", text, err)
	}
	p, err := contracts.ParsePact([]byte(twinPact(contents)))
	if err != nil {
		tb.Fatal(err)
	}
	rep, err := contracts.Verify([]*contracts.Contract{{Consumer: p.Consumer, Pact: p}}, s, contracts.Options{Now: testNow})
	if err != nil {
		tb.Fatal(err)
	}
	out := []string{}
	for _, f := range rep.Findings() {
		out = append(out, f.RuleID+" "+f.Path+": "+f.Message)
	}
	return out
}

// TestHelperVerifyTwinFresh is verifyTwin in a process of its own, run by
// freshVerify: it prints the findings as JSON.
func TestHelperVerifyTwinFresh(t *testing.T) {
	text, contents := os.Getenv("CHARTER_TWIN_SCHEMA"), os.Getenv("CHARTER_TWIN_CONTENTS")
	if text == "" {
		t.Skip("run by freshVerify")
	}
	b, _ := json.Marshal(verifyTwin(t, text, contents))
	fmt.Printf("\nFINDINGS %s\n", b)
}

// freshVerify verifies in a fresh process (this test binary, running
// TestHelperVerifyTwinFresh only).
func freshVerify(t *testing.T, text, contents string) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperVerifyTwinFresh$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CHARTER_TWIN_SCHEMA="+text, "CHARTER_TWIN_CONTENTS="+contents)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("fresh process: %v\n%s", err, out)
	}
	for line := range strings.Lines(string(out)) {
		if rest, ok := strings.CutPrefix(line, "FINDINGS "); ok {
			var fs []string
			if err := json.Unmarshal([]byte(rest), &fs); err != nil {
				t.Fatal(err)
			}
			return fs
		}
	}
	t.Fatalf("fresh process printed no findings:\n%s", out)
	return nil
}

// TestAvroExampleFingerprintTwins verifies each twin pair in both orders
// in this process, each twin parsed afresh, and compares the findings
// with those of a fresh process.
func TestAvroExampleFingerprintTwins(t *testing.T) {
	for _, tc := range avroTwins {
		t.Run(tc.name, func(t *testing.T) {
			want := map[string][]string{tc.a: freshVerify(t, tc.a, tc.contents), tc.b: freshVerify(t, tc.b, tc.contents)}
			for _, order := range [][2]string{{tc.a, tc.b}, {tc.b, tc.a}} {
				for _, text := range order {
					if got := verifyTwin(t, text, tc.contents); !reflect.DeepEqual(got, want[text]) {
						t.Errorf("%s\nafter its twin: findings %q, want %q (a fresh process)", text, got, want[text])
					}
				}
			}
		})
	}
}

// TestAvroDefaultAddedAfterTwin is the tester's reproduction: a contract
// verified against U{a, b}, then against U{a, b with a default}, where
// the example leaves out b. Both must pass (a fresh process passes both).
func TestAvroDefaultAddedAfterTwin(t *testing.T) {
	a := avroTwinRecord(`{"name":"a","type":"string"}`, `{"name":"b","type":"string"}`)
	b := avroTwinRecord(`{"name":"a","type":"string"}`, `{"name":"b","type":"string","default":"x"}`)
	for _, text := range []string{a, b, a} {
		if got := verifyTwin(t, text, `{"a":"s"}`); len(got) != 0 {
			t.Errorf("%s: findings %q, want none", text, got)
		}
	}
}

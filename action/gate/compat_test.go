package gate_test

import (
	"reflect"
	"testing"

	"github.com/charter-dev/charter/action/gate"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry/governance"
)

// TestPrecomputedCompat: with Input.Compat set, the gate takes that
// verdict and compares nothing (Against, incompatible here, is not read),
// so the registry's incremental transitive check decides alone.
func TestPrecomputedCompat(t *testing.T) {
	f, err := formats.Lookup(compat.Avro, "")
	if err != nil {
		t.Fatal(err)
	}
	parse := func(text string) compat.Schema {
		t.Helper()
		s, err := f.Parse(text, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	old, cand := parse(`"int"`), parse(`"string"`)
	in := gate.Input{Subject: "s", Format: f, Level: compat.FullTransitive,
		Candidate: governance.Version{Version: 2, Schema: cand},
		Against:   []compat.Previous{{Version: 1, Schema: old}}}
	if res := gate.CheckCompatibility(in); res.Compatible() {
		t.Fatal("int then string compatible without Compat: the test compares nothing")
	}
	given := compat.Result{Level: compat.FullTransitive, Findings: []compat.Finding{{
		Violation: compat.Violation{RuleID: "X", Path: ".", Message: "given"}, Direction: compat.DirForward, Version: 7}}}
	in.Compat = &given
	if got := gate.CheckCompatibility(in); !reflect.DeepEqual(got, given) {
		t.Fatalf("CheckCompatibility = %+v, want the given %+v", got, given)
	}
	res, err := gate.Evaluate(in)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Compat, given) {
		t.Fatalf("Evaluate's Compat = %+v, want the given %+v", res.Compat, given)
	}
}

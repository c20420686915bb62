package avro_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
)

const (
	typeMismatch   = avro.RuleTypeMismatch
	nameMismatch   = avro.RuleNameMismatch
	missingDefault = avro.RuleReaderFieldMissingDefault
	enumSymbols    = avro.RuleMissingEnumSymbols
	unionBranch    = avro.RuleMissingUnionBranch
	fixedSize      = avro.RuleFixedSizeMismatch
	decimalScale   = avro.RuleDecimalScaleMismatch
	decimalPrec    = avro.RuleDecimalPrecisionNarrowed
	logicalType    = avro.RuleLogicalTypeMismatch
)

// rec wraps field JSON in a record named R.
func rec(fields string) string {
	return `{"type":"record","name":"R","namespace":"ex","fields":[` + fields + `]}`
}

// TestResolutionLevels covers every rule of the specification's "Schema
// Resolution" section with a compatible and an incompatible evolution and
// runs each through compat.Check at all seven levels. back lists the rules
// broken when the new schema reads data written with the old one, fwd when
// the old schema reads the new one's data.
func TestResolutionLevels(t *testing.T) {
	tests := []struct {
		name      string
		old, new  string
		back, fwd []string
	}{
		// Primitives and promotions.
		{name: "same primitive", old: `"int"`, new: `"int"`},
		{name: "int promotes to long", old: `"int"`, new: `"long"`, fwd: []string{typeMismatch}},
		{name: "int promotes to float", old: `"int"`, new: `"float"`, fwd: []string{typeMismatch}},
		{name: "int promotes to double", old: `"int"`, new: `"double"`, fwd: []string{typeMismatch}},
		{name: "long promotes to float", old: `"long"`, new: `"float"`, fwd: []string{typeMismatch}},
		{name: "long promotes to double", old: `"long"`, new: `"double"`, fwd: []string{typeMismatch}},
		{name: "float promotes to double", old: `"float"`, new: `"double"`, fwd: []string{typeMismatch}},
		{name: "string and bytes promote both ways", old: `"string"`, new: `"bytes"`},
		{name: "long narrows to int", old: `"long"`, new: `"int"`, back: []string{typeMismatch}},
		{name: "int to string", old: `"int"`, new: `"string"`, back: []string{typeMismatch}, fwd: []string{typeMismatch}},
		{name: "boolean to null", old: `"boolean"`, new: `"null"`, back: []string{typeMismatch}, fwd: []string{typeMismatch}},

		// Records.
		{
			name: "field added with default",
			old:  rec(`{"name":"a","type":"int"}`),
			new:  rec(`{"name":"a","type":"int"},{"name":"b","type":"string","default":""}`),
		},
		{
			name: "field added without default",
			old:  rec(`{"name":"a","type":"int"}`),
			new:  rec(`{"name":"a","type":"int"},{"name":"b","type":"string"}`),
			back: []string{missingDefault},
		},
		{
			name: "field with default removed",
			old:  rec(`{"name":"a","type":"int"},{"name":"b","type":"string","default":""}`),
			new:  rec(`{"name":"a","type":"int"}`),
		},
		{
			name: "field without default removed",
			old:  rec(`{"name":"a","type":"int"},{"name":"b","type":"string"}`),
			new:  rec(`{"name":"a","type":"int"}`),
			fwd:  []string{missingDefault},
		},
		{
			name: "fields reordered",
			old:  rec(`{"name":"a","type":"int"},{"name":"b","type":"string"}`),
			new:  rec(`{"name":"b","type":"string"},{"name":"a","type":"int"}`),
		},
		{
			name: "field renamed with alias",
			old:  rec(`{"name":"mail","type":"string"}`),
			new:  rec(`{"name":"email","type":"string","aliases":["mail"]}`),
			fwd:  []string{missingDefault},
		},
		{
			name: "field type changed",
			old:  rec(`{"name":"a","type":"string"}`),
			new:  rec(`{"name":"a","type":"int"}`),
			back: []string{typeMismatch}, fwd: []string{typeMismatch},
		},
		{
			name: "record renamed",
			old:  `{"type":"record","name":"ex.Old","fields":[]}`,
			new:  `{"type":"record","name":"ex.New","fields":[]}`,
			back: []string{nameMismatch}, fwd: []string{nameMismatch},
		},
		{
			name: "record renamed with alias",
			old:  `{"type":"record","name":"ex.Old","fields":[]}`,
			new:  `{"type":"record","name":"ex.New","aliases":["Old"],"fields":[]}`,
			fwd:  []string{nameMismatch},
		},
		{
			name: "record namespace changed",
			old:  `{"type":"record","name":"v1.R","fields":[{"name":"a","type":"int"}]}`,
			new:  `{"type":"record","name":"v2.R","fields":[{"name":"a","type":"int"}]}`,
		},
		{
			name: "nested record field added without default",
			old:  rec(`{"name":"n","type":{"type":"record","name":"N","fields":[]}}`),
			new:  rec(`{"name":"n","type":{"type":"record","name":"N","fields":[{"name":"x","type":"int"}]}}`),
			back: []string{missingDefault},
		},

		// Enums.
		{
			name: "enum symbol added",
			old:  `{"type":"enum","name":"E","symbols":["A","B"]}`,
			new:  `{"type":"enum","name":"E","symbols":["A","B","C"]}`,
			fwd:  []string{enumSymbols},
		},
		{
			name: "enum symbol added, old enum has a default",
			old:  `{"type":"enum","name":"E","symbols":["A","B"],"default":"A"}`,
			new:  `{"type":"enum","name":"E","symbols":["A","B","C"],"default":"A"}`,
		},
		{
			name: "enum symbol removed",
			old:  `{"type":"enum","name":"E","symbols":["A","B","C"]}`,
			new:  `{"type":"enum","name":"E","symbols":["A","B"]}`,
			back: []string{enumSymbols},
		},
		{
			name: "enum renamed",
			old:  `{"type":"enum","name":"E","symbols":["A"]}`,
			new:  `{"type":"enum","name":"F","symbols":["A"]}`,
			back: []string{nameMismatch}, fwd: []string{nameMismatch},
		},

		// Fixed.
		{
			name: "fixed unchanged",
			old:  `{"type":"fixed","name":"F","size":4}`,
			new:  `{"type":"fixed","name":"F","size":4,"doc":"docs do not matter"}`,
		},
		{
			name: "fixed resized",
			old:  `{"type":"fixed","name":"F","size":4}`,
			new:  `{"type":"fixed","name":"F","size":8}`,
			back: []string{fixedSize}, fwd: []string{fixedSize},
		},
		{
			name: "fixed renamed",
			old:  `{"type":"fixed","name":"F","size":4}`,
			new:  `{"type":"fixed","name":"G","size":4}`,
			back: []string{nameMismatch}, fwd: []string{nameMismatch},
		},

		// Unions.
		{name: "made nullable", old: `"int"`, new: `["null","int"]`, fwd: []string{typeMismatch}},
		{name: "union branch added", old: `["null","int"]`, new: `["null","int","string"]`, fwd: []string{unionBranch}},
		{name: "union branch removed", old: `["null","int","string"]`, new: `["null","int"]`, back: []string{unionBranch}},
		{name: "union reordered", old: `["null","int"]`, new: `["int","null"]`},
		{name: "union branch promoted", old: `["null","int"]`, new: `["null","long"]`, fwd: []string{unionBranch}},
		{name: "union to other union", old: `["null","int"]`, new: `["null","string"]`, back: []string{unionBranch}, fwd: []string{unionBranch}},

		// Arrays and maps.
		{name: "array items promoted", old: `{"type":"array","items":"int"}`, new: `{"type":"array","items":"long"}`, fwd: []string{typeMismatch}},
		{name: "map values promoted", old: `{"type":"map","values":"float"}`, new: `{"type":"map","values":"double"}`, fwd: []string{typeMismatch}},
		{name: "array to map", old: `{"type":"array","items":"int"}`, new: `{"type":"map","values":"int"}`, back: []string{typeMismatch}, fwd: []string{typeMismatch}},
		{name: "map values changed", old: `{"type":"map","values":"int"}`, new: `{"type":"map","values":"string"}`, back: []string{typeMismatch}, fwd: []string{typeMismatch}},

		// Recursive types.
		{
			name: "recursive list gains a defaulted field",
			old:  `{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","L"]}]}`,
			new:  `{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","L"]},{"name":"w","type":"int","default":0}]}`,
		},
		{
			name: "recursive list gains a required field",
			old:  `{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","L"]}]}`,
			new:  `{"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","L"]},{"name":"w","type":"int"}]}`,
			back: []string{missingDefault},
		},

		// Logical types.
		{
			name: "decimal unchanged",
			old:  `{"type":"bytes","logicalType":"decimal","precision":6,"scale":2}`,
			new:  `{"type":"bytes","logicalType":"decimal","precision":6,"scale":2}`,
		},
		{
			name: "decimal precision widened",
			old:  `{"type":"bytes","logicalType":"decimal","precision":6,"scale":2}`,
			new:  `{"type":"bytes","logicalType":"decimal","precision":8,"scale":2}`,
			fwd:  []string{decimalPrec},
		},
		{
			name: "decimal scale changed",
			old:  `{"type":"bytes","logicalType":"decimal","precision":6,"scale":2}`,
			new:  `{"type":"bytes","logicalType":"decimal","precision":6,"scale":3}`,
			back: []string{decimalScale}, fwd: []string{decimalScale},
		},
		{
			name: "timestamp millis to micros",
			old:  `{"type":"long","logicalType":"timestamp-millis"}`,
			new:  `{"type":"long","logicalType":"timestamp-micros"}`,
			back: []string{logicalType}, fwd: []string{logicalType},
		},
		{
			name: "logical type added to a long",
			old:  `"long"`,
			new:  `{"type":"long","logicalType":"timestamp-millis"}`,
		},
	}
	f := avro.Format{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oldS, newS := mustParse(t, tc.old), mustParse(t, tc.new)
			prev := []compat.Previous{{Version: 1, Schema: oldS}}
			for _, level := range compat.Levels {
				var want []string
				if level.Backward() {
					for _, r := range tc.back {
						want = append(want, fmt.Sprintf("BACKWARD v1 %s", r))
					}
				}
				if level.Forward() {
					for _, r := range tc.fwd {
						want = append(want, fmt.Sprintf("FORWARD v1 %s", r))
					}
				}
				res := compat.Check(f, level, newS, prev)
				if got := findings(res); !slices.Equal(got, want) {
					t.Errorf("%s: got %v, want %v", level, got, want)
				}
				if res.Compatible() != (len(want) == 0) {
					t.Errorf("%s: Compatible() = %v with findings %v", level, res.Compatible(), res.Findings)
				}
			}
		})
	}
}

// findings renders a result as "DIRECTION vN RULE" lines, deduplicated per
// (direction, version, rule), in result order.
func findings(res compat.Result) []string {
	var out []string
	for _, f := range res.Findings {
		s := fmt.Sprintf("%s v%d %s", f.Direction, f.Version, f.RuleID)
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// TestTransitiveHistories checks three-version histories where the
// transitive levels see what the latest-only levels cannot.
func TestTransitiveHistories(t *testing.T) {
	tests := []struct {
		name     string
		versions []string // v1, v2, …; the last is the new schema
		want     map[compat.Level][]string
	}{
		{
			name: "default added then dropped: only v1 data breaks",
			versions: []string{
				rec(`{"name":"a","type":"int"}`),
				rec(`{"name":"a","type":"int"},{"name":"b","type":"string","default":"x"}`),
				rec(`{"name":"a","type":"int"},{"name":"b","type":"string"}`),
			},
			want: map[compat.Level][]string{
				compat.BackwardTransitive: {"BACKWARD v1 " + missingDefault},
				compat.FullTransitive:     {"BACKWARD v1 " + missingDefault},
			},
		},
		{
			name: "field defaulted then removed: only the v1 reader breaks",
			versions: []string{
				rec(`{"name":"a","type":"int"},{"name":"b","type":"string"}`),
				rec(`{"name":"a","type":"int"},{"name":"b","type":"string","default":"x"}`),
				rec(`{"name":"a","type":"int"}`),
			},
			want: map[compat.Level][]string{
				compat.ForwardTransitive: {"FORWARD v1 " + missingDefault},
				compat.FullTransitive:    {"FORWARD v1 " + missingDefault},
			},
		},
		{
			name: "type changed twice: newest version first",
			versions: []string{
				rec(`{"name":"a","type":"int"}`),
				rec(`{"name":"a","type":"long"}`),
				rec(`{"name":"a","type":"string"}`),
			},
			want: map[compat.Level][]string{
				compat.Backward:           {"BACKWARD v2 " + typeMismatch},
				compat.BackwardTransitive: {"BACKWARD v2 " + typeMismatch, "BACKWARD v1 " + typeMismatch},
				compat.Forward:            {"FORWARD v2 " + typeMismatch},
				compat.ForwardTransitive:  {"FORWARD v2 " + typeMismatch, "FORWARD v1 " + typeMismatch},
				compat.Full:               {"BACKWARD v2 " + typeMismatch, "FORWARD v2 " + typeMismatch},
				compat.FullTransitive: {
					"BACKWARD v2 " + typeMismatch, "FORWARD v2 " + typeMismatch,
					"BACKWARD v1 " + typeMismatch, "FORWARD v1 " + typeMismatch,
				},
			},
		},
		{
			name: "enum grows with a reader default: compatible everywhere",
			versions: []string{
				`{"type":"enum","name":"E","symbols":["U","A"],"default":"U"}`,
				`{"type":"enum","name":"E","symbols":["U","A","B"],"default":"U"}`,
				`{"type":"enum","name":"E","symbols":["U","A","B","C"],"default":"U"}`,
			},
			want: map[compat.Level][]string{},
		},
	}
	f := avro.Format{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var prev []compat.Previous
			for i, v := range tc.versions[:len(tc.versions)-1] {
				prev = append(prev, compat.Previous{Version: i + 1, Schema: mustParse(t, v)})
			}
			next := mustParse(t, tc.versions[len(tc.versions)-1])
			for _, level := range compat.Levels {
				res := compat.Check(f, level, next, prev)
				want := tc.want[level]
				if got := findings(res); !slices.Equal(got, want) {
					t.Errorf("%s: got %v, want %v", level, got, want)
				}
				if res.Compatible() != (len(want) == 0) {
					t.Errorf("%s: Compatible() = %v", level, res.Compatible())
				}
			}
		})
	}
}

// TestEveryViolationReported checks that the checker does not stop at the
// first problem and reports nested paths.
func TestEveryViolationReported(t *testing.T) {
	writer := mustParse(t, `{"type":"record","name":"R","fields":[
		{"name":"a","type":"int"},
		{"name":"items","type":{"type":"array","items":{"type":"record","name":"I","fields":[{"name":"p","type":"string"}]}}},
		{"name":"m","type":{"type":"map","values":["null","string"]}},
		{"name":"k","type":{"type":"enum","name":"K","symbols":["X","Y"]}}]}`)
	reader := mustParse(t, `{"type":"record","name":"R","fields":[
		{"name":"a","type":"string"},
		{"name":"items","type":{"type":"array","items":{"type":"record","name":"I","fields":[{"name":"p","type":"int"},{"name":"q","type":"int"}]}}},
		{"name":"m","type":{"type":"map","values":"string"}},
		{"name":"k","type":{"type":"enum","name":"K","symbols":["X"]}},
		{"name":"z","type":"int"}]}`)
	got := avro.Format{}.CheckRead(reader, writer)
	want := []string{
		typeMismatch + " .a",
		typeMismatch + " .items[].p",
		missingDefault + " .items[].q",
		typeMismatch + " .m{}<null>",
		enumSymbols + " .k",
		missingDefault + " .z",
	}
	var gotS []string
	for _, v := range got {
		gotS = append(gotS, v.RuleID+" "+v.Path)
	}
	if !slices.Equal(gotS, want) {
		t.Errorf("got  %v\nwant %v", gotS, want)
	}
}

// TestSharedTypeReportedPerPath checks that a type used by two fields
// reports its violation at both paths, and that recursion terminates.
func TestSharedTypeReportedPerPath(t *testing.T) {
	writer := mustParse(t, `{"type":"record","name":"R","fields":[
		{"name":"home","type":{"type":"record","name":"A","fields":[{"name":"self","type":["null","A"]}]}},
		{"name":"work","type":"A"}]}`)
	reader := mustParse(t, `{"type":"record","name":"R","fields":[
		{"name":"home","type":{"type":"record","name":"A","fields":[{"name":"self","type":["null","A"]},{"name":"zip","type":"string"}]}},
		{"name":"work","type":"A"}]}`)
	got := avro.Format{}.CheckRead(reader, writer)
	var paths []string
	for _, v := range got {
		paths = append(paths, v.Path)
	}
	if want := []string{".home.zip", ".work.zip"}; !slices.Equal(paths, want) {
		t.Errorf("paths = %v, want %v", paths, want)
	}
}

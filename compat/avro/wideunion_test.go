package avro_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat/avro"
)

// TestWideUnionBranchSelection: a union of more than a few branches is
// searched through an index instead of branch by branch; each case gives
// the same violations with 3 extra branches (scanned) as with 40 (indexed):
// the writer's own type first, else the first branch whose simple name or
// alias matches, in branch order.
func TestWideUnionBranchSelection(t *testing.T) {
	// filler returns n records F0…F(n-1), which no case writes.
	filler := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf(`{"type":"record","name":"F%d","fields":[]}`, i)
		}
		return out
	}
	rec := func(name, field, typ string, extra string) string {
		return fmt.Sprintf(`{"type":"record","name":%q%s,"fields":[{"name":%q,"type":%q}]}`, name, extra, field, typ)
	}
	union := func(branches []string) string {
		return `{"type":"record","name":"Top","fields":[{"name":"u","type":[` + strings.Join(branches, ",") + `]}]}`
	}
	tests := []struct {
		name           string
		reader, writer []string // branches besides the filler
		want           []string // "RULE path"
	}{
		{"same branches reversed", []string{`"int"`, rec("a.A", "x", "int", "")}, []string{rec("a.A", "x", "int", ""), `"int"`}, nil},
		{"own type before promotion", []string{`"long"`, `"int"`}, []string{`"int"`}, nil},
		{"promotion", []string{`"long"`}, []string{`"int"`}, nil},
		{"renamed through a reader alias", []string{rec("b.B", "x", "int", `,"aliases":["a.A"]`)}, []string{rec("a.A", "x", "int", "")}, nil},
		{"same simple name in another namespace", []string{rec("b.A", "x", "long", "")}, []string{rec("a.A", "x", "int", "")}, nil},
		{"first of two simple-name matches", []string{rec("b.A", "x", "string", ""), rec("c.A", "x", "int", "")}, []string{rec("a.A", "x", "int", "")},
			[]string{"AVRO_TYPE_MISMATCH .u<a.A>.x"}},
		{"enum is no record", []string{`{"type":"enum","name":"a.A","symbols":["X"]}`}, []string{rec("a.A", "x", "int", "")},
			[]string{"AVRO_MISSING_UNION_BRANCH .u<a.A>"}},
		{"no branch reads it", []string{`"string"`}, []string{rec("a.A", "x", "int", "")}, []string{"AVRO_MISSING_UNION_BRANCH .u<a.A>"}},
	}
	for _, tc := range tests {
		for _, width := range []int{3, 40} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, width), func(t *testing.T) {
				r := mustParse(t, union(append(slices.Clone(tc.reader), filler(width)...)))
				w := mustParse(t, union(tc.writer))
				var got []string
				for _, v := range (avro.Format{}).CheckRead(r, w) {
					got = append(got, v.RuleID+" "+v.Path)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("violations %q, want %q", got, tc.want)
				}
			})
		}
	}
}

package registry

import (
	"reflect"
	"testing"
)

// TestUpgradeSubjectRenames: a stored subject NormalizeSubject changes is
// renamed to its normal form when free, else to a "~renamed-N" name
// beside it that nothing holds; a normal subject keeps its name.
func TestUpgradeSubjectRenames(t *testing.T) {
	got := UpgradeSubjectRenames([]string{
		"x", ":.:x", ":.foo", ":.foo:", ":.:y", ":.bar", ":.:", ":.", ":.:x~renamed-1", "x~renamed-2",
		":.::.baz", "plain", ":.foo:bar", ":*:w", "", "plain",
	})
	want := []SubjectRename{
		{From: ":.", To: "~renamed-1", Collided: true},
		{From: ":.:", To: "~renamed-2", Collided: true},
		{From: ":.::.baz", To: ":.baz:"},
		{From: ":.:x", To: "x~renamed-1", Collided: true},
		{From: ":.:x~renamed-1", To: "x~renamed-1~renamed-1", Collided: true}, // x~renamed-1 was just taken
		{From: ":.:y", To: "y"},
		{From: ":.bar", To: ":.bar:"},
		{From: ":.foo", To: ":.foo:~renamed-1", Collided: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UpgradeSubjectRenames =\n%+v\nwant\n%+v", got, want)
	}
	for _, r := range got {
		if NormalizeSubject(r.To) != r.To || r.To == "" {
			t.Errorf("%q renamed to %q, which the API does not reach", r.From, r.To)
		}
	}
	if got := UpgradeSubjectRenames([]string{"a", ":.foo:b", ""}); got != nil {
		t.Errorf("UpgradeSubjectRenames of normal subjects = %+v; want none", got)
	}
}

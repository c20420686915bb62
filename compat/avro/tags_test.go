package avro_test

import (
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
)

// TestWithTags: tags go to a record and to a nested record's field as
// their "confluent:tags" property, after what the element already has,
// without repeats; removing every tag drops the property; a type of a
// reference or an unknown element is an error.
func TestWithTags(t *testing.T) {
	const src = `{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"string","confluent:tags":["KEY"]},` +
		`{"name":"to","type":{"type":"record","name":"Address","fields":[{"name":"street","type":"string"}]}}]}`
	s, err := avro.Parse(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.WithTags([]compat.SchemaTags{
		{Path: "shop.Order", Kind: "SR_RECORD", Tags: []string{"T1", "T2"}},
		{Path: "shop.Address.street", Kind: "SR_FIELD", Tags: []string{"PII"}},
		{Path: "shop.Order", Kind: "SR_RECORD", Tags: []string{"T1"}},
	}, []compat.SchemaTags{{Path: "shop.Order.id", Kind: "SR_FIELD", Tags: []string{"KEY"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"string"},` +
		`{"name":"to","type":{"type":"record","name":"Address","fields":[{"name":"street","type":"string","confluent:tags":["PII"]}]}}],"confluent:tags":["T1","T2"]}`
	if got := out.Canonical(); got != want {
		t.Errorf("tagged:\n got %s\nwant %s", got, want)
	}
	if _, err := s.WithTags([]compat.SchemaTags{{Path: "shop.Order.total", Kind: "SR_FIELD", Tags: []string{"X"}}}, nil, nil); err == nil ||
		!strings.Contains(err.Error(), "shop.Order.total") {
		t.Errorf("unknown field: err %v", err)
	}
	dep := compat.Dependency{Name: "shop.Address", Text: `{"type":"record","name":"Address","namespace":"shop","fields":[{"name":"street","type":"string"}]}`}
	r, err := avro.Parse(`{"type":"record","name":"Box","namespace":"shop","fields":[{"name":"a","type":"Address"}]}`, []compat.Dependency{dep})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.WithTags([]compat.SchemaTags{{Path: "shop.Address", Kind: "SR_RECORD", Tags: []string{"X"}}}, nil, []compat.Dependency{dep}); err == nil {
		t.Error("a referenced record was tagged")
	}
}

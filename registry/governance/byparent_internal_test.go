package governance

import (
	"reflect"
	"testing"

	"github.com/charter-dev/charter/compat"
)

// TestByParentMatchesChildrenOf: the one-pass grouping gives, for every
// parent path, what childrenOf gives (the reorder check relies on it),
// including Protobuf's top level (the first message's fields) and union
// branch names with dots.
func TestByParentMatchesChildrenOf(t *testing.T) {
	paths := func(ps ...string) []compat.Field {
		out := make([]compat.Field, len(ps))
		for i, p := range ps {
			out[i] = compat.Field{Path: p}
		}
		return out
	}
	for _, tc := range []struct {
		typ    compat.SchemaType
		fields []compat.Field
	}{
		{compat.Avro, paths(".a", ".b", ".b.x", ".b.y", ".c<acme.Addr>.city", ".c<acme.Addr>.zip", ".d[].e")},
		{compat.Protobuf, paths(".Order.id", ".Order.item", ".Order.item.sku", ".Other.z")},
		{compat.Protobuf, nil},
		{compat.JSON, paths(".a", ".a.b", ".c")},
	} {
		got := byParent(tc.typ, tc.fields)
		keys := map[string]bool{"": true}
		for _, f := range tc.fields {
			keys[f.Path] = true
			keys[parentPath(f.Path)] = true
		}
		for k := range keys {
			if want := childrenOf(tc.typ, tc.fields, k); !reflect.DeepEqual(got[k], want) {
				t.Errorf("%s %q: byParent %v, childrenOf %v", tc.typ, k, got[k], want)
			}
		}
	}
}

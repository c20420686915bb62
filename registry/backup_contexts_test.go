package registry_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/dump"
)

// TestBackupContexts: an export holds each schema's context and each
// context's ID allocation (a deleted context as deleted); importing it
// into an empty registry gives back the same IDs in the same contexts,
// the same marks and the same context list, and exporting that gives
// the same dump.
func TestBackupContexts(t *testing.T) {
	ctx := context.Background()
	src := newService(t)
	mustRegister(t, src, "s", registry.RegisterRequest{Schema: recN(1)})
	mustRegister(t, src, ":.x:s", registry.RegisterRequest{Schema: recN(1)})
	mustRegister(t, src, ":.x:s", registry.RegisterRequest{Schema: recN(2)})
	mustRegister(t, src, ":.gone:s", registry.RegisterRequest{Schema: recN(3)})
	for _, permanent := range []bool{false, true} {
		if _, err := src.DeleteSubject(ctx, ":.gone:s", permanent); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.DeleteContext(ctx, ".gone"); err != nil {
		t.Fatal(err)
	}
	d, err := src.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantCtx := []dump.ContextIDs{{Context: ".gone", MaxSchemaID: 1, RetiredSchemaIDs: []int64{1}, Deleted: true}, {Context: ".x", MaxSchemaID: 2}}
	for i := range d.Contexts {
		if len(d.Contexts[i].RetiredSchemaIDs) == 0 {
			d.Contexts[i].RetiredSchemaIDs = nil
		}
	}
	if !reflect.DeepEqual(d.Contexts, wantCtx) || d.MaxSchemaID != 1 {
		t.Fatalf("exported contexts = %+v, mark %d; want %+v, 1", d.Contexts, d.MaxSchemaID, wantCtx)
	}
	var inX int
	for _, s := range d.Schemas {
		if s.Context == ".x" {
			inX++
		}
	}
	if len(d.Schemas) != 3 || inX != 2 {
		t.Fatalf("exported schemas = %+v; want 3, 2 of them in .x", d.Schemas)
	}
	b := encode(t, d)
	read, err := dump.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	dst := newService(t)
	if _, err := dst.Import(ctx, read, registry.ImportOptions{}); err != nil {
		t.Fatalf("import: %v", err)
	}
	for _, c := range []struct {
		context string
		id      int64
		fields  int
	}{{"", 1, 1}, {".x", 1, 1}, {".x", 2, 2}} {
		st, err := dst.SchemaByID(ctx, c.context, c.id)
		if err != nil || st.Text != recN(c.fields) {
			t.Errorf("imported schema %d of %q = %q, %v", c.id, c.context, st.Text, err)
		}
	}
	if got, _ := dst.Contexts(ctx); !reflect.DeepEqual(got, []string{".", ".x"}) {
		t.Errorf("imported contexts = %q, want . and .x (.gone stays deleted)", got)
	}
	if ss := mustRegister(t, dst, ":.gone:s", registry.RegisterRequest{Schema: recN(4)}); ss.Schema.ID != 2 {
		t.Errorf("first ID in .gone after the import = %d, want 2 (above its restored mark)", ss.Schema.ID)
	}
	again, err := dst.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var kept []dump.Schema // without the one registered in .gone since
	for _, s := range again.Schemas {
		if s.Context != ".gone" {
			kept = append(kept, s)
		}
	}
	if !reflect.DeepEqual(kept, read.Schemas) {
		t.Errorf("re-exported schemas = %+v, want %+v", kept, read.Schemas)
	}
	if x := again.Contexts[1]; x.Context != ".x" || x.MaxSchemaID != 2 || x.Deleted {
		t.Errorf("re-exported .x = %+v, want mark 2, not deleted", x)
	}
}

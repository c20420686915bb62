package storetest

import (
	"context"
	"reflect"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// inCtx returns schema(fp) in context c.
func inCtx(c, fp string) registry.Schema {
	sc := schema(fp)
	sc.Context = c
	return sc
}

// testContextIDSpaces: each context allocates IDs from 1, holds the same
// fingerprint as another context under its own ID, has its own ID mark,
// and finds a version's schema in its subject's context only.
func testContextIDSpaces(t *testing.T, s registry.Store) {
	got := createSchemas(t, s, inCtx("", "a"), inCtx(".x", "a"), inCtx(".x", "b"), inCtx(".y", "a"), inCtx("", "b"))
	if want := []int64{1, 1, 2, 1, 2}; !reflect.DeepEqual(got, want) {
		t.Fatalf("IDs = %v, want %v (one ID space per context)", got, want)
	}
	putVersions(t, s,
		registry.SubjectVersion{Subject: "s", Version: 1, SchemaID: 1},
		registry.SubjectVersion{Subject: ":.x:s", Version: 1, SchemaID: 2},
		registry.SubjectVersion{Subject: ":.x:t", Version: 1, SchemaID: 1})
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		for _, c := range []struct {
			ctx  string
			id   int64
			want string
		}{{"", 1, "a"}, {"", 2, "b"}, {".x", 1, "a"}, {".x", 2, "b"}, {".y", 1, "a"}} {
			sc, err := tx.SchemaByID(ctx, c.ctx, c.id)
			if err != nil || sc.Fingerprint != c.want || sc.Context != c.ctx {
				t.Errorf("SchemaByID(%q, %d) = %q in %q, %v; want %q in %q", c.ctx, c.id, sc.Fingerprint, sc.Context, err, c.want, c.ctx)
			}
		}
		_, err := tx.SchemaByID(ctx, ".y", 2)
		wantErrIs(t, "SchemaByID(.y, 2)", err, registry.ErrNotFound)
		if sc, err := tx.SchemaByFingerprint(ctx, ".x", "b"); err != nil || sc.ID != 2 {
			t.Errorf("SchemaByFingerprint(.x, b) = %d, %v; want 2", sc.ID, err)
		}
		_, err = tx.SchemaByFingerprint(ctx, ".y", "b")
		wantErrIs(t, "SchemaByFingerprint(.y, b)", err, registry.ErrNotFound)
		for c, want := range map[string]int64{"": 2, ".x": 2, ".y": 1, ".never": 0} {
			if got, err := tx.MaxSchemaID(ctx, c); err != nil || got != want {
				t.Errorf("MaxSchemaID(%q) = %d, %v; want %d", c, got, err, want)
			}
		}
		vs, err := tx.Versions(ctx, registry.VersionQuery{SchemaID: 1, IncludeDeleted: true})
		if err != nil || len(vs) != 1 || vs[0].Subject != "s" {
			t.Errorf("Versions(schema 1 of the default context) = %v, %v; want subject s only", vs, err)
		}
		vs, err = tx.Versions(ctx, registry.VersionQuery{SchemaID: 1, Context: ".x", IncludeDeleted: true})
		if err != nil || len(vs) != 1 || vs[0].Subject != ":.x:t" {
			t.Errorf("Versions(schema 1 of .x) = %v, %v; want subject :.x:t only", vs, err)
		}
		return nil
	})
	// A version of :.y:s cannot name schema 2: .y has none.
	err := s.Update(t.Context(), func(tx registry.Tx) error {
		return tx.PutVersion(t.Context(), registry.SubjectVersion{Subject: ":.y:s", Version: 1, SchemaID: 2})
	})
	wantErrIs(t, "PutVersion(:.y:s → schema 2 of .y)", err, registry.ErrNotFound)

	// Deleting .x's schema 1 leaves the default context's schema 1; the
	// mark stays, so .x allocates 3 next, and an explicit 1 is accepted.
	err = s.Update(t.Context(), func(tx registry.Tx) error { return tx.DeleteSchema(t.Context(), ".x", 1) })
	wantErrIs(t, "DeleteSchema(.x, 1) while :.x:t holds it", err, registry.ErrConflict)
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		if err := tx.DeleteVersion(ctx, ":.x:t", 1); err != nil {
			return err
		}
		return tx.DeleteSchema(ctx, ".x", 1)
	})
	got = createSchemas(t, s, inCtx(".x", "c"), registry.Schema{Context: ".x", ID: 1, Type: "AVRO", Text: `"int"`, Fingerprint: "d"})
	if want := []int64{3, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("IDs in .x after deleting its schema 1 = %v, want %v", got, want)
	}
	err = s.Update(t.Context(), func(tx registry.Tx) error {
		_, err := tx.CreateSchema(t.Context(), registry.Schema{Context: ".y", ID: 1, Type: "AVRO", Text: `"int"`, Fingerprint: "e"})
		return err
	})
	wantErrIs(t, "CreateSchema(.y, ID 1) while .y holds 1", err, registry.ErrConflict)
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		if sc, err := tx.SchemaByID(ctx, "", 1); err != nil || sc.Fingerprint != "a" {
			t.Errorf("default context's schema 1 = %q, %v; want a", sc.Fingerprint, err)
		}
		return nil
	})
}

// testContextReferences: a reference's subject is qualified in its
// referrer's context, so ReferencedBy finds a .x schema's referrers under
// :.x:s, not under the default context's s; a referrer in another
// context (.z naming :.y:s) is listed under its own context, beside one
// of the subject's context with an equal ID.
func testContextReferences(t *testing.T, s registry.Store) {
	ids := createSchemas(t, s, inCtx(".x", "base"))
	putVersions(t, s, registry.SubjectVersion{Subject: ":.x:s", Version: 1, SchemaID: ids[0]})
	ref := inCtx(".x", "user")
	ref.References = []registry.Reference{{Name: "base", Subject: "s", Version: 1}}
	user := createSchemas(t, s, ref)[0]
	cross := inCtx(".z", "cross") // references :.y:s from .z
	cross.References = []registry.Reference{{Name: "base", Subject: ":.y:s", Version: 1}}
	crossID := createSchemas(t, s, cross)[0]
	local := inCtx(".y", "local") // references s from .y: :.y:s too
	local.ID = crossID
	local.References = []registry.Reference{{Name: "base", Subject: "s", Version: 1}}
	createSchemas(t, s, local)
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		if got, err := tx.ReferencedBy(ctx, ":.x:s", 1); err != nil || !reflect.DeepEqual(got, []registry.SchemaKey{{Context: ".x", ID: user}}) {
			t.Errorf("ReferencedBy(:.x:s, 1) = %v, %v; want [{.x %d}]", got, err, user)
		}
		if got, err := tx.ReferencedBy(ctx, "s", 1); err != nil || len(got) != 0 {
			t.Errorf("ReferencedBy(s, 1) = %v, %v; want none (the reference is in .x)", got, err)
		}
		want := []registry.SchemaKey{{Context: ".y", ID: crossID}, {Context: ".z", ID: crossID}}
		if got, err := tx.ReferencedBy(ctx, ":.y:s", 1); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ReferencedBy(:.y:s, 1) = %v, %v; want %v (both contexts' referrers)", got, err, want)
		}
		sc, err := tx.SchemaByID(ctx, ".x", user)
		if err != nil || !reflect.DeepEqual(sc.References, ref.References) {
			t.Errorf("stored references = %v, %v; want them as given, %v", sc.References, err, ref.References)
		}
		return nil
	})
}

// testContexts: a context exists from its first schema; DeleteContext
// hides it (ErrNotFound for one that does not exist) and keeps its ID
// mark; a new schema there makes it exist again.
func testContexts(t *testing.T, s registry.Store) {
	list := func(want ...string) {
		t.Helper()
		view(t, s, func(ctx context.Context, tx registry.Tx) error {
			got, err := tx.Contexts(ctx)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("Contexts = %q, %v; want %q", got, err, want)
			}
			return nil
		})
	}
	list("")
	createSchemas(t, s, inCtx(".b", "1"), inCtx(".a", "1"), inCtx(".b", "2"))
	list("", ".a", ".b")
	update(t, s, func(ctx context.Context, tx registry.Tx) error { return tx.DeleteContext(ctx, ".b") })
	list("", ".a")
	for _, c := range []string{".b", ".nope"} {
		err := s.Update(t.Context(), func(tx registry.Tx) error { return tx.DeleteContext(t.Context(), c) })
		wantErrIs(t, "DeleteContext("+c+")", err, registry.ErrNotFound)
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		all, err := backupTx(t, tx).SchemaContexts(ctx)
		if err != nil || !reflect.DeepEqual(all, []string{"", ".a", ".b"}) {
			t.Errorf("SchemaContexts = %q, %v; want the deleted .b too", all, err)
		}
		return nil
	})
	if got := createSchemas(t, s, inCtx(".b", "3"))[0]; got != 3 {
		t.Errorf("first ID in .b after DeleteContext = %d, want 3 (its mark stays)", got)
	}
	list("", ".a", ".b")
}

// testContextBackup: the backup methods carry each context: Schemas
// names it, the mark and the allocation state are per context.
func testContextBackup(t *testing.T, s registry.Store) {
	createSchemas(t, s, inCtx("", "a"), inCtx(".x", "a"))
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		b := backupTx(t, tx)
		if err := b.RaiseSchemaIDMark(ctx, ".x", 40); err != nil {
			return err
		}
		return b.RestoreIDAllocation(ctx, ".x", registry.IDAllocation{Floor: 7, Retired: []int64{5, 6}})
	})
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		b := backupTx(t, tx)
		all, err := b.Schemas(ctx)
		if err != nil || len(all) != 2 || all[0].Context != "" || all[1].Context != ".x" {
			t.Errorf("Schemas = %+v, %v; want the default context's, then .x's", all, err)
		}
		for c, want := range map[string]int64{"": 1, ".x": 40} {
			if got, err := tx.MaxSchemaID(ctx, c); err != nil || got != want {
				t.Errorf("MaxSchemaID(%q) = %d, %v; want %d", c, got, err, want)
			}
		}
		x, err := b.IDAllocation(ctx, ".x")
		if err != nil || x.Floor != 7 || !reflect.DeepEqual(x.Retired, []int64{5, 6}) {
			t.Errorf("IDAllocation(.x) = %+v, %v; want floor 7, retired [5 6]", x, err)
		}
		d, err := b.IDAllocation(ctx, "")
		if err != nil || d.Floor != 0 || len(d.Retired) != 0 {
			t.Errorf("IDAllocation(default) = %+v, %v; want untouched", d, err)
		}
		return nil
	})
}

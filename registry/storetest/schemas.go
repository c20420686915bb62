package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// testIDAllocation: IDs 1, 2, 3 in successive Updates; an explicit ID is
// kept; the next allocated ID is above the largest ever stored.
func testIDAllocation(t *testing.T, s registry.Store) {
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		got, err := tx.MaxSchemaID(ctx, "")
		if err != nil {
			return err
		}
		if got != 0 {
			t.Errorf("MaxSchemaID of an empty store = %d, want 0", got)
		}
		return nil
	})
	steps := []struct {
		id, want int64
	}{
		{0, 1},
		{0, 2},
		{0, 3},
		{100, 100},
		{0, 101},
		{50, 50}, // below the maximum: kept, does not move the maximum
		{0, 102},
	}
	for i, st := range steps {
		sc := schema(fmt.Sprintf("fp-%d", i))
		sc.ID = st.id
		got := createSchemas(t, s, sc)[0]
		if got != st.want {
			t.Errorf("step %d: CreateSchema(ID %d) = %d, want %d", i, st.id, got, st.want)
		}
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		got, err := tx.MaxSchemaID(ctx, "")
		if err != nil {
			return err
		}
		if got != 102 {
			t.Errorf("MaxSchemaID = %d, want 102", got)
		}
		for _, id := range []int64{1, 2, 3, 50, 100, 101, 102} {
			if _, err := tx.SchemaByID(ctx, "", id); err != nil {
				t.Errorf("SchemaByID(%d): %v", id, err)
			}
		}
		return nil
	})
}

// testIDAllocationWithinOneUpdate: several allocations in one transaction
// see each other.
func testIDAllocationWithinOneUpdate(t *testing.T, s registry.Store) {
	explicit := schema("explicit")
	explicit.ID = 7
	got := createSchemas(t, s, schema("a"), schema("b"), explicit, schema("c"))
	want := []int64{1, 2, 7, 8}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("IDs = %v, want %v", got, want)
	}
}

// testCreateSchemaConflicts: a taken fingerprint or ID is ErrConflict and
// leaves the store unchanged. Each attempt is its own Update, since after a
// failed statement some databases (PostgreSQL) abort the transaction.
func testCreateSchemaConflicts(t *testing.T, s registry.Store) {
	first := schema("fp-1")
	createSchemas(t, s, first) // ID 1

	takenFP := schema("fp-1")
	takenFP.Text = `"string"`
	takenFPWithID := takenFP
	takenFPWithID.ID = 9
	takenID := schema("fp-2")
	takenID.ID = 1

	cases := []struct {
		name string
		s    registry.Schema
	}{
		{"fingerprint taken, allocated ID", takenFP},
		{"fingerprint taken, explicit ID", takenFPWithID},
		{"ID taken", takenID},
	}
	for _, c := range cases {
		err := s.Update(t.Context(), func(tx registry.Tx) error {
			_, err := tx.CreateSchema(t.Context(), c.s)
			return err
		})
		wantErrIs(t, c.name, err, registry.ErrConflict)
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		if got, err := tx.MaxSchemaID(ctx, ""); err != nil || got != 1 {
			t.Errorf("MaxSchemaID = %d, %v; want 1", got, err)
		}
		got, err := tx.SchemaByID(ctx, "", 1)
		if err != nil {
			return err
		}
		first.ID = 1
		if !reflect.DeepEqual(got, first) {
			t.Errorf("schema 1 = %+v, want %+v", got, first)
		}
		_, err = tx.SchemaByFingerprint(ctx, "", "fp-2")
		wantErrIs(t, "SchemaByFingerprint(fp-2) after failed create", err, registry.ErrNotFound)
		return nil
	})
}

// testSchemaRoundTrip: every field comes back as stored: references in
// their order, raw JSON byte for byte, nil as nil.
func testSchemaRoundTrip(t *testing.T, s registry.Store) {
	cases := []struct {
		name string
		s    registry.Schema
	}{
		{"minimal, nil fields stay nil", registry.Schema{
			Type: "AVRO", Text: `"string"`, Fingerprint: "fp-min",
		}},
		{"every field", registry.Schema{
			Type: "PROTOBUF",
			Text: "syntax = \"proto3\";\nimport \"z.proto\";\nimport \"a.proto\";\nmessage Order { Z z = 1; A a = 2; }\n",
			References: []registry.Reference{
				{Name: "z.proto", Subject: "z-value", Version: 3},
				{Name: "a.proto", Subject: "a-value", Version: 1},
				{Name: "m.proto", Subject: "a-value", Version: 2},
			},
			// Spaces and key order as given: stored byte for byte.
			Metadata:    json.RawMessage(`{ "tags": {"email": ["PII"]},  "properties": {"owner": "team-b"} }`),
			RuleSet:     json.RawMessage(`{"domainRules":[{"name":"checkEmail","kind":"CONDITION","type":"CEL","expr":"size(message.email) > 0"}]}`),
			Fingerprint: "fp-all",
		}},
		{"JSON schema with unicode text and metadata only", registry.Schema{
			Type:        "JSON",
			Text:        `{"type":"object","title":"Größe – 大小 ✓","properties":{"%_":{"type":"string"}}}`,
			Metadata:    json.RawMessage(`{"properties":{"note":"ünïcode"}}`),
			Fingerprint: "fp-json-ü",
		}},
		{"ruleSet only, explicit ID", registry.Schema{
			ID: 40, Type: "AVRO", Text: `"int"`,
			RuleSet:     json.RawMessage(`{"migrationRules":[]}`),
			Fingerprint: "fp-rules",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := createSchemas(t, s, c.s)[0]
			want := c.s
			want.ID = id
			view(t, s, func(ctx context.Context, tx registry.Tx) error {
				byID, err := tx.SchemaByID(ctx, "", id)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(byID, want) {
					t.Errorf("SchemaByID(%d)\n got %#v\nwant %#v", id, byID, want)
				}
				byFP, err := tx.SchemaByFingerprint(ctx, "", c.s.Fingerprint)
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(byFP, want) {
					t.Errorf("SchemaByFingerprint(%q)\n got %#v\nwant %#v", c.s.Fingerprint, byFP, want)
				}
				return nil
			})
		})
	}
}

// testSchemaNotFound: unknown ID and fingerprint are ErrNotFound.
func testSchemaNotFound(t *testing.T, s registry.Store) {
	createSchemas(t, s, schema("fp-1"))
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		_, err := tx.SchemaByID(ctx, "", 2)
		wantErrIs(t, "SchemaByID(2)", err, registry.ErrNotFound)
		_, err = tx.SchemaByFingerprint(ctx, "", "fp-2")
		wantErrIs(t, "SchemaByFingerprint(fp-2)", err, registry.ErrNotFound)
		return nil
	})
}

// testReferencedBy: the schemas naming (subject, version), ascending and
// each once, whatever their creation order.
func testReferencedBy(t *testing.T, s registry.Store) {
	ref := func(name, subject string, version int) registry.Reference {
		return registry.Reference{Name: name, Subject: subject, Version: version}
	}
	withRefs := func(id int64, fp string, refs ...registry.Reference) registry.Schema {
		sc := schema(fp)
		sc.ID = id
		sc.References = refs
		return sc
	}
	createSchemas(t, s,
		withRefs(50, "y", ref("s1", "s", 1), ref("t2", "t", 2)),
		withRefs(10, "x", ref("s1", "s", 1)),
		withRefs(30, "z", ref("s2", "s", 2)),
		withRefs(20, "w", ref("one", "s", 1), ref("again", "s", 1)), // same target twice
		withRefs(40, "u", ref("s1", "s-other", 1)),
	)
	cases := []struct {
		subject string
		version int
		want    []int64
	}{
		{"s", 1, []int64{10, 20, 50}},
		{"s", 2, []int64{30}},
		{"t", 2, []int64{50}},
		{"s", 3, nil},
		{"s-", 1, nil},
		{"unknown", 1, nil},
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		for _, c := range cases {
			keys, err := tx.ReferencedBy(ctx, c.subject, c.version)
			if err != nil {
				return err
			}
			var got []int64
			for _, k := range keys {
				if k.Context != "" {
					t.Errorf("ReferencedBy(%q, %d) lists %+v; want the default context's only", c.subject, c.version, k)
				}
				got = append(got, k.ID)
			}
			if len(got) != len(c.want) || (len(got) > 0 && !reflect.DeepEqual(got, c.want)) {
				t.Errorf("ReferencedBy(%q, %d) = %v, want %v", c.subject, c.version, got, c.want)
			}
		}
		return nil
	})
}

// testDeleteSchema: a deleted schema's ID and fingerprint are free again,
// its references are gone, and allocated IDs stay above every ID ever
// stored, deleted and explicit (IMPORT) ones included; a missing ID is
// ErrNotFound and a schema still held by a version is ErrConflict.
func testDeleteSchema(t *testing.T, s registry.Store) {
	ref := registry.Reference{Name: "a", Subject: "s", Version: 1}
	a, b, c := schema("a"), schema("b"), schema("c")
	b.References = []registry.Reference{ref}
	c.ID = 10 // explicit, as in IMPORT mode
	ids := createSchemas(t, s, a, b, c)
	if !reflect.DeepEqual(ids, []int64{1, 2, 10}) {
		t.Fatalf("IDs = %v, want [1 2 10]", ids)
	}
	putVersions(t, s,
		registry.SubjectVersion{Subject: "s", Version: 1, SchemaID: 1},
		registry.SubjectVersion{Subject: "t", Version: 1, SchemaID: 2, Deleted: true})

	// Refusals, each in its own Update: nothing changes.
	refusals := []struct {
		name string
		id   int64
		want error
	}{
		{"held by a live version", 1, registry.ErrConflict},
		{"held by a soft-deleted version", 2, registry.ErrConflict},
		{"unknown id", 99, registry.ErrNotFound},
	}
	for _, r := range refusals {
		err := s.Update(t.Context(), func(tx registry.Tx) error { return tx.DeleteSchema(t.Context(), "", r.id) })
		wantErrIs(t, "DeleteSchema: "+r.name, err, r.want)
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		for _, id := range []int64{1, 2, 10} {
			if _, err := tx.SchemaByID(ctx, "", id); err != nil {
				t.Errorf("after refused deletes: SchemaByID(%d): %v", id, err)
			}
		}
		if got, err := tx.ReferencedBy(ctx, "s", 1); err != nil || !reflect.DeepEqual(got, []registry.SchemaKey{{ID: 2}}) {
			t.Errorf("after refused deletes: ReferencedBy(s, 1) = %v, %v; want [2]", got, err)
		}
		return nil
	})

	// Delete 10 (no version) and 2 (after its version), in one Update.
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		if err := tx.DeleteSchema(ctx, "", 10); err != nil {
			return fmt.Errorf("DeleteSchema(10): %w", err)
		}
		if err := tx.DeleteVersion(ctx, "t", 1); err != nil {
			return err
		}
		if err := tx.DeleteSchema(ctx, "", 2); err != nil {
			return fmt.Errorf("DeleteSchema(2): %w", err)
		}
		err := tx.DeleteSchema(ctx, "", 2)
		wantErrIs(t, "DeleteSchema(2) twice", err, registry.ErrNotFound)
		return nil
	})
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		for _, id := range []int64{2, 10} {
			_, err := tx.SchemaByID(ctx, "", id)
			wantErrIs(t, fmt.Sprintf("SchemaByID(%d) after delete", id), err, registry.ErrNotFound)
		}
		for _, fp := range []string{"b", "c"} {
			_, err := tx.SchemaByFingerprint(ctx, "", fp)
			wantErrIs(t, fmt.Sprintf("SchemaByFingerprint(%q) after delete", fp), err, registry.ErrNotFound)
		}
		if got, err := tx.ReferencedBy(ctx, "s", 1); err != nil || len(got) != 0 {
			t.Errorf("ReferencedBy(s, 1) after deleting its referrer = %v, %v; want none", got, err)
		}
		if got, err := tx.MaxSchemaID(ctx, ""); err != nil || got != 10 {
			t.Errorf("MaxSchemaID after deletes = %d, %v; want 10 (the largest ever stored)", got, err)
		}
		return nil
	})

	// Allocation goes above the deleted maximum; deleted content gets a new
	// ID; an explicit ID may take a deleted one; an explicit ID above the
	// mark raises it even once deleted (MaxSchemaID reports the mark).
	steps := []struct {
		name     string
		fp       string
		id, want int64
		drop     bool // delete it again in the same Update
	}{
		{"allocated after deleting 10", "c", 0, 11, false},
		{"explicit id of a deleted schema", "b2", 2, 2, false},
		{"explicit id above the mark, then deleted", "imp", 40, 40, true},
		{"allocated after the deleted import", "d", 0, 41, false},
		{"allocated, then deleted in the same Update", "e", 0, 42, true},
		{"allocated after that", "f", 0, 43, false},
	}
	for _, st := range steps {
		update(t, s, func(ctx context.Context, tx registry.Tx) error {
			sc := schema(st.fp)
			sc.ID = st.id
			got, err := tx.CreateSchema(ctx, sc)
			if err != nil {
				return fmt.Errorf("%s: CreateSchema: %w", st.name, err)
			}
			if got != st.want {
				t.Errorf("%s: ID = %d, want %d", st.name, got, st.want)
			}
			if st.drop {
				if err := tx.DeleteSchema(ctx, "", got); err != nil {
					return err
				}
			}
			if max, err := tx.MaxSchemaID(ctx, ""); err != nil || max < got {
				t.Errorf("%s: MaxSchemaID = %d, %v; want at least %d", st.name, max, err, got)
			}
			return nil
		})
	}
}

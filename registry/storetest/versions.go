package storetest

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// sv is a short SubjectVersion literal.
func sv(subject string, version int, id int64, deleted bool) registry.SubjectVersion {
	return registry.SubjectVersion{Subject: subject, Version: version, SchemaID: id, Deleted: deleted}
}

// testVersionsFilters checks every combination of VersionQuery fields
// against one fixture. Subjects contain '%' and '_', which a prefix must
// match literally (no LIKE wildcards).
func testVersionsFilters(t *testing.T, s registry.Store) {
	createSchemas(t, s, schema("fp-1"), schema("fp-2"), schema("fp-3"))
	// Inserted out of order on purpose: results are ordered by subject, version.
	putVersions(t, s,
		sv("b", 1, 1, false),
		sv("a", 2, 2, true),
		sv("a", 1, 1, false),
		sv("a", 3, 3, false),
		sv("a%b", 1, 2, false),
		sv("a_b", 1, 3, false),
		sv("a_b", 2, 1, true),
		sv("ab", 1, 1, false),
		sv("axb", 1, 2, false),
		sv("Ab", 1, 1, false),
	)
	cases := []struct {
		name string
		q    registry.VersionQuery
		want []registry.SubjectVersion
	}{
		{"all live", registry.VersionQuery{}, []registry.SubjectVersion{
			sv("Ab", 1, 1, false), sv("a", 1, 1, false), sv("a", 3, 3, false), sv("a%b", 1, 2, false),
			sv("a_b", 1, 3, false), sv("ab", 1, 1, false), sv("axb", 1, 2, false), sv("b", 1, 1, false),
		}},
		{"all with deleted", registry.VersionQuery{IncludeDeleted: true}, []registry.SubjectVersion{
			sv("Ab", 1, 1, false), sv("a", 1, 1, false), sv("a", 2, 2, true), sv("a", 3, 3, false),
			sv("a%b", 1, 2, false), sv("a_b", 1, 3, false), sv("a_b", 2, 1, true), sv("ab", 1, 1, false),
			sv("axb", 1, 2, false), sv("b", 1, 1, false),
		}},
		{"subject", registry.VersionQuery{Subject: "a"}, []registry.SubjectVersion{
			sv("a", 1, 1, false), sv("a", 3, 3, false),
		}},
		{"subject with deleted", registry.VersionQuery{Subject: "a", IncludeDeleted: true}, []registry.SubjectVersion{
			sv("a", 1, 1, false), sv("a", 2, 2, true), sv("a", 3, 3, false),
		}},
		{"subject is exact, not a pattern", registry.VersionQuery{Subject: "a_b"}, []registry.SubjectVersion{
			sv("a_b", 1, 3, false),
		}},
		{"subject case-sensitive", registry.VersionQuery{Subject: "AB"}, nil},
		{"unknown subject", registry.VersionQuery{Subject: "zzz", IncludeDeleted: true}, nil},
		{"prefix", registry.VersionQuery{SubjectPrefix: "a"}, []registry.SubjectVersion{
			sv("a", 1, 1, false), sv("a", 3, 3, false), sv("a%b", 1, 2, false), sv("a_b", 1, 3, false),
			sv("ab", 1, 1, false), sv("axb", 1, 2, false),
		}},
		{"prefix with deleted", registry.VersionQuery{SubjectPrefix: "a_", IncludeDeleted: true}, []registry.SubjectVersion{
			sv("a_b", 1, 3, false), sv("a_b", 2, 1, true),
		}},
		{"prefix % is literal", registry.VersionQuery{SubjectPrefix: "a%"}, []registry.SubjectVersion{
			sv("a%b", 1, 2, false),
		}},
		{"prefix _ is literal", registry.VersionQuery{SubjectPrefix: "a_"}, []registry.SubjectVersion{
			sv("a_b", 1, 3, false),
		}},
		{"prefix equal to a whole subject", registry.VersionQuery{SubjectPrefix: "ab"}, []registry.SubjectVersion{
			sv("ab", 1, 1, false),
		}},
		{"prefix case-sensitive", registry.VersionQuery{SubjectPrefix: "A"}, []registry.SubjectVersion{
			sv("Ab", 1, 1, false),
		}},
		{"prefix no match", registry.VersionQuery{SubjectPrefix: "c"}, nil},
		{"schema ID", registry.VersionQuery{SchemaID: 1}, []registry.SubjectVersion{
			sv("Ab", 1, 1, false), sv("a", 1, 1, false), sv("ab", 1, 1, false), sv("b", 1, 1, false),
		}},
		{"schema ID with deleted", registry.VersionQuery{SchemaID: 1, IncludeDeleted: true}, []registry.SubjectVersion{
			sv("Ab", 1, 1, false), sv("a", 1, 1, false), sv("a_b", 2, 1, true), sv("ab", 1, 1, false),
			sv("b", 1, 1, false),
		}},
		{"schema ID only deleted", registry.VersionQuery{SchemaID: 2, Subject: "a"}, nil},
		{"subject and schema ID", registry.VersionQuery{Subject: "a", SchemaID: 2, IncludeDeleted: true}, []registry.SubjectVersion{
			sv("a", 2, 2, true),
		}},
		{"prefix and schema ID", registry.VersionQuery{SubjectPrefix: "a", SchemaID: 2}, []registry.SubjectVersion{
			sv("a%b", 1, 2, false), sv("axb", 1, 2, false),
		}},
		{"subject within prefix", registry.VersionQuery{Subject: "ab", SubjectPrefix: "a"}, []registry.SubjectVersion{
			sv("ab", 1, 1, false),
		}},
		{"subject outside prefix", registry.VersionQuery{Subject: "b", SubjectPrefix: "a"}, nil},
		{"every filter", registry.VersionQuery{Subject: "a_b", SubjectPrefix: "a_", SchemaID: 1, IncludeDeleted: true}, []registry.SubjectVersion{
			sv("a_b", 2, 1, true),
		}},
		{"unknown schema ID", registry.VersionQuery{SchemaID: 99, IncludeDeleted: true}, nil},
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		for _, c := range cases {
			got, err := tx.Versions(ctx, c.q)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			if !equalVersions(got, c.want) {
				t.Errorf("%s: Versions(%+v)\n got %v\nwant %v", c.name, c.q, got, c.want)
			}
		}
		return nil
	})
}

// equalVersions compares two results, a nil and an empty slice being equal.
func equalVersions(a, b []registry.SubjectVersion) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// testVersionsNumericOrder: versions sort as numbers (2 before 10).
func testVersionsNumericOrder(t *testing.T, s registry.Store) {
	createSchemas(t, s, schema("fp-1"))
	var want []registry.SubjectVersion
	for v := 1; v <= 12; v++ {
		want = append(want, sv("orders-value", v, 1, false))
	}
	putVersions(t, s, want[10], want[1], want[9], want[0], want[11], want[2], want[3], want[4], want[5], want[6], want[7], want[8])
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		got, err := tx.Versions(ctx, registry.VersionQuery{Subject: "orders-value"})
		if err != nil {
			return err
		}
		if !equalVersions(got, want) {
			t.Errorf("Versions\n got %v\nwant %v", got, want)
		}
		return nil
	})
}

// testPutVersionUpdates: PutVersion on an existing (subject, version)
// replaces its schema ID and Deleted flag, in both directions.
func testPutVersionUpdates(t *testing.T, s registry.Store) {
	createSchemas(t, s, schema("fp-1"), schema("fp-2"))
	steps := []struct {
		name string
		put  registry.SubjectVersion
	}{
		{"insert", sv("s", 1, 1, false)},
		{"soft delete", sv("s", 1, 1, true)},
		{"undelete", sv("s", 1, 1, false)},
		{"rebind and delete", sv("s", 1, 2, true)},
		{"rebind back", sv("s", 1, 1, false)},
	}
	for _, st := range steps {
		putVersions(t, s, st.put)
		view(t, s, func(ctx context.Context, tx registry.Tx) error {
			got, err := tx.Versions(ctx, registry.VersionQuery{Subject: "s", IncludeDeleted: true})
			if err != nil {
				return err
			}
			if want := []registry.SubjectVersion{st.put}; !equalVersions(got, want) {
				t.Errorf("after %s: Versions = %v, want %v", st.name, got, want)
			}
			return nil
		})
	}
}

// testDeleteVersion: DeleteVersion removes the row for good (also from
// IncludeDeleted listings), keeps the schema and reports ErrNotFound for a
// missing version.
func testDeleteVersion(t *testing.T, s registry.Store) {
	createSchemas(t, s, schema("fp-1"))
	putVersions(t, s, sv("s", 1, 1, false), sv("s", 2, 1, true), sv("t", 1, 1, false))
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		if err := tx.DeleteVersion(ctx, "s", 2); err != nil {
			return err
		}
		return tx.DeleteVersion(ctx, "s", 1)
	})
	cases := []struct {
		name    string
		subject string
		version int
	}{
		{"already deleted", "s", 1},
		{"never existed", "s", 3},
		{"unknown subject", "u", 1},
	}
	for _, c := range cases {
		err := s.Update(t.Context(), func(tx registry.Tx) error {
			return tx.DeleteVersion(t.Context(), c.subject, c.version)
		})
		wantErrIs(t, c.name, err, registry.ErrNotFound)
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		got, err := tx.Versions(ctx, registry.VersionQuery{IncludeDeleted: true})
		if err != nil {
			return err
		}
		if want := []registry.SubjectVersion{sv("t", 1, 1, false)}; !equalVersions(got, want) {
			t.Errorf("Versions after delete = %v, want %v", got, want)
		}
		if _, err := tx.SchemaByID(ctx, "", 1); err != nil {
			t.Errorf("schema 1 after deleting versions: %v", err)
		}
		return nil
	})
}

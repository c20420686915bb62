package registry_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/srerr"
)

// recN returns the n-th of a series of distinct Avro records, each
// backward compatible with the ones before (one more field with a
// default), as Confluent's tests use TestUtils.getRandomCanonicalAvroString.
func recN(n int) string {
	fields := make([]string, n)
	for i := range fields {
		fields[i] = fmt.Sprintf(`{"name":"f%d","type":"string","default":""}`, i)
	}
	return `{"type":"record","name":"R","fields":[` + strings.Join(fields, ",") + `]}`
}

// TestContextIDSpaces follows Confluent's RestApiContextTest
// (testQualifiedSubjects): each context numbers its schemas from 1, the
// same schema registered again in a context gets its ID there, and
// schema IDs resolve in their own context only.
func TestContextIDSpaces(t *testing.T) {
	svc := newService(t)
	ctx := context.Background()
	steps := []struct {
		subject string
		schema  int
		wantID  int64
	}{
		{":.ctx1:testTopic1", 1, 1},
		{":.ctx1:testTopic1", 2, 2},
		{":.ctx2:testTopic2", 3, 1},
		{":.ctx3:testTopic1", 1, 1},
		{"testTopic1", 4, 1},
		{":.ctx1:other", 2, 2}, // the same content in .ctx1: its ID there
		{":.ctx2:other", 1, 2},
	}
	for _, st := range steps {
		got := mustRegister(t, svc, st.subject, registry.RegisterRequest{Schema: recN(st.schema)})
		if got.Schema.ID != st.wantID {
			t.Errorf("register schema %d under %s: id %d, want %d", st.schema, st.subject, got.Schema.ID, st.wantID)
		}
	}
	for _, c := range []struct {
		context string
		id      int64
		schema  int
	}{{".ctx1", 1, 1}, {".ctx1", 2, 2}, {".ctx2", 1, 3}, {".ctx2", 2, 1}, {"", 1, 4}} {
		st, err := svc.SchemaByID(ctx, c.context, c.id)
		if err != nil || strings.Count(st.Text, `"name":"f`) != c.schema {
			t.Errorf("schema %d of context %q = %s, %v; want schema %d", c.id, c.context, st.Text, err, c.schema)
		}
	}
	_, err := svc.SchemaByID(ctx, "", 2)
	wantCode(t, err, srerr.ErrSchemaNotFound)
	for c, want := range map[string]int64{"": 1, ".ctx1": 2, ".ctx2": 2, ".ctx3": 1, ".none": 0} {
		if got, err := svc.MaxSchemaID(ctx, c); err != nil || got != want {
			t.Errorf("MaxSchemaID(%q) = %d, %v; want %d", c, got, err, want)
		}
	}
	contexts, err := svc.Contexts(ctx)
	if want := []string{".", ".ctx1", ".ctx2", ".ctx3"}; err != nil || !reflect.DeepEqual(contexts, want) {
		t.Errorf("Contexts = %q, %v; want %q", contexts, err, want)
	}
}

// TestIDContext follows Confluent's RestApiContextTest.testContextPaths
// and KafkaSchemaRegistry.getSchemaKeyUsingContexts: an unqualified
// subject that does not hold the ID in the default context finds it in
// the context where a subject of that name holds it.
func TestIDContext(t *testing.T) {
	svc := newService(t)
	mustRegister(t, svc, ":.ctx2:testTopic2A", registry.RegisterRequest{Schema: recN(1)})
	mustRegister(t, svc, ":.ctx2:testTopic2A", registry.RegisterRequest{Schema: recN(2)})
	mustRegister(t, svc, "testTopic3", registry.RegisterRequest{Schema: recN(3)})
	cases := []struct {
		id      int64
		subject string
		want    string
		err     *srerr.Error
	}{
		{1, "", "", nil},                 // no subject: the default context
		{1, "testTopic3", "", nil},       // held in the default context
		{1, "testTopic2A", ".ctx2", nil}, // not held there: .ctx2's testTopic2A holds 1
		{2, "testTopic2A", ".ctx2", nil}, // only .ctx2 has 2
		{1, "unknown", "", nil},          // nobody holds it: the default context
		{1, ":.ctx2:", ".ctx2", nil},     // a context alone (the /contexts/.ctx2 prefix)
		{2, ":.ctx2:testTopic2A", ".ctx2", nil},
		{1, ":.ctx2:nobody", "", srerr.ErrSchemaNotFound}, // a qualified subject must hold it
		{1, ":.:testTopic3", "", nil},                     // ":.:" is the default context
	}
	for _, c := range cases {
		got, err := svc.IDContext(context.Background(), c.id, c.subject)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("IDContext(%d, %q) error %v, want %s", c.id, c.subject, err, c.err.Name)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("IDContext(%d, %q) = %q, %v; want %q", c.id, c.subject, got, err, c.want)
		}
	}
}

// TestContextReferences: a reference's unqualified subject is in its
// referrer's context (Confluent's QualifiedSubject.qualifySubjectWithParent),
// and a qualified one names its own context.
func TestContextReferences(t *testing.T) {
	svc := newService(t)
	base := func(field string) string {
		return `{"type":"record","name":"Base","fields":[{"name":"` + field + `","type":"string"}]}`
	}
	user := `{"type":"record","name":"User","fields":[{"name":"b","type":"Base"}]}`
	mustRegister(t, svc, "base", registry.RegisterRequest{Schema: base("inDefault")})
	mustRegister(t, svc, ":.a:base", registry.RegisterRequest{Schema: base("inA")})
	ref := []registry.Reference{{Name: "Base", Subject: "base", Version: 1}}
	got := mustRegister(t, svc, ":.a:user", registry.RegisterRequest{Schema: user, References: ref})
	ids, err := svc.ReferencedBy(context.Background(), ":.a:base", 1, false)
	if err != nil || !reflect.DeepEqual(ids, []int64{got.Schema.ID}) {
		t.Errorf("ReferencedBy(:.a:base) = %v, %v; want [%d]", ids, err, got.Schema.ID)
	}
	if ids, err := svc.ReferencedBy(context.Background(), "base", 1, false); err != nil || len(ids) != 0 {
		t.Errorf("ReferencedBy(base) = %v, %v; want none", ids, err)
	}
	// The .a version is referenced: deleting it is refused (42206), the
	// default context's base is not.
	_, err = svc.DeleteVersion(context.Background(), ":.a:base", 1, false)
	wantCode(t, err, srerr.ErrReferenceExists)
	_, err = svc.DeleteSubject(context.Background(), ":.a:base", false)
	wantCode(t, err, srerr.ErrReferenceExists)
	if _, err := svc.DeleteVersion(context.Background(), "base", 1, false); err != nil {
		t.Errorf("delete base version 1: %v", err)
	}
	// A reference to a subject that only the default context has, from .b,
	// is not found.
	_, err = svc.Register(context.Background(), ":.b:user", registry.RegisterRequest{Schema: user,
		References: []registry.Reference{{Name: "Base", Subject: "onlydefault", Version: 1}}})
	wantCode(t, err, srerr.ErrInvalidSchema)
	// A qualified reference reaches another context.
	cross := mustRegister(t, svc, ":.b:user", registry.RegisterRequest{Schema: user,
		References: []registry.Reference{{Name: "Base", Subject: ":.a:base", Version: 1}}})
	if cross.Schema.ID != 1 {
		t.Errorf(":.b:user id %d, want 1 (the first schema of .b)", cross.Schema.ID)
	}
}

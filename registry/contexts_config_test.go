package registry_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/srerr"
)

// TestContextConfigChain follows Confluent's InMemoryCache.config: a
// subject's level is its own, else its context level's (":.ctx:"; the
// global config for the default context), else ":.__GLOBAL:"'s, else
// BACKWARD; the global config does not reach a named context.
func TestContextConfigChain(t *testing.T) {
	svc := newService(t)
	ctx := context.Background()
	set := func(key, level string) {
		t.Helper()
		if _, err := svc.SetConfig(ctx, key, registry.ConfigUpdate{Compatibility: &level}); err != nil {
			t.Fatalf("set config of %q: %v", key, err)
		}
	}
	check := func(step string, want map[string]string) {
		t.Helper()
		for subject, level := range want {
			c, err := svc.Config(ctx, subject, true)
			if err != nil || string(c.Compatibility) != level {
				t.Errorf("%s: config of %q = %s, %v; want %s", step, subject, c.Compatibility, err, level)
			}
		}
	}
	check("nothing set", map[string]string{"s": "BACKWARD", ":.a:s": "BACKWARD", ":.a:": "BACKWARD", "": "BACKWARD"})
	set(registry.GlobalContextKey, "FULL")
	check(".__GLOBAL set", map[string]string{"s": "FULL", ":.a:s": "FULL", "": "FULL"})
	set(":.a:", "NONE")
	set(":.a:s", "FORWARD")
	set("", "BACKWARD_TRANSITIVE")
	check("every level set", map[string]string{
		":.a:s": "FORWARD",             // its own
		":.a:t": "NONE",                // its context's
		":.b:t": "FULL",                // .__GLOBAL: the global config is the default context's
		"t":     "BACKWARD_TRANSITIVE", // the default context's level
		":.a:":  "NONE",
	})
	// /contexts/.a/config reads ":.a:" itself; an unset context level has
	// no config of its own (40408), as a subject.
	if c, err := svc.Config(ctx, ":.a", false); err != nil || string(c.Compatibility) != "NONE" {
		t.Errorf("config of :.a (the context, without its colon) = %s, %v; want NONE", c.Compatibility, err)
	}
	_, err := svc.Config(ctx, ":.b:", false)
	wantCode(t, err, srerr.ErrSubjectConfigNotFound)
	// The chain decides compatibility: NONE in .a lets an incompatible
	// schema in, BACKWARD_TRANSITIVE in the default context does not.
	mustRegister(t, svc, ":.a:t", registry.RegisterRequest{Schema: recA})
	mustRegister(t, svc, ":.a:t", registry.RegisterRequest{Schema: `{"type":"record","name":"A","fields":[{"name":"z","type":"int"}]}`})
	mustRegister(t, svc, "t", registry.RegisterRequest{Schema: recA})
	_, err = svc.Register(ctx, "t", registry.RegisterRequest{Schema: `{"type":"record","name":"A","fields":[{"name":"z","type":"int"}]}`})
	wantCode(t, err, srerr.ErrIncompatibleSchema)
}

// TestContextModes: a context's mode applies to its subjects only;
// IMPORT on a context (as an exporter's destination sets it) takes
// explicit IDs in that context's ID space, and READWRITE elsewhere still
// refuses them.
func TestContextModes(t *testing.T) {
	svc := newService(t)
	ctx := context.Background()
	if _, err := svc.SetMode(ctx, ":.ro:", "READONLY", false); err != nil {
		t.Fatal(err)
	}
	_, err := svc.Register(ctx, ":.ro:s", registry.RegisterRequest{Schema: recA})
	wantCode(t, err, srerr.ErrOperationNotPermitted)
	mustRegister(t, svc, "s", registry.RegisterRequest{Schema: recA})
	mustRegister(t, svc, ":.rw:s", registry.RegisterRequest{Schema: recA})

	if _, err := svc.SetMode(ctx, ":.mirror:", "IMPORT", false); err != nil {
		t.Fatalf("IMPORT on an empty context: %v", err)
	}
	got := mustRegister(t, svc, ":.mirror:s", registry.RegisterRequest{Schema: recA, ID: 7, Version: 3})
	if got.Schema.ID != 7 || got.Version != 3 {
		t.Errorf("import into .mirror = id %d version %d, want 7 and 3", got.Schema.ID, got.Version)
	}
	if st, err := svc.SchemaByID(ctx, ".mirror", 7); err != nil || st.Text != recA {
		t.Errorf("schema 7 of .mirror = %q, %v", st.Text, err)
	}
	_, err = svc.SchemaByID(ctx, "", 7)
	wantCode(t, err, srerr.ErrSchemaNotFound)
	_, err = svc.Register(ctx, "u", registry.RegisterRequest{Schema: recAb, ID: 7})
	wantCode(t, err, srerr.ErrOperationNotPermitted)
	// IMPORT on a context with subjects needs force, as on a subject.
	_, err = svc.SetMode(ctx, ":.rw:", "IMPORT", false)
	wantCode(t, err, srerr.ErrOperationNotPermitted)
	if m, err := svc.Mode(ctx, ":.mirror:s", true); err != nil || m != registry.ModeImport {
		t.Errorf("mode of :.mirror:s = %s, %v; want IMPORT (its context's)", m, err)
	}
	if m, err := svc.Mode(ctx, ":.rw:s", true); err != nil || m != registry.ModeReadWrite {
		t.Errorf("mode of :.rw:s = %s, %v; want READWRITE", m, err)
	}
}

// TestDeleteContext follows Confluent's RestApiContextTest.testContextPaths:
// a context with versions cannot be deleted (42211); once its subjects
// are permanently deleted it can, and GET /contexts no longer lists it.
func TestDeleteContext(t *testing.T) {
	svc := newService(t)
	ctx := context.Background()
	mustRegister(t, svc, ":.ctx1:s", registry.RegisterRequest{Schema: recA})
	mustRegister(t, svc, ":.ctx2:s", registry.RegisterRequest{Schema: recA})
	wantCode(t, svc.DeleteContext(ctx, ".ctx2"), srerr.ErrContextNotEmpty)
	if _, err := svc.DeleteSubject(ctx, ":.ctx1:s", false); err != nil {
		t.Fatal(err)
	}
	wantCode(t, svc.DeleteContext(ctx, ".ctx1"), srerr.ErrContextNotEmpty) // soft-deleted versions count
	if _, err := svc.DeleteSubject(ctx, ":.ctx1:s", true); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteContext(ctx, ".ctx1"); err != nil {
		t.Fatalf("delete the emptied context: %v", err)
	}
	got, err := svc.Contexts(ctx)
	if want := []string{".", ".ctx2"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Contexts = %q, %v; want %q", got, err, want)
	}
	wantCode(t, svc.DeleteContext(ctx, ".ctx1"), srerr.ErrSubjectNotFound)
	wantCode(t, svc.DeleteContext(ctx, "."), srerr.ErrSubjectNotFound)
	// Registering there again makes it exist, with IDs above its old ones.
	if ss := mustRegister(t, svc, ":.ctx1:s", registry.RegisterRequest{Schema: recAb}); ss.Schema.ID != 2 {
		t.Errorf("first ID in the re-created .ctx1 = %d, want 2", ss.Schema.ID)
	}
}

// TestSubjectPrefixContexts follows Confluent's RestApiContextTest
// (testQualifiedSubjects): ":*:" lists every context's subjects, ""
// the default context's, ":.ctx1:" those of .ctx1, ":*:name" a name in
// any context.
func TestSubjectPrefixContexts(t *testing.T) {
	svc := newService(t)
	for _, s := range []string{":.ctx1:testTopic1", ":.ctx2:testTopic2", ":.ctx3:testTopic1", "testTopic1"} {
		mustRegister(t, svc, s, registry.RegisterRequest{Schema: recA})
	}
	cases := []struct {
		prefix string
		want   []string
	}{
		{registry.AllContexts, []string{":.ctx1:testTopic1", ":.ctx2:testTopic2", ":.ctx3:testTopic1", "testTopic1"}},
		{"", []string{"testTopic1"}},
		{"test", []string{"testTopic1"}},
		{":.:", []string{"testTopic1"}},
		{":.ctx1:", []string{":.ctx1:testTopic1"}},
		{":*:testTopic1", []string{":.ctx1:testTopic1", ":.ctx3:testTopic1", "testTopic1"}},
	}
	for _, c := range cases {
		got, err := svc.Subjects(context.Background(), registry.SubjectQuery{Prefix: c.prefix})
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Subjects(%q) = %q, %v; want %q", c.prefix, got, err, c.want)
		}
		ss, err := svc.Schemas(context.Background(), registry.SchemaQuery{SubjectPrefix: c.prefix})
		if err != nil || len(ss) != len(c.want) {
			t.Errorf("Schemas(%q) = %d versions, %v; want %d", c.prefix, len(ss), err, len(c.want))
		}
	}
}

// TestContextAlias follows Confluent's
// RestApiCompatibilityTest.testSubjectAliasWithContext: an unqualified
// alias names a subject of the aliasing subject's context
// (QualifiedSubject.qualifySubjectWithParent), a qualified one its own.
func TestContextAlias(t *testing.T) {
	svc := newService(t)
	ctx := context.Background()
	mustRegister(t, svc, ":.a:target", registry.RegisterRequest{Schema: recA})
	mustRegister(t, svc, "target", registry.RegisterRequest{Schema: recAb})
	for subject, alias := range map[string]string{":.a:alias": "target", ":.a:cross": ":.:target"} {
		if _, err := svc.SetConfig(ctx, subject, registry.ConfigUpdate{Alias: &alias}); err != nil {
			t.Fatal(err)
		}
	}
	for subject, want := range map[string]string{":.a:alias": recA, ":.a:cross": recAb} {
		got, err := svc.Version(ctx, subject, registry.Latest, false)
		if err != nil || got.Schema.Text != want {
			t.Errorf("latest of %s = %s, %v; want %s", subject, got.Schema.Text, err, want)
		}
	}
	aliases, err := svc.SubjectAliases(ctx)
	if want := map[string][]string{":.a:target": {":.a:alias"}, "target": {":.a:cross"}}; err != nil || !reflect.DeepEqual(aliases, want) {
		t.Errorf("SubjectAliases = %v, %v; want %v", aliases, err, want)
	}
}

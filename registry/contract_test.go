package registry_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/srerr"
)

func jsonOf(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	if raw == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return v
}

func wantJSON(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var w any
	if want != "" {
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatalf("test bug: %v", err)
		}
	}
	if g := jsonOf(t, got); !reflect.DeepEqual(g, w) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func TestContractMerge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := newService(t)
	none := "NONE"
	_, err := svc.SetConfig(ctx, "c", registry.ConfigUpdate{
		Compatibility:    &none,
		DefaultMetadata:  []byte(`{"properties":{"team":"platform","env":"prod"},"tags":{"a":["PII"]},"sensitive":["ssn"]}`),
		OverrideMetadata: []byte(`{"properties":{"team":"security"}}`),
		DefaultRuleSet:   []byte(`{"domainRules":[{"name":"r1","kind":"CONDITION","mode":"WRITE","expr":"old"},{"name":"r2","kind":"CONDITION","mode":"WRITE"}]}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	v1 := mustRegister(t, svc, "c", registry.RegisterRequest{
		Schema:   recA,
		Metadata: []byte(`{"properties":{"team":"data","domain":"analytics"},"tags":{"email":["CONTACT"]},"sensitive":["email"]}`),
		RuleSet:  []byte(`{"domainRules":[{"name":"r1","kind":"CONDITION","mode":"WRITE","expr":"new"},{"name":"r3","kind":"TRANSFORM","mode":"READ"}]}`),
	})
	wantJSON(t, "merged metadata", v1.Schema.Metadata,
		`{"properties":{"team":"security","env":"prod","domain":"analytics"},"tags":{"a":["PII"],"email":["CONTACT"]},"sensitive":["email","ssn"]}`)
	wantJSON(t, "merged ruleSet", v1.Schema.RuleSet,
		`{"domainRules":[{"name":"r1","kind":"CONDITION","mode":"WRITE","expr":"new"},{"name":"r2","kind":"CONDITION","mode":"WRITE"},{"name":"r3","kind":"TRANSFORM","mode":"READ"}]}`)

	// No metadata in the request: inherited from the latest version, so
	// re-registering the same text returns version 1.
	again := mustRegister(t, svc, "c", registry.RegisterRequest{Schema: recA})
	if again.Version != 1 || again.Schema.ID != v1.Schema.ID {
		t.Errorf("re-register without metadata = v%d id %d, want v1 id %d", again.Version, again.Schema.ID, v1.Schema.ID)
	}
	v2 := mustRegister(t, svc, "c", registry.RegisterRequest{Schema: recAb})
	wantJSON(t, "inherited metadata", v2.Schema.Metadata, string(v1.Schema.Metadata))
	// An explicit empty object stops the inheritance; config layers stay.
	v3 := mustRegister(t, svc, "c", registry.RegisterRequest{Schema: recAb, Metadata: []byte(`{}`), RuleSet: []byte(`{}`)})
	if v3.Version != 3 {
		t.Fatalf("v3 = %+v", v3)
	}
	wantJSON(t, "metadata with {}", v3.Schema.Metadata,
		`{"properties":{"team":"security","env":"prod"},"tags":{"a":["PII"]},"sensitive":["ssn"]}`)
	wantJSON(t, "ruleSet with {}", v3.Schema.RuleSet, `{"domainRules":[{"name":"r1","kind":"CONDITION","mode":"WRITE","expr":"old"},{"name":"r2","kind":"CONDITION","mode":"WRITE"}]}`)

	// A lookup without metadata finds the version by its schema alone.
	got, err := svc.Lookup(ctx, "c", registry.RegisterRequest{Schema: recA}, false)
	if err != nil || got.Version != 1 {
		t.Fatalf("lookup without metadata = %+v, %v; want version 1", got, err)
	}
	_, err = svc.Register(ctx, "c", registry.RegisterRequest{Schema: recA, Metadata: []byte(`[1]`)})
	wantCode(t, err, srerr.ErrInvalidSchema)
	_, err = svc.Register(ctx, "c", registry.RegisterRequest{Schema: recA, RuleSet: []byte(`"rules"`)})
	wantCode(t, err, srerr.ErrInvalidRuleSet)
	_, err = svc.SetConfig(ctx, "c", registry.ConfigUpdate{OverrideRuleSet: []byte(`5`)})
	wantCode(t, err, srerr.ErrInvalidRuleSet)
	// Rules are validated as Confluent does: 42210 (its
	// RestInvalidRuleSetException), on register and config alike.
	for _, bad := range []string{
		`{"domainRules":[{"kind":"CONDITION","mode":"WRITE"}]}`,
		`{"domainRules":[{"name":"a","kind":"FILTER","mode":"WRITE"}]}`,
		`{"domainRules":[{"name":"a","kind":"CONDITION","mode":"UPGRADE"}]}`,
		`{"migrationRules":[{"name":"a","kind":"TRANSFORM","mode":"READ"}]}`,
		`{"domainRules":[{"name":"a","kind":"CONDITION","mode":"WRITE","onFailure":"RETRY"}]}`,
		`{"domainRules":[{"name":"a","kind":"CONDITION","mode":"WRITE","onFailure":"ERROR,NONE"}]}`,
		`{"domainRules":[{"name":"a","kind":"CONDITION","mode":"WRITE"},{"name":"a","kind":"CONDITION","mode":"READ"}]}`,
	} {
		_, err = svc.Register(ctx, "c", registry.RegisterRequest{Schema: recA, RuleSet: []byte(bad)})
		wantCode(t, err, srerr.ErrInvalidRuleSet)
		_, err = svc.SetConfig(ctx, "c", registry.ConfigUpdate{DefaultRuleSet: []byte(bad)})
		wantCode(t, err, srerr.ErrInvalidRuleSet)
	}
	// A rule list of the wrong JSON kind is a malformed body: 42201.
	_, err = svc.Register(ctx, "c", registry.RegisterRequest{Schema: recA, RuleSet: []byte(`{"domainRules":{"name":"a"}}`)})
	wantCode(t, err, srerr.ErrInvalidSchema)
	ok := `{"migrationRules":[{"name":"up","kind":"TRANSFORM","mode":"UPDOWN","type":"JSONATA","onFailure":"ERROR,NONE"}],"encodingRules":[{"name":"e","kind":"TRANSFORM","mode":"WRITEREAD","onSuccess":"NONE"}]}`
	if _, err := svc.SetConfig(ctx, "c", registry.ConfigUpdate{DefaultRuleSet: []byte(ok)}); err != nil {
		t.Fatalf("valid rule set: %v", err)
	}
	// JSON null clears a config layer.
	c, err := svc.SetConfig(ctx, "c", registry.ConfigUpdate{DefaultMetadata: []byte(`null`)})
	if err != nil || c.DefaultMetadata != nil || c.OverrideMetadata == nil {
		t.Fatalf("clear defaultMetadata = %+v, %v", c, err)
	}
}

func TestCompatibilityGroup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := newService(t)
	group := "application.major.version"
	if _, err := svc.SetConfig(ctx, "g", registry.ConfigUpdate{CompatibilityGroup: &group}); err != nil {
		t.Fatal(err)
	}
	major := func(v string) json.RawMessage {
		return json.RawMessage(`{"properties":{"application.major.version":"` + v + `"}}`)
	}
	mustRegister(t, svc, "g", registry.RegisterRequest{Schema: recA, Metadata: major("1")})
	// A breaking change in a new group is allowed ...
	mustRegister(t, svc, "g", registry.RegisterRequest{Schema: `{"type":"record","name":"A","fields":[{"name":"a","type":"int"}]}`, Metadata: major("2")})
	// ... but not within the group.
	_, err := svc.Register(ctx, "g", registry.RegisterRequest{Schema: `{"type":"record","name":"A","fields":[{"name":"a","type":"boolean"}]}`, Metadata: major("2")})
	wantCode(t, err, srerr.ErrIncompatibleSchema)
	// Inheriting the group from the latest version keeps checking within it.
	res, err := svc.CheckCompatibility(ctx, "g", 0, registry.RegisterRequest{Schema: `{"type":"record","name":"A","fields":[{"name":"a","type":"boolean"}]}`})
	if err != nil || res.Compatible {
		t.Fatalf("check inheriting group 2 = %+v, %v; want incompatible", res, err)
	}
	// Clearing the group checks every version again.
	empty := ""
	if _, err := svc.SetConfig(ctx, "g", registry.ConfigUpdate{CompatibilityGroup: &empty}); err != nil {
		t.Fatal(err)
	}
	_, err = svc.Register(ctx, "g", registry.RegisterRequest{Schema: recA, Metadata: major("3")})
	wantCode(t, err, srerr.ErrIncompatibleSchema)
}

func TestSubjectAliases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := newService(t)
	alias := func(subject, target string) {
		t.Helper()
		if _, err := svc.SetConfig(ctx, subject, registry.ConfigUpdate{Alias: &target}); err != nil {
			t.Fatal(err)
		}
	}
	mustRegister(t, svc, "target", registry.RegisterRequest{Schema: recA})
	alias("short", "target")
	ss := mustRegister(t, svc, "short", registry.RegisterRequest{Schema: recAb})
	if ss.Subject != "target" || ss.Version != 2 {
		t.Fatalf("register via alias = %+v, want target v2", ss)
	}
	got, err := svc.Version(ctx, "short", 1, false)
	if err != nil || got.Subject != "target" {
		t.Fatalf("version via alias = %+v, %v", got, err)
	}
	if vs, err := svc.SubjectVersions(ctx, "short", registry.SubjectVersionsQuery{}); err != nil || len(vs) != 2 {
		t.Fatalf("versions via alias = %v, %v", vs, err)
	}
	if l, err := svc.Lookup(ctx, "short", registry.RegisterRequest{Schema: recA}, false); err != nil || l.Subject != "target" || l.Version != 1 {
		t.Fatalf("lookup via alias = %+v, %v", l, err)
	}
	if res, err := svc.CheckCompatibility(ctx, "short", registry.Latest, registry.RegisterRequest{Schema: recAb}); err != nil || !res.Compatible {
		t.Fatalf("compatibility via alias = %+v, %v", res, err)
	}
	// One level only.
	alias("shorter", "short")
	_, err = svc.SubjectVersions(ctx, "shorter", registry.SubjectVersionsQuery{})
	wantCode(t, err, srerr.ErrSubjectNotFound)
	// An empty alias removes it.
	alias("short", "")
	_, err = svc.SubjectVersions(ctx, "short", registry.SubjectVersionsQuery{})
	wantCode(t, err, srerr.ErrSubjectNotFound)
	if c, err := svc.Config(ctx, "short", false); err != nil || c.Alias != "" {
		t.Fatalf("config after clearing the alias = %+v, %v", c, err)
	}
}

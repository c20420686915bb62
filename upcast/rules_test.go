package upcast_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/upcast"
)

const (
	userV1 = `{"type":"record","name":"User","fields":[{"name":"ssn","type":"string"},{"name":"name","type":"string"},{"name":"visits","type":"int"}]}`
	userV2 = `{"type":"record","name":"User","fields":[{"name":"socialSecurityNumber","type":"string"},{"name":"name","type":"string"},{"name":"visits","type":"int"}]}`
	userV3 = `{"type":"record","name":"User","fields":[{"name":"socialSecurityNumber","type":"string"},{"name":"name","type":"string"},{"name":"visits","type":"int"},{"name":"tier","type":"string","default":"basic"}]}`

	// Confluent's documented rename (data contracts, migration rules).
	renameUp   = `$merge([$sift($, function($v,$k){$k != 'ssn'}), {'socialSecurityNumber': $.'ssn'}])`
	renameDown = `$merge([$sift($, function($v,$k){$k != 'socialSecurityNumber'}), {'ssn': $.'socialSecurityNumber'}])`
)

func major(n string) *client.Metadata {
	return &client.Metadata{Properties: map[string]string{"application.major.version": n}}
}

// userRegistry registers three versions of "users" in two majors (a
// compatibilityGroup), the break carrying UPGRADE and DOWNGRADE rules.
func userRegistry(t *testing.T) *testRegistry {
	t.Helper()
	reg := newRegistry(t)
	must(t, reg.client.SetCompatibilityGroup(t.Context(), "users", "application.major.version"))
	reg.register(t, "users", client.NewSchema{Text: userV1, Metadata: major("1")})
	reg.register(t, "users", client.NewSchema{Text: userV2, Metadata: major("2"), RuleSet: &client.RuleSet{MigrationRules: []client.Rule{
		{Name: "renameSsn", Kind: "TRANSFORM", Type: "JSONATA", Mode: "UPGRADE", Expr: renameUp},
		{Name: "renameSsnBack", Kind: "TRANSFORM", Type: "JSONATA", Mode: "DOWNGRADE", Expr: renameDown},
		{Name: "bumpVisits", Kind: "TRANSFORM", Type: "JSONATA", Mode: "UPGRADE", Expr: `$merge([$, {'visits': visits + 1}])`},
	}}})
	// An explicit empty ruleSet stops v3 inheriting v2's rules.
	reg.register(t, "users", client.NewSchema{Text: userV3, Metadata: major("2"), RuleSet: &client.RuleSet{}})
	return reg
}

func TestMigrationRulesFromTheRegistry(t *testing.T) {
	t.Parallel()
	reg := userRegistry(t)
	u, err := upcast.New(upcast.WithRegistry(reg.client))
	must(t, err)
	must(t, u.Build(t.Context(), "users"))
	r, err := u.Upcast(t.Context(), upcast.Event{ID: "u1", Payload: wire(1, encodeAvro(t, userV1, map[string]any{"ssn": "123", "name": "Ada", "visits": 4}))})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(r.Steps); got != "[v1→v2 rule(renameSsn+bumpVisits) v2→v3 implicit(AVRO resolution)]" {
		t.Errorf("steps = %s", got)
	}
	v, _ := r.Value()
	// visits + 1 is a JSONata number (float64); it is conformed back to int.
	want := map[string]any{"socialSecurityNumber": "123", "name": "Ada", "visits": 5, "tier": "basic"}
	if !upcast.Equal(v, want) {
		t.Errorf("value = %#v, want %#v", v, want)
	}
	if _, ok := v["visits"].(int); !ok {
		t.Errorf("visits is %T, want int (hamba's form of an Avro int)", v["visits"])
	}
	if _, err := r.Payload(); err != nil {
		t.Errorf("Payload: %v", err)
	}

	// Downgrade to the latest version of major 1.
	down, err := upcast.New(upcast.WithRegistry(reg.client), upcast.WithTargetMetadata("users", "application.major.version", "1"))
	must(t, err)
	r, err = down.Upcast(t.Context(), upcast.Event{Payload: wire(3, encodeAvro(t, userV3, map[string]any{"socialSecurityNumber": "9", "name": "Bo", "visits": 1, "tier": "gold"}))})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(r.Steps); got != "[v3→v2 implicit(AVRO resolution) v2→v1 rule(renameSsnBack)]" {
		t.Errorf("downgrade steps = %s", got)
	}
	v, _ = r.Value()
	if want := map[string]any{"ssn": "9", "name": "Bo", "visits": 1}; !upcast.Equal(v, want) {
		t.Errorf("downgraded = %v, want %v", v, want)
	}
}

func TestMigrationRuleSemantics(t *testing.T) {
	t.Parallel()
	rule := func(name, mode, kind, expr, onFailure string) client.Rule {
		return client.Rule{Name: name, Kind: kind, Type: "JSONATA", Mode: mode, Expr: expr, OnFailure: onFailure}
	}
	v1 := map[string]any{"ssn": "1", "name": "n", "visits": 1}
	for _, tc := range []struct {
		name     string
		rules    []client.Rule
		buildErr string
		wantErr  error
		errMsg   string
		want     map[string]any
	}{
		{name: "UPDOWN runs on upgrade", rules: []client.Rule{rule("r", "UPDOWN", "TRANSFORM", renameUp, "")},
			want: map[string]any{"socialSecurityNumber": "1", "name": "n", "visits": 1, "tier": "basic"}},
		{name: "disabled and DOWNGRADE rules are skipped", rules: []client.Rule{
			{Name: "off", Type: "JSONATA", Mode: "UPGRADE", Expr: `$error("never")`, Disabled: true},
			rule("down", "DOWNGRADE", "TRANSFORM", `$error("never")`, ""),
			rule("r", "UPGRADE", "TRANSFORM", renameUp, "")},
			want: map[string]any{"socialSecurityNumber": "1", "name": "n", "visits": 1, "tier": "basic"}},
		{name: "failing condition", rules: []client.Rule{rule("adult", "UPGRADE", "CONDITION", `visits > 3`, ""), rule("r", "UPGRADE", "TRANSFORM", renameUp, "")},
			wantErr: upcast.ErrStep, errMsg: `migration rule "adult": condition is false, want true`},
		{name: "onFailure NONE keeps the value", rules: []client.Rule{rule("boom", "UPGRADE", "TRANSFORM", `$error("boom")`, "NONE"), rule("r", "UPGRADE", "TRANSFORM", renameUp, "")},
			want: map[string]any{"socialSecurityNumber": "1", "name": "n", "visits": 1, "tier": "basic"}},
		{name: "UPDOWN action pair: upgrade part", rules: []client.Rule{rule("boom", "UPDOWN", "TRANSFORM", `$error("boom")`, "ERROR,NONE"), rule("r", "UPGRADE", "TRANSFORM", renameUp, "")},
			wantErr: upcast.ErrStep, errMsg: `migration rule "boom": boom`},
		{name: "no result", rules: []client.Rule{rule("nothing", "UPGRADE", "TRANSFORM", `nothing`, "")},
			wantErr: upcast.ErrStep, errMsg: `migration rule "nothing": `},
		{name: "non-object result", rules: []client.Rule{rule("num", "UPGRADE", "TRANSFORM", `42`, "")},
			wantErr: upcast.ErrStep, errMsg: "returned number 42, want an object"},
		{name: "output missing a field", rules: []client.Rule{rule("drop", "UPGRADE", "TRANSFORM", `{"name": name}`, "")},
			wantErr: upcast.ErrInvalidOutput, errMsg: ".socialSecurityNumber: missing, and the field has no default"},
		{name: "unsupported rule type", rules: []client.Rule{{Name: "cel", Type: "CEL", Mode: "UPGRADE", Expr: "true"}},
			buildErr: `v2: migration rule "cel": type "CEL" is not supported`},
		{name: "bad JSONata", rules: []client.Rule{rule("bad", "UPGRADE", "TRANSFORM", `$merge([`, "")},
			buildErr: `v2: migration rule "bad": compile JSONata`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := &upcast.StaticSource{}
			must(t, src.Add(client.SubjectSchema{Subject: "users", Version: 1, Schema: client.Schema{Text: userV1}}))
			must(t, src.Add(client.SubjectSchema{Subject: "users", Version: 2, Schema: client.Schema{Text: userV2, RuleSet: &client.RuleSet{MigrationRules: tc.rules}}}))
			must(t, src.Add(client.SubjectSchema{Subject: "users", Version: 3, Schema: client.Schema{Text: userV3}}))
			u, _ := upcast.New(upcast.WithSource(src), upcast.WithSubject("users"))
			err := u.Build(t.Context(), "users")
			if tc.buildErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.buildErr) {
					t.Fatalf("Build: err = %v, want %q", err, tc.buildErr)
				}
				return
			}
			must(t, err)
			r, err := u.Upcast(t.Context(), upcast.Event{ID: "e", Version: 1, Payload: encodeAvro(t, userV1, v1)})
			if tc.wantErr != nil {
				var ue *upcast.Error
				if !errors.As(err, &ue) || !errors.Is(err, tc.wantErr) || ue.Step == nil || ue.Step.Kind != upcast.StepRule {
					t.Fatalf("err = %v, want %v in a rule step", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.errMsg) {
					t.Errorf("err %q lacks %q", err, tc.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			v, _ := r.Value()
			if !upcast.Equal(v, tc.want) {
				t.Errorf("value = %v, want %v", v, tc.want)
			}
		})
	}
}

func TestJSONMigrationRule(t *testing.T) {
	t.Parallel()
	const (
		v1 = `{"type":"object","properties":{"cents":{"type":"integer"}},"required":["cents"]}`
		v2 = `{"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"],"additionalProperties":false}`
	)
	src := &upcast.StaticSource{}
	must(t, src.Add(client.SubjectSchema{Subject: "pay", Version: 1, Schema: client.Schema{Type: compat.JSON, Text: v1}}))
	must(t, src.Add(client.SubjectSchema{Subject: "pay", Version: 2, Schema: client.Schema{Type: compat.JSON, Text: v2, RuleSet: &client.RuleSet{
		MigrationRules: []client.Rule{{Name: "toAmount", Type: "JSONATA", Mode: "UPGRADE", Kind: "TRANSFORM", Expr: `{"amount": cents / 100}`}}}}}))
	u, _ := upcast.New(upcast.WithSource(src), upcast.WithSubject("pay"))
	r, err := u.Upcast(t.Context(), upcast.Event{Version: 1, Payload: []byte(`{"cents": 1250}`)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := r.Payload()
	if string(b) != `{"amount":12.5}` {
		t.Errorf("payload = %s", b)
	}
	// A v1 event the rule cannot handle fails validation against v2.
	_, err = u.Upcast(t.Context(), upcast.Event{ID: "bad", Version: 1, Payload: []byte(`{"cents": "x"}`)})
	if !errors.Is(err, upcast.ErrStep) && !errors.Is(err, upcast.ErrInvalidOutput) {
		t.Errorf("err = %v", err)
	}
}

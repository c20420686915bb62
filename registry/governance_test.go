package registry_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/charter-dev/charter/lineage"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

// day0 is day 0 of the governance tests.
var day0 = time.Date(2026, 1, 5, 9, 30, 0, 0, time.UTC)

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Day sets the clock to day n.
func (c *clock) Day(n int) {
	c.mu.Lock()
	c.now = day0.Add(time.Duration(n) * 24 * time.Hour)
	c.mu.Unlock()
}

func newGovService(t *testing.T) (*registry.Service, *clock) {
	t.Helper()
	c := &clock{now: day0}
	svc := registry.NewService(openStore(t), formats.Formats(), registry.WithClock(c.Now))
	return svc, c
}

const (
	shipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`
	shipV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"string"},{"name":"carrier_code","type":"string"},` +
		`{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`
	shipV3 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"string"},{"name":"carrier_code","type":"string"},` +
		`{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},` +
		`{"name":"weight_kg","type":"double","default":0}]}`
	shipV4 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"string"},{"name":"carrier_code","type":"string"},` +
		`{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},` +
		`{"name":"weight_kg","type":"double","default":0},{"name":"note","type":"string","default":""}]}`
	shipNoCode = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"string"},` +
		`{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},` +
		`{"name":"weight_kg","type":"double","default":0}]}`
)

func ruleIDs(fs []rule.Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.Severity.String()+" "+f.RuleID)
	}
	return strings.Join(ids, ", ")
}

// TestGovernanceAcceptance is issue 4's acceptance scenario on the
// registry with an injected clock.
func TestGovernanceAcceptance(t *testing.T) {
	ctx := registry.WithActor(context.Background(), "alice")
	svc, clk := newGovService(t)
	const subject = "shipments-value"
	mustRegister(t, svc, subject, registry.RegisterRequest{Schema: shipV1})
	if _, err := svc.Governance().SetOwner(ctx, subject, governance.Owner{Team: "logistics", Contact: "#logistics", Description: "parcels on their way"}); err != nil {
		t.Fatal(err)
	}
	mustRegister(t, svc, subject, registry.RegisterRequest{Schema: shipV2})
	dep, err := svc.Governance().Deprecate(ctx, subject, registry.DeprecateRequest{Item: governance.FieldItem(".carrier_code"),
		Replacement: ".carrier", Reason: "carriers are records now"})
	if err != nil {
		t.Fatal(err)
	}
	if dep.TTLDays != 90 || dep.State != governance.StateDeprecated || dep.DaysLeft != 90 || dep.SinceVersion != 2 || dep.By != "alice" {
		t.Fatalf("deprecation %+v", dep)
	}

	// Day 0: a registration keeping carrier_code passes with a warning.
	ss, err := svc.Register(ctx, subject, registry.RegisterRequest{Schema: shipV3})
	if err != nil {
		t.Fatalf("day 0: %v", err)
	}
	if got := ruleIDs(ss.Findings); got != "warning DEPRECATION_ACTIVE" || ss.SemVer != "1.2.0" {
		t.Fatalf("day 0: findings %s, semver %s", got, ss.SemVer)
	}

	// Day 89: still a warning, one day left.
	clk.Day(89)
	ss, err = svc.Register(ctx, subject, registry.RegisterRequest{Schema: shipV4})
	if err != nil {
		t.Fatalf("day 89: %v", err)
	}
	if !strings.Contains(ss.Findings[0].Message, "1 day left") {
		t.Errorf("day 89 message %q", ss.Findings[0].Message)
	}

	// Day 90: refused, naming the field, the expiry date and the
	// replacement. Re-registering the latest version (a producer's
	// restart) is refused too: it keeps producing the field.
	clk.Day(90)
	v5 := strings.Replace(shipV4, `{"name":"note","type":"string","default":""}`, `{"name":"note","type":"string","default":""},{"name":"x","type":"int","default":0}`, 1)
	for _, schema := range []string{v5, shipV4} {
		_, err = svc.Register(ctx, subject, registry.RegisterRequest{Schema: schema})
		wantCode(t, err, srerr.ErrDeprecationExpired)
		for _, want := range []string{"field carrier_code", "expired on 2026-04-05", "use carrier instead"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("day 90 refusal %q lacks %q", err, want)
			}
		}
	}
	// Without the field it would pass.
	if res, err := svc.Governance().Check(ctx, subject, registry.RegisterRequest{Schema: shipNoCode}, time.Time{}); err != nil || !res.Allowed || res.Bump != governance.BumpMinor {
		t.Fatalf("day 90 without carrier_code: %+v %v", res, err)
	}

	// billing reads carrier_code (declared lineage) and gets an extension:
	// v5 passes with a notice until it ends (day 125); day 120 passes; on
	// day 125 billing has migrated (withdrawn) and v6 is refused.
	if _, err := svc.Lineage().DeclareConsumer(ctx, lineage.Consumer{Service: "billing", Subject: subject,
		Fields: []string{".id", ".carrier_code"}, Range: lineage.VersionRange{From: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Governance().GrantExtension(ctx, subject, governance.FieldItem(".carrier_code"), registry.ExtensionRequest{
		Consumer: "billing", Days: 35, Reason: "billing reads carrier_code until its Q2 release", Approver: "bob"}); err != nil {
		t.Fatal(err)
	}
	clk.Day(120)
	ss, err = svc.Register(ctx, subject, registry.RegisterRequest{Schema: v5})
	if err != nil {
		t.Fatalf("day 120 with an extension: %v", err)
	}
	if got := ruleIDs(ss.Findings); got != "notice DEPRECATION_EXTENDED" {
		t.Errorf("day 120 findings %s", got)
	}
	clk.Day(125)
	if _, err := svc.Lineage().RemoveConsumer(ctx, subject, "billing"); err != nil {
		t.Fatal(err)
	}
	v6 := strings.Replace(v5, `"default":0}]}`, `"default":0},{"name":"y","type":"int","default":0}]}`, 1)
	_, err = svc.Register(ctx, subject, registry.RegisterRequest{Schema: v6})
	wantCode(t, err, srerr.ErrDeprecationExpired)

	// The read API of deprecation state.
	ds, err := svc.Governance().Deprecations(ctx, subject, false)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deprecations %v %v", ds, err)
	}
	if d := ds[0]; d.State != governance.StateExpired || d.ExtendedUntil != nil || d.Replacement != ".carrier" || len(d.Extensions) != 1 {
		t.Errorf("deprecation state %+v", d)
	}

	// The audit log has who and what.
	es, err := svc.Governance().Audit(ctx, registry.AuditQuery{Subject: subject, ActionPrefix: "deprecation."})
	if err != nil || len(es) != 1 || es[0].Actor != "alice" || es[0].Target != "field:.carrier_code" || !es[0].Time.Equal(day0) {
		t.Errorf("deprecation audit %+v %v", es, err)
	}
	es, _ = svc.Governance().Audit(ctx, registry.AuditQuery{Subject: subject, ActionPrefix: "extension."})
	if len(es) != 1 || es[0].Actor != "alice" || !strings.Contains(string(es[0].After), `"approver":"bob"`) {
		t.Errorf("extension audit %+v", es)
	}

	// The changelog words it.
	cl, err := svc.Governance().Changelog(ctx, subject)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range cl.Entries {
		for _, c := range e.Changes {
			lines = append(lines, fmt.Sprintf("v%d %s %s %s", e.Version, e.SemVer, c.Bump, c.Text))
		}
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		"v1 1.0.0 none first version",
		"v2 1.1.0 minor field `carrier` added",
		"v2 1.1.0 none field `carrier_code` deprecated, TTL 90 days, use `carrier` (carriers are records now); declared on 2026-01-05, expires on 2026-04-05",
		"v2 1.1.0 none field `carrier_code` extended for billing until 2026-05-10 (approved by bob: billing reads carrier_code until its Q2 release)",
		"v4 1.3.0 minor field `note` added",
		"v5 1.4.0 minor field `x` added",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("changelog lacks %q:\n%s", want, got)
		}
	}
}

// TestOwnerPolicyAndMetadata: ownership through the Service, OWNER_MISSING
// at warning then at error per subject, ownership in metadata reads and
// GET /subjects/{s}/metadata.
func TestOwnerPolicyAndMetadata(t *testing.T) {
	ctx := context.Background()
	svc, _ := newGovService(t)
	ss := mustRegister(t, svc, "orders-value", registry.RegisterRequest{Schema: recA})
	if got := ruleIDs(ss.Findings); got != "warning OWNER_MISSING" {
		t.Fatalf("findings %s", got)
	}
	if _, err := svc.Governance().SetPolicy(ctx, "orders-value", governance.PolicyConfig{Rules: map[string]string{"OWNER_MISSING": "error"}}); err != nil {
		t.Fatal(err)
	}
	_, err := svc.Register(ctx, "orders-value", registry.RegisterRequest{Schema: recAb})
	wantCode(t, err, srerr.ErrPolicyViolation)
	if _, err := svc.Register(ctx, "other-value", registry.RegisterRequest{Schema: recAb}); err != nil {
		t.Fatalf("another subject keeps the default: %v", err)
	}
	_, err = svc.Governance().SetPolicy(ctx, "orders-value", governance.PolicyConfig{Rules: map[string]string{"NOPE": "error"}})
	wantCode(t, err, srerr.ErrInvalidGovernance)
	_, err = svc.Governance().SetOwner(ctx, "orders-value", governance.Owner{Team: "shop"})
	wantCode(t, err, srerr.ErrInvalidGovernance)
	if _, err := svc.Governance().SetOwner(ctx, "orders-value", governance.Owner{Team: "shop", Contact: "#shop"}); err != nil {
		t.Fatal(err)
	}
	mustRegister(t, svc, "orders-value", registry.RegisterRequest{Schema: recAb, Metadata: []byte(`{"properties":{"application.major.version":"1"}}`)})

	v, err := svc.Version(ctx, "orders-value", registry.Latest, false)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON(t, "latest metadata", v.Schema.Metadata, `{"properties":{"application.major.version":"1","owner":"shop","owner.contact":"#shop"}}`)
	m, err := svc.LatestWithMetadata(ctx, "orders-value", map[string]string{"owner": "shop", "application.major.version": "1"}, false)
	if err != nil || m.Version != 2 {
		t.Fatalf("LatestWithMetadata: %+v %v", m, err)
	}
	_, err = svc.LatestWithMetadata(ctx, "orders-value", map[string]string{"application.major.version": "2"}, false)
	wantCode(t, err, srerr.ErrSchemaNotFound)
	_, err = svc.LatestWithMetadata(ctx, "nope", map[string]string{"a": "b"}, false)
	wantCode(t, err, srerr.ErrSubjectNotFound)
	// The stored schema is unchanged: its ID is the same content's.
	id, err := svc.SchemaByID(ctx, "", v.Schema.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON(t, "stored metadata", id.Metadata, `{"properties":{"application.major.version":"1"}}`)
}

// TestReservedFieldsValidate: Confluent's validateFields with
// confluent:reserved, in the three formats.
func TestReservedFieldsValidate(t *testing.T) {
	ctx := context.Background()
	svc, _ := newGovService(t)
	on := true
	if _, err := svc.SetConfig(ctx, "", registry.ConfigUpdate{Compatibility: ptr("NONE"), ValidateFields: &on}); err != nil {
		t.Fatal(err)
	}
	reserve := func(names string) []byte { return []byte(`{"properties":{"confluent:reserved":"` + names + `"}}`) }
	for _, tc := range []struct {
		typ    compat.SchemaType
		schema string
	}{
		{compat.Avro, `{"type":"record","name":"R","fields":[{"name":"a","type":"string"},{"name":"b","type":"int"}]}`},
		{compat.Protobuf, "syntax = \"proto3\";\nmessage R {\n  string a = 1;\n  int32 b = 2;\n}\n"},
		{compat.JSON, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`},
	} {
		subject := "reserved-" + strings.ToLower(string(tc.typ))
		_, err := svc.Register(ctx, subject, registry.RegisterRequest{Schema: tc.schema, Type: tc.typ, Metadata: reserve("x, b")})
		wantCode(t, err, srerr.ErrIncompatibleSchema)
		if !strings.Contains(err.Error(), "conflicts with the reserved field b") {
			t.Errorf("%s: %v", tc.typ, err)
		}
		mustRegister(t, svc, subject, registry.RegisterRequest{Schema: tc.schema, Type: tc.typ, Metadata: reserve("future")})
		_, err = svc.Register(ctx, subject, registry.RegisterRequest{Schema: tc.schema, Type: tc.typ, Metadata: reserve("other")})
		wantCode(t, err, srerr.ErrIncompatibleSchema)
		if !strings.Contains(err.Error(), "reserved field future removed") {
			t.Errorf("%s: %v", tc.typ, err)
		}
		mustRegister(t, svc, subject, registry.RegisterRequest{Schema: tc.schema, Type: tc.typ, Metadata: reserve("future,other")})
	}
}

func ptr[T any](v T) *T { return &v }

// TestContractOnlyRegistration: an empty schema with metadata registers
// the latest schema with the new metadata as a new version.
func TestContractOnlyRegistration(t *testing.T) {
	ctx := context.Background()
	svc, _ := newGovService(t)
	v1 := mustRegister(t, svc, "s", registry.RegisterRequest{Schema: recA})
	v2 := mustRegister(t, svc, "s", registry.RegisterRequest{Metadata: []byte(`{"properties":{"k":"v"}}`)})
	if v2.Version != 2 || v2.Schema.Text != v1.Schema.Text || v2.Schema.ID == v1.Schema.ID {
		t.Fatalf("v2 %+v", v2)
	}
	wantJSON(t, "v2 metadata", v2.Schema.Metadata, `{"properties":{"k":"v"}}`)
	_, err := svc.Register(ctx, "empty", registry.RegisterRequest{Metadata: []byte(`{"properties":{"k":"v"}}`)})
	wantCode(t, err, srerr.ErrInvalidSchema)
	// JSON null is no contract: an empty schema stays an error.
	_, err = svc.Register(ctx, "s", registry.RegisterRequest{Metadata: []byte(`null`)})
	wantCode(t, err, srerr.ErrInvalidSchema)
}

// TestRemovedFieldsRemembered: a removed field is remembered, its return
// with another type is reported (refused when the operator raises the
// rule), and the permanent delete of the subject forgets it.
func TestRemovedFieldsRemembered(t *testing.T) {
	ctx := context.Background()
	svc, _ := newGovService(t)
	if _, err := svc.SetConfig(ctx, "", registry.ConfigUpdate{Compatibility: ptr("NONE")}); err != nil {
		t.Fatal(err)
	}
	mustRegister(t, svc, "p", registry.RegisterRequest{Type: compat.Protobuf, Schema: "syntax = \"proto3\";\nmessage R {\n  string id = 1;\n  int32 qty = 2;\n}\n"})
	mustRegister(t, svc, "p", registry.RegisterRequest{Type: compat.Protobuf, Schema: "syntax = \"proto3\";\nmessage R {\n  string id = 1;\n}\n"})
	rs, err := svc.Governance().RemovedFields(ctx, "p")
	if err != nil || len(rs) != 1 || rs[0].Path != ".R.qty" || rs[0].Number != 2 || rs[0].RemovedInVersion != 2 {
		t.Fatalf("removed %+v %v", rs, err)
	}
	reuse := "syntax = \"proto3\";\nmessage R {\n  string id = 1;\n  string note = 2;\n}\n"
	res, err := svc.Governance().Check(ctx, "p", registry.RegisterRequest{Type: compat.Protobuf, Schema: reuse}, time.Time{})
	if err != nil || !res.Allowed || !strings.Contains(ruleIDs(res.Findings), "warning REMOVED_FIELD_NUMBER_REUSED") {
		t.Fatalf("check %+v %v", res, err)
	}
	if _, err := svc.Governance().SetPolicy(ctx, "", governance.PolicyConfig{Rules: map[string]string{"REMOVED_FIELD_NUMBER_REUSED": "error"}}); err != nil {
		t.Fatal(err)
	}
	_, err = svc.Register(ctx, "p", registry.RegisterRequest{Type: compat.Protobuf, Schema: reuse})
	wantCode(t, err, srerr.ErrRemovedFieldReused)
	// Bringing qty back as int32 ends its reservation.
	mustRegister(t, svc, "p", registry.RegisterRequest{Type: compat.Protobuf, Schema: "syntax = \"proto3\";\nmessage R {\n  string id = 1;\n  int32 qty = 2;\n  string note = 3;\n}\n"})
	if rs, _ := svc.Governance().RemovedFields(ctx, "p"); len(rs) != 0 {
		t.Errorf("after restore: %+v", rs)
	}
	if _, err := svc.DeleteSubject(ctx, "p", false); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.DeleteSubject(ctx, "p", true); err != nil {
		t.Fatal(err)
	}
	if cl, err := svc.Governance().Changelog(ctx, "p"); !errors.Is(err, srerr.ErrSubjectNotFound) {
		t.Errorf("changelog of a deleted subject: %+v %v", cl, err)
	}
}

// TestChangelogBackfill: versions registered on a store without
// governance records get a computed changelog.
func TestChangelogBackfill(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	plain := registry.NewService(noGovStore{store}, []compat.Format{avro.Format{}})
	mustRegister(t, plain, "s", registry.RegisterRequest{Schema: recA})
	mustRegister(t, plain, "s", registry.RegisterRequest{Schema: recAb})
	svc := registry.NewService(store, []compat.Format{avro.Format{}})
	cl, err := svc.Governance().Changelog(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(cl.Entries) != 2 || cl.Entries[1].SemVer != "1.1.0" || cl.Entries[1].Changes[0].Kind != governance.KindFieldAdded {
		t.Fatalf("changelog %+v", cl)
	}
	ss := mustRegister(t, svc, "s", registry.RegisterRequest{Schema: `{"type":"record","name":"A","fields":[{"name":"a","type":"string","doc":"A."},{"name":"b","type":"string","default":""}]}`})
	if ss.SemVer != "1.1.1" {
		t.Errorf("next semver %s, want 1.1.1", ss.SemVer)
	}
	_, err = plain.Governance().Owner(ctx, "s")
	if err == nil || !strings.Contains(err.Error(), "GovernanceTx") {
		t.Errorf("governance on a store without it: %v", err)
	}
}

// noGovStore hides the governance part of a store's transactions.
type noGovStore struct{ registry.Store }

type plainTx struct{ registry.Tx }

func (s noGovStore) View(ctx context.Context, fn func(registry.Tx) error) error {
	return s.Store.View(ctx, func(tx registry.Tx) error { return fn(plainTx{tx}) })
}

func (s noGovStore) Update(ctx context.Context, fn func(registry.Tx) error) error {
	return s.Store.Update(ctx, func(tx registry.Tx) error { return fn(plainTx{tx}) })
}

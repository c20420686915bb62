package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// newContractService is a Service whose consumers come from its own
// lineage (as serve wires it), on the test clock.
func newContractService(t testing.TB) (*registry.Service, *clock) {
	t.Helper()
	c := &clock{now: day0}
	st := openStore(t)
	svc := registry.NewService(st, formats.Formats(),
		registry.WithClock(c.Now))
	return svc, c
}

// shipmentPact is a V3 message pact of consumer reading the given fields
// of a shipment ("carrier_code", "carrier", "id").
func shipmentPact(consumer string, fields ...string) json.RawMessage {
	contents := map[string]any{}
	for _, f := range fields {
		switch f {
		case "id":
			contents["id"] = "s-1"
		case "carrier_code":
			contents["carrier_code"] = "DHL"
		case "carrier":
			contents["carrier"] = map[string]any{"acme.Carrier": map[string]any{"code": "DHL"}}
		}
	}
	p := map[string]any{
		"consumer": map[string]any{"name": consumer},
		"provider": map[string]any{"name": "fulfillment"},
		"messages": []any{map[string]any{
			"description": "a shipment was dispatched",
			"contents":    contents,
			"metaData":    map[string]any{"contentType": "application/json"},
		}},
		"metadata": map[string]any{"pactSpecification": map[string]any{"version": "3.0.0"}},
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	return b
}

func team(i int) string { return fmt.Sprintf("team-%02d", i) }

// findingsOf returns "severity RULE consumer" for the findings of rule.
func findingsOf(fs []rule.Finding, ruleID string) []string {
	var out []string
	for _, f := range fs {
		if f.RuleID == ruleID {
			out = append(out, f.Severity.String()+" "+f.Consumer)
		}
	}
	sort.Strings(out)
	return out
}

func impactServices(t *testing.T, svc *registry.Service) []string {
	t.Helper()
	imp, err := svc.Lineage().Impact(context.Background(), lineage.ImpactQuery{Subject: "shipments", Path: ".carrier_code", Change: lineage.ChangeDeprecate})
	if err != nil {
		t.Fatalf("impact: %v", err)
	}
	out := []string{}
	for _, i := range imp {
		out = append(out, i.Service)
	}
	return out
}

func want(prefix string, teams ...int) []string {
	var out []string
	for _, i := range teams {
		out = append(out, prefix+team(i))
	}
	return out
}

// TestContractsAcceptance is issue 5's end-to-end acceptance on the
// registry with the injected clock: shipments owned by fulfillment, 12
// consumer teams with published contracts, 5 reading carrier_code, which
// is deprecated for 90 days in favour of carrier; migration, expiry,
// extensions and the removal guard.
func TestContractsAcceptance(t *testing.T) {
	ctx := registry.WithActor(context.Background(), "alice")
	svc, clk := newContractService(t)
	const subject = "shipments"
	for _, s := range []string{shipV1, shipV2} {
		if _, err := svc.Register(ctx, subject, registry.RegisterRequest{Schema: s}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Governance().SetOwner(ctx, subject, governance.Owner{Team: "fulfillment", Contact: "fulfillment@acme.test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Lineage().SetProducer(ctx, lineage.Producer{Service: "fulfillment", Subject: subject, Versions: []int{1, 2}}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 12; i++ {
		fields := []string{"id"}
		if i <= 5 {
			fields = append(fields, "carrier_code")
		}
		rec, err := svc.ContractRegistry().PublishContract(ctx, registry.PublishContractRequest{Subject: subject, ConsumerVersion: "1.0." + fmt.Sprint(i),
			Branch: "main", Pact: shipmentPact(team(i), fields...)})
		if err != nil {
			t.Fatalf("publish %s: %v", team(i), err)
		}
		if rec.Verification.Broken() {
			t.Fatalf("%s's contract is broken by v2: %+v", team(i), rec.Verification.Findings)
		}
	}
	if _, err := svc.Governance().Deprecate(ctx, subject, registry.DeprecateRequest{Item: governance.FieldItem(".carrier_code"), TTLDays: 90,
		Replacement: ".carrier", Reason: "carrier is a record now"}); err != nil {
		t.Fatal(err)
	}

	// Day 0: exactly the 5 readers; the gate passes with warnings.
	if got := impactServices(t, svc); !reflect.DeepEqual(got, want("", 1, 2, 3, 4, 5)) {
		t.Fatalf("day 0 impact = %v", got)
	}
	res, err := svc.Governance().Check(ctx, subject, registry.RegisterRequest{Schema: shipV3}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("day 0 gate refused: %s", ruleIDs(res.Findings))
	}
	// The consumers' own deprecation findings fail their verification,
	// never the producer's registration: the deprecation table names them.
	if got := findingsOf(res.Findings, contracts.RuleFieldDeprecated); len(got) != 0 {
		t.Errorf("day 0 CONTRACT_FIELD_DEPRECATED in a registration = %v", got)
	}
	assertNames(t, "day 0", res.Findings, governance.RuleDeprecationActive, rule.Warning, 1, 2, 3, 4, 5)
	assertMigration(t, svc, "day 0", "deprecated 90 migrated [] reading [team-01 team-02 team-03 team-04 team-05] extended []")
	// Removing it before expiry is refused, naming its 5 readers.
	assertGuarded(t, svc, "day 0", "before it expires on 2026-04-05", 1, 2, 3, 4, 5)

	// Two teams migrate to carrier.
	clk.Day(30)
	for _, i := range []int{1, 2} {
		if _, err := svc.ContractRegistry().PublishContract(ctx, registry.PublishContractRequest{Subject: subject, ConsumerVersion: "2.0.0",
			Pact: shipmentPact(team(i), "id", "carrier")}); err != nil {
			t.Fatal(err)
		}
	}
	if got := impactServices(t, svc); !reflect.DeepEqual(got, want("", 3, 4, 5)) {
		t.Fatalf("day 30 impact = %v", got)
	}

	assertMigration(t, svc, "day 30", "deprecated 60 migrated [team-01@30 team-02@30] reading [team-03 team-04 team-05] extended []")

	// Day 90: keeping it is allowed with a warning naming the 3 still
	// reading carrier_code without an extension.
	clk.Day(90)
	res, err = svc.Governance().Check(ctx, subject, registry.RegisterRequest{Schema: shipV3}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("day 90 keeping refused: %s", ruleIDs(res.Findings))
	}
	assertNames(t, "day 90", res.Findings, governance.RuleDeprecationExpiredRead, rule.Warning, 3, 4, 5)
	// Each of the 3 fails its own verification.
	ver, err := svc.ContractRegistry().VerifyContracts(ctx, subject, registry.RegisterRequest{Schema: shipV3})
	if err != nil {
		t.Fatal(err)
	}
	if got := findingsOf(ver.Findings, contracts.RuleFieldExpired); !reflect.DeepEqual(got, want("error ", 3, 4, 5)) {
		t.Errorf("day 90 CONTRACT_FIELD_EXPIRED in the consumers' verification = %v", got)
	}

	// Removing it after expiry is refused, naming the 3 readers.
	assertGuarded(t, svc, "day 90", "expired on 2026-04-05", 3, 4, 5)

	// 3 extensions for 30 days: keeping it passes with a notice.
	for _, i := range []int{3, 4, 5} {
		if _, err := svc.Governance().GrantExtension(ctx, subject, governance.FieldItem(".carrier_code"), registry.ExtensionRequest{
			Consumer: team(i), Days: 30, Reason: "migration scheduled", Approver: "fulfillment-lead"}); err != nil {
			t.Fatal(err)
		}
	}
	assertMigration(t, svc, "day 90", "expired 0 migrated [team-01@30 team-02@30] reading [] extended [team-03<30 team-04<30 team-05<30]")
	res, err = svc.Governance().Check(ctx, subject, registry.RegisterRequest{Schema: shipV3}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Allowed {
		t.Fatalf("extended gate refused: %s", ruleIDs(res.Findings))
	}
	assertNames(t, "extended", res.Findings, governance.RuleDeprecationExtended, rule.Notice, 3, 4, 5)
	// Extension holders still read it: removing it is refused, naming them.
	assertGuarded(t, svc, "extended", "expired on 2026-04-05", 3, 4, 5)

	// The extensions end: keeping it warns again, and removing
	// carrier_code fails with the 3 readers named, with default severities.
	clk.Day(121)
	if res, err = svc.Governance().Check(ctx, subject, registry.RegisterRequest{Schema: shipV3}, time.Time{}); err != nil || !res.Allowed {
		t.Fatalf("day 121 keeping: allowed %v, err %v", res.Allowed, err)
	}
	assertNames(t, "day 121", res.Findings, governance.RuleDeprecationExpiredRead, rule.Warning, 3, 4, 5)
	assertGuarded(t, svc, "day 121", "expired on 2026-04-05", 3, 4, 5)
	_, err = svc.Register(ctx, subject, registry.RegisterRequest{Schema: shipNoCode})
	if !errors.Is(err, srerr.ErrPolicyViolation) || !strings.Contains(err.Error(), governance.RuleDeprecationRemovalGuarded) {
		t.Fatalf("register without carrier_code: err = %v, want 42280 DEPRECATION_REMOVAL_GUARDED", err)
	}
	for _, i := range []int{3, 4, 5} {
		if !strings.Contains(err.Error(), team(i)) {
			t.Errorf("refusal does not name %s: %v", team(i), err)
		}
	}

	// The 3 migrate: removing carrier_code is accepted.
	for _, i := range []int{3, 4, 5} {
		if _, err := svc.ContractRegistry().PublishContract(ctx, registry.PublishContractRequest{Subject: subject, ConsumerVersion: "2.0.0",
			Pact: shipmentPact(team(i), "id", "carrier")}); err != nil {
			t.Fatal(err)
		}
	}
	if got := impactServices(t, svc); len(got) != 0 {
		t.Fatalf("after migration impact = %v", got)
	}
	assertMigration(t, svc, "day 121", "expired 0 migrated [team-01@30 team-02@30 team-03@121 team-04@121 team-05@121] reading [] extended []")
	if _, err := svc.Register(ctx, subject, registry.RegisterRequest{Schema: shipNoCode}); err != nil {
		t.Fatalf("register without carrier_code after migration: %v", err)
	}

	// History: every publication is audited, lineage is versioned.
	audit, err := svc.Governance().Audit(ctx, registry.AuditQuery{Subject: subject, ActionPrefix: "contract."})
	if err != nil {
		t.Fatal(err)
	}
	if len(audit) != 12+2+3 {
		t.Errorf("contract audit entries = %d, want 17", len(audit))
	}
	d0, err := svc.Lineage().LineageDeclarations(ctx, subject, day0)
	if err != nil {
		t.Fatal(err)
	}
	readers := 0
	for _, c := range d0.Consumers {
		for _, f := range c.Fields {
			if f == ".carrier_code" {
				readers++
			}
		}
	}
	if len(d0.Consumers) != 12 || readers != 5 {
		t.Errorf("lineage as of day 0: %d consumers, %d read carrier_code; want 12 and 5", len(d0.Consumers), readers)
	}
}

// assertGuarded checks that removing carrier_code (shipNoCode) is refused
// by DEPRECATION_REMOVAL_GUARDED alone among the errors, at its default
// severity, with a message naming the field, the expiry and exactly the
// given teams.
func assertGuarded(t *testing.T, svc *registry.Service, when, expiry string, teams ...int) {
	t.Helper()
	res, err := svc.Governance().Check(context.Background(), "shipments", registry.RegisterRequest{Schema: shipNoCode}, time.Time{})
	if err != nil {
		t.Fatalf("%s: %v", when, err)
	}
	if res.Allowed {
		t.Fatalf("%s: removal allowed: %s", when, ruleIDs(res.Findings))
	}
	var guard []rule.Finding
	for _, f := range res.Findings {
		// The readers' contracts break too (CONTRACT_FIELD_MISSING).
		missing := f.RuleID == contracts.RuleFieldMissing && f.Path == ".carrier_code"
		if f.Severity == rule.Error && f.RuleID != governance.RuleDeprecationRemovalGuarded && !missing {
			t.Errorf("%s: another error: %s %s", when, f.RuleID, f.Message)
		}
		if f.RuleID == governance.RuleDeprecationRemovalGuarded {
			guard = append(guard, f)
		}
	}
	if len(guard) != 1 || guard[0].Severity != rule.Error || guard[0].Path != ".carrier_code" {
		t.Fatalf("%s: guard findings %+v", when, guard)
	}
	for _, s := range append([]string{"field carrier_code", expiry}, want("", teams...)...) {
		if !strings.Contains(guard[0].Message, s) {
			t.Errorf("%s: message %q lacks %q", when, guard[0].Message, s)
		}
	}
	if n := strings.Count(guard[0].Message, "team-"); n != len(teams) {
		t.Errorf("%s: message %q names %d teams, want %d", when, guard[0].Message, n, len(teams))
	}
}

// assertNames checks that fs has one finding of ruleID on .carrier_code
// at sev, naming exactly the given teams.
func assertNames(t *testing.T, when string, fs []rule.Finding, ruleID string, sev rule.Severity, teams ...int) {
	t.Helper()
	var got []rule.Finding
	for _, f := range fs {
		if f.RuleID == ruleID {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Severity != sev || got[0].Path != ".carrier_code" {
		t.Fatalf("%s: %s findings %+v, want one %s on .carrier_code", when, ruleID, got, sev)
	}
	for _, name := range want("", teams...) {
		if !strings.Contains(got[0].Message, name) {
			t.Errorf("%s: %s message %q lacks %s", when, ruleID, got[0].Message, name)
		}
	}
	if n := strings.Count(got[0].Message, "team-"); n != len(teams) {
		t.Errorf("%s: %s message %q names %d teams, want %d", when, ruleID, got[0].Message, n, len(teams))
	}
}

// assertMigration checks the migration status of carrier_code, rendered
// as "state daysLeft migrated [team@day…] reading [team…] extended
// [team<daysLeft…]".
func assertMigration(t *testing.T, svc *registry.Service, when, want string) {
	t.Helper()
	ms, err := svc.Governance().DeprecationMigrations(context.Background(), "shipments", ".carrier_code")
	if err != nil {
		t.Fatalf("%s: migration status: %v", when, err)
	}
	if len(ms) != 1 || ms[0].Path != ".carrier_code" || ms[0].Replacement != ".carrier" {
		t.Fatalf("%s: migration status %+v", when, ms)
	}
	m := ms[0]
	var mig, rd, ext []string
	for _, c := range m.Migrated {
		mig = append(mig, fmt.Sprintf("%s@%d", c.Consumer, int(c.At.Sub(day0).Hours()/24)))
	}
	for _, c := range m.Reading {
		rd = append(rd, c.Consumer)
		if !reflect.DeepEqual(c.Fields, []string{".carrier_code"}) || c.Source != lineage.SourceContract {
			t.Errorf("%s: reader %+v", when, c)
		}
	}
	for _, c := range m.Extended {
		ext = append(ext, fmt.Sprintf("%s<%d", c.Consumer, c.DaysLeft))
	}
	got := fmt.Sprintf("%s %d migrated %v reading %v extended %v", m.State, m.DaysLeft, mig, rd, ext)
	if got != want {
		t.Errorf("%s: migration status\n got %s\nwant %s", when, got, want)
	}
}

// TestPublishContractBadInput: malformed pacts, unknown specification
// versions, missing consumer versions and unknown subjects are refused
// with a clear error and nothing is stored.
func TestPublishContractBadInput(t *testing.T) {
	ctx := context.Background()
	svc, _ := newContractService(t)
	if _, err := svc.Register(ctx, "shipments", registry.RegisterRequest{Schema: shipV1}); err != nil {
		t.Fatal(err)
	}
	good := shipmentPact("billing", "id")
	for _, tc := range []struct {
		name    string
		req     registry.PublishContractRequest
		want    *srerr.Error
		message string
	}{
		{"invalid JSON", registry.PublishContractRequest{Subject: "shipments", ConsumerVersion: "1", Pact: json.RawMessage(`{"consumer":`)},
			srerr.ErrInvalidGovernance, "invalid JSON"},
		{"unknown spec", registry.PublishContractRequest{Subject: "shipments", ConsumerVersion: "1", Pact: json.RawMessage(
			`{"consumer":{"name":"a"},"provider":{"name":"b"},"messages":[{"description":"x","contents":{"id":"1"}}],"metadata":{"pactSpecification":{"version":"7.0.0"}}}`)},
			srerr.ErrInvalidGovernance, "7.0.0"},
		{"HTTP pact", registry.PublishContractRequest{Subject: "shipments", ConsumerVersion: "1", Pact: json.RawMessage(
			`{"consumer":{"name":"a"},"provider":{"name":"b"},"interactions":[],"metadata":{"pactSpecification":{"version":"2.0.0"}}}`)},
			srerr.ErrInvalidGovernance, "Invalid contract"},
		{"no consumer version", registry.PublishContractRequest{Subject: "shipments", Pact: good}, srerr.ErrInvalidGovernance, "consumer version"},
		{"no subject", registry.PublishContractRequest{ConsumerVersion: "1", Pact: good}, srerr.ErrInvalidGovernance, "subject"},
		{"unknown subject", registry.PublishContractRequest{Subject: "parcels", ConsumerVersion: "1", Pact: good}, srerr.ErrSubjectNotFound, "parcels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := svc.ContractRegistry().PublishContract(ctx, tc.req)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.want, tc.message)
			}
		})
	}
	all, err := svc.ContractRegistry().Contracts(ctx, "")
	if err != nil || len(all) != 0 {
		t.Fatalf("contracts stored after bad input: %d, %v", len(all), err)
	}
	chs, err := svc.Lineage().LineageChanges(ctx, "", 0)
	if err != nil || len(chs) != 0 {
		t.Fatalf("lineage changes after bad input: %d, %v", len(chs), err)
	}
}

// TestVerifyContractsProposed checks a proposed schema against the
// published contracts without registering it: findings per consumer,
// interaction and field, at the default (warning) severity, so the
// proposal is allowed unless the operator opts in.
func TestVerifyContractsProposed(t *testing.T) {
	ctx := context.Background()
	svc, _ := newContractService(t)
	if _, err := svc.Register(ctx, "shipments", registry.RegisterRequest{Schema: shipV2}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		fields []string
	}{{"billing", []string{"id", "carrier_code"}}, {"tracking", []string{"id"}}} {
		if _, err := svc.ContractRegistry().PublishContract(ctx, registry.PublishContractRequest{Subject: "shipments", ConsumerVersion: "1",
			Pact: shipmentPact(c.name, c.fields...)}); err != nil {
			t.Fatal(err)
		}
	}
	v, err := svc.ContractRegistry().VerifyContracts(ctx, "shipments", registry.RegisterRequest{Schema: shipNoCode})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Broken || v.Allowed || v.Baseline != 1 || len(v.Contracts) != 2 {
		t.Fatalf("broken %v allowed %v baseline %d contracts %d", v.Broken, v.Allowed, v.Baseline, len(v.Contracts))
	}
	var got []string
	for _, f := range v.Findings {
		got = append(got, f.Severity.String()+" "+f.RuleID+" "+f.Consumer+" "+f.Path)
	}
	if w := []string{"error CONTRACT_FIELD_MISSING billing .carrier_code"}; !reflect.DeepEqual(got, w) {
		t.Fatalf("findings = %q, want %q", got, w)
	}
	cf := v.Contracts[0].Findings
	if v.Contracts[0].Consumer != "billing" || len(cf) != 1 || cf[0].Interaction != "a shipment was dispatched" || cf[0].Path != ".carrier_code" {
		t.Fatalf("billing findings = %+v", v.Contracts[0])
	}
	if len(v.Contracts[1].Findings) != 0 {
		t.Fatalf("tracking findings = %+v", v.Contracts[1].Findings)
	}
	// The PII rule and the deprecation message name lineage consumers.
	st, err := svc.Governance().State(ctx, "shipments", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st.Consumers, []string{"billing", "tracking"}) {
		t.Fatalf("state consumers = %v", st.Consumers)
	}
}

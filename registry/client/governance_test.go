package client_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

const (
	shipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`
	shipV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"},{"name":"customer_email","type":"string","default":""}]}`
)

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestGovernanceClient calls every governance method against the real
// handler.
func TestGovernanceClient(t *testing.T) {
	c, _ := newClient(t, client.WithActor("alice"))
	ctx := t.Context()
	const s = "shipments-value"

	_, err := c.Owner(ctx, s)
	if !errors.Is(err, srerr.ErrGovernanceNotFound) {
		t.Fatalf("Owner of an unowned subject: %v", err)
	}
	_, err = c.SetOwner(ctx, s, "logistics", "", "")
	if !errors.Is(err, srerr.ErrInvalidGovernance) {
		t.Fatalf("SetOwner without contact: %v", err)
	}
	o, err := c.SetOwner(ctx, s, "logistics", "#logistics", "parcels")
	noErr(t, err)
	if o.Team != "logistics" || o.UpdatedBy != "alice" {
		t.Errorf("owner %+v", o)
	}
	os, err := c.Owners(ctx, "logistics")
	noErr(t, err)
	if len(os) != 1 || os[0].Subject != s {
		t.Errorf("owners %+v", os)
	}
	if _, err := c.Register(ctx, s, client.NewSchema{Text: shipV1}); err != nil {
		t.Fatal(err)
	}

	p, err := c.SetPolicy(ctx, "", client.PolicyConfig{Rules: map[string]string{"PII_UNTAGGED": "warn"}, DeprecationTTLDays: 30})
	noErr(t, err)
	if p.Rules["PII_UNTAGGED"] != "warning" {
		t.Errorf("policy %+v", p)
	}
	if _, err := c.SetPolicy(ctx, s, client.PolicyConfig{PII: &client.PIIPolicy{MaskTags: []string{"PII"}}}); err != nil {
		t.Fatal(err)
	}
	eff, err := c.EffectivePolicy(ctx, s)
	noErr(t, err)
	if eff.DeprecationTTLDays != 30 || eff.PII == nil || eff.PII.MaskTags[0] != "PII" {
		t.Errorf("effective %+v", eff)
	}
	sp, err := c.Policy(ctx, s)
	noErr(t, err)
	if sp.PII == nil {
		t.Errorf("subject policy %+v", sp)
	}
	rules, err := c.PolicyRules(ctx, s)
	noErr(t, err)
	var expired client.RuleStatus
	for _, r := range rules {
		if r.ID == "DEPRECATION_EXPIRED" {
			expired = r
		}
	}
	if expired.Effective != "error" || expired.Category != "deprecation" {
		t.Errorf("DEPRECATION_EXPIRED %+v", expired)
	}

	d, err := c.Deprecate(ctx, s, client.DeprecateRequest{Path: ".carrier_code", Replacement: ".carrier", Reason: "records"})
	noErr(t, err)
	if d.State != "deprecated" || d.TTLDays != 30 || d.Kind != "field" || d.By != "alice" {
		t.Errorf("deprecation %+v", d)
	}
	ds, err := c.Deprecations(ctx, s, true)
	noErr(t, err)
	if len(ds) != 2 {
		t.Errorf("deprecations with all: %+v", ds)
	}
	ads, err := c.AllDeprecations(ctx)
	noErr(t, err)
	if len(ads) != 1 {
		t.Errorf("all deprecations %+v", ads)
	}
	if _, err := c.Deprecation(ctx, s, "field:.carrier_code"); err != nil {
		t.Fatal(err)
	}
	x, err := c.GrantExtension(ctx, s, ".carrier_code", client.ExtensionRequest{Consumer: "billing", Until: time.Now().Add(60 * 24 * time.Hour), Reason: "Q2", Approver: "bob"})
	noErr(t, err)
	if x.ExtendedUntil == nil || len(x.Consumers) != 1 {
		t.Errorf("extension %+v", x)
	}
	if _, err := c.RevokeExtension(ctx, s, ".carrier_code", "billing"); err != nil {
		t.Fatal(err)
	}
	_, err = c.RevokeExtension(ctx, s, ".carrier_code", "billing")
	if !errors.Is(err, srerr.ErrGovernanceNotFound) {
		t.Errorf("revoke twice: %v", err)
	}

	// A new PII field: the check reports it; tags and dismissals.
	res, err := c.CheckGovernance(ctx, s, client.NewSchema{Text: shipV2})
	noErr(t, err)
	if !res.Allowed || res.SemVer != "1.1.0" || res.Bump != "minor" || !strings.Contains(findingIDs(res.Findings), "PII_UNTAGGED") {
		t.Errorf("check %+v", res)
	}
	tv, err := c.SetTags(ctx, s, map[string][]string{"**.customer_email": {"PII"}})
	noErr(t, err)
	if tv.Tags["**.customer_email"][0] != "PII" {
		t.Errorf("tags %+v", tv)
	}
	if _, err := c.Tags(ctx, s); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteTags(ctx, s); err != nil {
		t.Fatal(err)
	}
	dm, err := c.Dismiss(ctx, s, ".customer_email", "", "a shared mailbox", true)
	noErr(t, err)
	if dm.By != "alice" {
		t.Errorf("dismissal %+v", dm)
	}
	dms, err := c.Dismissals(ctx, s)
	noErr(t, err)
	if len(dms) != 1 {
		t.Errorf("dismissals %+v", dms)
	}
	res, err = c.CheckGovernance(ctx, s, client.NewSchema{Text: shipV2})
	noErr(t, err)
	if strings.Contains(findingIDs(res.Findings), "PII_UNTAGGED") {
		t.Errorf("dismissed finding came back: %+v", res.Findings)
	}
	if _, err := c.DeleteDismissal(ctx, s, ".customer_email", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Register(ctx, s, client.NewSchema{Text: shipV2}); err != nil {
		t.Fatal(err)
	}

	cl, err := c.Changelog(ctx, s)
	noErr(t, err)
	if len(cl.Entries) != 2 || cl.Entries[1].SemVer != "1.1.0" {
		t.Errorf("changelog %+v", cl)
	}
	rm, err := c.RemovedFields(ctx, s)
	noErr(t, err)
	if len(rm) != 0 {
		t.Errorf("removed %+v", rm)
	}
	latest, err := c.LatestWithMetadata(ctx, s, map[string]string{"owner": "logistics"})
	noErr(t, err)
	if latest.Version != 2 || latest.Metadata == nil || latest.Metadata.Properties["owner.contact"] != "#logistics" {
		t.Errorf("latest with metadata %+v", latest)
	}
	es, err := c.Audit(ctx, client.AuditQuery{Subject: s, Actor: "alice", Action: "deprecation.", Since: time.Now().Add(-time.Hour), Limit: 10})
	noErr(t, err)
	if len(es) != 1 || es[0].Action != "deprecation.create" {
		t.Errorf("audit %+v", es)
	}

	// The client's SubjectState mirrors governance.SubjectState: nothing
	// is lost on the way.
	raw, err := c.GovernanceStateJSON(ctx, s, time.Time{})
	noErr(t, err)
	var want governance.SubjectState
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	cs, err := c.GovernanceState(ctx, s)
	noErr(t, err)
	b, _ := json.Marshal(cs)
	var got governance.SubjectState
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || want.Owner == nil || len(want.Deprecations) != 1 || want.LatestSemVer != "1.1.0" {
		t.Errorf("state round trip\n got %+v\nwant %+v", got, want)
	}

	vd, err := c.Deprecate(ctx, s, client.DeprecateRequest{Version: 1, TTLDays: 10, Reason: "superseded"})
	noErr(t, err)
	if vd.Kind != "version" || vd.Version != 1 || vd.DaysLeft != 10 {
		t.Errorf("version deprecation %+v", vd)
	}
	und, err := c.Undeprecate(ctx, s, "version:1")
	noErr(t, err)
	if und.Reason != "superseded" {
		t.Errorf("undeprecated %+v", und)
	}
}

func findingIDs(fs []client.Finding) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.RuleID)
	}
	return strings.Join(ids, " ")
}

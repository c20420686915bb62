package client_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/srerr"
)

// shipV3 drops carrier_code, which the billing contract reads.
const shipV3 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"customer_email","type":"string","default":""}]}`

// messagePact is a V3 message pact of consumer whose one message has
// contents.
func messagePact(consumer, contents string) json.RawMessage {
	return json.RawMessage(`{"consumer":{"name":"` + consumer + `"},"provider":{"name":"fulfillment"},` +
		`"messages":[{"description":"a shipment","contents":` + contents + `}],` +
		`"metadata":{"pactSpecification":{"version":"3.0.0"}}}`)
}

// TestContractsClient publishes, lists, gets, verifies and withdraws
// contracts through the client against the real handler, with the errors
// a caller meets.
func TestContractsClient(t *testing.T) {
	c, _ := newClient(t, client.WithActor("alice"))
	ctx := t.Context()
	const s = "shipments-value"
	pub := client.PublishContract{ConsumerVersion: "1.2.0", Branch: "main", Pact: messagePact("billing", `{"id":"s-1","carrier_code":"DHL"}`)}

	_, err := c.PublishContract(ctx, s, pub)
	if !errors.Is(err, srerr.ErrSubjectNotFound) {
		t.Fatalf("publish before the subject exists: %v", err)
	}
	_, err = c.Register(ctx, s, client.NewSchema{Text: shipV2})
	noErr(t, err)

	rec, err := c.PublishContract(ctx, s, pub)
	noErr(t, err)
	if rec.Consumer != "billing" || rec.ConsumerVersion != "1.2.0" || rec.Branch != "main" || rec.Provider != "fulfillment" ||
		rec.Spec != "3.0.0" || rec.Interactions != 1 || rec.Version != 1 || rec.By != "alice" || rec.Verification.Broken() {
		t.Errorf("record %+v", rec)
	}
	if want := []string{".carrier_code", ".id"}; !reflect.DeepEqual(rec.Reads, want) {
		t.Errorf("reads %v, want %v", rec.Reads, want)
	}
	_, err = c.PublishContract(ctx, s, client.PublishContract{ConsumerVersion: "1", Pact: json.RawMessage(`{"consumer":{"name":"x"}}`)})
	if !errors.Is(err, srerr.ErrInvalidGovernance) || !strings.Contains(err.Error(), `publish contract for subject "shipments-value"`) {
		t.Errorf("malformed pact: %v", err)
	}
	_, err = c.PublishContract(ctx, s, client.PublishContract{Consumer: "mailer", ConsumerVersion: "3", Pact: messagePact("mailer-app", `{"id":"s-1","customer_email":"a@b.c"}`)})
	noErr(t, err)

	all, err := c.Contracts(ctx, "")
	noErr(t, err)
	if got := consumers(all); !reflect.DeepEqual(got, []string{"billing", "mailer"}) {
		t.Errorf("contracts %v", got)
	}
	one, err := c.Contract(ctx, s, "mailer")
	noErr(t, err)
	if one.ConsumerVersion != "3" || !reflect.DeepEqual(one.Reads, []string{".customer_email", ".id"}) {
		t.Errorf("mailer contract %+v", one)
	}
	if _, err := c.Contract(ctx, s, "nobody"); !errors.Is(err, srerr.ErrGovernanceNotFound) {
		t.Errorf("contract of nobody: %v", err)
	}

	v, err := c.VerifyContracts(ctx, s, client.NewSchema{Text: shipV3})
	noErr(t, err)
	if !v.Broken || v.Baseline != 1 || len(v.Contracts) != 2 {
		t.Fatalf("verification %+v", v)
	}
	var billing client.ContractResult
	for _, r := range v.Contracts {
		if r.Consumer == "billing" {
			billing = r
		}
	}
	if !billing.Broken() || len(billing.Findings) == 0 || billing.Findings[0].RuleID != "CONTRACT_FIELD_MISSING" ||
		billing.Findings[0].Path != ".carrier_code" || billing.Findings[0].Interaction != "a shipment" {
		t.Errorf("billing verdict %+v", billing)
	}
	if _, err := c.VerifyContracts(ctx, s, client.NewSchema{Text: `{"type":"nope"}`}); !errors.Is(err, srerr.ErrInvalidSchema) {
		t.Errorf("verify an invalid schema: %v", err)
	}

	w, err := c.WithdrawContract(ctx, s, "billing")
	noErr(t, err)
	if w.Consumer != "billing" {
		t.Errorf("withdrawn %+v", w)
	}
	if _, err := c.WithdrawContract(ctx, s, "billing"); !errors.Is(err, srerr.ErrGovernanceNotFound) {
		t.Errorf("withdraw twice: %v", err)
	}
	left, err := c.Contracts(ctx, s)
	noErr(t, err)
	if got := consumers(left); !reflect.DeepEqual(got, []string{"mailer"}) {
		t.Errorf("contracts after withdrawal %v", got)
	}
}

func consumers(rs []client.ContractRecord) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.Consumer)
	}
	return out
}

// TestDeprecationMigrationsClient: the migration status of a deprecated
// field as a declared consumer moves off it, and its errors.
func TestDeprecationMigrationsClient(t *testing.T) {
	c, _ := newClient(t, client.WithActor("alice"))
	ctx := t.Context()
	const s = "shipments-value"
	_, err := c.Register(ctx, s, client.NewSchema{Text: shipV2})
	noErr(t, err)
	_, err = c.DeclareConsumer(ctx, s, "audit", []string{".id", ".carrier_code"}, nil)
	noErr(t, err)
	// audit stops reading carrier_code after its deprecation.
	_, err = c.Deprecate(ctx, s, client.DeprecateRequest{Path: ".carrier_code", Reason: "records", TTLDays: 10})
	noErr(t, err)
	mig, err := c.DeprecationMigrations(ctx, s, ".carrier_code")
	noErr(t, err)
	if len(mig) != 1 || mig[0].DaysLeft != 10 || mig[0].State != "deprecated" || len(mig[0].Reading) != 1 || mig[0].Reading[0].Consumer != "audit" || len(mig[0].Migrated) != 0 {
		t.Errorf("migrations %+v", mig)
	}
	_, err = c.DeclareConsumer(ctx, s, "audit", []string{".id"}, nil)
	noErr(t, err)
	mig, err = c.DeprecationMigrations(ctx, s, "")
	noErr(t, err)
	if len(mig) != 1 || len(mig[0].Reading) != 0 || len(mig[0].Migrated) != 1 || mig[0].Migrated[0].Consumer != "audit" || mig[0].Migrated[0].Withdrawn {
		t.Errorf("migrations after audit moved %+v", mig)
	}
	if _, err := c.DeprecationMigrations(ctx, s, ".id"); !errors.Is(err, srerr.ErrGovernanceNotFound) {
		t.Errorf("migrations of a field not deprecated: %v", err)
	}
	if _, err := c.DeprecationMigrations(ctx, "parcels", ""); !errors.Is(err, srerr.ErrSubjectNotFound) {
		t.Errorf("migrations of an unknown subject: %v", err)
	}
}

// TestLineageClient declares producers and consumers and asks impact, PII
// exposure, the history and the graph in every format.
func TestLineageClient(t *testing.T) {
	c, _ := newClient(t, client.WithActor("alice"))
	ctx := t.Context()
	const s = "shipments-value"
	_, err := c.Register(ctx, s, client.NewSchema{Text: shipV2})
	noErr(t, err)
	_, err = c.SetTags(ctx, s, map[string][]string{"acme.Shipment.customer_email": {"PII"}})
	noErr(t, err)

	if _, err := c.SetProducer(ctx, "parcels", "fulfillment", nil); !errors.Is(err, srerr.ErrSubjectNotFound) {
		t.Errorf("producer of an unknown subject: %v", err)
	}
	ch, err := c.SetProducer(ctx, s, "fulfillment", []int{1})
	noErr(t, err)
	if ch.Kind != "set_producer" || ch.Revision != 1 || ch.Actor != "alice" || ch.Producer == nil || !reflect.DeepEqual(ch.Producer.Versions, []int{1}) {
		t.Errorf("set producer %+v", ch)
	}
	ch, err = c.DeclareConsumer(ctx, s, "audit", []string{".id", ".carrier_code"}, &client.VersionRange{From: 1})
	noErr(t, err)
	if ch.Consumer == nil || ch.Consumer.Source != "declared" || ch.Consumer.Range != (client.VersionRange{From: 1}) {
		t.Errorf("declare consumer %+v", ch)
	}
	if _, err := c.DeclareConsumer(ctx, s, "audit", []string{"id"}, nil); !errors.Is(err, srerr.ErrInvalidGovernance) {
		t.Errorf("a path without '.': %v", err)
	}
	_, err = c.DeclareConsumer(ctx, s, "crm", []string{".customer_email"}, nil)
	noErr(t, err)

	imp, err := c.Impact(ctx, client.ImpactQuery{Subject: s, Path: ".carrier_code", Change: "deprecate"})
	noErr(t, err)
	if len(imp) != 1 || imp[0].Service != "audit" || imp[0].Change != "deprecate" || !reflect.DeepEqual(imp[0].Fields, []string{".carrier_code"}) {
		t.Errorf("impact %+v", imp)
	}
	if _, err := c.Impact(ctx, client.ImpactQuery{Subject: s, Path: ".nope"}); !errors.Is(err, srerr.ErrInvalidGovernance) {
		t.Errorf("impact of an unknown field: %v", err)
	}
	if _, err := c.Impact(ctx, client.ImpactQuery{Subject: s, Path: ".id", Change: "explode"}); !errors.Is(err, srerr.ErrInvalidGovernance) {
		t.Errorf("impact of an unknown change: %v", err)
	}

	pii, err := c.PIIExposure(ctx, "", "")
	noErr(t, err)
	if len(pii) != 1 || pii[0].Path != ".customer_email" || pii[0].Subject != s || len(pii[0].Readers) != 1 || pii[0].Readers[0].Service != "crm" {
		t.Errorf("PII exposure %+v", pii)
	}
	none, err := c.PIIExposure(ctx, s, "GDPR")
	noErr(t, err)
	if len(none) != 0 {
		t.Errorf("exposure of tag GDPR %+v", none)
	}

	chs, err := c.LineageChanges(ctx, s, 1)
	noErr(t, err)
	var kinds []string
	for _, ch := range chs {
		kinds = append(kinds, ch.Kind)
	}
	if !reflect.DeepEqual(kinds, []string{"set_consumer", "set_consumer"}) || chs[0].Revision != 2 {
		t.Errorf("changes after 1: %v", kinds)
	}

	g, err := c.LineageGraph(ctx, s, time.Time{})
	noErr(t, err)
	edges := map[string]bool{}
	for _, e := range g.Edges {
		edges[e.Kind+" "+e.From+" "+e.To] = true
	}
	for _, want := range []string{"produces service:fulfillment subject:" + s, "consumes service:audit subject:" + s,
		"reads service:crm field:" + s + ":.customer_email"} {
		if !edges[want] {
			t.Errorf("graph has no edge %q; edges %v", want, edges)
		}
	}
	// Before the first declaration, the graph has no service.
	early, err := c.LineageGraph(ctx, s, time.Now().Add(-time.Hour))
	noErr(t, err)
	for _, n := range early.Nodes {
		if n.Kind == "service" {
			t.Errorf("graph an hour ago has service %s", n.Name)
		}
	}

	for format, want := range map[string]string{client.GraphDOT: "digraph", client.GraphMermaid: "flowchart", client.GraphJSON: `"nodes"`} {
		b, err := c.LineageGraphText(ctx, s, time.Time{}, format)
		noErr(t, err)
		if !strings.HasPrefix(strings.TrimSpace(string(b)), want) && !strings.Contains(string(b), want) {
			t.Errorf("%s graph: %.200s", format, b)
		}
		if !strings.Contains(string(b), "fulfillment") || !strings.Contains(string(b), "audit") {
			t.Errorf("%s graph names no service: %.300s", format, b)
		}
	}
	if _, err := c.LineageGraphText(ctx, s, time.Time{}, "svg"); err == nil || !strings.Contains(err.Error(), `unknown format "svg"`) {
		t.Errorf("svg: %v", err)
	}
	if _, err := c.LineageGraphText(ctx, "parcels", time.Time{}, client.GraphDOT); !errors.Is(err, srerr.ErrSubjectNotFound) {
		t.Errorf("DOT graph of an unknown subject: %v", err)
	}

	_, err = c.RemoveConsumer(ctx, s, "audit")
	noErr(t, err)
	if _, err := c.RemoveConsumer(ctx, s, "audit"); !errors.Is(err, srerr.ErrGovernanceNotFound) {
		t.Errorf("remove consumer twice: %v", err)
	}
	_, err = c.RemoveProducer(ctx, s, "fulfillment")
	noErr(t, err)
	imp, err = c.Impact(ctx, client.ImpactQuery{Subject: s, Path: ".carrier_code"})
	noErr(t, err)
	if len(imp) != 0 {
		t.Errorf("impact after removal %+v", imp)
	}
}

// TestContractTypesMirrorServer decodes the server's answers with
// DisallowUnknownFields into the client's types: a field the server adds
// and the client lacks fails here.
func TestContractTypesMirrorServer(t *testing.T) {
	c, srv := newClient(t)
	ctx := t.Context()
	const s = "shipments-value"
	_, err := c.Register(ctx, s, client.NewSchema{Text: shipV2})
	noErr(t, err)
	_, err = c.SetTags(ctx, s, map[string][]string{"acme.Shipment.customer_email": {"PII"}})
	noErr(t, err)
	_, err = c.SetProducer(ctx, s, "fulfillment", []int{1})
	noErr(t, err)
	_, err = c.PublishContract(ctx, s, client.PublishContract{ConsumerVersion: "1", Branch: "main", Pact: messagePact("crm", `{"id":"s-1","customer_email":"a@b.c"}`)})
	noErr(t, err)
	// A deprecation gives findings an expiry.
	_, err = c.Deprecate(ctx, s, client.DeprecateRequest{Path: ".customer_email", Reason: "moved", TTLDays: 30})
	noErr(t, err)

	verify, _ := json.Marshal(client.NewSchema{Text: shipV2})
	for _, tc := range []struct {
		method, path, body string
		into               any
	}{
		{"GET", "/governance/contracts", "", &[]client.ContractRecord{}},
		{"POST", "/governance/subjects/" + s + "/contracts/verify", string(verify), &client.ContractVerification{}},
		{"GET", "/governance/subjects/" + s + "/impact?path=.customer_email", "", &[]client.Impact{}},
		{"GET", "/governance/subjects/" + s + "/migrations", "", &[]client.DeprecationMigration{}},
		{"GET", "/governance/lineage/pii", "", &[]client.Exposure{}},
		{"GET", "/governance/lineage/changes", "", &[]client.LineageChange{}},
		{"GET", "/governance/lineage/graph", "", &client.LineageGraph{}},
	} {
		req, err := http.NewRequestWithContext(ctx, tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
		noErr(t, err)
		if tc.body != "" {
			req.Header.Set("Content-Type", client.ContentType)
		}
		resp, err := http.DefaultClient.Do(req)
		noErr(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d %s", tc.method, tc.path, resp.StatusCode, b)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(tc.into); err != nil {
			t.Errorf("%s %s: the client's type lacks a field: %v\n%.400s", tc.method, tc.path, err, b)
		}
		if len(b) < 40 {
			t.Errorf("%s %s answered almost nothing: %s", tc.method, tc.path, b)
		}
	}
}

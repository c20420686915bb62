package lineage_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/lineage"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current output")

var day0 = time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)

// versions parses the shipments schema versions and lists their fields.
func versions(tb testing.TB) []lineage.SchemaVersion {
	tb.Helper()
	var out []lineage.SchemaVersion
	for v := 1; v <= 2; v++ {
		text, err := os.ReadFile(filepath.Join("testdata", fmt.Sprintf("shipments-v%d.avsc", v)))
		if err != nil {
			tb.Fatal(err)
		}
		s, err := avro.Parse(string(text), nil)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, lineage.SchemaVersion{Subject: "shipments", Version: v, Fields: compat.Fields(s)})
	}
	return out
}

// platform is the shipments platform of issue 5's acceptance scenario: the
// fulfillment team produces shipments; 12 consumer teams read it, 5 of
// them carrier_code.
func platform(tb testing.TB) lineage.Declarations {
	tb.Helper()
	d := lineage.Declarations{
		Versions:  versions(tb),
		Producers: []lineage.Producer{{Service: "fulfillment", Subject: "shipments", Versions: []int{2, 1}}},
	}
	readers := map[string][]string{
		"billing":       {".shipment_id", ".carrier_code"},
		"returns":       {".shipment_id", ".carrier_code", ".recipient", ".recipient.email"},
		"tracking":      {".shipment_id", ".carrier_code", ".parcels", ".parcels[].barcode"},
		"customs":       {".shipment_id", ".carrier_code", ".recipient", ".recipient.country"},
		"claims":        {".shipment_id", ".carrier_code"},
		"analytics":     {".shipment_id", ".parcels", ".parcels[].weight_grams"},
		"notifications": {".shipment_id", ".recipient", ".recipient.email", ".recipient.name"},
		"warehouse":     {".shipment_id", ".parcels", ".parcels[].barcode"},
		"invoicing":     {".shipment_id"},
		"support":       {".shipment_id", ".recipient", ".recipient.name"},
		"routing":       {".shipment_id", ".carrier", ".carrier<com.acme.fulfillment.Carrier>.code"},
		"audit":         {".shipment_id"},
	}
	i := 0
	for svc, fields := range readers {
		d.Consumers = append(d.Consumers, lineage.Consumer{
			Service: svc, Subject: "shipments", Fields: fields, Range: lineage.VersionRange{From: 1},
			Source: lineage.SourceContract, ContractVersion: "1.0." + fmt.Sprint(i), Branch: "main",
			Since: day0.Add(time.Duration(len(svc)) * time.Hour),
		})
		i++
	}
	return d
}

func services(is []lineage.Impact) []string {
	out := []string{}
	for _, i := range is {
		out = append(out, i.Service)
	}
	return out
}

func TestImpactCarrierCode(t *testing.T) {
	t.Parallel()
	g, err := lineage.Build(platform(t))
	if err != nil {
		t.Fatal(err)
	}
	got, err := g.Impact(lineage.ImpactQuery{Subject: "shipments", Path: ".carrier_code", Change: lineage.ChangeDeprecate})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"billing", "claims", "customs", "returns", "tracking"}; !reflect.DeepEqual(services(got), want) {
		t.Errorf("impact of deprecating .carrier_code = %v, want %v", services(got), want)
	}
	if got[0].Change != lineage.ChangeDeprecate || !reflect.DeepEqual(got[0].Fields, []string{".carrier_code"}) || got[0].Branch != "main" {
		t.Errorf("impact entry %+v", got[0])
	}
	// A container covers the fields inside it, through union branches
	// and arrays too.
	for _, tc := range []struct {
		path string
		want []string
	}{
		{".recipient", []string{"customs", "notifications", "returns", "support"}},
		{".recipient.email", []string{"notifications", "returns"}},
		{".carrier", []string{"routing"}},
		{".parcels", []string{"analytics", "tracking", "warehouse"}},
		{".parcels[].barcode", []string{"tracking", "warehouse"}},
		{".shipment", []string{}}, // a prefix that is not a parent: no field
	} {
		got, err := g.Impact(lineage.ImpactQuery{Subject: "shipments", Path: tc.path, Change: lineage.ChangeRemove})
		if tc.path == ".shipment" {
			if !errors.Is(err, lineage.ErrUnknownField) {
				t.Errorf("impact of %s: error %v, want ErrUnknownField", tc.path, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(services(got), tc.want) {
			t.Errorf("impact of removing %s = %v, want %v", tc.path, services(got), tc.want)
		}
	}
	if _, err := g.Impact(lineage.ImpactQuery{Subject: "parcels", Path: ".x"}); !errors.Is(err, lineage.ErrUnknownSubject) {
		t.Errorf("unknown subject: error %v", err)
	}
}

// TestImpactVersionRange: a consumer pinned to old versions is not
// affected by a change in the next version, but is by one in its range.
func TestImpactVersionRange(t *testing.T) {
	t.Parallel()
	d := lineage.Declarations{
		Versions: versions(t),
		Consumers: []lineage.Consumer{
			{Service: "legacy", Subject: "shipments", Fields: []string{".carrier_code"}, Range: lineage.VersionRange{From: 1, To: 1}},
			{Service: "current", Subject: "shipments", Fields: []string{".carrier_code"}, Range: lineage.VersionRange{From: 2}},
		},
	}
	g, err := lineage.Build(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		version int
		want    []string
	}{{0, []string{"current"}}, {1, []string{"legacy"}}, {2, []string{"current"}}, {3, []string{"current"}}} {
		got, err := g.Impact(lineage.ImpactQuery{Subject: "shipments", Path: ".carrier_code", Change: lineage.ChangeRetype, Version: tc.version})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(services(got), tc.want) {
			t.Errorf("version %d: %v, want %v", tc.version, services(got), tc.want)
		}
	}
}

func TestExposurePII(t *testing.T) {
	t.Parallel()
	g, err := lineage.Build(platform(t))
	if err != nil {
		t.Fatal(err)
	}
	got := g.Exposure("pii")
	type row struct {
		path    string
		readers []string
	}
	var rows []row
	for _, e := range got {
		r := row{path: e.Path}
		for _, rd := range e.Readers {
			r.readers = append(r.readers, rd.Service)
		}
		rows = append(rows, r)
	}
	// Readers earliest first (Since is day0 + len(name) hours here).
	want := []row{
		{".recipient.email", []string{"returns", "notifications"}},
		{".recipient.name", []string{"support", "notifications"}},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("PII exposure = %+v, want %+v", rows, want)
	}
	if e := got[0]; !reflect.DeepEqual(e.Versions, []int{1, 2}) || !reflect.DeepEqual(e.Tags, []string{"PII"}) || !e.Readers[0].Since.Equal(day0.Add(7*time.Hour)) {
		t.Errorf("exposure entry %+v", e)
	}
	if got := g.Exposure("GDPR"); len(got) != 0 {
		t.Errorf("no field is tagged GDPR, got %+v", got)
	}
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	vs := versions(t)
	for _, tc := range []struct {
		name string
		d    lineage.Declarations
		want error
	}{
		{"consumer of unknown subject", lineage.Declarations{Versions: vs, Consumers: []lineage.Consumer{{Service: "a", Subject: "parcels"}}}, lineage.ErrUnknownSubject},
		{"producer of unknown subject", lineage.Declarations{Versions: vs, Producers: []lineage.Producer{{Service: "a", Subject: "parcels"}}}, lineage.ErrUnknownSubject},
		{"consumer without service", lineage.Declarations{Versions: vs, Consumers: []lineage.Consumer{{Subject: "shipments"}}}, lineage.ErrInvalid},
		{"consumer twice", lineage.Declarations{Versions: vs, Consumers: []lineage.Consumer{{Service: "a", Subject: "shipments"}, {Service: "a", Subject: "shipments"}}}, lineage.ErrInvalid},
		{"version twice", lineage.Declarations{Versions: append(vs, vs[0])}, lineage.ErrInvalid},
		{"version zero", lineage.Declarations{Versions: []lineage.SchemaVersion{{Subject: "s"}}}, lineage.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := lineage.Build(tc.d)
			if !errors.Is(err, tc.want) || g != nil {
				t.Errorf("Build = %v, %v; want error %v", g, err, tc.want)
			}
		})
	}
}

// small is the graph the golden renderings show.
func small(tb testing.TB) *lineage.Graph {
	tb.Helper()
	d := lineage.Declarations{
		Versions:  versions(tb),
		Producers: []lineage.Producer{{Service: "fulfillment", Subject: "shipments", Versions: []int{1, 2}}},
		Consumers: []lineage.Consumer{
			{Service: "returns", Subject: "shipments", Fields: []string{".carrier_code", ".recipient", ".recipient.email"}, Range: lineage.VersionRange{From: 1}, Source: lineage.SourceContract, ContractVersion: "4f2a9c1", Branch: "main", Since: day0},
			{Service: "routing", Subject: "shipments", Fields: []string{".carrier", ".carrier<com.acme.fulfillment.Carrier>.code"}, Range: lineage.VersionRange{From: 2}, Source: lineage.SourceDeclared, Since: day0.AddDate(0, 1, 0)},
		},
	}
	g, err := lineage.Build(d)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func TestRenderGolden(t *testing.T) {
	t.Parallel()
	g := small(t)
	for _, tc := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"graph.dot", func(b *bytes.Buffer) error { return g.WriteDOT(b) }},
		{"graph.mmd", func(b *bytes.Buffer) error { return g.WriteMermaid(b) }},
		{"graph.json", func(b *bytes.Buffer) error { return g.WriteJSON(b) }},
	} {
		var b bytes.Buffer
		if err := tc.write(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", tc.file+".golden")
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from %s:\n%s", tc.file, path, b.String())
		}
	}
}

// TestHistoryReplay: changes appended to a Store replay to the
// declarations in force at any instant, and the graph built from them
// answers as of then.
func TestHistoryReplay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var st lineage.MemStore
	at := func(days int) time.Time { return day0.AddDate(0, 0, days) }
	changes := []lineage.Change{
		{At: at(0), Actor: "fulfillment-ci", Kind: lineage.ChangeSetProducer, Producer: &lineage.Producer{Service: "fulfillment", Subject: "shipments", Versions: []int{1}}},
		{At: at(1), Actor: "returns-ci", Kind: lineage.ChangeSetConsumer, Consumer: &lineage.Consumer{Service: "returns", Subject: "shipments", Fields: []string{".carrier_code"}, Range: lineage.VersionRange{From: 1}}},
		{At: at(2), Actor: "billing-ci", Kind: lineage.ChangeSetConsumer, Consumer: &lineage.Consumer{Service: "billing", Subject: "shipments", Fields: []string{".carrier_code"}, Range: lineage.VersionRange{From: 1}}},
		// returns migrates to .carrier.
		{At: at(30), Actor: "returns-ci", Kind: lineage.ChangeSetConsumer, Consumer: &lineage.Consumer{Service: "returns", Subject: "shipments", Fields: []string{".carrier", ".carrier<com.acme.fulfillment.Carrier>.code"}, Range: lineage.VersionRange{From: 2}}},
		{At: at(40), Actor: "platform", Kind: lineage.ChangeRemoveConsumer, Consumer: &lineage.Consumer{Service: "billing", Subject: "shipments"}},
	}
	for i, c := range changes {
		got, err := st.AppendLineage(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if got.Revision != int64(i+1) {
			t.Errorf("revision %d, want %d", got.Revision, i+1)
		}
	}
	if _, err := st.AppendLineage(ctx, lineage.Change{At: at(50), Kind: lineage.ChangeSetConsumer}); !errors.Is(err, lineage.ErrBadChange) {
		t.Errorf("bad change: error %v", err)
	}
	all, err := st.LineageChanges(ctx, "shipments", 0)
	if err != nil || len(all) != len(changes) {
		t.Fatalf("LineageChanges = %d changes, %v", len(all), err)
	}
	if later, _ := st.LineageChanges(ctx, "", 3); len(later) != 2 || later[0].Revision != 4 {
		t.Errorf("changes after revision 3: %+v", later)
	}
	if other, _ := st.LineageChanges(ctx, "parcels", 0); len(other) != 0 {
		t.Errorf("changes of another subject: %+v", other)
	}
	for _, tc := range []struct {
		until time.Time
		want  []string
	}{
		{at(0), []string{}},
		{at(2), []string{"billing", "returns"}},
		{at(30), []string{"billing"}},
		{at(45), []string{}},
		{time.Time{}, []string{}},
	} {
		d := lineage.Replay(all, tc.until)
		d.Versions = versions(t)
		g, err := lineage.Build(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.Impact(lineage.ImpactQuery{Subject: "shipments", Path: ".carrier_code", Change: lineage.ChangeRemove})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(services(got), tc.want) {
			t.Errorf("readers of .carrier_code at %s = %v, want %v", tc.until.Format(time.DateOnly), services(got), tc.want)
		}
	}
}

// TestConsumerFromContract shows the registry's path: verify a published
// contract against the subject's schema and record the fields it reads,
// already in compat.Field paths, as a consumer.
func TestConsumerFromContract(t *testing.T) {
	t.Parallel()
	c, err := contracts.ReadContract(filepath.Join("testdata", "returns-pact.json"))
	if err != nil {
		t.Fatal(err)
	}
	c.ConsumerVersion, c.Branch, c.Subject = "4f2a9c1", "main", "shipments"
	text, _ := os.ReadFile(filepath.Join("testdata", "shipments-v2.avsc"))
	s, err := avro.Parse(string(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := contracts.Verify([]*contracts.Contract{c}, s, contracts.Options{Now: day0})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Contracts[0]
	d := lineage.Declarations{Versions: versions(t), Consumers: []lineage.Consumer{{
		Service: r.Consumer, Subject: r.Subject, Fields: r.Reads, Range: lineage.VersionRange{From: 2},
		Source: lineage.SourceContract, ContractVersion: r.ConsumerVersion, Branch: r.Branch, Since: day0,
	}}}
	g, err := lineage.Build(d)
	if err != nil {
		t.Fatal(err)
	}
	pii := g.Exposure("PII")
	if len(pii) != 2 || pii[0].Path != ".recipient.email" || len(pii[0].Readers) != 1 || pii[0].Readers[0].Service != "returns" || len(pii[1].Readers) != 0 {
		t.Errorf("PII exposure from the contract: %+v", pii)
	}
	// Every field read is a field of the schema: the reads edges end on
	// declared field nodes.
	for _, e := range g.Edges {
		if e.Kind != lineage.EdgeReads {
			continue
		}
		if n, _ := g.Node(e.To); len(n.Versions) == 0 {
			t.Errorf("read %s is not a declared field", n.Path)
		}
	}
}

// TestSinceNotBeforeTheField: a reader of a field is dated from the later
// of its declaration and the registration of the oldest version that has
// the field, in Exposure, Impact and the reads edge; a version with no
// registration time keeps the declaration's time.
func TestSinceNotBeforeTheField(t *testing.T) {
	t.Parallel()
	ms := func(n int) time.Time { return day0.Add(time.Duration(n) * time.Millisecond) }
	id := compat.Field{Path: ".id", Type: "string"}
	email := compat.Field{Path: ".email", Type: "string", Tags: []string{"PII"}}
	for _, tc := range []struct {
		name           string
		v1, v2         time.Time // registration of v1 (.id) and v2 (.id, .email)
		declared, want time.Time
	}{
		{"declared before the field", ms(100), ms(500), ms(300), ms(500)},
		{"declared after the field", ms(100), ms(500), ms(700), ms(700)},
		{"declared with the field", ms(100), ms(500), ms(500), ms(500)},
		{"registration time unknown", time.Time{}, time.Time{}, ms(300), ms(300)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := lineage.Build(lineage.Declarations{
				Versions: []lineage.SchemaVersion{
					{Subject: "s", Version: 1, Fields: []compat.Field{id}, Registered: tc.v1},
					{Subject: "s", Version: 2, Fields: []compat.Field{id, email}, Registered: tc.v2},
				},
				Consumers: []lineage.Consumer{{Service: "crm", Subject: "s", Fields: []string{".id", ".email"}, Range: lineage.VersionRange{From: 1}, Since: tc.declared}},
			})
			if err != nil {
				t.Fatal(err)
			}
			exp := g.Exposure("PII")
			if len(exp) != 1 || len(exp[0].Readers) != 1 || !exp[0].Readers[0].Since.Equal(tc.want) {
				t.Errorf("Exposure = %+v, want crm since %s", exp, tc.want)
			}
			imp, err := g.Impact(lineage.ImpactQuery{Subject: "s", Path: ".email", Change: lineage.ChangeRemove})
			if err != nil || len(imp) != 1 || !imp[0].Since.Equal(tc.want) {
				t.Errorf("Impact = %+v, %v, want crm since %s", imp, err, tc.want)
			}
			// .id existed from v1: its reader keeps the declaration's time
			// unless that is before v1.
			wantID := tc.declared
			if tc.v1.After(wantID) {
				wantID = tc.v1
			}
			for _, e := range g.Edges {
				if e.Kind != lineage.EdgeReads {
					continue
				}
				want := map[string]time.Time{lineage.FieldID("s", ".email"): tc.want, lineage.FieldID("s", ".id"): wantID}[e.To]
				if !e.Since.Equal(want) {
					t.Errorf("reads edge to %s since %s, want %s", e.To, e.Since, want)
				}
			}
			if n, _ := g.Node(lineage.FieldID("s", ".email")); !n.Added.Equal(tc.v2) {
				t.Errorf("field .email added %s, want %s", n.Added, tc.v2)
			}
		})
	}
}

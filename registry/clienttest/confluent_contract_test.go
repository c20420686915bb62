//go:build cgo

package clienttest

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/avrov2"

	// Registers the JSONATA rule executor that runs migration rules.
	_ "github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/rules/jsonata"
)

const (
	// customerV1 and customerV2 are the two major versions of the data
	// contracts example: v2 renames ssn to socialSecurityNumber, a
	// breaking change inside one subject thanks to compatibilityGroup.
	customerV1 = `{"type":"record","name":"Customer","namespace":"shop","fields":[` +
		`{"name":"name","type":"string"},{"name":"ssn","type":"string","confluent:tags":["PII"]}]}`
	customerV2 = `{"type":"record","name":"Customer","namespace":"shop","fields":[` +
		`{"name":"name","type":"string"},{"name":"socialSecurityNumber","type":"string","confluent:tags":["PII"]}]}`
	upgradeExpr   = `$merge([$sift($, function($v, $k) {$k != 'ssn'}), {'socialSecurityNumber': $.'ssn'}])`
	downgradeExpr = `$merge([$sift($, function($v, $k) {$k != 'socialSecurityNumber'}), {'ssn': $.'socialSecurityNumber'}])`
)

// CustomerV1 and CustomerV2 are the Go types of the two major versions.
type CustomerV1 struct {
	Name string `avro:"name"`
	SSN  string `avro:"ssn"`
}

// CustomerV2 is major version 2.
type CustomerV2 struct {
	Name                 string `avro:"name"`
	SocialSecurityNumber string `avro:"socialSecurityNumber"`
}

// TestConfluentDataContracts round-trips Confluent data contracts through
// the confluent-kafka-go client: metadata (tags, properties, sensitive) and
// rule sets are stored, versioned and returned as the client expects;
// config default/override layers merge and versions inherit; GET
// /subjects/{s}/metadata selects a major version; the JSONata migration
// rules stored on v2 upgrade v1 data and downgrade v2 data in the client's
// deserializer; the
// subject's owner shows in metadata.
func TestConfluentDataContracts(t *testing.T) {
	s := startServer(t)
	admin := newSRClient(t, s.URL)
	const subject = "customers-value"

	if _, err := admin.UpdateCompatibility(subject, schemaregistry.Backward); err != nil {
		t.Fatalf("UpdateCompatibility: %v", err)
	}
	if _, err := admin.UpdateConfig(subject, schemaregistry.ServerConfig{
		CompatibilityGroup: "application.major.version",
		DefaultMetadata:    &schemaregistry.Metadata{Properties: map[string]string{"domain": "shop"}},
		OverrideRuleSet: &schemaregistry.RuleSet{DomainRules: []schemaregistry.Rule{
			{Name: "checkName", Kind: "CONDITION", Mode: "WRITE", Type: "CEL", Expr: "message.name != ''", Disabled: true}}},
	}); err != nil {
		t.Fatalf("UpdateConfig: %v", err)
	}
	cfg, err := admin.GetConfig(subject, false)
	if err != nil {
		t.Fatalf("GetConfig: %v", err)
	}
	if cfg.CompatibilityGroup != "application.major.version" || cfg.DefaultMetadata == nil || cfg.DefaultMetadata.Properties["domain"] != "shop" ||
		cfg.OverrideRuleSet == nil || len(cfg.OverrideRuleSet.DomainRules) != 1 {
		t.Fatalf("GetConfig = %+v", cfg)
	}

	v1 := schemaregistry.SchemaInfo{Schema: customerV1, Metadata: &schemaregistry.Metadata{
		Tags:       map[string][]string{"**.name": {"PRIVATE"}},
		Properties: map[string]string{"application.major.version": "1", "owner.email": "shop@example.com"},
		Sensitive:  []string{"owner.email"},
	}}
	md1, err := admin.RegisterFullResponse(subject, v1, false)
	if err != nil {
		t.Fatalf("Register v1: %v", err)
	}
	v2 := schemaregistry.SchemaInfo{Schema: customerV2,
		Metadata: &schemaregistry.Metadata{Properties: map[string]string{"application.major.version": "2"}},
		RuleSet: &schemaregistry.RuleSet{MigrationRules: []schemaregistry.Rule{
			{Name: "renameSsn", Kind: "TRANSFORM", Type: "JSONATA", Mode: "UPGRADE", Expr: upgradeExpr},
			{Name: "renameSsnBack", Kind: "TRANSFORM", Type: "JSONATA", Mode: "DOWNGRADE", Expr: downgradeExpr},
		}},
	}
	md2, err := admin.RegisterFullResponse(subject, v2, false)
	if err != nil {
		t.Fatalf("Register v2 (breaking, new major version): %v", err)
	}
	if md1.ID <= 0 || md2.ID <= 0 || md1.ID == md2.ID {
		t.Fatalf("ids %d %d", md1.ID, md2.ID)
	}

	// Versions come back with their merged metadata and rule sets.
	got1, err := newSRClient(t, s.URL).GetSchemaMetadata(subject, 1)
	if err != nil {
		t.Fatalf("GetSchemaMetadata v1: %v", err)
	}
	wantMeta := &schemaregistry.Metadata{
		Tags:       map[string][]string{"**.name": {"PRIVATE"}},
		Properties: map[string]string{"application.major.version": "1", "owner.email": "shop@example.com", "domain": "shop"},
		Sensitive:  []string{"owner.email"},
	}
	if !reflect.DeepEqual(got1.Metadata, wantMeta) {
		t.Errorf("v1 metadata %+v, want %+v", got1.Metadata, wantMeta)
	}
	if got1.RuleSet == nil || len(got1.RuleSet.DomainRules) != 1 || got1.RuleSet.DomainRules[0].Name != "checkName" || !got1.RuleSet.DomainRules[0].Disabled {
		t.Errorf("v1 rule set %+v (the override layer)", got1.RuleSet)
	}
	latest, err := newSRClient(t, s.URL).GetLatestSchemaMetadata(subject)
	if err != nil {
		t.Fatalf("GetLatestSchemaMetadata: %v", err)
	}
	if latest.Version != 2 || latest.RuleSet == nil || len(latest.RuleSet.MigrationRules) != 2 ||
		!reflect.DeepEqual(latest.RuleSet.MigrationRules, v2.RuleSet.MigrationRules) || latest.Metadata.Properties["domain"] != "shop" {
		t.Errorf("latest %+v %+v", latest.RuleSet, latest.Metadata)
	}
	byID, err := newSRClient(t, s.URL).GetBySubjectAndID(subject, md2.ID)
	if err != nil {
		t.Fatalf("GetBySubjectAndID: %v", err)
	}
	if byID.RuleSet == nil || len(byID.RuleSet.MigrationRules) != 2 {
		t.Errorf("schema by id %+v", byID.RuleSet)
	}

	// GET /subjects/{s}/metadata picks a major line.
	for major, want := range map[string]int{"1": 1, "2": 2} {
		m, err := newSRClient(t, s.URL).GetLatestWithMetadata(subject, map[string]string{"application.major.version": major}, false)
		if err != nil {
			t.Fatalf("GetLatestWithMetadata(major %s): %v", major, err)
		}
		if m.Version != want {
			t.Errorf("major %s: version %d, want %d", major, m.Version, want)
		}
	}
	_, err = newSRClient(t, s.URL).GetLatestWithMetadata(subject, map[string]string{"application.major.version": "3"}, false)
	wantRESTError(t, "GetLatestWithMetadata(major 3)", err, 40403)

	// A producer pinned to major 1 writes v1; a consumer pinned to major 2
	// reads it upgraded by v2's migration rule, and a consumer pinned to 1
	// reads v2 data downgraded.
	sconf := avrov2.NewSerializerConfig()
	sconf.AutoRegisterSchemas = false
	sconf.UseLatestWithMetadata = map[string]string{"application.major.version": "1"}
	ser1, err := avrov2.NewSerializer(newSRClient(t, s.URL), serde.ValueSerde, sconf)
	if err != nil {
		t.Fatalf("NewSerializer: %v", err)
	}
	msg, err := ser1.Serialize("customers", &CustomerV1{Name: "Ada", SSN: "123-45-6789"})
	if err != nil {
		t.Fatalf("Serialize v1: %v", err)
	}
	if got := wireID(t, msg); got != md1.ID {
		t.Errorf("wire id %d, want v1's %d", got, md1.ID)
	}
	dconf := avrov2.NewDeserializerConfig()
	dconf.UseLatestWithMetadata = map[string]string{"application.major.version": "2"}
	de2, err := avrov2.NewDeserializer(newSRClient(t, s.URL), serde.ValueSerde, dconf)
	if err != nil {
		t.Fatalf("NewDeserializer: %v", err)
	}
	var c2 CustomerV2
	if err := de2.DeserializeInto("customers", msg, &c2); err != nil {
		t.Fatalf("DeserializeInto v2 (upgrade rule): %v", err)
	}
	if c2 != (CustomerV2{Name: "Ada", SocialSecurityNumber: "123-45-6789"}) {
		t.Errorf("upgraded %+v", c2)
	}
	sconf.UseLatestWithMetadata = map[string]string{"application.major.version": "2"}
	ser2, err := avrov2.NewSerializer(newSRClient(t, s.URL), serde.ValueSerde, sconf)
	if err != nil {
		t.Fatalf("NewSerializer: %v", err)
	}
	msg2, err := ser2.Serialize("customers", &CustomerV2{Name: "Bo", SocialSecurityNumber: "987-65-4321"})
	if err != nil {
		t.Fatalf("Serialize v2: %v", err)
	}
	dconf.UseLatestWithMetadata = map[string]string{"application.major.version": "1"}
	de1, err := avrov2.NewDeserializer(newSRClient(t, s.URL), serde.ValueSerde, dconf)
	if err != nil {
		t.Fatalf("NewDeserializer: %v", err)
	}
	var c1 CustomerV1
	if err := de1.DeserializeInto("customers", msg2, &c1); err != nil {
		t.Fatalf("DeserializeInto v1 (downgrade rule): %v", err)
	}
	if c1 != (CustomerV1{Name: "Bo", SSN: "987-65-4321"}) {
		t.Errorf("downgraded %+v", c1)
	}

	// Registering only a new contract (no schema text) makes a new
	// version of the latest schema; a version without metadata inherits.
	md3, err := admin.RegisterFullResponse(subject, schemaregistry.SchemaInfo{
		Metadata: &schemaregistry.Metadata{Properties: map[string]string{"application.major.version": "2", "reviewed": "yes"}}}, false)
	if err != nil {
		t.Fatalf("Register contract only: %v", err)
	}
	v3, err := newSRClient(t, s.URL).GetSchemaMetadata(subject, 3)
	if err != nil {
		t.Fatalf("GetSchemaMetadata v3: %v", err)
	}
	if v3.ID != md3.ID || v3.Metadata.Properties["reviewed"] != "yes" || v3.RuleSet == nil || len(v3.RuleSet.MigrationRules) != 2 {
		t.Errorf("contract-only v3: %+v %+v", v3.Metadata, v3.RuleSet)
	}
	same, err := sameJSON(v3.Schema, latest.Schema)
	if err != nil || !same {
		t.Errorf("v3 schema %s, want v2's %s", v3.Schema, latest.Schema)
	}

	// The subject's owner is visible to Confluent clients as metadata.
	resp, err := s.do(t.Context(), http.DefaultClient, "PUT", "/governance/subjects/"+subject+"/owner",
		`{"team":"shop","contact":"#shop-data","description":"customers of the web shop"}`)
	if err != nil || resp.Status != 200 {
		t.Fatalf("PUT owner: %v %d %s", err, resp.Status, resp.Body)
	}
	owned, err := newSRClient(t, s.URL).GetLatestSchemaMetadata(subject)
	if err != nil {
		t.Fatalf("GetLatestSchemaMetadata: %v", err)
	}
	if p := owned.Metadata.Properties; p["owner"] != "shop" || p["owner.contact"] != "#shop-data" || p["owner.description"] != "customers of the web shop" {
		t.Errorf("owner properties %v", p)
	}
	byOwner, err := newSRClient(t, s.URL).GetLatestWithMetadata(subject, map[string]string{"owner": "shop", "application.major.version": "1"}, false)
	if err != nil || byOwner.Version != 1 {
		t.Errorf("GetLatestWithMetadata(owner, major 1): %+v %v", byOwner.Version, err)
	}
}

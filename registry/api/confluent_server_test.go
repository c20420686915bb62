package api_test

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/sqlite"
)

// Behaviours of Confluent test classes that run the registry with a
// server setting (core/src/test/java/io/confluent/kafka/schemaregistry/
// rest/RestApi*ClusterTest.java in confluentinc/schema-registry): each
// test names the class and test it comes from. The schemas are Charter's
// own.

// newEnvService is newEnv with Service options and api options.
func newEnvService(t *testing.T, svcOpts []registry.Option, apiOpts ...func(*api.Options)) *env {
	t.Helper()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	log := slog.New(slog.DiscardHandler)
	opts := append([]registry.Option{registry.WithLogger(log), registry.WithMaxSchemaSize(64 << 10)}, svcOpts...)
	svc := registry.NewService(store, []compat.Format{avro.Format{}}, opts...)
	o := api.Options{Logger: log, MaxBodyBytes: 256 << 10, Version: "v-test"}
	for _, f := range apiOpts {
		f(&o)
	}
	return &env{t: t, h: api.New(svc, o), svc: svc}
}

// parcel is an Avro record of about 1 KB: one field per primitive type,
// then one with a default per type.
func parcel() string {
	var fields []string
	for _, p := range []string{"null", "boolean", "int", "long", "float", "double", "bytes", "string"} {
		fields = append(fields, `{"name":"plain_`+p+`","type":"`+p+`"}`)
	}
	for _, pd := range [][2]string{{"null", "null"}, {"boolean", "true"}, {"int", "7"}, {"long", "5000000000"},
		{"float", "1.5"}, {"double", "2.25"}, {"bytes", `"\u00ff"`}, {"string", `"unset"`}} {
		fields = append(fields, `{"name":"with_`+pd[0]+`_default","type":"`+pd[0]+`","default":`+pd[1]+`}`)
	}
	return `{"type":"record","name":"Parcel","namespace":"shipping.test","doc":"One parcel on its way to a customer.","fields":[` + strings.Join(fields, ",") + `]}`
}

// TestConfluentRestApiSchemaTooLargeTest_testSchemaTooLarge:
// RestApiSchemaTooLargeTest.testSchemaTooLarge (its cluster test lowers
// Kafka's message.max.bytes to 900): a schema over the limit is 422
// with 42209. Charter's limit is the schema text's (--max-schema-bytes),
// and nothing is stored.
func TestConfluentRestApiSchemaTooLargeTest_testSchemaTooLarge(t *testing.T) {
	s := parcel()
	if len(s) <= 900 {
		t.Fatalf("test bug: the schema is %d bytes, not over 900", len(s))
	}
	e := newEnvService(t, []registry.Option{registry.WithMaxSchemaSize(900)})
	e.run([]step{
		{method: "POST", path: "/subjects/testTopic1/versions", body: schemaBody(s), status: 422, code: 42209},
		{method: "GET", path: "/subjects", json: `[]`},
	})
}

// TestConfluentRestApiRequestBodySizeClusterTest_testRegisterSchemaExceedsBodySizeLimit:
// RestApiRequestBodySizeClusterTest.testRegisterSchemaExceedsBodySizeLimit,
// a register body over the 1 KB request limit (--max-body-bytes) is 413,
// and nothing is stored.
func TestConfluentRestApiRequestBodySizeClusterTest_testRegisterSchemaExceedsBodySizeLimit(t *testing.T) {
	doc := strings.Repeat("A parcel handed to the carrier. ", 70)
	s := `{"type":"record","name":"Label","fields":[{"name":"text","type":"string","doc":"` + doc + `"}]}`
	e := newEnvService(t, nil, func(o *api.Options) { o.MaxBodyBytes = 1024 })
	e.run([]step{
		{method: "POST", path: "/subjects/testLargeRequestBody/versions", body: schemaBody(s), status: 413},
		{method: "GET", path: "/subjects", json: `[]`},
	})
}

// TestConfluentRestApiRequestBodySizeClusterTest_testRegisterSchemaWithinBodySizeLimit:
// RestApiRequestBodySizeClusterTest.testRegisterSchemaWithinBodySizeLimit,
// a small schema under the same limit registers.
func TestConfluentRestApiRequestBodySizeClusterTest_testRegisterSchemaWithinBodySizeLimit(t *testing.T) {
	s := `{"type":"record","name":"Label","fields":[{"name":"text","type":"string"},{"name":"copies","type":"int"},{"name":"fragile","type":"boolean"}]}`
	e := newEnvService(t, nil, func(o *api.Options) { o.MaxBodyBytes = 1024 })
	e.run([]step{{method: "POST", path: "/subjects/testSmallRequestBody/versions", body: schemaBody(s), json: `{"id":1}`}})
}

// TestConfluentRestApiRejectEmptySubjectTest_testEmptySubjectRejectedWhenFlagEnabled:
// RestApiRejectEmptySubjectTest.testEmptySubjectRejectedWhenFlagEnabled
// (schema.reject.empty.subject; Charter's --reject-empty-subject): ":.:",
// the empty subject of the default context, is 422 with 42208 on register.
func TestConfluentRestApiRejectEmptySubjectTest_testEmptySubjectRejectedWhenFlagEnabled(t *testing.T) {
	e := newEnvService(t, []registry.Option{registry.WithRejectEmptySubject(true)})
	e.run([]step{
		{method: "POST", path: "/subjects/:.:/versions", body: schemaBody(cfV1), status: 422, code: 42208},
		{method: "POST", path: "/subjects/:.orders:/versions", body: schemaBody(cfV1), status: 422, code: 42208},
		{method: "GET", path: "/subjects", json: `[]`},
	})
}

// TestConfluentRestApiRejectEmptySubjectTest_testNonEmptySubjectStillAllowedWhenFlagEnabled:
// RestApiRejectEmptySubjectTest.testNonEmptySubjectStillAllowedWhenFlagEnabled.
func TestConfluentRestApiRejectEmptySubjectTest_testNonEmptySubjectStillAllowedWhenFlagEnabled(t *testing.T) {
	e := newEnvService(t, []registry.Option{registry.WithRejectEmptySubject(true)})
	e.run([]step{{method: "POST", path: "/subjects/normal-subject/versions", body: schemaBody(cfV1), json: `{"id":1}`}})
}

// TestConfluentRestApiRejectEmptySubjectTest_testWildcardSubjectRejectedWhenFlagEnabled:
// RestApiRejectEmptySubjectTest.testWildcardSubjectRejectedWhenFlagEnabled,
// "*" is 42208 too, the message naming it; without the setting both
// subjects register (RestApiTest.testRegisterSchemaWithWildcardSubjectAllowedByDefault).
// ":.:" is normalised as QualifiedSubject.normalize does, to "": Confluent
// then registers under the empty subject, which Charter has not (an empty
// subject name is 42208 on every route), so it is 42208 here; the empty
// subject of a context (":.ctx:") registers, as in Confluent.
func TestConfluentRestApiRejectEmptySubjectTest_testWildcardSubjectRejectedWhenFlagEnabled(t *testing.T) {
	e := newEnvService(t, []registry.Option{registry.WithRejectEmptySubject(true)})
	e.run([]step{{method: "POST", path: "/subjects/*/versions", body: schemaBody(cfV1), status: 422, code: 42208, contains: []string{`*`}}})
	newEnvService(t, nil).run([]step{
		{method: "POST", path: "/subjects/*/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/:.:/versions", body: schemaBody(cfV1), status: 422, code: 42208},
		{method: "POST", path: "/subjects/:.ctx:/versions", body: schemaBody(cfV1), json: `{"id":1}`},
	})
}

// Records of the reference-version tests: two versions of a referenced
// record, and two records that reference it.
const (
	rvAddress   = `{"type":"record","name":"Address","fields":[{"name":"street","type":"string"}]}`
	rvAddress2  = `{"type":"record","name":"Address","fields":[{"name":"street","type":"string"},{"name":"zip","type":["null","string"],"default":null}]}`
	rvCustomer  = `{"type":"record","name":"Customer","fields":[{"name":"name","type":"string"}]}`
	rvShipment  = `{"type":"record","name":"Shipment","fields":[{"name":"ref","type":"string"}]}`
	rvAddrRef1  = `{"name":"Address","subject":"address","version":1}`
	rvAddrRef2  = `{"name":"Address","subject":"address","version":2}`
	rvCustRef   = `{"name":"Customer","subject":"customer","version":1}`
	rvReferrers = `"references":[`
)

// conflictingReferences registers address v1 and v2, customer referencing
// address v2, then shipment referencing address v1 and customer: the
// same reference name at two versions in one graph.
func conflictingReferences(last step) []step {
	return []step{
		{method: "POST", path: "/subjects/address/versions", body: schemaBody(rvAddress), json: `{"id":1}`},
		{method: "POST", path: "/subjects/address/versions", body: schemaBody(rvAddress2), json: `{"id":2}`},
		{method: "POST", path: "/subjects/customer/versions", body: schemaBody(rvCustomer, rvReferrers+rvAddrRef2+`]`), json: `{"id":3}`},
		last,
	}
}

// TestConfluentRestApiReferenceVersionsStrictTest_testConflictingReferenceVersionsRejected:
// RestApiReferenceVersionsStrictTest.testConflictingReferenceVersionsRejected
// (schema.providers.reference.versions.strict; Charter's
// --reference-versions-strict): 42201 "Conflicting reference versions".
func TestConfluentRestApiReferenceVersionsStrictTest_testConflictingReferenceVersionsRejected(t *testing.T) {
	e := newEnvService(t, []registry.Option{registry.WithReferenceVersionsStrict(true)})
	e.run(conflictingReferences(step{method: "POST", path: "/subjects/shipment/versions",
		body: schemaBody(rvShipment, rvReferrers+rvAddrRef1+`,`+rvCustRef+`]`), status: 422, code: 42201,
		contains: []string{"Conflicting reference versions", `\"Address\"`}}))
}

// TestConfluentRestApiReferenceVersionsStrictTest_testConsistentReferenceVersionsAllowed:
// RestApiReferenceVersionsStrictTest.testConsistentReferenceVersionsAllowed,
// the same name at the same version twice is no conflict.
func TestConfluentRestApiReferenceVersionsStrictTest_testConsistentReferenceVersionsAllowed(t *testing.T) {
	e := newEnvService(t, []registry.Option{registry.WithReferenceVersionsStrict(true)})
	e.run([]step{
		{method: "POST", path: "/subjects/address/versions", body: schemaBody(rvAddress), json: `{"id":1}`},
		{method: "POST", path: "/subjects/customer/versions", body: schemaBody(rvCustomer, rvReferrers+rvAddrRef1+`]`), json: `{"id":2}`},
		{method: "POST", path: "/subjects/shipment/versions", body: schemaBody(rvShipment, rvReferrers+rvAddrRef1+`,`+rvCustRef+`]`), json: `{"id":3}`},
	})
}

// TestReferenceVersionsLenientByDefault: without the setting, as
// Confluent's default, the graph of
// testConflictingReferenceVersionsRejected registers (the first version
// of a name met wins).
func TestReferenceVersionsLenientByDefault(t *testing.T) {
	e := newEnvService(t, nil)
	e.run(conflictingReferences(step{method: "POST", path: "/subjects/shipment/versions",
		body: schemaBody(rvShipment, rvReferrers+rvAddrRef1+`,`+rvCustRef+`]`), json: `{"id":4}`}))
}

// TestConfluentQualifiedSubjectIsValidSubject: Confluent's
// QualifiedSubject.isValidSubject, parsing the subject as QualifiedSubject
// does (":.ctx:name", ":.ctx" the empty name of context .ctx, ":*:name"):
// the names __GLOBAL and __EMPTY are always refused (42208), on register
// and on PUT /config and /mode; the .__GLOBAL context only for config and
// mode; with schema.reject.empty.subject (--reject-empty-subject) an empty
// or wildcard name in any context is refused on register too.
func TestConfluentQualifiedSubjectIsValidSubject(t *testing.T) {
	reg := func(subject string, status, code int) step {
		return step{method: "POST", path: "/subjects/" + subject + "/versions", body: schemaBody(cfV1), status: status, code: code}
	}
	newEnvService(t, nil).run([]step{
		reg("__GLOBAL", 422, 42208),
		reg("__EMPTY", 422, 42208),
		reg(":.ctx:__GLOBAL", 422, 42208),
		reg(":.__GLOBAL:x", 422, 42208),
		{method: "PUT", path: "/config/__GLOBAL", body: `{"compatibility":"NONE"}`, status: 422, code: 42208},
		{method: "PUT", path: "/config/__EMPTY", body: `{"compatibility":"NONE"}`, status: 422, code: 42208},
		{method: "PUT", path: "/mode/__GLOBAL", body: `{"mode":"READONLY"}`, status: 422, code: 42208},
		{method: "PUT", path: "/config/:.__GLOBAL:x", body: `{"compatibility":"NONE"}`},
		{method: "GET", path: "/subjects", json: `[]`},
		// Not reserved: a name that only contains one, and, without the
		// setting, an empty name.
		reg("__GLOBALS", 0, 0),
		reg(":.ctx", 0, 0),
	})
	e := newEnvService(t, []registry.Option{registry.WithRejectEmptySubject(true)})
	e.run([]step{
		reg(":.ctx", 422, 42208),
		reg(":.", 422, 42208),
		reg(":*:", 422, 42208),
		reg(":*:*", 422, 42208),
		reg(":.ctx:*", 422, 42208),
		reg(":.ctx:x", 0, 0),
		{method: "GET", path: "/subjects", json: `[":.ctx:x"]`},
	})
}

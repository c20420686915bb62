package api_test

import (
	"encoding/json"
	"testing"
)

// Behaviours pinned by Confluent Schema Registry's RestApiCompatibilityTest
// and RestApiTransitiveCompatibilityTest (core/src/test/java/io/confluent/
// kafka/schemaregistry/rest/ in confluentinc/schema-registry), one test
// each, named after the Confluent test. The schemas are Charter's own: a
// record that gains a field, with a default (cpWithDefault: backward
// compatible) or without (cpRequired: only forward compatible).

const (
	cpBase        = `{"type":"record","name":"Shipment","fields":[{"name":"sku","type":"string"}]}`
	cpWithDefault = `{"type":"record","name":"Shipment","fields":[{"name":"sku","type":"string"},{"name":"carrier","type":"string","default":"post"}]}`
	cpRequired    = `{"type":"record","name":"Shipment","fields":[{"name":"sku","type":"string"},{"name":"carrier","type":"string"}]}`
	cpRequired2   = `{"type":"record","name":"Shipment","fields":[{"name":"sku","type":"string"},{"name":"carrier","type":"string"},{"name":"depot","type":"string"}]}`
	cpDefault3    = `{"type":"record","name":"Shipment","fields":[{"name":"sku","type":"string"},{"name":"carrier","type":"string"},{"name":"depot","type":"string","default":"main"}]}`
	cpNullable    = `{"type":"record","name":"Shipment","fields":[{"name":"sku","type":"string"},{"name":"carrier","type":["null","int"],"default":null}]}`
)

// TestConfluentRestApiCompatibilityTest_testCompatibility:
// RestApiCompatibilityTest.testCompatibility, under the default BACKWARD a
// field added without a default is 409 with a verbose message; text that
// is no schema is 42201; the field added with a default registers. The
// message names Charter's rule (AVRO_READER_FIELD_MISSING_DEFAULT), not
// Avro's READER_FIELD_MISSING_DEFAULT_VALUE (a README difference).
func TestConfluentRestApiCompatibilityTest_testCompatibility(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired), status: 409, code: 409,
			contains: []string{"errorType:'AVRO_READER_FIELD_MISSING_DEFAULT'", "path:'.carrier'", "oldSchemaVersion: 1"}},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody("not a schema at all"), status: 422, code: 42201},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpWithDefault), json: `{"id":2}`},
	})
}

// TestConfluentRestApiCompatibilityTest_testForceSkipsCompatibilityCheck:
// RestApiCompatibilityTest.testForceSkipsCompatibilityCheck expects
// ?force=true to register an incompatible schema. Charter deliberately
// does not (a README difference): the compatibility level is the gate the
// registry and charter check share, and a query parameter any client can
// set does not bypass it; the level (NONE) or IMPORT mode does.
func TestConfluentRestApiCompatibilityTest_testForceSkipsCompatibilityCheck(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testForceSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testForceSubject/versions", body: schemaBody(cpRequired), status: 409, code: 409},
		{method: "POST", path: "/subjects/testForceSubject/versions?normalize=false&force=true", body: schemaBody(cpRequired), status: 409, code: 409},
		{method: "PUT", path: "/config/testForceSubject", body: `{"compatibility":"NONE"}`},
		{method: "POST", path: "/subjects/testForceSubject/versions", body: schemaBody(cpRequired), json: `{"id":2}`},
	})
}

// TestConfluentRestApiCompatibilityTest_testCompatibilityLevelChangeToNone:
// RestApiCompatibilityTest.testCompatibilityLevelChangeToNone, the
// schema refused under BACKWARD registers once the global level is NONE.
func TestConfluentRestApiCompatibilityTest_testCompatibilityLevelChangeToNone(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired), status: 409, code: 409},
		{method: "PUT", path: "/config", body: `{"compatibility":"NONE"}`, json: `{"compatibility":"NONE"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired), json: `{"id":2}`},
	})
}

// TestConfluentRestApiCompatibilityTest_testCompatibilityLevelChangeToBackward:
// RestApiCompatibilityTest.testCompatibilityLevelChangeToBackward, the
// global level reads BACKWARD by default, FORWARD once set (a field
// without a default then registers), BACKWARD again (another such field
// is 409, one with a default registers).
func TestConfluentRestApiCompatibilityTest_testCompatibilityLevelChangeToBackward(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "GET", path: "/config", json: `{"compatibilityLevel":"BACKWARD"}`},
		{method: "PUT", path: "/config", body: `{"compatibility":"FORWARD"}`, json: `{"compatibility":"FORWARD"}`},
		{method: "GET", path: "/config", json: `{"compatibilityLevel":"FORWARD"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired), json: `{"id":2}`},
		{method: "PUT", path: "/config", body: `{"compatibility":"BACKWARD"}`, json: `{"compatibility":"BACKWARD"}`},
		{method: "GET", path: "/config", json: `{"compatibilityLevel":"BACKWARD"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired2), status: 409, code: 409},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpDefault3), json: `{"id":3}`},
	})
}

// TestConfluentRestApiCompatibilityTest_testCompatibilityGroup:
// RestApiCompatibilityTest.testCompatibilityGroup, with compatibilityGroup
// set a schema is checked only against versions whose metadata property
// of that name has the same value: refused in group 1's absence of the
// property, registered under application.version 2.
func TestConfluentRestApiCompatibilityTest_testCompatibilityGroup(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"compatibilityGroup":"application.version","validateFields":false}`,
			json: `{"compatibilityGroup":"application.version","validateFields":false}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase, `"metadata":{"properties":{"application.version":"1"}}`), json: `{"id":1}`},
		{method: "GET", path: "/config", contains: []string{`"compatibilityLevel":"BACKWARD"`}},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired), status: 409, code: 409},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired, `"metadata":{"properties":{"application.version":"2"}}`), json: `{"id":2}`},
	})
}

// TestConfluentRestApiCompatibilityTest_testAddCompatibilityGroup:
// RestApiCompatibilityTest.testAddCompatibilityGroup, a compatibility
// group set after a first version (registered with empty properties)
// lets a new group in, and a schema with empty properties again is
// checked against the first version only.
func TestConfluentRestApiCompatibilityTest_testAddCompatibilityGroup(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase, `"metadata":{"properties":{}}`), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired), status: 409, code: 409},
		{method: "PUT", path: "/config", body: `{"compatibilityGroup":"application.version","validateFields":false}`,
			json: `{"compatibilityGroup":"application.version","validateFields":false}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired, `"metadata":{"properties":{"application.version":"2"}}`), json: `{"id":2}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpNullable, `"metadata":{"properties":{}}`), json: `{"id":3}`},
	})
}

// TestConfluentRestApiCompatibilityTest_testClearCompatibilityGroup:
// RestApiCompatibilityTest.testClearCompatibilityGroup, a null
// compatibilityGroup clears it and leaves the rest of the config.
func TestConfluentRestApiCompatibilityTest_testClearCompatibilityGroup(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"compatibilityGroup":"application.version","validateFields":true}`,
			json: `{"compatibilityGroup":"application.version","validateFields":true}`},
		{method: "PUT", path: "/config", body: `{"compatibilityGroup":null}`},
		{method: "GET", path: "/config", contains: []string{`"validateFields":true`}, notContains: []string{"compatibilityGroup"}},
	})
}

// TestConfluentRestApiCompatibilityTest_testConfigMetadata:
// RestApiCompatibilityTest.testConfigMetadata, the config's
// defaultMetadata is merged under the request's own properties; a
// version registered without metadata inherits the previous version's;
// one registered with new properties keeps the default and drops the
// inherited ones; a lookup with the stored metadata finds the version.
func TestConfluentRestApiCompatibilityTest_testConfigMetadata(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"defaultMetadata":{"properties":{"configKey":"configValue"}},"validateFields":false}`,
			contains: []string{`"configKey":"configValue"`}},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase, `"metadata":{"properties":{"subjectKey":"subjectValue"}}`), contains: []string{`"id":1`}},
		{method: "GET", path: "/subjects/testSubject/versions/1", contains: []string{`"configKey":"configValue"`, `"subjectKey":"subjectValue"`}},
		{method: "POST", path: "/subjects/testSubject", body: schemaBody(cpBase, `"metadata":{"properties":{"configKey":"configValue","subjectKey":"subjectValue"}}`), contains: []string{`"version":1`}},
		{method: "PUT", path: "/config", body: `{"compatibility":"FORWARD"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired), contains: []string{`"id":2`}},
		{method: "GET", path: "/schemas/ids/2?subject=testSubject", contains: []string{`"configKey":"configValue"`, `"subjectKey":"subjectValue"`}},
		{method: "POST", path: "/subjects/testSubject", body: schemaBody(cpRequired, `"metadata":{"properties":{"configKey":"configValue","subjectKey":"subjectValue"}}`), contains: []string{`"version":2`}},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired), contains: []string{`"id":2`}},
		{method: "GET", path: "/subjects/testSubject/versions", json: `[1,2]`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired2, `"metadata":{"properties":{"newSubjectKey":"newSubjectValue"}}`), contains: []string{`"id":3`}},
		{method: "GET", path: "/schemas/ids/3?subject=testSubject", contains: []string{`"configKey":"configValue"`, `"newSubjectKey":"newSubjectValue"`}, notContains: []string{"subjectKey\":\"subjectValue"}},
	})
}

// TestConfluentRestApiCompatibilityTest_testConfigRuleSet:
// RestApiCompatibilityTest.testConfigRuleSet, the config's defaultRuleSet
// is merged before the request's rules; a version registered without a
// ruleSet inherits the previous one; GET /schemas?ruleType= lists the
// schemas with a rule of that type (latestOnly: of the latest versions).
func TestConfluentRestApiCompatibilityTest_testConfigRuleSet(t *testing.T) {
	rule := func(name, typ string) string {
		return `{"migrationRules":[{"name":"` + name + `","kind":"TRANSFORM","mode":"UPGRADE","type":"` + typ + `"}]}`
	}
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"defaultRuleSet":` + rule("foo", "IGNORE") + `,"validateFields":false}`, contains: []string{`"foo"`}},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase, `"ruleSet":`+rule("bar", "type1")), contains: []string{`"id":1`}},
		{method: "GET", path: "/subjects/testSubject/versions/1", contains: []string{`"name":"foo"`, `"name":"bar"`}},
		{method: "GET", path: "/schemas?ruleType=type1", contains: []string{`"id":1`}},
		{method: "PUT", path: "/config", body: `{"compatibility":"FORWARD"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired), contains: []string{`"id":2`}},
		{method: "GET", path: "/schemas/ids/2?subject=testSubject", contains: []string{`"name":"foo"`, `"name":"bar"`}},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired2, `"ruleSet":`+rule("zap", "type2")), contains: []string{`"id":3`}},
		{method: "GET", path: "/schemas/ids/3?subject=testSubject", contains: []string{`"name":"foo"`, `"name":"zap"`}, notContains: []string{`"name":"bar"`}},
		{method: "GET", path: "/schemas?ruleType=type1&latestOnly=true", json: `[]`},
		{method: "GET", path: "/schemas?ruleType=type2&latestOnly=true", contains: []string{`"id":3`}},
	})
}

// TestConfluentRestApiCompatibilityTest_testSchemaMetadata:
// RestApiCompatibilityTest.testSchemaMetadata, a request with metadata
// and no schema registers the latest version's schema with that metadata
// as a new version.
func TestConfluentRestApiCompatibilityTest_testSchemaMetadata(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: `{"metadata":{"properties":{"subjectKey":"subjectValue"}}}`, contains: []string{`"id":2`}},
		{method: "GET", path: "/schemas/ids/2?subject=testSubject", contains: []string{`"schema":` + jsonString(cpBase), `"metadata":{"properties":{"subjectKey":"subjectValue"}}`}},
	})
}

// TestConfluentRestApiCompatibilityTest_testSchemaRuleSet:
// RestApiCompatibilityTest.testSchemaRuleSet, a request with a ruleSet
// and no schema registers the latest version's schema with that ruleSet.
func TestConfluentRestApiCompatibilityTest_testSchemaRuleSet(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: `{"ruleSet":{"migrationRules":[{"name":"foo","kind":"TRANSFORM","mode":"UPGRADE","type":"IGNORE"}]}}`, contains: []string{`"id":2`}},
		{method: "GET", path: "/schemas/ids/2?subject=testSubject", contains: []string{`"schema":` + jsonString(cpBase), `"name":"foo"`}},
	})
}

// TestConfluentRestApiCompatibilityTest_testCompareAndSetVersion:
// RestApiCompatibilityTest.testCompareAndSetVersion, an explicit version
// that is not the subject's next is 42201; the next one registers.
func TestConfluentRestApiCompatibilityTest_testCompareAndSetVersion(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpWithDefault, `"version":3`), status: 422, code: 42201},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpWithDefault, `"version":2`), contains: []string{`"id":2`}},
		{method: "GET", path: "/subjects/testSubject/versions", json: `[1,2]`},
	})
}

// TestConfluentRestApiCompatibilityTest_testConfigInvalidRuleSet:
// RestApiCompatibilityTest.testConfigInvalidRuleSet, a config whose
// defaultRuleSet has a READ rule among the migration rules, or two rules
// of one name, is 422.
func TestConfluentRestApiCompatibilityTest_testConfigInvalidRuleSet(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"defaultRuleSet":{"migrationRules":[{"name":"foo","kind":"TRANSFORM","mode":"READ","type":"IGNORE"}]}}`, status: 422, code: 42210},
		{method: "PUT", path: "/config", body: `{"defaultRuleSet":{"domainRules":[{"name":"foo","kind":"TRANSFORM","mode":"READ","type":"IGNORE"},{"name":"foo","kind":"TRANSFORM","mode":"READ","type":"IGNORE"}]}}`, status: 422, code: 42210},
		{method: "GET", path: "/config", notContains: []string{"defaultRuleSet"}},
	})
}

// TestConfluentRestApiCompatibilityTest_testRegisterInvalidRuleSet:
// RestApiCompatibilityTest.testRegisterInvalidRuleSet, a rule without a
// type is 422.
func TestConfluentRestApiCompatibilityTest_testRegisterInvalidRuleSet(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase, `"ruleSet":{"migrationRules":[{"name":"foo","kind":"TRANSFORM","mode":"READ"}]}`), status: 422, code: 42210},
		{method: "GET", path: "/subjects", json: `[]`},
	})
}

// TestConfluentRestApiCompatibilityTest_testRegisterBadDefaultWithValidateNewSchemaConfig:
// RestApiCompatibilityTest.testRegisterBadDefaultWithValidateNewSchemaConfig,
// with validateNewSchemas on (Charter's only behaviour) an int field with
// a string default is 42201 for a check and a registration. Confluent
// answers the check compatible once validateNewSchemas is off; Charter
// accepts the setting and still validates (a README difference).
func TestConfluentRestApiCompatibilityTest_testRegisterBadDefaultWithValidateNewSchemaConfig(t *testing.T) {
	bad := `{"type":"record","name":"Shipment","fields":[{"name":"count","type":"int","default":"many"}]}`
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"validateNewSchemas":false}`, json: `{"validateNewSchemas":false}`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: schemaBody(bad), status: 422, code: 42201},
		{method: "PUT", path: "/config", body: `{"validateNewSchemas":true}`, json: `{"validateNewSchemas":true}`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: schemaBody(bad), status: 422, code: 42201},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(bad), status: 422, code: 42201},
	})
}

// TestConfluentRestApiCompatibilityTest_testGlobalNormalizeInheritedWhenSubjectConfigSet:
// RestApiCompatibilityTest.testGlobalNormalizeInheritedWhenSubjectConfigSet,
// with normalize on globally and a subject config that sets only the
// level, an int field with a string default is 42201 for a check and a
// registration.
func TestConfluentRestApiCompatibilityTest_testGlobalNormalizeInheritedWhenSubjectConfigSet(t *testing.T) {
	bad := `{"type":"record","name":"Shipment","fields":[{"name":"count","type":"int","default":"many"}]}`
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"normalize":true}`, json: `{"normalize":true}`},
		{method: "PUT", path: "/config/testSubject", body: `{"compatibility":"BACKWARD"}`, json: `{"compatibility":"BACKWARD"}`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: schemaBody(bad), status: 422, code: 42201},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(bad), status: 422, code: 42201},
	})
}

// TestConfluentRestApiCompatibilityTest_testSubjectAlias:
// RestApiCompatibilityTest.testSubjectAlias, a subject whose config has
// alias reads the aliased subject's versions.
func TestConfluentRestApiCompatibilityTest_testSubjectAlias(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "PUT", path: "/config/testAlias", body: `{"alias":"testSubject"}`, json: `{"alias":"testSubject"}`},
		{method: "GET", path: "/subjects/testAlias/versions/1/schema", json: cpBase},
		{method: "GET", path: "/subjects/testAlias/versions/1", contains: []string{`"id":1`, `"version":1`}},
	})
}

// TestConfluentRestApiCompatibilityTest_testSubjectAliasWithSlash:
// RestApiCompatibilityTest.testSubjectAliasWithSlash, an alias subject
// with a slash (sent encoded) works the same.
func TestConfluentRestApiCompatibilityTest_testSubjectAliasWithSlash(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "PUT", path: "/config/test%2FAlias", body: `{"alias":"testSubject"}`, json: `{"alias":"testSubject"}`},
		{method: "GET", path: "/subjects/test%2FAlias/versions/1/schema", json: cpBase},
	})
}

// TestConfluentRestApiCompatibilityTest_testGlobalAliasNotUsed:
// RestApiCompatibilityTest.testGlobalAliasNotUsed, an alias in the global
// config does not redirect reads of a subject.
func TestConfluentRestApiCompatibilityTest_testGlobalAliasNotUsed(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "PUT", path: "/config", body: `{"alias":"badSubject","validateFields":false}`, json: `{"alias":"badSubject","validateFields":false}`},
		{method: "GET", path: "/subjects/testSubject/versions/1/schema", json: cpBase},
	})
}

// TestConfluentRestApiCompatibilityTest_testGetSchemasWithAliases:
// RestApiCompatibilityTest.testGetSchemasWithAliases, GET /schemas with
// subjectPrefix matches aliases only with aliases=true, and each schema
// of an aliased subject lists its aliases (in order, each subject once).
func TestConfluentRestApiCompatibilityTest_testGetSchemasWithAliases(t *testing.T) {
	other1 := `{"type":"record","name":"Parcel","fields":[{"name":"x","type":"string"}]}`
	other2 := `{"type":"record","name":"Parcel","fields":[{"name":"x","type":"string"},{"name":"y","type":"string","default":""}]}`
	gator := `{"type":"record","name":"Crate","fields":[{"name":"a","type":"string"}]}`
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpWithDefault), json: `{"id":2}`},
		{method: "POST", path: "/subjects/noTestSubject/versions", body: schemaBody(other1), json: `{"id":3}`},
		{method: "POST", path: "/subjects/noTestSubject/versions", body: schemaBody(other2), json: `{"id":4}`},
		{method: "PUT", path: "/config/testAlias", body: `{"alias":"testSubject"}`},
		{method: "GET", path: "/schemas?subjectPrefix=testAlias&aliases=false", json: `[]`},
		{method: "GET", path: "/schemas?subjectPrefix=testAlias&aliases=true", contains: []string{`"subject":"testSubject"`, `"aliases":["testAlias"]`}, notContains: []string{"noTestSubject"}},
		{method: "POST", path: "/subjects/testAlligator/versions", body: schemaBody(gator), json: `{"id":5}`},
		{method: "PUT", path: "/config/testAlias2", body: `{"alias":"testSubject"}`},
		{method: "GET", path: "/schemas?subjectPrefix=testAl&aliases=true", contains: []string{`"subject":"testAlligator"`, `"aliases":["testAlias","testAlias2"]`}},
		{method: "GET", path: "/schemas?subjectPrefix=test&aliases=true", contains: []string{`"aliases":["testAlias","testAlias2"]`}},
	})
	e := newEnv(t)
	e.run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpWithDefault), json: `{"id":2}`},
		{method: "POST", path: "/subjects/testAlligator/versions", body: schemaBody(gator), json: `{"id":3}`},
		{method: "PUT", path: "/config/testAlias", body: `{"alias":"testSubject"}`},
	})
	for _, prefix := range []string{"testAl", "test"} {
		got := decodeList(t, e.mustDo("GET", "/schemas?subjectPrefix="+prefix+"&aliases=true", ""))
		if len(got) != 3 {
			t.Fatalf("subjectPrefix=%s&aliases=true: %d schemas, want 3 (each subject once): %v", prefix, len(got), got)
		}
	}
}

// TestConfluentRestApiCompatibilityTest_testRegisterEmptyRuleSet:
// RestApiCompatibilityTest.testRegisterEmptyRuleSet, a schema registered
// with an empty ruleSet is found by a lookup without one; a ruleSet sent
// without a schema makes a new version. Not matched: Confluent's lookup
// without a ruleSet then answers the new version (it keeps the empty
// ruleSet, so version 1 is no exact match and the latest version's
// ruleSet is tried); Charter answers version 1, whose empty ruleSet it
// treats as none.
func TestConfluentRestApiCompatibilityTest_testRegisterEmptyRuleSet(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase, `"ruleSet":{"domainRules":[]}`), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject", body: schemaBody(cpBase), contains: []string{`"id":1`}},
		{method: "POST", path: "/subjects/testSubject/versions", body: `{"ruleSet":{"domainRules":[{"name":"foo","kind":"TRANSFORM","mode":"READ","type":"IGNORE"}]}}`, contains: []string{`"id":2`}},
		{method: "POST", path: "/subjects/testSubject", body: schemaBody(cpBase), contains: []string{`"id":1`}},
	})
}

// TestConfluentRestApiCompatibilityTest_testGetSchemasDeletedProperty:
// RestApiCompatibilityTest.testGetSchemasDeletedProperty, GET /schemas
// with deleted=true lists a soft-deleted version marked deleted; without,
// it is not listed. (Confluent also answers its registration time, "ts",
// which Charter does not store: a README difference.)
func TestConfluentRestApiCompatibilityTest_testGetSchemasDeletedProperty(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "DELETE", path: "/subjects/testSubject/versions/1", json: `1`},
		{method: "GET", path: "/schemas?subjectPrefix=testSubject&deleted=true", contains: []string{`"deleted":true`, `"version":1`}},
		{method: "GET", path: "/schemas?subjectPrefix=testSubject&deleted=false", json: `[]`},
	})
}

// TestConfluentRestApiTransitiveCompatibilityTest_testCompatibility:
// RestApiTransitiveCompatibilityTest.testCompatibility, under
// BACKWARD_TRANSITIVE dropping the default of a field added earlier is
// 409 (the first version lacks the field).
func TestConfluentRestApiTransitiveCompatibilityTest_testCompatibility(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"compatibility":"BACKWARD_TRANSITIVE"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpBase), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpWithDefault), json: `{"id":2}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired), status: 409, code: 409},
	})
}

// TestConfluentRestApiTransitiveCompatibilityTest_validateTransitiveEffect:
// RestApiTransitiveCompatibilityTest.validateTransitiveEffect, under
// BACKWARD_TRANSITIVE dropping a default with no earlier version without
// the field registers.
func TestConfluentRestApiTransitiveCompatibilityTest_validateTransitiveEffect(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"compatibility":"BACKWARD_TRANSITIVE"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpWithDefault), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cpRequired), json: `{"id":2}`},
	})
}

// decodeList decodes a JSON array answer.
func decodeList(t *testing.T, body string) []any {
	t.Helper()
	var out []any
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("body %q is not a JSON array: %v", body, err)
	}
	return out
}

// TestConfluentConfigKeepsValidateNewSchemasAndRules: Confluent's Config
// entity keeps validateNewSchemas and validateRules and answers them in
// PUT and GET /config (global and subject); Charter stores and answers
// them, and they have no effect (a new schema and its rules are always
// validated).
func TestConfluentConfigKeepsValidateNewSchemasAndRules(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"validateNewSchemas":false,"validateRules":true}`,
			contains: []string{`"validateNewSchemas":false`, `"validateRules":true`}},
		{method: "GET", path: "/config", contains: []string{`"validateNewSchemas":false`, `"validateRules":true`}},
		{method: "PUT", path: "/config/s", body: `{"validateRules":false}`, contains: []string{`"validateRules":false`}, notContains: []string{"validateNewSchemas"}},
		{method: "GET", path: "/config/s", contains: []string{`"validateRules":false`}, notContains: []string{"validateNewSchemas"}},
		{method: "GET", path: "/config/s?defaultToGlobal=true", contains: []string{`"validateNewSchemas":false`, `"validateRules":false`}},
		// A member left out stays as it was.
		{method: "PUT", path: "/config", body: `{"compatibility":"FULL"}`, contains: []string{`"validateNewSchemas":false`, `"validateRules":true`}},
		// No effect: an invalid default is still refused.
		{method: "POST", path: "/subjects/s/versions", status: 422, code: 42201,
			body: schemaBody(`{"type":"record","name":"R","fields":[{"name":"f","type":"int","default":"x"}]}`)},
	})
}

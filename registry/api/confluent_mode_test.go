package api_test

import (
	"testing"
)

// Behaviours pinned by Confluent Schema Registry's RestApiModeTest
// (core/src/test/java/io/confluent/kafka/schemaregistry/rest/
// RestApiModeTest.java in confluentinc/schema-registry), one test each,
// named after the Confluent test. The schemas are Charter's own.

const (
	cfRec    = `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"}]}`
	cfRecInt = `{"type":"record","name":"Order","fields":[{"name":"id","type":"int"}]}`
	// cfDec and cfDecReordered are one schema written two ways (the
	// decimal's attributes in another order).
	cfDec          = `{"type":"record","name":"Price","fields":[{"name":"amount","type":["null",{"type":"bytes","scale":2,"precision":9,"logicalType":"decimal"}],"default":null}]}`
	cfDecReordered = `{"type":"record","name":"Price","fields":[{"name":"amount","type":["null",{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}],"default":null}]}`
)

// TestConfluentRestApiModeTest_testReadOnlyMode: RestApiModeTest.testReadOnlyMode,
// a registration under a global READONLY is refused with 422.
func TestConfluentRestApiModeTest_testReadOnlyMode(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"READONLY"}`, json: `{"mode":"READONLY"}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec), status: 422, code: 42205},
	})
}

// TestConfluentRestApiModeTest_testReadWriteMode: RestApiModeTest.testReadWriteMode,
// in READWRITE an explicit id and version are refused (422), and the same
// schema without them registers.
func TestConfluentRestApiModeTest_testReadWriteMode(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"READWRITE"}`, json: `{"mode":"READWRITE"}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec, `"id":1`, `"version":1`), status: 422},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec), json: `{"id":1}`},
	})
}

// TestConfluentRestApiModeTest_testImportMode: RestApiModeTest.testImportMode,
// IMPORT on an empty registry takes an explicit id and version.
func TestConfluentRestApiModeTest_testImportMode(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`, json: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec, `"id":1`, `"version":1`), json: `{"id":1}`},
	})
}

// TestConfluentRestApiModeTest_testImportModeWithoutId:
// RestApiModeTest.testImportModeWithoutId, a new schema without an id is
// refused in IMPORT mode (422).
func TestConfluentRestApiModeTest_testImportModeWithoutId(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec), status: 422, code: 42205},
	})
}

// TestConfluentRestApiModeTest_testInvalidImportMode:
// RestApiModeTest.testInvalidImportMode, IMPORT over existing subjects
// needs force=true, for the subject's mode as for the global one.
func TestConfluentRestApiModeTest_testInvalidImportMode(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec), json: `{"id":1}`},
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`, status: 422, code: 42205},
		{method: "PUT", path: "/mode/s?force=true", body: `{"mode":"IMPORT"}`, json: `{"mode":"IMPORT"}`},
		{method: "PUT", path: "/mode?force=true", body: `{"mode":"IMPORT"}`, json: `{"mode":"IMPORT"}`},
	})
}

// TestConfluentRestApiModeTest_testRegisterSchemaWithNoIdAfterImport:
// RestApiModeTest.testRegisterSchemaWithNoIdAfterImport, in IMPORT mode a
// schema already in the subject registers without an id (auto-registering
// clients keep working) and answers its id.
func TestConfluentRestApiModeTest_testRegisterSchemaWithNoIdAfterImport(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"READWRITE"}`},
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec, `"id":1`, `"version":1`), json: `{"id":1}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec), json: `{"id":1}`},
	})
}

// TestConfluentRestApiModeTest_testRegisterSchemaWithDifferentIdAfterImport:
// RestApiModeTest.testRegisterSchemaWithDifferentIdAfterImport, once the
// subject is soft-deleted, IMPORT takes the same schema under another id.
func TestConfluentRestApiModeTest_testRegisterSchemaWithDifferentIdAfterImport(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec), json: `{"id":1}`},
		{method: "DELETE", path: "/subjects/s", json: `[1]`},
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec, `"id":2`, `"version":1`), json: `{"id":2}`},
		{method: "GET", path: "/schemas/ids/2", contains: []string{`Order`}},
		{method: "GET", path: "/subjects/s/versions/1", contains: []string{`"id":2`}},
	})
}

// TestConfluentRestApiModeTest_testRegisterSchemaWithSameIdAfterImport:
// RestApiModeTest.testRegisterSchemaWithSameIdAfterImport, IMPORT of a
// soft-deleted version's schema under its own id, twice around another
// soft delete, and the version reads back.
func TestConfluentRestApiModeTest_testRegisterSchemaWithSameIdAfterImport(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec), json: `{"id":1}`},
		{method: "DELETE", path: "/subjects/s", json: `[1]`},
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec, `"id":1`, `"version":1`), json: `{"id":1}`},
		{method: "DELETE", path: "/subjects/s", json: `[1]`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec, `"id":1`, `"version":1`), json: `{"id":1}`},
		{method: "GET", path: "/subjects/s/versions/1", contains: []string{`"id":1`, `"version":1`}},
	})
}

// TestConfluentRestApiModeTest_testImportModeWithEquivalentSchemaDifferentId:
// RestApiModeTest.testImportModeWithEquivalentSchemaDifferentId, one schema
// written two ways imports as two versions under two ids, each read back
// as sent.
func TestConfluentRestApiModeTest_testImportModeWithEquivalentSchemaDifferentId(t *testing.T) {
	e := newEnv(t)
	e.run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfDec, `"id":100`, `"version":1`), json: `{"id":100}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfDecReordered, `"id":200`, `"version":2`), json: `{"id":200}`},
		{method: "GET", path: "/subjects/s/versions/1", contains: []string{`"id":100`}},
		{method: "GET", path: "/subjects/s/versions/2", contains: []string{`"id":200`}},
	})
}

// TestConfluentRestApiModeTest_testImportModeWithSameSchemaDifferentId:
// RestApiModeTest.testImportModeWithSameSchemaDifferentId, the same schema
// imports as two versions of one subject under two ids (Confluent since
// 7.0.4); both ids then answer it.
func TestConfluentRestApiModeTest_testImportModeWithSameSchemaDifferentId(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfDec, `"id":100`, `"version":1`), json: `{"id":100}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfDec, `"id":200`, `"version":2`), json: `{"id":200}`},
		{method: "GET", path: "/subjects/s/versions/1", contains: []string{`"id":100`}},
		{method: "GET", path: "/subjects/s/versions/2", contains: []string{`"id":200`}},
		{method: "GET", path: "/schemas/ids/100", contains: []string{`Price`}},
		{method: "GET", path: "/schemas/ids/200", contains: []string{`Price`}},
		// Importing it again under an id that already holds it is the
		// existing version.
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfDec, `"id":200`), json: `{"id":200}`},
		{method: "GET", path: "/subjects/s/versions", json: `[1,2]`},
	})
}

// TestConfluentRestApiModeTest_testImportModeWithSameSchemaDifferentIdAndSubject:
// RestApiModeTest.testImportModeWithSameSchemaDifferentIdAndSubject, the
// same schema imported under two ids in two subjects; a lookup in each
// subject finds its own version.
func TestConfluentRestApiModeTest_testImportModeWithSameSchemaDifferentIdAndSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/s1/versions", body: schemaBody(cfDec, `"id":100`, `"version":1`), json: `{"id":100}`},
		{method: "POST", path: "/subjects/s1", body: schemaBody(cfDec), contains: []string{`"version":1`, `"id":100`}},
		{method: "POST", path: "/subjects/s2/versions", body: schemaBody(cfDec, `"id":200`, `"version":1`), json: `{"id":200}`},
		{method: "POST", path: "/subjects/s1", body: schemaBody(cfDec), contains: []string{`"version":1`, `"id":100`}},
		{method: "POST", path: "/subjects/s2", body: schemaBody(cfDec), contains: []string{`"version":1`, `"id":200`}},
		{method: "GET", path: "/schemas/ids/200/versions", json: `[{"subject":"s2","version":1}]`},
		{method: "GET", path: "/schemas/ids/100/versions", json: `[{"subject":"s1","version":1}]`},
	})
}

// TestConfluentRestApiModeTest_testRegisterIncompatibleSchemaDuringImport:
// RestApiModeTest.testRegisterIncompatibleSchemaDuringImport, IMPORT
// checks no compatibility: an incompatible version imports.
func TestConfluentRestApiModeTest_testRegisterIncompatibleSchemaDuringImport(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec), json: `{"id":1}`},
		{method: "DELETE", path: "/subjects/s", json: `[1]`},
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec, `"id":1`, `"version":1`), json: `{"id":1}`},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRecInt, `"id":2`, `"version":2`), json: `{"id":2}`},
		{method: "GET", path: "/subjects/s/versions/2", contains: []string{`"id":2`, `int`}},
	})
}

// TestConfluentRestApiModeTest_testDeleteGlobalMode:
// RestApiModeTest.testDeleteGlobalMode, DELETE /mode answers the mode it
// removed and the global mode is READWRITE again.
func TestConfluentRestApiModeTest_testDeleteGlobalMode(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"READONLY"}`},
		{method: "GET", path: "/mode", json: `{"mode":"READONLY"}`},
		{method: "DELETE", path: "/mode", json: `{"mode":"READONLY"}`},
		{method: "GET", path: "/mode", json: `{"mode":"READWRITE"}`},
	})
}

// TestConfluentRestApiModeTest_testDeleteSubjectModeAfterGlobalMode:
// RestApiModeTest.testDeleteSubjectModeAfterGlobalMode, deleting a
// subject's mode answers it, and the subject falls back to the global one.
func TestConfluentRestApiModeTest_testDeleteSubjectModeAfterGlobalMode(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"READONLY"}`},
		{method: "PUT", path: "/mode/s", body: `{"mode":"READWRITE"}`, json: `{"mode":"READWRITE"}`},
		{method: "GET", path: "/mode/s", json: `{"mode":"READWRITE"}`},
		{method: "DELETE", path: "/mode/s", json: `{"mode":"READWRITE"}`},
		{method: "GET", path: "/mode/s?defaultToGlobal=true", json: `{"mode":"READONLY"}`},
	})
}

// TestConfluentImportOverwriteForgetsReplacedID: an IMPORT that replaces
// the schema of an existing version forgets the ID it replaced once no
// version holds it, as Confluent does (the import then succeeds under a
// third ID; the peer BDD suite's import_mode_comprehensive.feature,
// "Duplicate version import" followed by "Same version number in
// different subjects", depends on it).
func TestConfluentImportOverwriteForgetsReplacedID(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/dup/versions", body: schemaBody(`"string"`, `"id":60`, `"version":1`), json: `{"id":60}`},
		{method: "POST", path: "/subjects/dup/versions", body: schemaBody(`"int"`, `"id":61`, `"version":1`), json: `{"id":61}`},
		{method: "GET", path: "/schemas/ids/60", status: 404, code: 40403},
		{method: "POST", path: "/subjects/other/versions", body: schemaBody(`"string"`, `"id":70`, `"version":1`), json: `{"id":70}`},
		{method: "GET", path: "/subjects/dup/versions/1", contains: []string{`"id":61`}},
	})
}

// TestConfluentRegisterOrForwardReadOnlyReturnsExisting: Confluent's
// KafkaSchemaRegistry.registerOrForward looks the schema up under the
// subject and answers its existing ID before register's checkRegisterMode,
// so a schema already registered registers again (also with "version":-1)
// in READONLY and READONLY_OVERRIDE, at the subject's and the global
// level; a new schema is still refused with 42205.
func TestConfluentRegisterOrForwardReadOnlyReturnsExisting(t *testing.T) {
	for _, c := range []struct{ name, path, mode string }{
		{"subject READONLY", "/mode/s", "READONLY"},
		{"subject READONLY_OVERRIDE", "/mode/s", "READONLY_OVERRIDE"},
		{"global READONLY", "/mode", "READONLY"},
		{"global READONLY_OVERRIDE", "/mode", "READONLY_OVERRIDE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			steps := []step{
				{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec), json: `{"id":1}`},
				{method: "PUT", path: c.path, body: `{"mode":"` + c.mode + `"}`, json: `{"mode":"` + c.mode + `"}`},
				{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec), json: `{"id":1}`},
				{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec, `"version":-1`), json: `{"id":1}`},
				{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRecInt), status: 422, code: 42205},
				{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRecInt, `"version":-1`), status: 422, code: 42205},
				{method: "GET", path: "/subjects/s/versions", json: `[1]`},
			}
			if c.path == "/mode" {
				// The schema's ID exists, but not under this subject.
				steps = append(steps, step{method: "POST", path: "/subjects/other/versions", body: schemaBody(cfRec), status: 422, code: 42205})
			}
			newEnv(t).run(steps)
		})
	}
}

package api_test

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// Behaviours pinned by Confluent Schema Registry's RestApiTest
// (core/src/test/java/io/confluent/kafka/schemaregistry/rest/
// RestApiTest.java in confluentinc/schema-registry), one test each,
// named after the Confluent test. The schemas are Charter's own: three
// versions of one record, each backward compatible with the one before.

const (
	cfV1 = `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"}]}`
	cfV2 = `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"note","type":"string","default":""}]}`
	cfV3 = `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"note","type":"string","default":""},{"name":"qty","type":"int","default":0}]}`
)

// registerTwo registers cfV1 and cfV2 under subject (ids 1 and 2).
func registerTwo(subject string) []step {
	return []step{
		{method: "POST", path: "/subjects/" + subject + "/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/" + subject + "/versions", body: schemaBody(cfV2), json: `{"id":2}`},
	}
}

// TestConfluentRestApiTest_testDeleteSchemaVersionBasic:
// RestApiTest.testDeleteSchemaVersionBasic, a soft-deleted version leaves
// the versions list, is read with deleted=true only (40402 without), is not
// found by lookup (40403); deleting the last version leaves the subject
// unknown (40401), and registering again gives the next version, once.
func TestConfluentRestApiTest_testDeleteSchemaVersionBasic(t *testing.T) {
	steps := registerTwo("test")
	steps = append(steps, []step{
		{method: "DELETE", path: "/subjects/test/versions/2", json: `2`},
		{method: "GET", path: "/subjects/test/versions", json: `[1]`},
		{method: "GET", path: "/subjects/test/versions/2?deleted=true", contains: []string{`"version":2`, `"deleted":true`}},
		{method: "GET", path: "/subjects/test/versions/2", status: 404, code: 40402},
		{method: "POST", path: "/subjects/test", body: schemaBody(cfV2), status: 404, code: 40403},
		{method: "DELETE", path: "/subjects/test/versions/latest", json: `1`},
		{method: "GET", path: "/subjects/test/versions", status: 404, code: 40401},
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "GET", path: "/subjects/test/versions", json: `[3]`},
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "GET", path: "/subjects/test/versions", json: `[3]`},
	}...)
	newEnv(t).run(steps)
}

// TestConfluentRestApiTest_testDeleteSchemaVersionPermanent:
// RestApiTest.testDeleteSchemaVersionPermanent, a permanent delete needs a
// soft delete first (40407), a second soft delete is 40406, deleted=true
// lists the soft-deleted version (and pages with offset and limit), a
// permanently deleted version is gone even with deleted=true (40402), and
// its number is given again.
func TestConfluentRestApiTest_testDeleteSchemaVersionPermanent(t *testing.T) {
	steps := registerTwo("test")
	steps = append(steps, []step{
		{method: "DELETE", path: "/subjects/test/versions/2?permanent=true", status: 404, code: 40407},
		{method: "DELETE", path: "/subjects/test/versions/2", json: `2`},
		{method: "GET", path: "/subjects/test/versions", json: `[1]`},
		{method: "GET", path: "/subjects/test/versions?deleted=true", json: `[1,2]`},
		{method: "GET", path: "/subjects/test/versions?deleted=true&offset=0&limit=1", json: `[1]`},
		{method: "DELETE", path: "/subjects/test/versions/2", status: 404, code: 40406},
		{method: "GET", path: "/subjects/test/versions/2", status: 404, code: 40402},
		{method: "GET", path: "/subjects/test/versions/2?deleted=true", contains: []string{`"version":2`}},
		{method: "POST", path: "/subjects/test", body: schemaBody(cfV2), status: 404, code: 40403},
		{method: "DELETE", path: "/subjects/test/versions/2?permanent=true", json: `2`},
		{method: "GET", path: "/subjects/test/versions/2?deleted=true", status: 404, code: 40402},
		{method: "DELETE", path: "/subjects/test/versions/2?permanent=true", status: 404, code: 40402},
		{method: "DELETE", path: "/subjects/test/versions/latest", json: `1`},
		{method: "GET", path: "/subjects/test/versions", status: 404, code: 40401},
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "GET", path: "/subjects/test/versions", json: `[2]`},
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "GET", path: "/subjects/test/versions", json: `[2]`},
	}...)
	newEnv(t).run(steps)
}

// TestConfluentRestApiTest_testDeleteSchemaVersionInvalidSubject:
// RestApiTest.testDeleteSchemaVersionInvalidSubject, deleting a version of
// an unknown subject is 40401.
func TestConfluentRestApiTest_testDeleteSchemaVersionInvalidSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "DELETE", path: "/subjects/test/versions/1", status: 404, code: 40401},
	})
}

// TestConfluentRestApiTest_testDeleteLatestVersion:
// RestApiTest.testDeleteLatestVersion, deleting "latest" moves latest back
// a version; with none left latest is 40401, and a new registration is
// latest again.
func TestConfluentRestApiTest_testDeleteLatestVersion(t *testing.T) {
	steps := registerTwo("test")
	steps = append(steps, []step{
		{method: "DELETE", path: "/subjects/test/versions/latest", json: `2`},
		{method: "GET", path: "/subjects/test/versions/latest/schema", json: cfV1},
		{method: "DELETE", path: "/subjects/test/versions/latest", json: `1`},
		{method: "GET", path: "/subjects/test/versions/latest", status: 404, code: 40401},
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV3), json: `{"id":3}`},
		{method: "GET", path: "/subjects/test/versions/latest/schema", json: cfV3},
	}...)
	newEnv(t).run(steps)
}

// TestConfluentRestApiTest_testGetLatestVersionNonExistentSubject:
// RestApiTest.testGetLatestVersionNonExistentSubject, 40401.
func TestConfluentRestApiTest_testGetLatestVersionNonExistentSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "GET", path: "/subjects/non_existent_subject/versions/latest", status: 404, code: 40401},
	})
}

// TestConfluentRestApiTest_testGetLatestVersionDeleteOlder:
// RestApiTest.testGetLatestVersionDeleteOlder, deleting an older version
// leaves latest as it was.
func TestConfluentRestApiTest_testGetLatestVersionDeleteOlder(t *testing.T) {
	steps := registerTwo("test")
	steps = append(steps, []step{
		{method: "DELETE", path: "/subjects/test/versions/1", json: `1`},
		{method: "GET", path: "/subjects/test/versions/latest/schema", json: cfV2},
	}...)
	newEnv(t).run(steps)
}

// TestConfluentRestApiTest_testDeleteInvalidVersion:
// RestApiTest.testDeleteInvalidVersion, deleting a version the subject
// does not have is 40402.
func TestConfluentRestApiTest_testDeleteInvalidVersion(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "DELETE", path: "/subjects/test/versions/2", status: 404, code: 40402},
	})
}

// TestConfluentRestApiTest_testDeleteWithLookup:
// RestApiTest.testDeleteWithLookup, lookup finds a soft-deleted version
// only with deleted=true, and after the schema registers again every
// lookup answers the new version.
func TestConfluentRestApiTest_testDeleteWithLookup(t *testing.T) {
	steps := registerTwo("test")
	steps = append(steps, []step{
		{method: "DELETE", path: "/subjects/test/versions/1", json: `1`},
		{method: "POST", path: "/subjects/test?deleted=false", body: schemaBody(cfV1), status: 404, code: 40403},
		{method: "POST", path: "/subjects/test?deleted=true", body: schemaBody(cfV1), contains: []string{`"version":1`}},
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test?deleted=true", body: schemaBody(cfV1), contains: []string{`"version":3`}},
		{method: "POST", path: "/subjects/test?deleted=false", body: schemaBody(cfV1), contains: []string{`"version":3`}},
		{method: "POST", path: "/subjects/test", body: schemaBody(cfV1), contains: []string{`"version":3`}},
	}...)
	newEnv(t).run(steps)
}

// TestConfluentRestApiTest_testListSubjects: RestApiTest.testListSubjects,
// a soft-deleted subject is listed with deleted=true only, and a permanent
// delete answers the versions it removed.
func TestConfluentRestApiTest_testListSubjects(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test1/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test2/versions", body: schemaBody(cfV2), json: `{"id":2}`},
		{method: "GET", path: "/subjects", json: `["test1","test2"]`},
		{method: "DELETE", path: "/subjects/test2", json: `[1]`},
		{method: "GET", path: "/subjects", json: `["test1"]`},
		{method: "GET", path: "/subjects?deleted=true", json: `["test1","test2"]`},
		{method: "DELETE", path: "/subjects/test2?permanent=true", json: `[1]`},
		{method: "GET", path: "/subjects", json: `["test1"]`},
		{method: "GET", path: "/subjects?deleted=true", json: `["test1"]`},
	})
}

// TestConfluentRestApiTest_testListSoftDeletedSubjectsAndSchemas:
// RestApiTest.testListSoftDeletedSubjectsAndSchemas, deleted=true and
// deletedOnly=true on the versions and subjects lists.
func TestConfluentRestApiTest_testListSoftDeletedSubjectsAndSchemas(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test1/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test1/versions", body: schemaBody(cfV2), json: `{"id":2}`},
		{method: "POST", path: "/subjects/test2/versions", body: schemaBody(cfV3), json: `{"id":3}`},
		{method: "DELETE", path: "/subjects/test1/versions/1", json: `1`},
		{method: "DELETE", path: "/subjects/test2/versions/1", json: `1`},
		{method: "GET", path: "/subjects/test1/versions", json: `[2]`},
		{method: "GET", path: "/subjects/test1/versions?deleted=true", json: `[1,2]`},
		{method: "GET", path: "/subjects/test1/versions?deletedOnly=true", json: `[1]`},
		{method: "GET", path: "/subjects", json: `["test1"]`},
		{method: "GET", path: "/subjects?deleted=true", json: `["test1","test2"]`},
		{method: "GET", path: "/subjects?deletedOnly=true", json: `["test2"]`},
	})
}

// TestConfluentRestApiTest_testDeleteSubjectBasic:
// RestApiTest.testDeleteSubjectBasic, a subject delete answers its
// versions and leaves latest 40401.
func TestConfluentRestApiTest_testDeleteSubjectBasic(t *testing.T) {
	steps := registerTwo("test")
	steps = append(steps, []step{
		{method: "DELETE", path: "/subjects/test", json: `[1,2]`},
		{method: "GET", path: "/subjects/test/versions/latest", status: 404, code: 40401},
	}...)
	newEnv(t).run(steps)
}

// TestConfluentRestApiTest_testDeleteSubjectException:
// RestApiTest.testDeleteSubjectException, a soft-deleted subject's
// versions are found by lookup with deleted=true, and a second soft delete
// is 40404.
func TestConfluentRestApiTest_testDeleteSubjectException(t *testing.T) {
	steps := registerTwo("test")
	steps = append(steps, []step{
		{method: "DELETE", path: "/subjects/test", json: `[1,2]`},
		{method: "POST", path: "/subjects/test?deleted=true", body: schemaBody(cfV1), contains: []string{`"version":1`}},
		{method: "POST", path: "/subjects/test?deleted=true", body: schemaBody(cfV2), contains: []string{`"version":2`}},
		{method: "DELETE", path: "/subjects/test", status: 404, code: 40404},
	}...)
	newEnv(t).run(steps)
}

// TestConfluentRestApiTest_testDeleteNonExistentSubject:
// RestApiTest.testDeleteNonExistentSubject, soft and permanent deletes of a
// subject never registered are both 40401.
func TestConfluentRestApiTest_testDeleteNonExistentSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "DELETE", path: "/subjects/never-registered-subject", status: 404, code: 40401},
		{method: "DELETE", path: "/subjects/never-registered-subject?permanent=true", status: 404, code: 40401},
	})
}

// TestConfluentRestApiTest_testDeleteSubjectPermanent:
// RestApiTest.testDeleteSubjectPermanent, a permanent subject delete needs
// a soft delete first (40405); afterwards lookups, with deleted=true or
// not, are 40401.
func TestConfluentRestApiTest_testDeleteSubjectPermanent(t *testing.T) {
	steps := registerTwo("test")
	steps = append(steps, []step{
		{method: "DELETE", path: "/subjects/test?permanent=true", status: 404, code: 40405},
		{method: "DELETE", path: "/subjects/test", json: `[1,2]`},
		{method: "POST", path: "/subjects/test?deleted=true", body: schemaBody(cfV1), contains: []string{`"version":1`}},
		{method: "POST", path: "/subjects/test?deleted=true", body: schemaBody(cfV2), contains: []string{`"version":2`}},
		{method: "DELETE", path: "/subjects/test?permanent=true", json: `[1,2]`},
		{method: "POST", path: "/subjects/test", body: schemaBody(cfV1), status: 404, code: 40401},
		{method: "POST", path: "/subjects/test?deleted=true", body: schemaBody(cfV1), status: 404, code: 40401},
		{method: "POST", path: "/subjects/test?deleted=true", body: schemaBody(cfV2), status: 404, code: 40401},
	}...)
	newEnv(t).run(steps)
}

// TestConfluentRestApiTest_testDeleteSubjectAndRegister:
// RestApiTest.testDeleteSubjectAndRegister, registering after a subject's
// soft delete keeps the ids and continues the version numbers.
func TestConfluentRestApiTest_testDeleteSubjectAndRegister(t *testing.T) {
	steps := registerTwo("test")
	steps = append(steps, []step{
		{method: "DELETE", path: "/subjects/test", json: `[1,2]`},
	}...)
	steps = append(steps, registerTwo("test")...)
	steps = append(steps, step{method: "GET", path: "/subjects/test/versions", json: `[3,4]`})
	newEnv(t).run(steps)
}

// TestConfluentRestApiModeTest_testClearMode: RestApiModeTest.testClearMode,
// PUT /mode with a null mode clears it (the answer has no mode) and the
// global mode reads READWRITE again; an absent mode does the same, on a
// subject too, and clearing a mode never set is no error.
func TestConfluentRestApiModeTest_testClearMode(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"READONLY"}`, json: `{"mode":"READONLY"}`},
		{method: "PUT", path: "/mode", body: `{"mode":null}`, json: `{}`},
		{method: "GET", path: "/mode", json: `{"mode":"READWRITE"}`},
		{method: "PUT", path: "/mode/s", body: `{"mode":"READONLY"}`, json: `{"mode":"READONLY"}`},
		{method: "PUT", path: "/mode/s", body: `{}`, json: `{}`},
		{method: "GET", path: "/mode/s", status: 404, code: 40409},
		{method: "PUT", path: "/mode/s", body: `{"mode":null}`, json: `{}`},
		{method: "PUT", path: "/mode", body: `{"mode":""}`, status: 422, code: 42204},
	})
}

// TestConfluentRestApiTest_testConfigDefaults: RestApiTest.testConfigDefaults,
// the global compatibility reads its default (BACKWARD, Confluent's own
// default; its test instance is started with NONE) and then what was set.
func TestConfluentRestApiTest_testConfigDefaults(t *testing.T) {
	newEnv(t).run([]step{
		{method: "GET", path: "/config", contains: []string{`"compatibilityLevel":"BACKWARD"`}},
		{method: "PUT", path: "/config", body: `{"compatibility":"FORWARD"}`, json: `{"compatibility":"FORWARD"}`},
		{method: "GET", path: "/config", contains: []string{`"compatibilityLevel":"FORWARD"`}},
	})
}

// TestConfluentRestApiTest_testNonExistentSubjectConfigChange:
// RestApiTest.testNonExistentSubjectConfigChange, a subject without
// versions takes a config, and reads it back.
func TestConfluentRestApiTest_testNonExistentSubjectConfigChange(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config/testSubject", body: `{"compatibility":"FORWARD"}`, json: `{"compatibility":"FORWARD"}`},
		{method: "GET", path: "/config/testSubject", contains: []string{`"compatibilityLevel":"FORWARD"`}},
	})
}

// TestConfluentRestApiTest_testSubjectConfigChange:
// RestApiTest.testSubjectConfigChange, a subject's config leaves the global
// one as it was, and once deleted the subject reads the global one with
// defaultToGlobal=true.
func TestConfluentRestApiTest_testSubjectConfigChange(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"compatibility":"NONE"}`},
		{method: "PUT", path: "/config/testSubject", body: `{"compatibility":"FORWARD"}`},
		{method: "GET", path: "/config", contains: []string{`"compatibilityLevel":"NONE"`}},
		{method: "GET", path: "/config/testSubject", contains: []string{`"compatibilityLevel":"FORWARD"`}},
		{method: "DELETE", path: "/config/testSubject", contains: []string{`"FORWARD"`}},
		{method: "GET", path: "/config/testSubject?defaultToGlobal=true", contains: []string{`"compatibilityLevel":"NONE"`}},
	})
}

// TestConfluentRestApiTest_testGlobalConfigChange:
// RestApiTest.testGlobalConfigChange, the global config changes twice and
// a delete puts the default back.
func TestConfluentRestApiTest_testGlobalConfigChange(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"compatibility":"FORWARD"}`},
		{method: "GET", path: "/config", contains: []string{`"compatibilityLevel":"FORWARD"`}},
		{method: "PUT", path: "/config", body: `{"compatibility":"BACKWARD"}`},
		{method: "GET", path: "/config", contains: []string{`"compatibilityLevel":"BACKWARD"`}},
		{method: "PUT", path: "/config", body: `{"compatibility":"FULL"}`},
		{method: "DELETE", path: "/config", contains: []string{`"FULL"`}},
		{method: "GET", path: "/config?defaultToGlobal=true", contains: []string{`"compatibilityLevel":"BACKWARD"`}},
	})
}

// TestConfluentRestApiTest_testGetConfigNonExistentSubject:
// RestApiTest.testGetConfigNonExistentSubject, a subject without its own
// config is 40408.
func TestConfluentRestApiTest_testGetConfigNonExistentSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "GET", path: "/config/non-existent-subject", status: 404, code: 40408},
	})
}

// TestConfluentRestApiTest_testGetSchemaNonExistingId:
// RestApiTest.testGetSchemaNonExistingId, 40403.
func TestConfluentRestApiTest_testGetSchemaNonExistingId(t *testing.T) {
	newEnv(t).run([]step{
		{method: "GET", path: "/schemas/ids/100", status: 404, code: 40403},
	})
}

// TestConfluentRestApiTest_testGetSchemaWithFetchMaxId:
// RestApiTest.testGetSchemaWithFetchMaxId, maxId is answered only when
// fetchMaxId=true asks for it.
func TestConfluentRestApiTest_testGetSchemaWithFetchMaxId(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/subject/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/subject/versions", body: schemaBody(cfV2), json: `{"id":2}`},
		{method: "POST", path: "/subjects/subject/versions", body: schemaBody(cfV3), json: `{"id":3}`},
		{method: "GET", path: "/schemas/ids/1", notContains: []string{`maxId`}},
		{method: "GET", path: "/schemas/ids/1?fetchMaxId=true", contains: []string{`"maxId":3`}},
	})
}

// TestConfluentRestApiTest_testGetSchemaTypes: RestApiTest.testGetSchemaTypes,
// a server with every format answers the three types.
func TestConfluentRestApiTest_testGetSchemaTypes(t *testing.T) {
	newEnvFormats(t, allFormats).run([]step{
		{method: "GET", path: "/schemas/types", contains: []string{`"AVRO"`, `"JSON"`, `"PROTOBUF"`}},
	})
}

// TestConfluentRestApiTest_testListVersionsNonExistingSubject:
// RestApiTest.testListVersionsNonExistingSubject, 40401.
func TestConfluentRestApiTest_testListVersionsNonExistingSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "GET", path: "/subjects/Invalid/versions", status: 404, code: 40401},
	})
}

// TestConfluentRestApiTest_testGetVersionNonExistentSubject:
// RestApiTest.testGetVersionNonExistentSubject, 40401.
func TestConfluentRestApiTest_testGetVersionNonExistentSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "GET", path: "/subjects/non-existing-subject/versions/1", status: 404, code: 40401},
	})
}

// TestConfluentRestApiTest_testGetNonExistingVersion:
// RestApiTest.testGetNonExistingVersion, 40402.
func TestConfluentRestApiTest_testGetNonExistingVersion(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "GET", path: "/subjects/test/versions/200", status: 404, code: 40402},
	})
}

// TestConfluentRestApiTest_testGetInvalidVersion:
// RestApiTest.testGetInvalidVersion, version 0 is 42202.
func TestConfluentRestApiTest_testGetInvalidVersion(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "GET", path: "/subjects/test/versions/0", status: 422, code: 42202},
	})
}

// TestConfluentRestApiTest_testLookUpSchemaUnderNonExistentSubject:
// RestApiTest.testLookUpSchemaUnderNonExistentSubject, 40401.
func TestConfluentRestApiTest_testLookUpSchemaUnderNonExistentSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/non-existent-subject", body: schemaBody(cfV1), status: 404, code: 40401},
	})
}

// TestConfluentRestApiTest_testLookUpNonExistentSchemaUnderSubject:
// RestApiTest.testLookUpNonExistentSchemaUnderSubject, 40403.
func TestConfluentRestApiTest_testLookUpNonExistentSchemaUnderSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "PUT", path: "/config/test", body: `{"compatibility":"NONE"}`},
		{method: "POST", path: "/subjects/test", body: schemaBody(cfV2), status: 404, code: 40403},
	})
}

// TestConfluentRestApiTest_testGetSubjectsAssociatedWithSchemaId:
// RestApiTest.testGetSubjectsAssociatedWithSchemaId, /schemas/ids/{id}/subjects
// drops a soft-deleted subject version unless deleted=true, and pages with
// offset and limit.
func TestConfluentRestApiTest_testGetSubjectsAssociatedWithSchemaId(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testTopic1/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testTopic2/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "GET", path: "/schemas/ids/1/subjects", json: `["testTopic1","testTopic2"]`},
		{method: "DELETE", path: "/subjects/testTopic2/versions/1", json: `1`},
		{method: "GET", path: "/schemas/ids/1/subjects", json: `["testTopic1"]`},
		{method: "GET", path: "/schemas/ids/1/subjects?offset=1&limit=1", json: `[]`},
		{method: "GET", path: "/schemas/ids/1/subjects?deleted=true", json: `["testTopic1","testTopic2"]`},
		{method: "GET", path: "/schemas/ids/1/subjects?deleted=true&offset=1&limit=0", json: `["testTopic2"]`},
	})
}

// TestConfluentRestApiTest_testGetSubjectsAssociatedWithNotFoundSchemaId:
// RestApiTest.testGetSubjectsAssociatedWithNotFoundSchemaId, 40403.
func TestConfluentRestApiTest_testGetSubjectsAssociatedWithNotFoundSchemaId(t *testing.T) {
	newEnv(t).run([]step{
		{method: "GET", path: "/schemas/ids/1/subjects", status: 404, code: 40403},
	})
}

// TestConfluentRestApiTest_testGetVersionsAssociatedWithSchemaId:
// RestApiTest.testGetVersionsAssociatedWithSchemaId, as the subjects list
// for /schemas/ids/{id}/versions.
func TestConfluentRestApiTest_testGetVersionsAssociatedWithSchemaId(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testTopic1/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testTopic2/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "GET", path: "/schemas/ids/1/versions", json: `[{"subject":"testTopic1","version":1},{"subject":"testTopic2","version":1}]`},
		{method: "DELETE", path: "/subjects/testTopic2/versions/1", json: `1`},
		{method: "GET", path: "/schemas/ids/1/versions", json: `[{"subject":"testTopic1","version":1}]`},
		{method: "GET", path: "/schemas/ids/1/versions?offset=1&limit=1", json: `[]`},
		{method: "GET", path: "/schemas/ids/1/versions?deleted=true", json: `[{"subject":"testTopic1","version":1},{"subject":"testTopic2","version":1}]`},
		{method: "GET", path: "/schemas/ids/1/versions?deleted=true&offset=1&limit=1", json: `[{"subject":"testTopic2","version":1}]`},
	})
}

// TestConfluentRestApiTest_testCompatibilityNonExistentSubject:
// RestApiTest.testCompatibilityNonExistentSubject, a schema is compatible
// with a subject that has no versions, against latest or all versions.
func TestConfluentRestApiTest_testCompatibilityNonExistentSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/compatibility/subjects/non-existent-subject/versions/latest", body: schemaBody(cfV1), contains: []string{`"is_compatible":true`}},
		{method: "POST", path: "/compatibility/subjects/non-existent-subject/versions", body: schemaBody(cfV1), contains: []string{`"is_compatible":true`}},
	})
}

// TestConfluentRestApiTest_testCompatibilityNonExistentVersion:
// RestApiTest.testCompatibilityNonExistentVersion, 40402.
func TestConfluentRestApiTest_testCompatibilityNonExistentVersion(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/compatibility/subjects/test/versions/100", body: schemaBody(cfV1), status: 404, code: 40402},
	})
}

// TestConfluentRestApiTest_testCompatibilityInvalidVersion:
// RestApiTest.testCompatibilityInvalidVersion, a version that is no number
// nor "latest" is 42202.
func TestConfluentRestApiTest_testCompatibilityInvalidVersion(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/compatibility/subjects/test/versions/earliest", body: schemaBody(cfV1), status: 422, code: 42202},
	})
}

// TestConfluentRestApiTest_testRegisterWithAndWithoutMetadata:
// RestApiTest.testRegisterWithAndWithoutMetadata, a schema registered with
// metadata and then without answers the same id.
func TestConfluentRestApiTest_testRegisterWithAndWithoutMetadata(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfV1, `"metadata":{"properties":{"application.version":"2"}}`), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfV1), json: `{"id":1}`},
	})
}

// TestConfluentRestApiTest_testRegisterSameSchemaOnDifferentSubject:
// RestApiTest.testRegisterSameSchemaOnDifferentSubject, one schema under
// two subjects has one id.
func TestConfluentRestApiTest_testRegisterSameSchemaOnDifferentSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/subject1/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/subject2/versions", body: schemaBody(cfV1), json: `{"id":1}`},
	})
}

// TestConfluentRestApiTest_testRegisterBadDefault:
// RestApiTest.testRegisterBadDefault, a string field with a null default
// is an invalid schema (42201) for a compatibility check and a
// registration.
func TestConfluentRestApiTest_testRegisterBadDefault(t *testing.T) {
	bad := `{"type":"record","name":"myrecord","fields":[{"type":"string","default":null,"name":"f"}]}`
	newEnv(t).run([]step{
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: schemaBody(bad), status: 422, code: 42201},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(bad), status: 422, code: 42201},
	})
}

// TestConfluentRestApiTest_testRegisterInvalidSchemaBadType:
// RestApiTest.testRegisterInvalidSchemaBadType, an unknown field type is
// 42201 and the message names it.
func TestConfluentRestApiTest_testRegisterInvalidSchemaBadType(t *testing.T) {
	bad := `{"type":"record","name":"myrecord","fields":[{"type":"str","name":"field1"}]}`
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(bad), status: 422, code: 42201, contains: []string{"str"}},
	})
}

// TestConfluentRestApiTest_testRegisterInvalidSchemaBadReference:
// RestApiTest.testRegisterInvalidSchemaBadReference, a reference to a
// subject that does not exist is 42201.
func TestConfluentRestApiTest_testRegisterInvalidSchemaBadReference(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfV1, `"references":[{"name":"invalid.schema","subject":"badSubject","version":1}]`), status: 422, code: 42201},
	})
}

// TestConfluentRestApiTest_testRegisterDiffSchemaType:
// RestApiTest.testRegisterDiffSchemaType, under NONE a subject takes
// another schema type, checked compatible against latest first.
func TestConfluentRestApiTest_testRegisterDiffSchemaType(t *testing.T) {
	newEnvFormats(t, allFormats).run([]step{
		{method: "PUT", path: "/config/testSubject", body: `{"compatibility":"NONE"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: typed("JSON", jsonAddress), contains: []string{`"is_compatible":true`}},
		{method: "POST", path: "/subjects/testSubject/versions", body: typed("JSON", jsonAddress), json: `{"id":2}`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: typed("PROTOBUF", protoAB), contains: []string{`"is_compatible":true`}},
		{method: "POST", path: "/subjects/testSubject/versions", body: typed("PROTOBUF", protoAB), json: `{"id":3}`},
	})
}

// TestConfluentRestApiTest_testImportDifferentSchemaOnSameID:
// RestApiTest.testImportDifferentSchemaOnSameID, in IMPORT mode an id that
// holds one schema is refused for another (42205), in the same subject or
// another.
func TestConfluentRestApiTest_testImportDifferentSchemaOnSameID(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/subject1/versions", body: schemaBody(cfV1, `"version":1`, `"id":1`), json: `{"id":1}`},
		{method: "POST", path: "/subjects/subject1/versions", body: schemaBody(cfV2, `"version":2`, `"id":1`), status: 422, code: 42205},
		{method: "POST", path: "/subjects/subject1/versions", body: schemaBody(cfV1, `"version":1`, `"id":1`), json: `{"id":1}`},
		{method: "POST", path: "/subjects/subject2/versions", body: schemaBody(cfV2, `"version":1`, `"id":1`), status: 422, code: 42205},
	})
}

// TestConfluentRestApiTest_testImportSameSchemaDifferentVersion:
// RestApiTest.testImportSameSchemaDifferentVersion, in IMPORT mode one
// schema and id import as two versions of a subject, and again as the
// first.
func TestConfluentRestApiTest_testImportSameSchemaDifferentVersion(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/subject1/versions", body: schemaBody(cfV1, `"version":1`, `"id":1`), json: `{"id":1}`},
		{method: "POST", path: "/subjects/subject1/versions", body: schemaBody(cfV1, `"version":2`, `"id":1`), json: `{"id":1}`},
		{method: "POST", path: "/subjects/subject1/versions", body: schemaBody(cfV1, `"version":1`, `"id":1`), json: `{"id":1}`},
	})
}

// TestConfluentRestApiTest_testSubjectCompatibilityAfterDeletingAllVersions:
// RestApiTest.testSubjectCompatibilityAfterDeletingAllVersions, deleting
// versions leaves the global config as it was (and the subject's while a
// version is live).
func TestConfluentRestApiTest_testSubjectCompatibilityAfterDeletingAllVersions(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"compatibility":"FULL"}`},
		{method: "PUT", path: "/config/testSubject", body: `{"compatibility":"BACKWARD"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfV2), json: `{"id":2}`},
		{method: "DELETE", path: "/subjects/testSubject/versions/1", json: `1`},
		{method: "GET", path: "/config/testSubject", contains: []string{`"compatibilityLevel":"BACKWARD"`}},
		{method: "GET", path: "/config", contains: []string{`"compatibilityLevel":"FULL"`}},
		{method: "DELETE", path: "/subjects/testSubject/versions/2", json: `2`},
		{method: "GET", path: "/config", contains: []string{`"compatibilityLevel":"FULL"`}},
	})
}

// TestConfluentRestApiTest_testSubjectCompatibilityAfterDeletingSubject:
// RestApiTest.testSubjectCompatibilityAfterDeletingSubject, deleting the
// subject leaves the global config as it was.
func TestConfluentRestApiTest_testSubjectCompatibilityAfterDeletingSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"compatibility":"FULL"}`},
		{method: "PUT", path: "/config/testSubject", body: `{"compatibility":"BACKWARD"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfV2), json: `{"id":2}`},
		{method: "DELETE", path: "/subjects/testSubject", json: `[1,2]`},
		{method: "GET", path: "/config", contains: []string{`"compatibilityLevel":"FULL"`}},
	})
}

// TestConfluentRestApiTest_testGlobalMode: RestApiTest.testGlobalMode, the
// default global mode is READWRITE, a subject without its own mode is
// 40409 unless defaultToGlobal, a subject's mode overrides the global one
// until deleted, and a global READONLY_OVERRIDE overrides the subject's
// and refuses registrations (42205).
func TestConfluentRestApiTest_testGlobalMode(t *testing.T) {
	newEnv(t).run([]step{
		{method: "GET", path: "/mode", json: `{"mode":"READWRITE"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "GET", path: "/mode/testSubject", status: 404, code: 40409},
		{method: "GET", path: "/mode/testSubject?defaultToGlobal=true", json: `{"mode":"READWRITE"}`},
		{method: "PUT", path: "/mode", body: `{"mode":"READONLY"}`},
		{method: "PUT", path: "/mode/testSubject", body: `{"mode":"READWRITE"}`},
		{method: "GET", path: "/mode/testSubject", json: `{"mode":"READWRITE"}`},
		{method: "DELETE", path: "/mode/testSubject", json: `{"mode":"READWRITE"}`},
		{method: "GET", path: "/mode/testSubject?defaultToGlobal=true", json: `{"mode":"READONLY"}`},
		{method: "PUT", path: "/mode", body: `{"mode":"READONLY_OVERRIDE"}`},
		{method: "GET", path: "/mode/testSubject?defaultToGlobal=true", json: `{"mode":"READONLY_OVERRIDE"}`},
		{method: "POST", path: "/subjects/testSubject2/versions", body: schemaBody(cfV1), status: 422, code: 42205},
	})
}

// A schema referenced by name (cfSub) and its referrer (cfReferrer); cfInline
// is the referrer with the referenced type written inline.
const (
	cfSub      = `{"type":"record","name":"Subrecord","namespace":"otherns","fields":[{"name":"n","type":"string"}]}`
	cfReferrer = `{"type":"record","name":"MyRecord","namespace":"ns","fields":[{"name":"sub","type":"otherns.Subrecord"}]}`
	cfInline   = `{"type":"record","name":"MyRecord","namespace":"ns","fields":[{"name":"sub","type":{"type":"record","name":"Subrecord","namespace":"otherns","fields":[{"name":"n","type":"string"}]}}]}`
	cfRef      = `"references":[{"name":"otherns.Subrecord","subject":"my_reference","version":1}]`
)

// schemaReferencesSteps is Confluent's testSchemaReferencesInContext in the
// default context: a referrer reads back with its reference, referencedby
// names it, a lookup of the referrer with the referenced type inline and
// no references finds it, the referenced version cannot be deleted while referred to
// (42206), and can once the referrer is (soft) deleted.
func schemaReferencesSteps() []step {
	return []step{
		{method: "POST", path: "/subjects/my_reference/versions", body: schemaBody(cfSub), json: `{"id":1}`},
		{method: "POST", path: "/subjects/my_referrer/versions", body: schemaBody(cfReferrer, cfRef), json: `{"id":2}`},
		{method: "GET", path: "/schemas/ids/2?subject=my_referrer", contains: []string{`"references":[{"name":"otherns.Subrecord","subject":"my_reference","version":1}]`}},
		{method: "GET", path: "/subjects/my_reference/versions/1/referencedby", json: `[2]`},
		{method: "POST", path: "/subjects/my_referrer", body: schemaBody(cfReferrer, cfRef), contains: []string{`"id":2`}},
		// The referrer with the referenced type inline and no references
		// (as a serializer generates it from a class) is the same version.
		{method: "POST", path: "/subjects/my_referrer", body: schemaBody(cfInline), contains: []string{`"id":2`, `"version":1`}},
		{method: "POST", path: "/subjects/my_referrer/versions", body: schemaBody(cfInline), json: `{"id":2}`},
		{method: "GET", path: "/subjects/my_referrer/versions", json: `[1]`},
		{method: "DELETE", path: "/subjects/my_reference/versions/1", status: 422, code: 42206},
		{method: "DELETE", path: "/subjects/my_referrer/versions/1", json: `1`},
		{method: "GET", path: "/subjects/my_reference/versions/1/referencedby", json: `[]`},
		{method: "GET", path: "/subjects/my_reference/versions/1/referencedby?offset=0&limit=1", json: `[]`},
		{method: "DELETE", path: "/subjects/my_reference/versions/1", json: `1`},
	}
}

// TestConfluentRestApiTest_testSchemaReferences:
// RestApiTest.testSchemaReferences (testSchemaReferencesInContext in the
// default context).
func TestConfluentRestApiTest_testSchemaReferences(t *testing.T) {
	newEnv(t).run(schemaReferencesSteps())
}

// TestConfluentRestApiTest_testDeleteAndCreateWithDanglingReference:
// RestApiTest.testDeleteAndCreateWithDanglingReference, a reference to a
// soft-deleted version is dangling (42201), referencedby with deleted=true
// still names the soft-deleted referrer, and after both are deleted
// permanently the reference is still refused.
func TestConfluentRestApiTest_testDeleteAndCreateWithDanglingReference(t *testing.T) {
	steps := schemaReferencesSteps()
	steps = append(steps, []step{
		{method: "POST", path: "/subjects/my_referrer/versions", body: schemaBody(cfReferrer, cfRef), status: 422, code: 42201},
		{method: "GET", path: "/subjects/my_reference/versions/1/referencedby?deleted=true", json: `[2]`},
		{method: "DELETE", path: "/subjects/my_referrer/versions/1?permanent=true", json: `1`},
		{method: "DELETE", path: "/subjects/my_reference/versions/1?permanent=true", json: `1`},
		{method: "POST", path: "/subjects/my_referrer/versions", body: schemaBody(cfReferrer, cfRef), status: 422, code: 42201},
	}...)
	newEnv(t).run(steps)
}

// TestConfluentRestApiTest_testSchemaNormalization:
// RestApiTest.testSchemaNormalization, with normalize=true a lookup finds
// the version written another way (a type as an object, custom property
// keys in another order, references in another order) and the version
// with its referenced types inline; an invalid default is 42201 for a
// registration, and a verbose compatibility check answers it as a message.
func TestConfluentRestApiTest_testSchemaNormalization(t *testing.T) {
	ref1 := `{"type":"record","name":"Subrecord1","namespace":"otherns","fields":[{"name":"field1","type":"string"}]}`
	ref2 := `{"type":"record","name":"Subrecord2","namespace":"otherns","fields":[{"name":"field2","type":"string"}]}`
	refs12 := `"references":[{"name":"otherns.Subrecord1","subject":"ref1","version":1},{"name":"otherns.Subrecord2","subject":"ref2","version":1}]`
	refs21 := `"references":[{"name":"otherns.Subrecord2","subject":"ref2","version":1},{"name":"otherns.Subrecord1","subject":"ref1","version":1}]`
	s1 := `{"type":"record","name":"myrecord","fields":[{"type":{"type":"int"},"name":"field0"},{"name":"field1","type":"otherns.Subrecord1"},{"name":"field2","type":"otherns.Subrecord2"}],"extraMetadata":{"a":1,"b":2}}`
	s2 := `{"type":"record","name":"myrecord","fields":[{"type":"int","name":"field0"},{"name":"field1","type":"otherns.Subrecord1"},{"name":"field2","type":"otherns.Subrecord2"}],"extraMetadata":{"b":2,"a":1}}`
	inline := `{"type":"record","name":"myrecord","fields":[{"name":"field0","type":"int"},{"name":"field1","type":` + ref1 + `},{"name":"field2","type":` + ref2 + `}],"extraMetadata":{"b":2,"a":1}}`
	bad := `{"namespace":"namespace","type":"record","name":"test","fields":[{"name":"string_default","type":"string","default":null}]}`
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/ref1/versions", body: schemaBody(ref1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/ref2/versions", body: schemaBody(ref2), json: `{"id":2}`},
		{method: "POST", path: "/subjects/testSubject1/versions?normalize=true", body: schemaBody(s1, refs12), json: `{"id":3}`},
		{method: "POST", path: "/subjects/testSubject1?normalize=true", body: schemaBody(s2, refs21), contains: []string{`"version":1`}},
		{method: "POST", path: "/subjects/testSubject1?normalize=true", body: schemaBody(inline), contains: []string{`"version":1`}},
		{method: "POST", path: "/subjects/testSubject1/versions?normalize=true", body: schemaBody(bad), status: 422, code: 42201},
		{method: "POST", path: "/compatibility/subjects/testSubject1/versions?normalize=true&verbose=true", body: schemaBody(bad), contains: []string{`"is_compatible":false`, `Invalid schema`}},
	})
}

// TestConfluentRestApiTest_testRegisterInvalidSubject:
// RestApiTest.testRegisterInvalidSubject, a subject with control
// characters is 42208.
func TestConfluentRestApiTest_testRegisterInvalidSubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/%0Dbad%0Asubject%09/versions", body: schemaBody(cfV1), status: 422, code: 42208},
	})
}

// TestConfluentRestApiTest_testRegisterSchemaWithWildcardSubjectAllowedByDefault:
// RestApiTest.testRegisterSchemaWithWildcardSubjectAllowedByDefault, "*"
// is a subject like any other.
func TestConfluentRestApiTest_testRegisterSchemaWithWildcardSubjectAllowedByDefault(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/*/versions", body: schemaBody(cfV1), json: `{"id":1}`},
	})
}

// TestConfluentRestApiTest_testGetVersion: RestApiTest.testGetVersion, each
// version and latest read their schema.
func TestConfluentRestApiTest_testGetVersion(t *testing.T) {
	steps := registerTwo("test")
	steps = append(steps, []step{
		{method: "GET", path: "/subjects/test/versions/1", contains: []string{`"version":1`, `"id":1`}},
		{method: "GET", path: "/subjects/test/versions/2", contains: []string{`"version":2`, `"id":2`}},
		{method: "GET", path: "/subjects/test/versions/latest", contains: []string{`"version":2`, `"id":2`}},
	}...)
	newEnv(t).run(steps)
}

// TestConfluentRestApiTest_testGetOnlySchemaById:
// RestApiTest.testGetOnlySchemaById, /schemas/ids/{id}/schema is the text.
func TestConfluentRestApiTest_testGetOnlySchemaById(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "GET", path: "/schemas/ids/1/schema", json: cfV1},
	})
}

// TestConfluentRestApiTest_testGetLatestVersionSchemaOnly:
// RestApiTest.testGetLatestVersionSchemaOnly.
func TestConfluentRestApiTest_testGetLatestVersionSchemaOnly(t *testing.T) {
	steps := registerTwo("test")
	steps = append(steps, step{method: "GET", path: "/subjects/test/versions/latest/schema", json: cfV2})
	newEnv(t).run(steps)
}

// TestConfluentRestApiTest_testGetVersionSchemaOnly:
// RestApiTest.testGetVersionSchemaOnly.
func TestConfluentRestApiTest_testGetVersionSchemaOnly(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "GET", path: "/subjects/test/versions/1/schema", json: cfV1},
	})
}

// TestConfluentRestApiTest_testBad: RestApiTest.testBad, no subjects at
// first, an invalid schema and a reference to an unknown subject are 42201,
// and neither leaves a subject behind.
func TestConfluentRestApiTest_testBad(t *testing.T) {
	newEnv(t).run([]step{
		{method: "GET", path: "/subjects", json: `[]`},
		{method: "POST", path: "/subjects/testTopic1/versions", body: schemaBody(`{"type":"record","name":"x","fields":[{"name":"f","type":"nope"}]}`), status: 422, code: 42201},
		{method: "POST", path: "/subjects/testTopic1/versions", body: schemaBody(cfV1, `"references":[{"name":"bad","subject":"bad","version":100}]`), status: 422, code: 42201},
		{method: "GET", path: "/subjects", json: `[]`},
	})
}

// TestConfluentRestApiTest_testGetClusterId: RestApiTest.testGetClusterId,
// /v1/metadata/id answers an id with a scope of an empty path and
// clusters. The id is "charter", not the "" of Confluent's test instance
// (Confluent answers its Kafka cluster's id; Charter has none; see the
// README's differences).
func TestConfluentRestApiTest_testGetClusterId(t *testing.T) {
	newEnv(t).run([]step{
		{method: "GET", path: "/v1/metadata/id", contains: []string{`"id":"charter"`, `"path":[]`, `"clusters":`}},
	})
}

// TestConfluentRestApiTest_testGetSchemaRegistryServerVersion:
// RestApiTest.testGetSchemaRegistryServerVersion, /v1/metadata/version
// answers the server's version and commit.
func TestConfluentRestApiTest_testGetSchemaRegistryServerVersion(t *testing.T) {
	newEnv(t).run([]step{
		{method: "GET", path: "/v1/metadata/version", contains: []string{`"version":"v-test"`, `"commitId":"abc123"`}},
	})
}

// TestConfluentRestApiTest_testNormalizeConfigFallbackAppliedOutsideImportMode:
// RestApiTest.testNormalizeConfigFallbackAppliedOutsideImportMode, a
// subject whose config sets normalize stores a registration normalized.
func TestConfluentRestApiTest_testNormalizeConfigFallbackAppliedOutsideImportMode(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config/testSubject", body: `{"normalize":true}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfProps), json: `{"id":1}`},
		{method: "GET", path: "/subjects/testSubject/versions/1/schema", notContains: []string{`"zprop":"z","aprop":"a"`}},
	})
}

// cfProps has custom properties out of order: normalize sorts them.
const cfProps = `{"type":"record","name":"myrecord","fields":[{"type":"string","name":"field1","zprop":"z","aprop":"a"}]}`

// TestConfluentRestApiTest_testNormalizeConfigFallbackNotAppliedInImportMode:
// RestApiTest.testNormalizeConfigFallbackNotAppliedInImportMode, in IMPORT
// mode the subject config's normalize does not apply: the schema is
// stored as sent.
func TestConfluentRestApiTest_testNormalizeConfigFallbackNotAppliedInImportMode(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config/testSubject", body: `{"normalize":true}`},
		{method: "PUT", path: "/mode/testSubject", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfProps, `"id":1`, `"version":1`), json: `{"id":1}`},
		{method: "GET", path: "/subjects/testSubject/versions/1/schema", contains: []string{`"zprop":"z","aprop":"a"`}},
	})
}

// TestConfluentRestApiTest_testExplicitNormalizeIgnoredInImportMode:
// RestApiTest.testExplicitNormalizeIgnoredInImportMode, in IMPORT mode
// even normalize=true stores the schema as sent.
func TestConfluentRestApiTest_testExplicitNormalizeIgnoredInImportMode(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode/testSubject", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/testSubject/versions?normalize=true", body: schemaBody(cfProps, `"id":1`, `"version":1`), json: `{"id":1}`},
		{method: "GET", path: "/subjects/testSubject/versions/1/schema", contains: []string{`"zprop":"z","aprop":"a"`}},
	})
}

// TestConfluentRestApiTest_testCompatibleSchemaLookupBySubject:
// RestApiTest.testCompatibleSchemaLookupBySubject, a compatibility check
// registers nothing.
func TestConfluentRestApiTest_testCompatibleSchemaLookupBySubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config/testSubject", body: `{"compatibility":"NONE"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfV1), json: `{"id":1}`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: schemaBody(cfV1), json: `{"is_compatible":true}`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: schemaBody(cfV2), json: `{"is_compatible":true}`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: schemaBody(cfRecInt), json: `{"is_compatible":true}`},
		{method: "GET", path: "/subjects/testSubject/versions", json: `[1]`},
	})
}

// TestConfluentRestApiTest_testIncompatibleSchemaLookupBySubject:
// RestApiTest.testIncompatibleSchemaLookupBySubject, under FULL a field's
// type change is incompatible with the version given by number.
func TestConfluentRestApiTest_testIncompatibleSchemaLookupBySubject(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config/testSubject", body: `{"compatibility":"FULL"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfRec), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject", body: schemaBody(cfRec), contains: []string{`"version":1`}},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/1", body: schemaBody(cfRecInt), json: `{"is_compatible":false}`},
	})
}

// TestConfluentRestApiTest_testIncompatibleSchemaBySubject:
// RestApiTest.testIncompatibleSchemaBySubject, under FORWARD_TRANSITIVE a
// schema compatible with latest but not an earlier version passes the
// check against latest, fails the check against all, and registering it
// is 409 with a message naming the old version, schema and compatibility.
func TestConfluentRestApiTest_testIncompatibleSchemaBySubject(t *testing.T) {
	s1 := `{"type":"record","name":"myrecord","fields":[{"type":"string","name":"f1"},{"type":"string","name":"f2"}]}`
	s2 := `{"type":"record","name":"myrecord","fields":[{"type":"string","name":"f1"}]}`
	s3 := `{"type":"record","name":"myrecord","fields":[{"type":"string","name":"f1"},{"type":"string","name":"f3"}]}`
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(s1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(s2), json: `{"id":2}`},
		{method: "PUT", path: "/config/testSubject", body: `{"compatibility":"FORWARD_TRANSITIVE"}`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: schemaBody(s3), json: `{"is_compatible":true}`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions", body: schemaBody(s3), json: `{"is_compatible":false}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(s3), status: 409, code: 409,
			contains: []string{"oldSchemaVersion:", "oldSchema:", "compatibility:"}},
	})
}

// TestConfluentRestApiTest_testBadFormat: RestApiTest.testBadFormat, an
// unknown ?format= reads the schema as stored.
func TestConfluentRestApiTest_testBadFormat(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfRec), json: `{"id":1}`},
		{method: "GET", path: "/schemas/ids/1?format=bad-format", contains: []string{`"schema":` + jsonString(cfRec)}},
	})
}

// TestConfluentRestApiTest_testHttpResponseHeaders:
// RestApiTest.testHttpResponseHeaders, answers carry X-XSS-Protection and
// Cache-Control: no-cache, no-store, must-revalidate, and no
// Strict-Transport-Security.
func TestConfluentRestApiTest_testHttpResponseHeaders(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/v1/metadata/id", "/subjects/none/versions"} {
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		h := rec.Header()
		if got := h.Get("X-XSS-Protection"); got != "1; mode=block" {
			t.Errorf("%s: X-XSS-Protection %q", path, got)
		}
		if got := h.Get("Cache-Control"); got != "no-cache, no-store, must-revalidate" {
			t.Errorf("%s: Cache-Control %q", path, got)
		}
		if got := h.Get("Strict-Transport-Security"); got != "" {
			t.Errorf("%s: Strict-Transport-Security %q", path, got)
		}
	}
}

// TestConfluentRestApiTest_testSchemaRegistrationUnderDiffSubjects:
// RestApiTest.testSchemaRegistrationUnderDiffSubjects, a schema already
// registered under one subject is version 1 of another with the same id.
func TestConfluentRestApiTest_testSchemaRegistrationUnderDiffSubjects(t *testing.T) {
	newEnv(t).run([]step{
		{method: "PUT", path: "/config/testSubject1", body: `{"compatibility":"NONE"}`},
		{method: "PUT", path: "/config/testSubject2", body: `{"compatibility":"NONE"}`},
		{method: "POST", path: "/subjects/testSubject1/versions", body: schemaBody(cfRec), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject1", body: schemaBody(cfRec), contains: []string{`"version":1`}},
		{method: "POST", path: "/subjects/testSubject1/versions", body: schemaBody(cfRecInt), json: `{"id":2}`},
		{method: "POST", path: "/subjects/testSubject1", body: schemaBody(cfRecInt), contains: []string{`"version":2`}},
		{method: "POST", path: "/subjects/testSubject2/versions", body: schemaBody(cfRecInt), json: `{"id":2}`},
		{method: "POST", path: "/subjects/testSubject2", body: schemaBody(cfRecInt), contains: []string{`"version":1`, `"id":2`}},
	})
}

// TestConfluentRestApiTest_testCanonicalization:
// RestApiTest.testCanonicalization, a schema with extra white space
// registers once, registers again with the same id and is found by lookup.
func TestConfluentRestApiTest_testCanonicalization(t *testing.T) {
	spaced := `{   "type":   "string"}`
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(spaced), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(spaced), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test", body: schemaBody(spaced), contains: []string{`"id":1`}},
	})
}

// TestConfluentRestApiTest_testReviveSchemaWithDanglingReference:
// RestApiTest.testReviveSchemaWithDanglingReference, once a referrer and
// its reference are both deleted permanently, the referrer (or a changed
// one) with the same reference is refused (42201), not revived.
func TestConfluentRestApiTest_testReviveSchemaWithDanglingReference(t *testing.T) {
	ref := `{"type":"record","name":"Ref","namespace":"com.example","fields":[{"name":"id","type":"string"}]}`
	base := `{"type":"record","name":"Base","namespace":"com.example","fields":[{"name":"refField","type":"com.example.Ref"}]}`
	changed := `{"type":"record","name":"Base","namespace":"com.example","fields":[{"name":"refField","type":"com.example.Ref"},{"name":"newField","type":"string"}]}`
	refs := `"references":[{"name":"com.example.Ref","subject":"ref","version":1}]`
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/ref/versions", body: schemaBody(ref), json: `{"id":1}`},
		{method: "POST", path: "/subjects/base/versions", body: schemaBody(base, refs), json: `{"id":2}`},
		{method: "DELETE", path: "/subjects/base/versions/1", json: `1`},
		{method: "DELETE", path: "/subjects/ref/versions/1", json: `1`},
		{method: "DELETE", path: "/subjects/base/versions/1?permanent=true", json: `1`},
		{method: "DELETE", path: "/subjects/ref/versions/1?permanent=true", json: `1`},
		{method: "POST", path: "/subjects/base/versions", body: schemaBody(base, refs), status: 422, code: 42201},
		{method: "POST", path: "/subjects/base/versions", body: schemaBody(changed, refs), status: 422, code: 42201},
	})
}

// TestConfluentRestApiTest_testDeleteSubjectWithSelfReferencingVersions:
// RestApiTest.testDeleteSubjectWithSelfReferencingVersions, a subject whose
// version 2 references its version 1 is deleted, softly and then
// permanently, as a whole.
func TestConfluentRestApiTest_testDeleteSubjectWithSelfReferencingVersions(t *testing.T) {
	v1 := `{"type":"record","name":"Base","namespace":"com.example","fields":[{"name":"id","type":"string"}]}`
	v2 := `{"type":"record","name":"Derived","namespace":"com.example","fields":[{"name":"base","type":"com.example.Base"}]}`
	newEnv(t).run([]step{
		{method: "PUT", path: "/config/self-ref-subject", body: `{"compatibility":"NONE"}`},
		{method: "POST", path: "/subjects/self-ref-subject/versions", body: schemaBody(v1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/self-ref-subject/versions", body: schemaBody(v2, `"references":[{"name":"com.example.Base","subject":"self-ref-subject","version":1}]`), json: `{"id":2}`},
		{method: "GET", path: "/subjects/self-ref-subject/versions/1/referencedby?deleted=true", json: `[2]`},
		{method: "DELETE", path: "/subjects/self-ref-subject", json: `[1,2]`},
		{method: "DELETE", path: "/subjects/self-ref-subject?permanent=true", json: `[1,2]`},
	})
}

// TestConfluentRestApiTest_testSameIdTombstonePreservesReferencedSoftDeletedVersion:
// RestApiTest.testSameIdTombstonePreservesReferencedSoftDeletedVersion,
// re-registering the content of a soft-deleted version that a
// (soft-deleted) referrer references gives a new version with the same id
// and keeps the soft-deleted one, still referenced with deleted=true.
func TestConfluentRestApiTest_testSameIdTombstonePreservesReferencedSoftDeletedVersion(t *testing.T) {
	u1 := `{"type":"record","name":"User","namespace":"ns","fields":[{"name":"id","type":"long"}]}`
	u2 := `{"type":"record","name":"User","namespace":"ns","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"}]}`
	order := `{"type":"record","name":"Order","namespace":"ns","fields":[{"name":"buyer","type":"ns.User"}]}`
	newEnv(t).run([]step{
		{method: "PUT", path: "/config/user", body: `{"compatibility":"NONE"}`},
		{method: "POST", path: "/subjects/user/versions", body: schemaBody(u1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/user/versions", body: schemaBody(u2), json: `{"id":2}`},
		{method: "POST", path: "/subjects/order/versions", body: schemaBody(order, `"references":[{"name":"ns.User","subject":"user","version":2}]`), json: `{"id":3}`},
		{method: "DELETE", path: "/subjects/order/versions/1", json: `1`},
		{method: "DELETE", path: "/subjects/user/versions/1", json: `1`},
		{method: "DELETE", path: "/subjects/user/versions/2", json: `2`},
		{method: "POST", path: "/subjects/user/versions", body: schemaBody(u2), json: `{"id":2}`},
		{method: "GET", path: "/subjects/user/versions/3", contains: []string{`"version":3`, `"id":2`}},
		{method: "GET", path: "/subjects/user/versions/2?deleted=true", contains: []string{`"version":2`, `"id":2`, `"deleted":true`}},
		{method: "GET", path: "/subjects/user/versions/2/referencedby?deleted=true", json: `[3]`},
	})
}

// TestConfluentRestApiTest_testSameIdTombstoneStillRunsWhenNoReferences:
// RestApiTest.testSameIdTombstoneStillRunsWhenNoReferences, re-registering
// the content of a soft-deleted version nothing references gives a new
// version with the same id and removes the soft-deleted one (40402 even
// with deleted=true); an older soft-deleted version stays.
func TestConfluentRestApiTest_testSameIdTombstoneStillRunsWhenNoReferences(t *testing.T) {
	v1 := `{"type":"record","name":"R","namespace":"ns","fields":[{"name":"a","type":"long"}]}`
	v2 := `{"type":"record","name":"R","namespace":"ns","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]}`
	newEnv(t).run([]step{
		{method: "PUT", path: "/config/no_refs", body: `{"compatibility":"NONE"}`},
		{method: "POST", path: "/subjects/no_refs/versions", body: schemaBody(v1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/no_refs/versions", body: schemaBody(v2), json: `{"id":2}`},
		{method: "DELETE", path: "/subjects/no_refs/versions/1", json: `1`},
		{method: "DELETE", path: "/subjects/no_refs/versions/2", json: `2`},
		{method: "POST", path: "/subjects/no_refs/versions", body: schemaBody(v2), json: `{"id":2}`},
		{method: "GET", path: "/subjects/no_refs/versions/2?deleted=true", status: 404, code: 40402},
		{method: "GET", path: "/subjects/no_refs/versions/3", contains: []string{`"id":2`}},
		{method: "GET", path: "/subjects/no_refs/versions/1?deleted=true", contains: []string{`"id":1`, `"deleted":true`}},
	})
}

// TestConfluentRestApiTest_testBasic: RestApiTest.testBasic, without data
// a subject's versions are 40401, the contexts are ["."] (paged by offset
// and limit) and the subjects []; ten schemas under one subject and five
// under another get ids 1 to 15 and versions 1 to n, registering one
// again answers its id, subjects list and page in order, and
// latestOnly lists each subject's latest version. (Confluent also answers
// a registration time and a guid, and serves /schemas/guids: not matched,
// see the README.)
func TestConfluentRestApiTest_testBasic(t *testing.T) {
	e := newEnv(t)
	e.run([]step{
		{method: "GET", path: "/subjects/testTopic1/versions", status: 404, code: 40401},
		{method: "GET", path: "/contexts", json: `["."]`},
		{method: "GET", path: "/contexts?limit=1&offset=0", json: `["."]`},
		{method: "GET", path: "/contexts?limit=1&offset=1", json: `[]`},
		{method: "GET", path: "/subjects", json: `[]`},
		{method: "PUT", path: "/config", body: `{"compatibility":"NONE"}`},
	})
	rec := func(i int) string {
		return `{"type":"record","name":"Rec` + itoa(i) + `","fields":[{"name":"f` + itoa(i) + `","type":"string"}]}`
	}
	var steps []step
	for i := 1; i <= 10; i++ {
		steps = append(steps, step{method: "POST", path: "/subjects/testTopic1/versions", body: schemaBody(rec(i)), json: `{"id":` + itoa(i) + `}`},
			step{method: "GET", path: "/schemas/ids/" + itoa(i) + "/schema", json: rec(i)})
	}
	for i := 1; i <= 10; i++ {
		steps = append(steps, step{method: "POST", path: "/subjects/testTopic1/versions", body: schemaBody(rec(i)), json: `{"id":` + itoa(i) + `}`})
	}
	for i := 11; i <= 15; i++ {
		steps = append(steps, step{method: "POST", path: "/subjects/testTopic2/versions", body: schemaBody(rec(i)), json: `{"id":` + itoa(i) + `}`})
	}
	steps = append(steps, []step{
		{method: "GET", path: "/subjects/testTopic1/versions", json: `[1,2,3,4,5,6,7,8,9,10]`},
		{method: "GET", path: "/subjects/testTopic2/versions", json: `[1,2,3,4,5]`},
		{method: "GET", path: "/subjects", json: `["testTopic1","testTopic2"]`},
		{method: "GET", path: "/subjects?offset=0&limit=1", json: `["testTopic1"]`},
		{method: "GET", path: "/subjects?offset=1&limit=1", json: `["testTopic2"]`},
		{method: "GET", path: "/schemas/ids/1", notContains: []string{`"deleted":true`}},
	}...)
	e.run(steps)
	latest := decodeList(t, e.mustDo("GET", "/schemas?latestOnly=true", ""))
	if len(latest) != 2 || latest[0].(map[string]any)["version"] != 10.0 || latest[1].(map[string]any)["version"] != 5.0 {
		t.Fatalf("GET /schemas?latestOnly=true = %v, want testTopic1 version 10 and testTopic2 version 5", latest)
	}
}

// TestConfluentRestApiTest_testIncompatibleSchemaLookupBySubjectAfterDelete:
// RestApiTest.testIncompatibleSchemaLookupBySubjectAfterDelete, a field's
// type change is incompatible with latest (check false, register 409);
// once latest is deleted the same schema is compatible with the new
// latest and registers as version 3.
func TestConfluentRestApiTest_testIncompatibleSchemaLookupBySubjectAfterDelete(t *testing.T) {
	s1 := `{"type":"record","name":"myrecord","fields":[{"type":"string","name":"f"}]}`
	s2 := `{"type":"record","name":"myrecord","fields":[{"type":"string","name":"f"},{"type":"string","name":"g","default":"d"}]}`
	s3 := `{"type":"record","name":"myrecord","fields":[{"type":"string","name":"f"},{"type":"int","name":"g","default":0}]}`
	newEnv(t).run([]step{
		{method: "PUT", path: "/config/testSubject", body: `{"compatibility":"BACKWARD"}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(s1), json: `{"id":1}`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: schemaBody(s2), json: `{"is_compatible":true}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(s2), json: `{"id":2}`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: schemaBody(s3), json: `{"is_compatible":false}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(s3), status: 409, code: 409},
		{method: "DELETE", path: "/subjects/testSubject/versions/latest", json: `2`},
		{method: "POST", path: "/compatibility/subjects/testSubject/versions/latest", body: schemaBody(s3), json: `{"is_compatible":true}`},
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(s3), json: `{"id":3}`},
		{method: "POST", path: "/subjects/testSubject", body: schemaBody(s3), contains: []string{`"version":3`}},
	})
}

// TestConfluentRestApiTest_testRegisterSchemaWithInvalidDefault:
// RestApiTest.testRegisterSchemaWithInvalidDefault, a string field with a
// null default is refused (42201). Confluent then registers it once the
// global config sets validateNewSchemas false; Charter stores that
// setting but always validates (a README difference), so it stays 42201.
func TestConfluentRestApiTest_testRegisterSchemaWithInvalidDefault(t *testing.T) {
	bad := `{"namespace":"namespace","type":"record","name":"test","fields":[{"name":"string_default","type":"string","default":null}]}`
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject0/versions", body: schemaBody(bad), status: 422, code: 42201},
		{method: "PUT", path: "/config", body: `{"compatibilityLevel":"BACKWARD","validateNewSchemas":false}`, json: `{"compatibility":"BACKWARD","validateNewSchemas":false}`},
		{method: "POST", path: "/subjects/testSubject0/versions", body: schemaBody(bad), status: 422, code: 42201},
	})
}

// TestConfluentRestApiTest_testRegisterSchemaWithInvalidNamespace:
// RestApiTest.testRegisterSchemaWithInvalidNamespace, a namespace with a
// dash is refused (42201); as above, validateNewSchemas false does not
// make Charter take it.
func TestConfluentRestApiTest_testRegisterSchemaWithInvalidNamespace(t *testing.T) {
	bad := `{"type":"record","name":"myrecord","namespace":"a-bad.namespace","fields":[{"type":"string","name":"f"},{"type":"string","name":"g","default":"d"}]}`
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject0/versions", body: schemaBody(bad), status: 422, code: 42201, contains: []string{"a-bad"}},
		{method: "PUT", path: "/config", body: `{"compatibilityLevel":"BACKWARD","validateNewSchemas":false}`},
		{method: "POST", path: "/subjects/testSubject0/versions", body: schemaBody(bad), status: 422, code: 42201},
	})
}

// TestConfluentRestApiTest_testRegisterSchemaWithReservedFields:
// RestApiTest.testRegisterSchemaWithReservedFields, a schema with a field
// its metadata reserves (confluent:reserved) is refused where the
// effective validateFields is on (global, or the subject's own, which
// wins either way) and registered where it is off; a version that drops
// a reserved name from the list is refused where validateFields is on.
// Charter refuses both with 409 and names the reserved field.
func TestConfluentRestApiTest_testRegisterSchemaWithReservedFields(t *testing.T) {
	fg := `{"type":"record","name":"myrecord","fields":[{"type":"string","name":"f"},{"type":"string","name":"g","default":"d"}]}`
	g := `{"type":"record","name":"myrecord","fields":[{"type":"string","name":"g","default":"d"}]}`
	reserve := func(names string) string {
		return `"metadata":{"tags":{},"properties":{"confluent:reserved":"` + names + `"},"sensitive":[]}`
	}
	newEnv(t).run([]step{
		{method: "PUT", path: "/config", body: `{"compatibilityLevel":"BACKWARD","validateFields":true}`, json: `{"compatibility":"BACKWARD","validateFields":true}`},
		{method: "POST", path: "/subjects/testSubject0/versions", body: schemaBody(fg, reserve("f")), status: 409, code: 409},
		{method: "PUT", path: "/config", body: `{"compatibilityLevel":"BACKWARD","validateFields":false}`},
		{method: "POST", path: "/subjects/testSubject0/versions", body: schemaBody(fg, reserve("f")), json: `{"id":1}`},
		{method: "PUT", path: "/config/testSubject1", body: `{"compatibilityLevel":"BACKWARD","validateFields":true}`},
		{method: "POST", path: "/subjects/testSubject1/versions", body: schemaBody(fg, reserve("f")), status: 409, code: 409},
		{method: "POST", path: "/subjects/testSubject2/versions", body: schemaBody(fg, reserve("f")), json: `{"id":1}`},
		{method: "PUT", path: "/config", body: `{"compatibilityLevel":"BACKWARD","validateFields":true}`},
		{method: "PUT", path: "/config/testSubject1", body: `{"compatibilityLevel":"BACKWARD","validateFields":false}`},
		{method: "POST", path: "/subjects/testSubject1/versions", body: schemaBody(fg, reserve("f")), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject3/versions", body: schemaBody(fg, reserve("f")), status: 409, code: 409},
		{method: "POST", path: "/subjects/testSubject1/versions", body: schemaBody(fg, reserve("g")), json: `{"id":2}`},
		{method: "POST", path: "/subjects/testSubject0/versions", body: schemaBody(g, reserve("g")), status: 409},
	})
}

// TestConfluentRestApiTest_testRegisterSchemaWithSensitiveMetadata:
// RestApiTest.testRegisterSchemaWithSensitiveMetadata, metadata naming a
// property sensitive registers, and the schema read by id answers every
// property.
func TestConfluentRestApiTest_testRegisterSchemaWithSensitiveMetadata(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: schemaBody(cfRec, `"metadata":{"properties":{"nonsensitive":"foo","sensitive":"foo"},"sensitive":["sensitive"]}`), json: `{"id":1}`},
		{method: "GET", path: "/schemas/ids/1/versions", json: `[{"subject":"testSubject","version":1}]`},
		{method: "GET", path: "/schemas/ids/1", contains: []string{`"nonsensitive":"foo"`, `"sensitive":"foo"`}},
	})
}

// TestConfluentRestApiTest_testSchemaMissingReferences:
// RestApiTest.testSchemaMissingReferences, a schema naming a type it has
// no reference for is refused (42201).
func TestConfluentRestApiTest_testSchemaMissingReferences(t *testing.T) {
	referrer := `{"type":"record","name":"Holder","fields":[{"name":"price","type":"shop.Price"}]}`
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/referrer/versions", body: schemaBody(referrer, `"references":[]`), status: 422, code: 42201},
		{method: "GET", path: "/subjects", json: `[]`},
	})
}

// TestConfluentRestApiTest_testSchemaReferencesMultipleLevels:
// RestApiTest.testSchemaReferencesMultipleLevels, a union of two records
// each referring to one shared enum registers through two levels of
// references, reads back as sent with its references (and with
// format=resolved); a hard delete of a referenced version is 42206 while
// a soft-deleted referrer still holds it, and succeeds once the referrer
// is gone.
func TestConfluentRestApiTest_testSchemaReferencesMultipleLevels(t *testing.T) {
	shared := `{"type":"enum","name":"Unit","namespace":"shop.units","symbols":["KG","LB"]}`
	ref1 := `{"type":"record","name":"Weighed","namespace":"shop","fields":[{"name":"sku","type":"long"},{"name":"unit","type":{"type":"shop.units.Unit"}},{"name":"amount","type":"double"}]}`
	ref2 := `{"type":"record","name":"Reweighed","namespace":"shop","fields":[{"name":"sku","type":"long"},{"name":"unit","type":{"type":"shop.units.Unit"}},{"name":"delta","type":"double"}]}`
	root := `["shop.Weighed","shop.Reweighed"]`
	unitRef := `"references":[{"name":"shop.units.Unit","subject":"shared","version":1}]`
	rootRefs := `[{"name":"shop.Weighed","subject":"ref1","version":1},{"name":"shop.Reweighed","subject":"ref2","version":1}]`
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/shared/versions", body: schemaBody(shared), json: `{"id":1}`},
		{method: "POST", path: "/subjects/ref1/versions", body: schemaBody(ref1, unitRef), json: `{"id":2}`},
		{method: "POST", path: "/subjects/ref2/versions", body: schemaBody(ref2, unitRef), json: `{"id":3}`},
		{method: "POST", path: "/subjects/root/versions", body: schemaBody(root, `"references":`+rootRefs), json: `{"id":4}`},
		{method: "GET", path: "/schemas/ids/4", contains: []string{`"schema":` + jsonString(root), `"references":` + rootRefs}},
		{method: "GET", path: "/schemas/ids/4?subject=root&format=resolved", contains: []string{`\"name\":\"Weighed\"`, `\"symbols\":[\"KG\",\"LB\"]`}},
		{method: "DELETE", path: "/subjects/root/versions/1", json: `1`},
		{method: "DELETE", path: "/subjects/ref1/versions/1", json: `1`},
		{method: "DELETE", path: "/subjects/ref1/versions/1?permanent=true", status: 422, code: 42206},
		{method: "DELETE", path: "/subjects/root/versions/1?permanent=true", json: `1`},
		{method: "DELETE", path: "/subjects/ref1/versions/1?permanent=true", json: `1`},
	})
}

// TestConfluentRestApiContextTest_contextPrefix: the default-context part
// of RestApiContextTest.testContextPrefixFilter and
// testContextPrefixFilterEdgeCases, GET /contexts?contextPrefix= keeps
// the contexts starting with it, case-sensitive: "" and "." keep the
// default context, any longer prefix none. (Named contexts are issue 15.)
func TestConfluentRestApiContextTest_contextPrefix(t *testing.T) {
	newEnv(t).run([]step{
		{method: "GET", path: "/contexts?contextPrefix=", json: `["."]`},
		{method: "GET", path: "/contexts?contextPrefix=.", json: `["."]`},
		{method: "GET", path: "/contexts?contextPrefix=.prod", json: `[]`},
		{method: "GET", path: "/contexts?contextPrefix=.TEST&offset=0&limit=-1", json: `[]`},
		{method: "GET", path: "/contexts?contextPrefix=.&offset=0&limit=2", json: `["."]`},
	})
}

// TestConfluentMetadataRuleMemberTypes: Confluent's Metadata (tags
// Map<String, Set<String>>, properties Map<String, String>, sensitive
// Set<String>), RuleSet and Rule (tags Set<String>, params Map<String,
// String>, disabled boolean) entities, as confluent-kafka-go's
// (Properties map[string]string, Tags map[string][]string, Rule.Params
// map[string]string): a member of another type, or one they do not
// declare, is refused with 422 naming the member and nothing is stored,
// on register (42201, as every mistyped field of a register request), on
// the tags route and in PUT /config (error_code 422, the Jackson mapping
// error of Confluent's REST layer).
func TestConfluentMetadataRuleMemberTypes(t *testing.T) {
	rule := func(extra string) string {
		return `{"domainRules":[{"name":"r","kind":"TRANSFORM","mode":"READ","type":"IGNORE"` + extra + `}]}`
	}
	metas := []struct{ body, member string }{
		{`{"properties":{"a":{"b":1}}}`, `metadata.properties`},
		{`{"properties":{"a":5}}`, `metadata.properties`},
		{`{"properties":"x"}`, `metadata.properties`},
		{`{"tags":{"a":"PII"}}`, `metadata.tags`},
		{`{"tags":5}`, `metadata.tags`},
		{`{"sensitive":[1]}`, `metadata.sensitive`},
		{`{"sensitive":"a"}`, `metadata.sensitive`},
		{`{"bogus":1}`, `bogus`},
	}
	rules := []struct{ body, member string }{
		{rule(`,"params":{"a":1}`), `ruleSet.domainRules.params`},
		{rule(`,"tags":"PII"`), `ruleSet.domainRules.tags`},
		{rule(`,"disabled":"yes"`), `ruleSet.domainRules.disabled`},
		{rule(`,"bogus":1`), `bogus`},
		{`{"domainRules":[],"bogus":1}`, `bogus`},
	}
	e := newEnv(t)
	e.run([]step{{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRec), json: `{"id":1}`}})
	for _, m := range metas {
		cfgMember := strings.Replace(m.member, "metadata", "defaultMetadata", 1)
		e.run([]step{
			{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRecInt, `"metadata":`+m.body), status: 422, code: 42201, contains: []string{m.member}},
			{method: "POST", path: "/subjects/s/versions/latest/tags", body: `{"metadata":` + m.body + `}`, status: 422, code: 42201, contains: []string{m.member}},
			{method: "PUT", path: "/config", body: `{"defaultMetadata":` + m.body + `}`, status: 422, code: 422, contains: []string{cfgMember}},
			{method: "PUT", path: "/config/s", body: `{"overrideMetadata":` + m.body + `}`, status: 422, code: 422, contains: []string{m.member[strings.LastIndex(m.member, ".")+1:]}},
		})
	}
	for _, r := range rules {
		cfgMember := strings.Replace(r.member, "ruleSet", "defaultRuleSet", 1)
		e.run([]step{
			{method: "POST", path: "/subjects/s/versions", body: schemaBody(cfRecInt, `"ruleSet":`+r.body), status: 422, code: 42201, contains: []string{r.member}},
			{method: "POST", path: "/subjects/s/versions/latest/tags", body: `{"rulesToMerge":` + r.body + `}`, status: 422, code: 42201},
			{method: "PUT", path: "/config", body: `{"defaultRuleSet":` + r.body + `}`, status: 422, code: 422, contains: []string{cfgMember}},
		})
	}
	// A metadata that is no object is refused on the tags route too
	// (it was dropped there), as on register and in PUT /config.
	e.run([]step{
		{method: "POST", path: "/subjects/s/versions/latest/tags", body: `{"metadata":5}`, status: 422, code: 42201, contains: []string{"metadata"}},
		{method: "POST", path: "/subjects/s/versions/latest/tags", body: `{"metadata":[1]}`, status: 422, code: 42201, contains: []string{"metadata"}},
		{method: "PUT", path: "/config", body: `{"overrideMetadata":[1]}`, status: 422, code: 42201, contains: []string{"overrideMetadata"}},
	})
	// Nothing was stored; members of the declared types are.
	e.run([]step{
		{method: "GET", path: "/subjects/s/versions", json: `[1]`},
		{method: "GET", path: "/config", notContains: []string{"defaultMetadata", "defaultRuleSet"}},
		{method: "GET", path: "/config/s", status: 404},
		{method: "POST", path: "/subjects/s/versions", json: `{"id":2}`, body: schemaBody(cfRec,
			`"metadata":{"properties":{"a":"b"},"tags":{"id":["PII"]},"sensitive":["k"]}`,
			`"ruleSet":`+rule(`,"params":{"a":"b"},"tags":["PII"],"disabled":true,"doc":"d","expr":"x"`))},
	})
}

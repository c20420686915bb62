package api_test

import (
	"strings"
	"testing"
)

// Schema tags on registration (schemaTagsToAdd, schemaTagsToRemove),
// pinned by the Protobuf RestApiTest (core/src/test/java/io/confluent/
// kafka/schemaregistry/rest/protobuf/RestApiTest.java in
// confluentinc/schema-registry). The schemas are Charter's own.

const (
	tagParcel = "syntax = \"proto3\";\npackage shop.test;\n\nmessage Parcel {\n  string label = 1;\n  string carrier = 2;\n}\n"
	// tagParcelTagged is tagParcel with label tagged PII and LABEL, as
	// Charter answers it: printed from the descriptor, with the import
	// of confluent/meta.proto that the option needs (Confluent's answer
	// has no import).
	tagParcelTagged = "syntax = \"proto3\";\npackage shop.test;\nimport \"confluent/meta.proto\";\nmessage Parcel {\n  string label = 1 [(confluent.field_meta) = {\n    tags: [\"PII\", \"LABEL\"]\n  }];\n  string carrier = 2;\n}\n"
	tagParcelPII    = "syntax = \"proto3\";\npackage shop.test;\nimport \"confluent/meta.proto\";\nmessage Parcel {\n  string label = 1 [(confluent.field_meta) = {\n    tags: [\"PII\"]\n  }];\n  string carrier = 2;\n}\n"
)

func fieldTags(path string, tags ...string) string {
	return `{"entity":{"entityPath":"` + path + `","entityType":"SR_FIELD"},"tags":` + jsonStrings(tags) + `}`
}

func jsonStrings(ss []string) string {
	out := "["
	for i, s := range ss {
		if i > 0 {
			out += ","
		}
		out += jsonString(s)
	}
	return out + "]"
}

// TestConfluentProtobufRestApiTest_testRegisterSchemaTagsBasic: protobuf
// RestApiTest.testRegisterSchemaTagsBasic, schemaTagsToAdd on a field
// (named with and without the leading dot) registers the schema with the
// field's (confluent.field_meta).tags as a new version (no version asked:
// the latest, so confluent:version is set); the tagged schema sent again
// as version 3 with schemaTagsToRemove drops one tag. Confluent also
// answers the new version in the register answer; Charter answers
// {"id":…} (a README difference), read back with GET.
func TestConfluentProtobufRestApiTest_testRegisterSchemaTagsBasic(t *testing.T) {
	newEnvFormats(t, allFormats).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: pbTyped(tagParcel), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test/versions", json: `{"id":2}`,
			body: pbTyped(tagParcel, `"schemaTagsToAdd":[`+fieldTags("Parcel.label", "PII")+`,`+fieldTags(".Parcel.label", "LABEL")+`]`)},
		{method: "GET", path: "/subjects/test/versions/latest",
			contains: []string{`"version":2`, `"id":2`, `"schema":` + jsonString(tagParcelTagged), `"confluent:version":"2"`}},
		{method: "POST", path: "/subjects/test/versions", json: `{"id":3}`,
			body: pbTyped(tagParcelTagged, `"version":3`, `"schemaTagsToRemove":[`+fieldTags("Parcel.label", "LABEL")+`]`)},
		{method: "GET", path: "/subjects/test/versions/latest",
			contains: []string{`"version":3`, `"id":3`, `"schema":` + jsonString(tagParcelPII), `"confluent:version":"3"`}},
		// Sent again as it is stored, it is version 3.
		{method: "POST", path: "/subjects/test/versions", body: pbTyped(tagParcelPII), json: `{"id":3}`},
	})
}

// TestSchemaTagsRefused: a tag on an element the schema does not have is
// 42201, as in Confluent (RestApiRegisterSchemaTagsTest.
// testRegisterSchemaTagsWithInvalidTags); a format Charter does not tag
// yet (JSON Schema) and an entity type other than SR_RECORD and SR_FIELD are 42201
// too, instead of registering the schema without the tags; nothing is
// stored.
func TestSchemaTagsRefused(t *testing.T) {
	e := newEnvFormats(t, allFormats)
	e.run([]step{
		{method: "POST", path: "/subjects/test/versions", body: pbTyped(tagParcel), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test/versions", status: 422, code: 42201, contains: []string{"Parcel.weight"},
			body: pbTyped(tagParcel, `"schemaTagsToAdd":[`+fieldTags("Parcel.weight", "PII")+`]`)},
		{method: "POST", path: "/subjects/test/versions", status: 422, code: 42201, contains: []string{"SR_ENUM"},
			body: pbTyped(tagParcel, `"schemaTagsToAdd":[{"entity":{"entityPath":"Parcel","entityType":"SR_ENUM"},"tags":["PII"]}]`)},
		{method: "POST", path: "/subjects/json/versions", status: 422, code: 42201, contains: []string{"JSON"},
			body: jsTyped(jsObject("id"), `"schemaTagsToAdd":[`+fieldTags("id", "PII")+`]`)},
		{method: "GET", path: "/subjects/test/versions", json: `[1]`},
		{method: "GET", path: "/subjects", json: `["test"]`},
		// A message takes (confluent.message_meta).tags.
		{method: "POST", path: "/subjects/test/versions", json: `{"id":2}`,
			body: pbTyped(tagParcel, `"schemaTagsToAdd":[{"entity":{"entityPath":"Parcel","entityType":"SR_RECORD"},"tags":["SHIPPING"]}]`)},
		{method: "GET", path: "/subjects/test/versions/2", contains: []string{`option (confluent.message_meta) = {`, `tags: [\"SHIPPING\"]`}},
	})
}

// TestConfluentProtobufRestApiTest_testRegisterSchemaTagsBasicDeprecated:
// protobuf RestApiTest.testRegisterSchemaTagsBasicDeprecated, the older
// API: POST /subjects/{s}/versions/latest/tags with tagsToAdd registers the
// latest version's schema with the field's tags as version 2
// (confluent:version 2), and newVersion 3 with tagsToRemove drops one.
func TestConfluentProtobufRestApiTest_testRegisterSchemaTagsBasicDeprecated(t *testing.T) {
	newEnvFormats(t, allFormats).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: pbTyped(tagParcel), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test/versions/latest/tags", json: `{"id":2}`,
			body: `{"tagsToAdd":[` + fieldTags("Parcel.label", "PII") + `,` + fieldTags(".Parcel.label", "LABEL") + `]}`},
		{method: "GET", path: "/subjects/test/versions/latest",
			contains: []string{`"version":2`, `"id":2`, `"schema":` + jsonString(tagParcelTagged), `"confluent:version":"2"`}},
		{method: "POST", path: "/subjects/test/versions/latest/tags", json: `{"id":3}`,
			body: `{"newVersion":3,"tagsToRemove":[` + fieldTags("Parcel.label", "LABEL") + `]}`},
		{method: "GET", path: "/subjects/test/versions/latest",
			contains: []string{`"version":3`, `"id":3`, `"schema":` + jsonString(tagParcelPII), `"confluent:version":"3"`}},
		// A version that is not the next one, or that does not exist.
		{method: "POST", path: "/subjects/test/versions/latest/tags", status: 422, code: 42201,
			body: `{"newVersion":3,"tagsToAdd":[` + fieldTags("Parcel.carrier", "X") + `]}`},
		{method: "POST", path: "/subjects/test/versions/9/tags", status: 404, code: 40402,
			body: `{"tagsToAdd":[` + fieldTags("Parcel.carrier", "X") + `]}`},
	})
}

// Avro records of RestApiRegisterSchemaTagsTest.
const (
	tagRec     = `{"type":"record","name":"Label","fields":[{"name":"text","type":"string"}]}`
	tagRecBoth = `{"type":"record","name":"Label","fields":[{"name":"text","type":"string"}],"confluent:tags":["PII","PRINTED"]}`
	tagRecPII  = `{"type":"record","name":"Label","fields":[{"name":"text","type":"string"}],"confluent:tags":["PII"]}`
)

func recordTags(path string, tags ...string) string {
	return `{"entity":{"entityPath":"` + path + `","entityType":"SR_RECORD"},"tags":` + jsonStrings(tags) + `}`
}

// TestConfluentRestApiRegisterSchemaTagsTest_testRegisterSchemaWithoutNewVersionInput:
// RestApiRegisterSchemaTagsTest.testRegisterSchemaWithoutNewVersionInput,
// schemaTagsToAdd on a record without a version registers the record with
// its "confluent:tags" as version 2 (confluent:version 2); the tagged
// record sent with schemaTagsToRemove is version 3.
func TestConfluentRestApiRegisterSchemaTagsTest_testRegisterSchemaWithoutNewVersionInput(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(tagRec), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test/versions", json: `{"id":2}`,
			body: schemaBody(tagRec, `"schemaTagsToAdd":[`+recordTags("Label", "PII", "PRINTED")+`]`)},
		{method: "GET", path: "/subjects/test/versions/latest",
			contains: []string{`"version":2`, `"schema":` + jsonString(tagRecBoth), `"confluent:version":"2"`}},
		{method: "POST", path: "/subjects/test/versions", json: `{"id":3}`,
			body: schemaBody(tagRecBoth, `"schemaTagsToRemove":[`+recordTags("Label", "PRINTED")+`]`)},
		{method: "GET", path: "/subjects/test/versions/latest",
			contains: []string{`"version":3`, `"schema":` + jsonString(tagRecPII), `"confluent:version":"3"`}},
	})
}

// TestConfluentRestApiRegisterSchemaTagsTest_testRegisterSchemaTagsBasicRegister:
// the register steps of RestApiRegisterSchemaTagsTest.
// testRegisterSchemaTagsBasic, with version 2 and then 3 asked for. Its
// schemaTags answer member, findTags and propagateSchemaTags steps are
// not matched (a README difference).
func TestConfluentRestApiRegisterSchemaTagsTest_testRegisterSchemaTagsBasicRegister(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(tagRec), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test/versions", json: `{"id":2}`,
			body: schemaBody(tagRec, `"version":2`, `"schemaTagsToAdd":[`+recordTags("Label", "PII", "PRINTED")+`]`)},
		{method: "GET", path: "/subjects/test/versions/latest",
			contains: []string{`"version":2`, `"schema":` + jsonString(tagRecBoth), `"confluent:version":"2"`}},
		{method: "POST", path: "/subjects/test/versions", json: `{"id":3}`,
			body: schemaBody(tagRecBoth, `"version":3`, `"schemaTagsToRemove":[`+recordTags("Label", "PRINTED")+`]`)},
		{method: "GET", path: "/subjects/test/versions/latest",
			contains: []string{`"version":3`, `"schema":` + jsonString(tagRecPII), `"confluent:version":"3"`}},
	})
}

// TestConfluentRestApiRegisterSchemaTagsTest_testRegisterSchemaTagsWithInvalidSchema:
// RestApiRegisterSchemaTagsTest.testRegisterSchemaTagsWithInvalidSchema,
// tags with version 2 under a subject that does not exist, and with
// version 1 that the subject already has, are 42201 (not the next
// version).
func TestConfluentRestApiRegisterSchemaTagsTest_testRegisterSchemaTagsWithInvalidSchema(t *testing.T) {
	tags := `"schemaTagsToAdd":[` + recordTags("Label", "PII") + `]`
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/non-exist/versions", body: schemaBody(tagRec, `"version":2`, tags), status: 422, code: 42201},
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(tagRec), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(tagRec, `"version":1`, tags), status: 422, code: 42201},
		{method: "GET", path: "/subjects", json: `["test"]`},
	})
}

// TestConfluentRestApiRegisterSchemaTagsTest_testRegisterSchemaTagsWithInvalidTags:
// RestApiRegisterSchemaTagsTest.testRegisterSchemaTagsWithInvalidTags, a
// field path that names nothing is 42201.
func TestConfluentRestApiRegisterSchemaTagsTest_testRegisterSchemaTagsWithInvalidTags(t *testing.T) {
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(tagRec), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test/versions", status: 422, code: 42201, contains: []string{"does.not.exist"},
			body: schemaBody(tagRec, `"version":2`, `"schemaTagsToAdd":[`+fieldTags("does.not.exist", "PII")+`]`)},
		{method: "GET", path: "/subjects/test/versions", json: `[1]`},
	})
}

// TestConfluentMaybeModifyPreviousRuleSetRemovesLastRule: Confluent's
// AbstractSchemaRegistry.maybeModifyPreviousRuleSet builds the new
// version's rule set from the previous one with rulesToRemove applied;
// removing the last rule leaves an empty rule set, so the new version has
// no rule (it does not take the latest version's rules as a request
// without a ruleSet would).
func TestConfluentMaybeModifyPreviousRuleSetRemovesLastRule(t *testing.T) {
	rule := `{"name":"r1","kind":"TRANSFORM","mode":"READ","type":"IGNORE"}`
	newEnv(t).run([]step{
		{method: "POST", path: "/subjects/s/versions", json: `{"id":1}`,
			body: schemaBody(cfRec, `"ruleSet":{"domainRules":[`+rule+`]}`)},
		{method: "GET", path: "/subjects/s/versions/1", contains: []string{`"name":"r1"`}},
		{method: "POST", path: "/subjects/s/versions/latest/tags", contains: []string{`"id":2`},
			body: `{"rulesToRemove":["r1"]}`},
		{method: "GET", path: "/subjects/s/versions/2", contains: []string{`"version":2`}, notContains: []string{`"r1"`}},
		// Removing one rule of two keeps the other.
		{method: "POST", path: "/subjects/s/versions/latest/tags", contains: []string{`"id":3`},
			body: `{"rulesToMerge":{"domainRules":[` + rule + `,{"name":"r2","kind":"TRANSFORM","mode":"READ","type":"IGNORE"}]}}`},
		{method: "POST", path: "/subjects/s/versions/latest/tags", contains: []string{`"id":4`},
			body: `{"rulesToRemove":["r1"]}`},
		{method: "GET", path: "/subjects/s/versions/4", contains: []string{`"name":"r2"`}, notContains: []string{`"r1"`}},
	})
}

// TestConfluentErrorEchoIsClipped: Confluent answers an unknown tag path
// with 42201 (InvalidSchemaException) naming it; Charter names at most
// compat.MaxEchoBytes bytes of any input an error echoes (the path, an
// unknown mode or level, an unrecognized member), so a 1 MB path does not
// give a 1 MB error body.
func TestConfluentErrorEchoIsClipped(t *testing.T) {
	huge := strings.Repeat("p", 200_000) // under the default --max-body-bytes
	e := newEnvFormats(t, allFormats)
	for _, s := range []step{
		{method: "POST", path: "/subjects/test/versions", body: pbTyped(tagParcel), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test/versions/latest/tags", status: 422, code: 42201,
			body: `{"tagsToAdd":[` + fieldTags("Parcel."+huge, "PII") + `]}`, contains: []string{"…"}},
		{method: "POST", path: "/subjects/avro/versions", status: 422, code: 42201, contains: []string{"…"},
			body: schemaBody(cfRec, `"schemaTagsToAdd":[{"entity":{"entityPath":"Order.`+huge+`","entityType":"SR_FIELD"},"tags":["PII"]}]`)},
		{method: "PUT", path: "/mode", body: `{"mode":"` + huge + `"}`, status: 422, code: 42204, contains: []string{"…"}},
		{method: "PUT", path: "/config", body: `{"compatibility":"` + huge + `"}`, status: 422, code: 42203, contains: []string{"…"}},
		{method: "PUT", path: "/config", body: `{"defaultMetadata":{"` + huge + `":1}}`, status: 422, code: 422, contains: []string{"…"}},
	} {
		status, _, body := e.do(s.method, s.path, s.body)
		if len(body) > 1000 {
			t.Errorf("%s %s: %d, error body of %d bytes", s.method, s.path, status, len(body))
		}
		e.run([]step{s})
	}
}

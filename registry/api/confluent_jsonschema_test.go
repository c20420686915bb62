package api_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// Behaviours pinned by Confluent Schema Registry's JSON Schema RestApiTest
// (core/src/test/java/io/confluent/kafka/schemaregistry/rest/json/
// RestApiTest.java in confluentinc/schema-registry), one test each, named
// after the Confluent test (TestConfluentJsonRestApiTest_*, as the class
// shares its name with the Avro one). The schemas are Charter's own.

// jsTyped is a JSON Schema register/lookup body.
func jsTyped(text string, extra ...string) string { return typed("JSON", text, extra...) }

// jsObject is a closed object with one string property.
func jsObject(prop string) string {
	return `{"type":"object","properties":{"` + prop + `":{"type":"string"}},"additionalProperties":false}`
}

// JSON Schemas of the reference tests: a referenced document with a
// definition, and a referrer using it by $ref.
const (
	jsRef      = `{"type":"object","additionalProperties":false,"definitions":{"Supplier":{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":false}}}`
	jsReferrer = `{"$id":"https://example.com/listing.json","$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"supplier":{"$ref":"supplier.json#/definitions/Supplier"}},"additionalProperties":false}`
	jsRefs     = `"references":[{"name":"supplier.json","subject":"reference","version":1}]`
)

// TestConfluentJsonRestApiTest_testBasic: json RestApiTest.testBasic, ten
// JSON Schemas under one subject and five under another get ids 1 to 15,
// read back by id as the same JSON, register again under their ids, and
// list as versions and subjects in order.
func TestConfluentJsonRestApiTest_testBasic(t *testing.T) {
	e := newEnvFormats(t, allFormats)
	e.run([]step{
		{method: "GET", path: "/subjects", json: `[]`},
		{method: "PUT", path: "/config", body: `{"compatibility":"NONE"}`},
	})
	for i := 1; i <= 15; i++ {
		subject := "testTopic1"
		if i > 10 {
			subject = "testTopic2"
		}
		e.run([]step{{method: "POST", path: "/subjects/" + subject + "/versions", body: jsTyped(jsObject("f" + itoa(i))), json: `{"id":` + itoa(i) + `}`}})
		if got := schemaField(t, e.mustDo("GET", "/schemas/ids/"+itoa(i), "")); !jsonEqual(t, got, jsObject("f"+itoa(i))) {
			t.Fatalf("schema %d reads %s, want %s", i, got, jsObject("f"+itoa(i)))
		}
		if i == 10 {
			for j := 1; j <= 10; j++ {
				e.run([]step{{method: "POST", path: "/subjects/testTopic1/versions", body: jsTyped(jsObject("f" + itoa(j))), json: `{"id":` + itoa(j) + `}`}})
			}
		}
	}
	e.run([]step{
		{method: "GET", path: "/subjects/testTopic1/versions", json: `[1,2,3,4,5,6,7,8,9,10]`},
		{method: "GET", path: "/subjects/testTopic2/versions", json: `[1,2,3,4,5]`},
		{method: "GET", path: "/subjects", json: `["testTopic1","testTopic2"]`},
	})
}

// TestConfluentJsonRestApiTest_testSchemaReferences: json
// RestApiTest.testSchemaReferences, a referrer registers with its
// reference and reads back with it; referencedby lists it; a lookup
// finds it; the referenced version cannot be deleted while referenced
// (42206) and can once the referrer is deleted, when referencedby is
// empty.
func TestConfluentJsonRestApiTest_testSchemaReferences(t *testing.T) {
	e := newEnvFormats(t, allFormats)
	e.run([]step{
		{method: "POST", path: "/subjects/reference/versions", body: jsTyped(jsRef), json: `{"id":1}`},
		{method: "POST", path: "/subjects/referrer/versions", body: jsTyped(jsReferrer, jsRefs), json: `{"id":2}`},
		{method: "GET", path: "/schemas/ids/2", contains: []string{`"references":[{"name":"supplier.json","subject":"reference","version":1}]`}},
		{method: "GET", path: "/subjects/reference/versions/1/referencedby", json: `[2]`},
		{method: "POST", path: "/subjects/referrer", body: jsTyped(jsReferrer, jsRefs), contains: []string{`"id":2`}},
		{method: "DELETE", path: "/subjects/reference/versions/1", status: 422, code: 42206},
		{method: "DELETE", path: "/subjects/referrer/versions/1", json: `1`},
		{method: "GET", path: "/subjects/reference/versions/1/referencedby", json: `[]`},
		{method: "DELETE", path: "/subjects/reference/versions/1", json: `1`},
	})
	if got := schemaField(t, e.mustDo("GET", "/schemas/ids/2", "")); !jsonEqual(t, got, jsReferrer) {
		t.Fatalf("referrer reads %s, want %s", got, jsReferrer)
	}
}

// TestConfluentJsonRestApiTest_testSchemaMissingReferences: json
// RestApiTest.testSchemaMissingReferences, a schema whose $ref names a
// document it has no reference for is refused (42201).
func TestConfluentJsonRestApiTest_testSchemaMissingReferences(t *testing.T) {
	newEnvFormats(t, allFormats).run([]step{
		{method: "POST", path: "/subjects/referrer/versions", body: jsTyped(jsReferrer, `"references":[]`), status: 422, code: 42201},
		{method: "GET", path: "/subjects", json: `[]`},
	})
}

// TestConfluentJsonRestApiTest_testSchemaNormalization: json
// RestApiTest.testSchemaNormalization, with normalize a schema with its
// keywords and properties in another order (and its references listed in
// another order) is found as the version registered first, id 3.
func TestConfluentJsonRestApiTest_testSchemaNormalization(t *testing.T) {
	ref1 := `{"type":"object","additionalProperties":false,"definitions":{"A":{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":false}}}`
	ref2 := `{"type":"object","additionalProperties":false,"definitions":{"B":{"type":"object","properties":{"name2":{"type":"string"}},"additionalProperties":false}}}`
	s1 := `{"$id":"https://example.com/both.json","$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"$ref":"ref1.json#/definitions/A"},"b":{"$ref":"ref2.json#/definitions/B"}},"additionalProperties":false}`
	s2 := `{"$schema":"http://json-schema.org/draft-07/schema#","$id":"https://example.com/both.json","type":"object","properties":{"b":{"$ref":"ref2.json#/definitions/B"},"a":{"$ref":"ref1.json#/definitions/A"}},"additionalProperties":false}`
	r1 := `{"name":"ref1.json","subject":"ref1","version":1}`
	r2 := `{"name":"ref2.json","subject":"ref2","version":1}`
	newEnvFormats(t, allFormats).run([]step{
		{method: "POST", path: "/subjects/ref1/versions", body: jsTyped(ref1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/ref2/versions", body: jsTyped(ref2), json: `{"id":2}`},
		{method: "POST", path: "/subjects/testSubject1/versions?normalize=true", body: jsTyped(s1, `"references":[`+r1+`,`+r2+`]`), json: `{"id":3}`},
		{method: "POST", path: "/subjects/testSubject1?normalize=true", body: jsTyped(s2, `"references":[`+r2+`,`+r1+`]`), contains: []string{`"version":1`, `"id":3`}},
	})
}

// TestConfluentJsonRestApiTest_testBad: json RestApiTest.testBad, an
// unknown type keyword value and a reference to a subject that does not
// exist are both 42201, and no subject is created.
func TestConfluentJsonRestApiTest_testBad(t *testing.T) {
	bad := `{"type":"bad-object","properties":{"f1":{"type":"string"}},"additionalProperties":false}`
	newEnvFormats(t, allFormats).run([]step{
		{method: "GET", path: "/subjects", json: `[]`},
		{method: "POST", path: "/subjects/testTopic1/versions", body: jsTyped(bad), status: 422, code: 42201},
		{method: "POST", path: "/subjects/testTopic1/versions", body: jsTyped(jsObject("f1"), `"references":[{"name":"bad","subject":"bad","version":100}]`), status: 422, code: 42201},
		{method: "GET", path: "/subjects", json: `[]`},
	})
}

// TestConfluentJsonRestApiTest_testIncompatibleSchema: json
// RestApiTest.testIncompatibleSchema, under FULL a closed object's
// property changed from number to string is 409 with a message naming the
// old version, schema and compatibility, and a verbose check lists them
// as messages 3 to 5.
func TestConfluentJsonRestApiTest_testIncompatibleSchema(t *testing.T) {
	v1 := `{"$schema":"http://json-schema.org/draft-07/schema#","$id":"https://example.com/item.json","type":"object","properties":{"name":{"type":"string"},"price":{"type":"number"}},"additionalProperties":false}`
	v2 := strings.Replace(v1, `"price":{"type":"number"}`, `"price":{"type":"string"}`, 1)
	e := newEnvFormats(t, allFormats)
	e.run([]step{
		{method: "PUT", path: "/config/testSubject", body: `{"compatibility":"FULL"}`},
		{method: "POST", path: "/subjects/testSubject/versions?normalize=true", body: jsTyped(v1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions?normalize=true", body: jsTyped(v2), status: 409, code: 409,
			contains: []string{"oldSchemaVersion:", "oldSchema:", "compatibility:"}},
	})
	var out struct {
		Compatible bool     `json:"is_compatible"`
		Messages   []string `json:"messages"`
	}
	if err := json.Unmarshal([]byte(e.mustDo("POST", "/compatibility/subjects/testSubject/versions/1?verbose=true", jsTyped(v2))), &out); err != nil {
		t.Fatal(err)
	}
	if out.Compatible || len(out.Messages) < 5 || !strings.Contains(out.Messages[2], "oldSchemaVersion:") ||
		!strings.Contains(out.Messages[3], "oldSchema:") || !strings.Contains(out.Messages[4], "compatibility:") {
		t.Fatalf("verbose check = %+v, want incompatible with oldSchemaVersion, oldSchema and compatibility as messages 3 to 5", out)
	}
}

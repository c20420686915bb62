package api_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// Behaviours pinned by Confluent Schema Registry's Protobuf RestApiTest
// (core/src/test/java/io/confluent/kafka/schemaregistry/rest/protobuf/
// RestApiTest.java in confluentinc/schema-registry), one test each, named
// after the Confluent test (TestConfluentProtobufRestApiTest_*, as the
// class shares its name with the Avro one). The schemas are Charter's own.

// pbTyped is a Protobuf register/lookup body.
func pbTyped(text string, extra ...string) string { return typed("PROTOBUF", text, extra...) }

// pbMsg is a message whose first field is named name.
func pbMsg(name string) string {
	return "syntax = \"proto3\";\npackage shop.test;\n\nmessage Item {\n  string " + name + " = 1;\n  bool in_stock = 2;\n}\n"
}

// pbCanonical is text in Charter's canonical Protobuf layout, which drops
// the blank lines of Confluent's (Wire's) layout: Confluent answers the
// schemas of its test as sent, Charter answers them without the blank
// lines (a README difference).
func pbCanonical(text string) string {
	for strings.Contains(text, "\n\n") {
		text = strings.ReplaceAll(text, "\n\n", "\n")
	}
	return text
}

// schemaField returns the "schema" member of a JSON answer.
func schemaField(t *testing.T, body string) string {
	t.Helper()
	var v struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("no schema in %s (%v)", body, err)
	}
	return v.Schema
}

// TestConfluentProtobufRestApiTest_testBasic: protobuf RestApiTest.testBasic,
// ten Protobuf schemas under one subject and five under another get ids 1
// to 15, read back by id (in Charter's canonical layout), register again
// under their ids, and
// list as versions and subjects in order.
func TestConfluentProtobufRestApiTest_testBasic(t *testing.T) {
	var steps []step
	steps = append(steps, step{method: "GET", path: "/subjects", json: `[]`},
		step{method: "PUT", path: "/config", body: `{"compatibility":"NONE"}`})
	for i := 1; i <= 15; i++ {
		subject := "testTopic1"
		if i > 10 {
			subject = "testTopic2"
		}
		steps = append(steps,
			step{method: "POST", path: "/subjects/" + subject + "/versions", body: pbTyped(pbMsg("f" + itoa(i))), json: `{"id":` + itoa(i) + `}`},
			step{method: "GET", path: "/schemas/ids/" + itoa(i), contains: []string{`"schema":` + jsonString(pbCanonical(pbMsg("f"+itoa(i))))}})
		if i == 10 {
			for j := 1; j <= 10; j++ {
				steps = append(steps, step{method: "POST", path: "/subjects/testTopic1/versions", body: pbTyped(pbMsg("f" + itoa(j))), json: `{"id":` + itoa(j) + `}`})
			}
		}
	}
	steps = append(steps,
		step{method: "GET", path: "/subjects/testTopic1/versions", json: `[1,2,3,4,5,6,7,8,9,10]`},
		step{method: "GET", path: "/subjects/testTopic2/versions", json: `[1,2,3,4,5]`},
		step{method: "GET", path: "/subjects", json: `["testTopic1","testTopic2"]`})
	newEnvFormats(t, allFormats).run(steps)
}

// Schemas of the reference tests: a referenced message and a referrer
// that imports it and Confluent's meta.proto.
const (
	pbRef  = "syntax = \"proto3\";\npackage shop.test;\n\nmessage Supplier {\n  string supplier_id = 1;\n  bool active = 2;\n}\n"
	pbRoot = "syntax = \"proto3\";\npackage shop.test;\n\nimport \"supplier.proto\";\nimport \"confluent/meta.proto\";\n\nmessage Listing {\n  option (confluent.message_meta) = {\n    doc: \"Listing\"\n  };\n\n  string listing_id = 1;\n  .shop.test.Supplier supplier = 2 [(confluent.field_meta) = {\n    doc: \"Supplier\"\n  }];\n}\n"
	// pbRootRefs names the references the way Confluent's test does:
	// meta.proto registered as a subject of its own name.
	pbRootRefs = `[{"name":"supplier.proto","subject":"reference","version":1},{"name":"confluent/meta.proto","subject":"confluent/meta.proto","version":1}]`
)

// TestConfluentProtobufRestApiTest_testSchemaReferences: protobuf
// RestApiTest.testSchemaReferences, Confluent's meta.proto registers as
// a subject (as Confluent's Java serializer registers it), a referrer
// registers with references to it and to another file, reads back by id
// (canonical layout), and with format=serialized as a
// base64 FileDescriptorProto with the same references; a lookup finds it
// (format=serialized answers the descriptor), and latest with
// format=serialized answers the descriptor too.
func TestConfluentProtobufRestApiTest_testSchemaReferences(t *testing.T) {
	// Charter's own copy of meta.proto, which it also resolves built in.
	meta, err := os.ReadFile("../../compat/protobuf/include/confluent/meta.proto")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvFormats(t, allFormats)
	e.run([]step{
		{method: "POST", path: "/subjects/confluent%2Fmeta.proto/versions", body: pbTyped(string(meta)), json: `{"id":1}`},
		{method: "POST", path: "/subjects/reference/versions", body: pbTyped(pbRef), json: `{"id":2}`},
		{method: "POST", path: "/subjects/referrer/versions", body: pbTyped(pbRoot, `"references":`+pbRootRefs), json: `{"id":3}`},
		{method: "GET", path: "/schemas/ids/3", contains: []string{`"schema":` + jsonString(pbCanonical(pbRoot)), `"references":` + pbRootRefs}},
		{method: "GET", path: "/schemas/ids/3?format=serialized", contains: []string{`"references":` + pbRootRefs}},
		{method: "POST", path: "/subjects/referrer", body: pbTyped(pbRoot, `"references":`+pbRootRefs), contains: []string{`"id":3`, `"version":1`}},
		{method: "GET", path: "/subjects/referrer/versions/latest", contains: []string{`"id":3`}},
	})
	for _, path := range []string{"/schemas/ids/3?format=serialized", "/subjects/referrer/versions/latest?format=serialized"} {
		s := schemaField(t, e.mustDo("GET", path, ""))
		if _, err := base64.StdEncoding.DecodeString(s); err != nil || strings.Contains(s, "syntax") {
			t.Fatalf("GET %s: schema %q is not a base64 descriptor (%v)", path, s, err)
		}
	}
	s := schemaField(t, e.mustDo("POST", "/subjects/referrer?format=serialized", pbTyped(pbRoot, `"references":`+pbRootRefs)))
	if _, err := base64.StdEncoding.DecodeString(s); err != nil {
		t.Fatalf("lookup with format=serialized: schema %q is not base64 (%v)", s, err)
	}
}

// Schemas of the package tests: two files in packages of their own, and
// a third importing both.
const (
	pbPkg1 = "syntax = \"proto3\";\npackage pkg1;\n\noption go_package = \"pkg1pb\";\noption java_multiple_files = true;\noption java_outer_classname = \"Msg1Proto\";\noption java_package = \"com.pkg1\";\n\nmessage Message1 {\n  string s = 1;\n}\n"
	pbPkg2 = "syntax = \"proto3\";\npackage pkg2;\n\noption go_package = \"pkg2pb\";\noption java_multiple_files = true;\noption java_outer_classname = \"Msg2Proto\";\noption java_package = \"com.pkg2\";\n\nmessage Message2 {\n  string s = 1;\n}\n"
	pbPkg3 = "syntax = \"proto3\";\npackage pkg3;\n\noption go_package = \"pkg3pb\";\noption java_multiple_files = true;\noption java_outer_classname = \"Msg3Proto\";\noption java_package = \"com.pkg3\";\n\nimport \"pkg1/msg1.proto\";\nimport \"pkg2/msg2.proto\";\n\nmessage Message3 {\n  map<string, pkg1.Message1> map = 1;\n  pkg1.Message1 f1 = 2;\n  pkg2.Message2 f2 = 3;\n}\n"
	// pbPkg3Reordered is pbPkg3 with its options, imports and fields in
	// another order.
	pbPkg3Reordered = "syntax = \"proto3\";\npackage pkg3;\n\noption java_package = \"com.pkg3\";\noption java_outer_classname = \"Msg3Proto\";\noption java_multiple_files = true;\noption go_package = \"pkg3pb\";\n\nimport \"pkg2/msg2.proto\";\nimport \"pkg1/msg1.proto\";\n\nmessage Message3 {\n  pkg2.Message2 f2 = 3;\n  pkg1.Message1 f1 = 2;\n  map<string, pkg1.Message1> map = 1;\n}\n"
	pbRef1          = `{"name":"pkg1/msg1.proto","subject":"pkg1/msg1.proto","version":1}`
	pbRef2          = `{"name":"pkg2/msg2.proto","subject":"pkg2/msg2.proto","version":1}`
)

// TestConfluentProtobufRestApiTest_testSchemaReferencesPkg: protobuf
// RestApiTest.testSchemaReferencesPkg, a file in another package
// imported by path and used in a map value and a field registers.
func TestConfluentProtobufRestApiTest_testSchemaReferencesPkg(t *testing.T) {
	pkg2 := "syntax = \"proto3\";\npackage pkg2;\n\nimport \"pkg1/msg1.proto\";\n\nmessage Message2 {\n  map<string, pkg1.Message1> map = 1;\n  pkg1.Message1 f2 = 2;\n}\n"
	newEnvFormats(t, allFormats).run([]step{
		{method: "POST", path: "/subjects/pkg1%2Fmsg1.proto/versions", body: pbTyped(pbPkg1), json: `{"id":1}`},
		{method: "GET", path: "/schemas/ids/1/schema", contains: []string{pbCanonical(pbPkg1)}},
		{method: "POST", path: "/subjects/pkg2%2Fmsg2.proto/versions", body: pbTyped(pkg2, `"references":[`+pbRef1+`]`), json: `{"id":2}`},
	})
}

// TestConfluentProtobufRestApiTest_testSchemaMissingReferences: protobuf
// RestApiTest.testSchemaMissingReferences, a schema importing files it
// has no references for is refused (42201).
func TestConfluentProtobufRestApiTest_testSchemaMissingReferences(t *testing.T) {
	newEnvFormats(t, allFormats).run([]step{
		{method: "POST", path: "/subjects/referrer/versions", body: pbTyped(pbRoot, `"references":[]`), status: 422, code: 42201},
		{method: "GET", path: "/subjects", json: `[]`},
	})
}

// TestConfluentProtobufRestApiTest_testIncompatibleSchema: protobuf
// RestApiTest.testIncompatibleSchema, under FULL a field changed from
// string to int32 is 409 with a message naming the old version, schema
// and compatibility, and a verbose check lists them as messages 3 to 5.
func TestConfluentProtobufRestApiTest_testIncompatibleSchema(t *testing.T) {
	v1 := "syntax = \"proto3\";\npackage pkg3;\n\nmessage Schema1 {\n  string f1 = 1;\n  string f2 = 2;\n}\n"
	v2 := "syntax = \"proto3\";\npackage pkg3;\n\nmessage Schema1 {\n  string f1 = 1;\n  int32 f2 = 2;\n}\n"
	e := newEnvFormats(t, allFormats)
	e.run([]step{
		{method: "PUT", path: "/config/testSubject", body: `{"compatibility":"FULL"}`},
		{method: "POST", path: "/subjects/testSubject/versions?normalize=true", body: pbTyped(v1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testSubject/versions?normalize=true", body: pbTyped(v2), status: 409, code: 409,
			contains: []string{"oldSchemaVersion:", "oldSchema:", "compatibility:"}},
	})
	var out struct {
		Compatible bool     `json:"is_compatible"`
		Messages   []string `json:"messages"`
	}
	if err := json.Unmarshal([]byte(e.mustDo("POST", "/compatibility/subjects/testSubject/versions/1?verbose=true", pbTyped(v2))), &out); err != nil {
		t.Fatal(err)
	}
	if out.Compatible || len(out.Messages) < 5 || !strings.Contains(out.Messages[2], "oldSchemaVersion:") ||
		!strings.Contains(out.Messages[3], "oldSchema:") || !strings.Contains(out.Messages[4], "compatibility:") {
		t.Fatalf("verbose check = %+v, want incompatible with oldSchemaVersion, oldSchema and compatibility as messages 3 to 5", out)
	}
}

// TestConfluentProtobufRestApiTest_testSchemaNormalization: protobuf
// RestApiTest.testSchemaNormalization, with normalize a schema whose
// options, imports and fields are reordered (and references listed in
// another order) is found as the version registered first.
func TestConfluentProtobufRestApiTest_testSchemaNormalization(t *testing.T) {
	newEnvFormats(t, allFormats).run([]step{
		{method: "POST", path: "/subjects/pkg1%2Fmsg1.proto/versions", body: pbTyped(pbPkg1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/pkg2%2Fmsg2.proto/versions", body: pbTyped(pbPkg2), json: `{"id":2}`},
		{method: "POST", path: "/subjects/testSubject1/versions?normalize=true", body: pbTyped(pbPkg3, `"references":[`+pbRef1+`,`+pbRef2+`]`), json: `{"id":3}`},
		{method: "POST", path: "/subjects/testSubject1?normalize=true", body: pbTyped(pbPkg3Reordered, `"references":[`+pbRef2+`,`+pbRef1+`]`), contains: []string{`"version":1`, `"id":3`}},
	})
}

// TestConfluentProtobufRestApiTest_testBad: protobuf RestApiTest.testBad,
// a schema that does not parse and a reference to a subject that does
// not exist are both 42201, and no subject is created.
func TestConfluentProtobufRestApiTest_testBad(t *testing.T) {
	bad := "syntax = \"proto3\";\npackage shop.test;\n\nbad-message Item {\n  string f1 = 1;\n}\n"
	newEnvFormats(t, allFormats).run([]step{
		{method: "GET", path: "/subjects", json: `[]`},
		{method: "POST", path: "/subjects/testTopic1/versions", body: pbTyped(bad), status: 422, code: 42201},
		{method: "POST", path: "/subjects/testTopic1/versions", body: pbTyped(pbMsg("f1"), `"references":[{"name":"bad","subject":"bad","version":100}]`), status: 422, code: 42201},
		{method: "GET", path: "/subjects", json: `[]`},
	})
}

// TestConfluentProtobufRestApiTest_testCustomOption: protobuf
// RestApiTest.testCustomOption, options on a message, a oneof and an
// enum, and a php_namespace with an escaped backslash, register and read
// back with the escape and the options kept. Confluent's test uses an
// option whose extension is declared nowhere, which its parser keeps;
// Charter refuses that (42201: it resolves every option, a README
// difference), so here the extensions are declared.
func TestConfluentProtobufRestApiTest_testCustomOption(t *testing.T) {
	schema := "syntax = \"proto3\";\n\nimport \"google/protobuf/descriptor.proto\";\n\noption java_package = \"com.shop.test\";\noption java_outer_classname = \"SuitProtos\";\noption php_namespace = \"Shop\\\\V1\";\n\nextend google.protobuf.MessageOptions {\n  string doc_url = 50001;\n}\nextend google.protobuf.OneofOptions {\n  string oneof_url = 50002;\n}\nextend google.protobuf.EnumOptions {\n  string enum_url = 50003;\n}\n\nmessage Card {\n  option (doc_url) = \"https://example.com\";\n\n  Suit suit = 1;\n\n  oneof pick {\n    option (oneof_url) = \"https://example.com\";\n\n    string name = 2;\n    int32 rank = 3;\n  }\n\n  enum Suit {\n    option (enum_url) = \"https://example.com\";\n    SPADES = 0;\n    HEARTS = 1;\n  }\n}\n"
	newEnvFormats(t, allFormats).run([]step{
		{method: "POST", path: "/subjects/test-proto/versions", body: pbTyped(schema), json: `{"id":1}`},
		{method: "POST", path: "/subjects/test-proto/versions", body: pbTyped(strings.Replace(schema, "extend google.protobuf.MessageOptions {\n  string doc_url = 50001;\n}\n", "", 1)), status: 422, code: 42201},
		{method: "GET", path: "/schemas/ids/1/schema", contains: []string{`option php_namespace = "Shop\\V1";`, `option (oneof_url) = "https://example.com";`, `option (enum_url) = "https://example.com";`}},
	})
}

// TestConfluentProtobufRestApiTest_testGuidIsCorrectWithSerializedFormat:
// protobuf RestApiTest.testGuidIsCorrectWithSerializedFormat, latest and
// a lookup with format=serialized answer the version's id with the schema
// in its serialized form, not the text. (Confluent also answers a guid,
// which Charter does not have: see the README.)
func TestConfluentProtobufRestApiTest_testGuidIsCorrectWithSerializedFormat(t *testing.T) {
	schema := "syntax = \"proto3\";\npackage shop.test;\n\nmessage MyRecord {\n  string f1 = 1;\n}\n"
	e := newEnvFormats(t, allFormats)
	e.run([]step{
		{method: "POST", path: "/subjects/testSubject/versions", body: pbTyped(schema), json: `{"id":1}`},
		{method: "GET", path: "/subjects/testSubject/versions/latest?format=serialized", contains: []string{`"id":1`}, notContains: []string{`"schema":` + jsonString(schema)}},
		{method: "POST", path: "/subjects/testSubject?format=serialized", body: pbTyped(schema), contains: []string{`"id":1`}, notContains: []string{`"schema":` + jsonString(schema)}},
	})
}

// TestConfluentProtobufRestApiTest_testParsedSchemaCacheAcrossSubjects:
// protobuf RestApiTest.testParsedSchemaCacheAcrossSubjects, one schema
// under two subjects has one id, read the same under either subject.
// (The rest of the Confluent test is about its Java client's cache.)
func TestConfluentProtobufRestApiTest_testParsedSchemaCacheAcrossSubjects(t *testing.T) {
	schema := "syntax = \"proto3\";\npackage shop.test;\n\nmessage CacheTestMessage {\n  string name = 1;\n  bool is_active = 2;\n}\n"
	newEnvFormats(t, allFormats).run([]step{
		{method: "POST", path: "/subjects/testCacheSubject1/versions", body: pbTyped(schema), json: `{"id":1}`},
		{method: "POST", path: "/subjects/testCacheSubject2/versions", body: pbTyped(schema), json: `{"id":1}`},
		{method: "GET", path: "/schemas/ids/1?subject=testCacheSubject1", contains: []string{`"schema":` + jsonString(pbCanonical(schema))}},
		{method: "GET", path: "/schemas/ids/1?subject=testCacheSubject2", contains: []string{`"schema":` + jsonString(pbCanonical(schema))}},
	})
}

// Schemas of the validateFields tests: a dependency, a schema that uses
// its message without importing it, and one that imports it.
const (
	pbFloats     = "syntax = \"proto3\";\npackage com.example;\n\nmessage FeatureDataFloatArray {\n  repeated float values = 1;\n}\n"
	pbNoImport   = "syntax = \"proto3\";\npackage com.example;\n\nmessage FeatureData {\n  map<string, FeatureDataFloatArray> float_array_features = 1;\n}\n"
	pbWithImport = "syntax = \"proto3\";\npackage com.example;\n\nimport \"float_array.proto\";\n\nmessage FeatureData {\n  map<string, FeatureDataFloatArray> float_array_features = 1;\n}\n"
	pbFloatsRef  = `"references":[{"name":"float_array.proto","subject":"float_array.proto","version":1}]`
)

// TestConfluentProtobufRestApiTest_testValidateFieldsRejectsBrokenReference:
// protobuf RestApiTest.testValidateFieldsRejectsBrokenReference, with
// validateFields on a schema that uses a referenced message without
// importing its file is 42201.
func TestConfluentProtobufRestApiTest_testValidateFieldsRejectsBrokenReference(t *testing.T) {
	newEnvFormats(t, allFormats).run([]step{
		{method: "POST", path: "/subjects/float_array.proto/versions", body: pbTyped(pbFloats), json: `{"id":1}`},
		{method: "PUT", path: "/config", body: `{"validateFields":true}`},
		{method: "POST", path: "/subjects/broken_referrer/versions", body: pbTyped(pbNoImport, pbFloatsRef), status: 422, code: 42201},
	})
}

// TestConfluentProtobufRestApiTest_testValidateFieldsAcceptsValidReference:
// protobuf RestApiTest.testValidateFieldsAcceptsValidReference, with
// validateFields on the schema that imports its reference registers.
func TestConfluentProtobufRestApiTest_testValidateFieldsAcceptsValidReference(t *testing.T) {
	newEnvFormats(t, allFormats).run([]step{
		{method: "POST", path: "/subjects/float_array.proto/versions", body: pbTyped(pbFloats), json: `{"id":1}`},
		{method: "PUT", path: "/config", body: `{"validateFields":true}`},
		{method: "POST", path: "/subjects/valid_referrer/versions", body: pbTyped(pbWithImport, pbFloatsRef), json: `{"id":2}`},
	})
}

// TestConfluentProtobufRestApiTest_testValidateFieldsAcceptsWellKnownImports:
// protobuf RestApiTest.testValidateFieldsAcceptsWellKnownImports, with
// validateFields on, imports of well-known types need no references.
func TestConfluentProtobufRestApiTest_testValidateFieldsAcceptsWellKnownImports(t *testing.T) {
	schema := "syntax = \"proto3\";\npackage com.example;\n\nimport \"google/protobuf/timestamp.proto\";\nimport \"google/protobuf/duration.proto\";\n\nmessage Event {\n  string name = 1;\n  google.protobuf.Timestamp created_at = 2;\n  google.protobuf.Duration ttl = 3;\n}\n"
	newEnvFormats(t, allFormats).run([]step{
		{method: "PUT", path: "/config", body: `{"validateFields":true}`},
		{method: "POST", path: "/subjects/wellknown_subject/versions", body: pbTyped(schema), json: `{"id":1}`},
	})
}

// TestConfluentProtobufRestApiTest_testValidateFieldsDisabledAcceptsBrokenReference:
// protobuf RestApiTest.testValidateFieldsDisabledAcceptsBrokenReference
// expects the schema that uses a message it does not import to register
// when validateFields is off. Charter refuses it either way (42201, a
// README difference): it resolves every type of a schema it stores, so
// that compatibility checks and the serialized form are exact.
func TestConfluentProtobufRestApiTest_testValidateFieldsDisabledAcceptsBrokenReference(t *testing.T) {
	newEnvFormats(t, allFormats).run([]step{
		{method: "POST", path: "/subjects/float_array.proto/versions", body: pbTyped(pbFloats), json: `{"id":1}`},
		{method: "PUT", path: "/config", body: `{"validateFields":false}`},
		{method: "POST", path: "/subjects/broken_referrer/versions", body: pbTyped(pbNoImport, pbFloatsRef), status: 422, code: 42201},
	})
}

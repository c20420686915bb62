package api_test

import (
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
)

// allFormats are the formats `charter serve` runs with.
var allFormats = formats.Formats()

// typed is a register/lookup/compatibility body for schema text of type t,
// with extra JSON members (e.g. references).
func typed(t compat.SchemaType, text string, extra ...string) string {
	return schemaBody(text, append([]string{`"schemaType":"` + string(t) + `"`}, extra...)...)
}

// Protobuf schemas of the scenarios below.
const (
	protoCommon  = "syntax = \"proto3\";\npackage acme;\nmessage Address {\n  string city = 1;\n}\n"
	protoOrder   = "syntax = \"proto3\";\npackage acme;\nimport \"common.proto\";\nmessage Order {\n  Address addr = 1;\n  int64 id = 2;\n}\n"
	protoOrderV2 = "syntax = \"proto3\";\npackage acme;\nimport \"common.proto\";\nmessage Order {\n  Address addr = 1;\n  int64 id = 2;\n  string note = 3;\n}\n"
	protoOrderID = "syntax = \"proto3\";\npackage acme;\nimport \"common.proto\";\nmessage Order {\n  Address addr = 1;\n  string id = 2;\n}\n"
	protoRefs    = `"references":[{"name":"common.proto","subject":"common","version":1}]`
	// protoAB and protoBA differ in field order, spacing and comments only.
	protoAB = "syntax = \"proto3\";\nmessage N {\n  string a = 1;\n  string b = 2;\n}\n"
	protoBA = "syntax = \"proto3\";\n// comment\nmessage N { string b = 2;   string a = 1; }\n"
)

// JSON Schemas of the scenarios below.
const (
	jsonAddress = `{"$id":"address.json","type":"object","properties":{"city":{"type":"string"}}}`
	jsonCust    = `{"type":"object","properties":{"name":{"type":"string"},"addr":{"$ref":"address.json"}}}`
	// jsonCustReordered is jsonCust with its keys in another order.
	jsonCustReordered = `{"properties":{"addr":{"$ref":"address.json"},"name":{"type":"string"}},"type":"object"}`
	jsonCustV2        = `{"type":"object","properties":{"name":{"type":["string","null"]},"addr":{"$ref":"address.json"}}}`
	jsonCustIntName   = `{"type":"object","properties":{"name":{"type":"integer"},"addr":{"$ref":"address.json"}}}`
	jsonRefs          = `"references":[{"name":"address.json","subject":"addr","version":1}]`
)

// TestFormatScenarios drives references, referencedby, normalization and
// bad input through the API for Protobuf and JSON Schema (issue 3), with
// the three formats `charter serve` runs.
func TestFormatScenarios(t *testing.T) {
	t.Parallel()
	P, J, A := compat.Protobuf, compat.JSON, compat.Avro
	tests := []struct {
		name  string
		steps []step
	}{
		{"types", []step{
			{method: "GET", path: "/schemas/types", json: `["JSON","PROTOBUF","AVRO"]`},
		}},
		{"protobuf: import through a reference on register, lookup and compatibility; referencedby; 42206", []step{
			{method: "POST", path: "/subjects/common/versions", body: typed(P, protoCommon), json: `{"id":1}`},
			{method: "POST", path: "/subjects/order/versions", body: typed(P, protoOrder, protoRefs), json: `{"id":2}`},
			{method: "GET", path: "/subjects/order/versions/1", json: `{"subject":"order","version":1,"id":2,"schemaType":"PROTOBUF",` +
				`"references":[{"name":"common.proto","subject":"common","version":1}],"schema":` + jsonString(protoOrder) + `}`},
			{method: "GET", path: "/schemas/ids/2", contains: []string{`"schemaType":"PROTOBUF"`, `"references":[{"name":"common.proto"`}},
			{method: "GET", path: "/subjects/common/versions/1/referencedby", json: `[2]`},
			{method: "POST", path: "/subjects/order", body: typed(P, protoOrder, protoRefs), contains: []string{`"version":1`, `"id":2`}},
			// The same text without its reference does not resolve its import.
			{method: "POST", path: "/subjects/order", body: typed(P, protoOrder), status: 422, code: 42201, contains: []string{`common.proto`}},
			{method: "POST", path: "/compatibility/subjects/order/versions/latest", body: typed(P, protoOrderV2, protoRefs), json: `{"is_compatible":true}`},
			{method: "POST", path: "/compatibility/subjects/order/versions/latest?verbose=true", body: typed(P, protoOrderID, protoRefs),
				contains: []string{`"is_compatible":false`, `PROTO_FIELD_SCALAR_KIND_CHANGED`, `path:'.Order.id'`}},
			{method: "POST", path: "/subjects/order/versions", body: typed(P, protoOrderID, protoRefs), status: 409, code: 409},
			{method: "POST", path: "/subjects/order/versions", body: typed(P, protoOrderV2, protoRefs), json: `{"id":3}`},
			{method: "GET", path: "/subjects/common/versions/1/referencedby", json: `[2,3]`},
			{method: "DELETE", path: "/subjects/common/versions/1", status: 422, code: 42206, contains: []string{"[2, 3]"}},
			{method: "DELETE", path: "/subjects/common", status: 422, code: 42206},
			{method: "DELETE", path: "/subjects/order", json: `[1,2]`},
			{method: "GET", path: "/subjects/common/versions/1/referencedby", json: `[]`},
			{method: "DELETE", path: "/subjects/common", json: `[1]`},
		}},
		{"json schema: $ref through a reference on register, lookup and compatibility; referencedby; 42206", []step{
			{method: "POST", path: "/subjects/addr/versions", body: typed(J, jsonAddress), json: `{"id":1}`},
			{method: "POST", path: "/subjects/cust/versions", body: typed(J, jsonCust, jsonRefs), json: `{"id":2}`},
			{method: "GET", path: "/subjects/cust/versions/latest", json: `{"subject":"cust","version":1,"id":2,"schemaType":"JSON",` +
				`"references":[{"name":"address.json","subject":"addr","version":1}],"schema":` + jsonString(jsonCust) + `}`},
			{method: "GET", path: "/subjects/addr/versions/1/referencedby", json: `[2]`},
			{method: "POST", path: "/subjects/cust", body: typed(J, jsonCust, jsonRefs), contains: []string{`"version":1`, `"id":2`}},
			{method: "POST", path: "/subjects/cust", body: typed(J, jsonCust), status: 422, code: 42201, contains: []string{`address.json`}},
			{method: "POST", path: "/compatibility/subjects/cust/versions/latest", body: typed(J, jsonCustV2, jsonRefs), json: `{"is_compatible":true}`},
			{method: "POST", path: "/compatibility/subjects/cust/versions/1?verbose=true", body: typed(J, jsonCustIntName, jsonRefs),
				contains: []string{`"is_compatible":false`, `JSON_TYPE_CHANGED`, `path:'#/properties/name'`}},
			{method: "POST", path: "/subjects/cust/versions", body: typed(J, jsonCustIntName, jsonRefs), status: 409, code: 409},
			{method: "DELETE", path: "/subjects/addr/versions/1", status: 422, code: 42206},
			{method: "DELETE", path: "/subjects/cust/versions/1", json: `1`},
			{method: "GET", path: "/subjects/addr/versions/1/referencedby?deleted=true", json: `[2]`},
			{method: "DELETE", path: "/subjects/addr/versions/1", json: `1`},
		}},
		{"avro: named type through a reference on lookup and compatibility", []step{
			{method: "POST", path: "/subjects/base/versions", body: schemaBody(`{"type":"record","name":"Base","namespace":"com.x","fields":[{"name":"id","type":"string"}]}`), json: `{"id":1}`},
			{method: "POST", path: "/subjects/user/versions", body: typed(A, `{"type":"record","name":"User","namespace":"com.x","fields":[{"name":"b","type":"com.x.Base"}]}`, `"references":[{"name":"com.x.Base","subject":"base","version":1}]`), json: `{"id":2}`},
			{method: "POST", path: "/subjects/user", body: schemaBody(`{"type":"record","name":"User","namespace":"com.x","fields":[{"name":"b","type":"com.x.Base"}]}`, `"references":[{"name":"com.x.Base","subject":"base","version":1}]`), contains: []string{`"id":2`}},
			{method: "POST", path: "/compatibility/subjects/user/versions/latest?verbose=true", body: schemaBody(`{"type":"record","name":"User","namespace":"com.x","fields":[{"name":"b","type":"com.x.Base"},{"name":"c","type":"int"}]}`, `"references":[{"name":"com.x.Base","subject":"base","version":1}]`),
				contains: []string{`"is_compatible":false`, `AVRO_READER_FIELD_MISSING_DEFAULT`, `path:'.c'`}},
		}},
		{"protobuf: normalize on register, lookup, compatibility and as subject config", []step{
			{method: "POST", path: "/subjects/n/versions?normalize=true", body: typed(P, protoBA), json: `{"id":1}`},
			{method: "GET", path: "/schemas/ids/1", json: `{"schemaType":"PROTOBUF","schema":` + jsonString(protoAB) + `}`},
			{method: "POST", path: "/subjects/n/versions?normalize=true", body: typed(P, protoAB), json: `{"id":1}`},
			{method: "POST", path: "/subjects/n?normalize=true", body: typed(P, protoBA), contains: []string{`"version":1`, `"id":1`}},
			{method: "POST", path: "/compatibility/subjects/n/versions/latest?normalize=true", body: typed(P, protoBA), json: `{"is_compatible":true}`},
			{method: "GET", path: "/subjects/n/versions", json: `[1]`},
			// Without normalize, the text as written is another schema.
			{method: "POST", path: "/subjects/raw/versions", body: typed(P, protoBA), json: `{"id":2}`},
			{method: "POST", path: "/subjects/raw", body: typed(P, protoAB), status: 404, code: 40403},
			{method: "POST", path: "/subjects/raw?normalize=true", body: typed(P, protoAB), contains: []string{`"id":2`}},
			// Subject config normalize=true: the re-ordered text is version 1.
			{method: "PUT", path: "/config/raw", body: `{"normalize":true}`, json: `{"normalize":true}`},
			{method: "POST", path: "/subjects/raw/versions", body: typed(P, protoAB), json: `{"id":2}`},
			{method: "POST", path: "/subjects/raw", body: typed(P, protoAB), contains: []string{`"id":2`}},
			{method: "GET", path: "/subjects/raw/versions", json: `[1]`},
			// Global config normalize=true: a new subject stores the normalized text.
			{method: "PUT", path: "/config", body: `{"normalize":true}`},
			{method: "POST", path: "/subjects/global/versions", body: typed(P, protoBA), json: `{"id":1}`},
		}},
		{"json schema: normalize on register, lookup, compatibility and as global config", []step{
			{method: "POST", path: "/subjects/addr/versions", body: typed(J, jsonAddress), json: `{"id":1}`},
			{method: "POST", path: "/subjects/cust/versions", body: typed(J, jsonCust, jsonRefs), json: `{"id":2}`},
			{method: "POST", path: "/subjects/cust", body: typed(J, jsonCustReordered, jsonRefs), status: 404, code: 40403},
			{method: "POST", path: "/subjects/cust?normalize=true", body: typed(J, jsonCustReordered, jsonRefs), contains: []string{`"version":1`, `"id":2`}},
			{method: "POST", path: "/subjects/cust/versions?normalize=true", body: typed(J, jsonCustReordered, jsonRefs), json: `{"id":2}`},
			{method: "POST", path: "/compatibility/subjects/cust/versions/latest?normalize=true", body: typed(J, jsonCustReordered, jsonRefs), json: `{"is_compatible":true}`},
			{method: "GET", path: "/subjects/cust/versions", json: `[1]`},
			{method: "POST", path: "/subjects/n1/versions?normalize=true", body: typed(J, jsonCustReordered, jsonRefs), json: `{"id":3}`},
			{method: "PUT", path: "/config", body: `{"normalize":true}`},
			{method: "POST", path: "/subjects/n2/versions", body: typed(J, jsonCust, jsonRefs), json: `{"id":3}`},
		}},
		{"avro: normalize on register and lookup", []step{
			{method: "POST", path: "/subjects/n/versions?normalize=true", body: schemaBody(`{"type":"record","name":"A","namespace":"com.x","fields":[{"name":"a","type":"string"}]}`), json: `{"id":1}`},
			{method: "POST", path: "/subjects/m/versions?normalize=true", body: schemaBody(`{"fields":[{"type":"string","name":"a"}],"name":"com.x.A","type":"record"}`), json: `{"id":1}`},
			{method: "PUT", path: "/config/o", body: `{"normalize":true}`},
			{method: "POST", path: "/subjects/o/versions", body: schemaBody(`{"name":"A","namespace":"com.x","type":"record","fields":[{"name":"a","type":"string"}]}`), json: `{"id":1}`},
			{method: "POST", path: "/subjects/o?normalize=true", body: schemaBody(`{"name":"com.x.A","type":"record","fields":[{"name":"a","type":"string"}]}`), contains: []string{`"id":1`}},
		}},
		{"bad input: 42201 with the parser's message, nothing written", []step{
			{method: "POST", path: "/subjects/bad/versions", body: typed(P, "syntax = \"proto3\";\nmessage X { strin a = 1 }\n"),
				status: 422, code: 42201, contains: []string{`schema.proto:2:25: syntax error`}},
			{method: "POST", path: "/subjects/bad/versions", body: typed(P, "syntax = \"proto3\";\nimport \"missing.proto\";\nmessage X { Y a = 1; }\n"),
				status: 422, code: 42201, contains: []string{`schema.proto:2:8`, `missing.proto`}},
			{method: "POST", path: "/subjects/bad/versions", body: typed(P, "syntax = \"proto3\";\nimport \"common.proto\";\nmessage X { Y a = 1; }\n", `"references":[{"name":"common.proto","subject":"nope","version":1}]`),
				status: 422, code: 42201, contains: []string{`nope`}},
			{method: "POST", path: "/subjects/bad/versions", body: typed(J, `{"type":"object","minProperties":"x"}`),
				status: 422, code: 42201, contains: []string{`minProperties`}},
			{method: "POST", path: "/subjects/bad/versions", body: typed(J, `{"type":"object","properties":{"a":{"type":"strin"}}}`),
				status: 422, code: 42201, contains: []string{`#/properties/a/type`}},
			{method: "POST", path: "/subjects/bad/versions", body: typed(J, `{"type":"object"`),
				status: 422, code: 42201, contains: []string{`line 1, column 17`}},
			{method: "POST", path: "/subjects/bad/versions", body: typed(J, `{"$ref":"missing.json"}`),
				status: 422, code: 42201, contains: []string{`missing.json`}},
			{method: "POST", path: "/compatibility/subjects/bad/versions", body: typed(P, "syntax = \"proto4\";"), status: 422, code: 42201},
			{method: "POST", path: "/subjects/bad", body: typed(J, `{"type":12}`), status: 404, code: 40401},
			{method: "GET", path: "/subjects", json: `[]`},
		}},
		{"bad input: cyclic references are 42201", []step{
			// x.proto (subject a) imports x.proto (subject c): resolving a's
			// import under the name it is itself imported by makes a cycle.
			{method: "POST", path: "/subjects/c/versions", body: typed(P, "syntax = \"proto3\";\nmessage C {}\n"), json: `{"id":1}`},
			{method: "POST", path: "/subjects/a/versions", body: typed(P, "syntax = \"proto3\";\nimport \"x.proto\";\nmessage A { C c = 1; }\n", `"references":[{"name":"x.proto","subject":"c","version":1}]`), json: `{"id":2}`},
			{method: "POST", path: "/subjects/r/versions", body: typed(P, "syntax = \"proto3\";\nimport \"x.proto\";\nmessage R { A a = 1; }\n", `"references":[{"name":"x.proto","subject":"a","version":1}]`),
				status: 422, code: 42201, contains: []string{`cycle`}},
			{method: "GET", path: "/subjects", json: `["a","c"]`},
		}},
		{"mixed types in one subject need NONE", []step{
			{method: "POST", path: "/subjects/m/versions", body: typed(P, protoCommon), json: `{"id":1}`},
			{method: "POST", path: "/subjects/m/versions", body: typed(J, jsonAddress), status: 409, code: 409, contains: []string{`SCHEMA_TYPE_CHANGED`}},
			{method: "PUT", path: "/config/m", body: `{"compatibility":"NONE"}`},
			{method: "POST", path: "/subjects/m/versions", body: typed(J, jsonAddress), json: `{"id":2}`},
			{method: "GET", path: "/subjects/m/versions/2", contains: []string{`"schemaType":"JSON"`}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			newEnvFormats(t, allFormats).run(tc.steps)
		})
	}
}

// TestFormatsNeverAnswer500: malformed schemas of each type, sent to every
// endpoint that parses one, answer 4xx.
func TestFormatsNeverAnswer500(t *testing.T) {
	t.Parallel()
	e := newEnvFormats(t, allFormats)
	e.mustDo("POST", "/subjects/s/versions", typed(compat.Protobuf, protoCommon))
	bad := []string{"", " ", "{", "}", "null", `"x"`, "syntax = \"proto3\";\nmessage {", "\x00\xff", strings.Repeat("{", 5000)}
	for _, typ := range []compat.SchemaType{compat.Protobuf, compat.JSON, compat.Avro} {
		for _, text := range bad {
			for _, path := range []string{"/subjects/s/versions", "/subjects/s", "/compatibility/subjects/s/versions/latest", "/compatibility/subjects/s/versions"} {
				status, _, body := e.do("POST", path, typed(typ, text))
				if status >= 500 || status < 400 {
					t.Errorf("POST %s %s %q: status %d, body %s", path, typ, text, status, body)
				}
			}
		}
	}
}

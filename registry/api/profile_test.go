package api_test

import (
	"testing"

	"github.com/charter-dev/charter/compat/formats"
)

// TestProtobufProfilePolicy: a subject's governance policy protobufProfile
// selects the rules of the compatibility endpoint, the dry run and
// registration. Turning bytes into string is allowed by Confluent's rules
// (one scalar group) and refused by buf's WIRE category
// (PROTO_FIELD_WIRE_COMPATIBLE_TYPE, a rule of WIRE only): it passes
// before the policy is set, and fails after it, for that subject only.
func TestProtobufProfilePolicy(t *testing.T) {
	e := newEnvFormats(t, formats.Formats())
	const (
		v1   = "syntax = \"proto3\";\npackage shop;\nmessage Blob { bytes payload = 1; }\n"
		v2   = "syntax = \"proto3\";\npackage shop;\nmessage Blob { string payload = 1; }\n"
		rule = "PROTO_FIELD_WIRE_COMPATIBLE_TYPE"
	)
	proto := func(text string) string { return schemaBody(text, `"schemaType":"PROTOBUF"`) }
	e.run([]step{
		{method: "POST", path: "/subjects/blob-value/versions", body: proto(v1), json: `{"id":1}`},
		{method: "POST", path: "/subjects/other-value/versions", body: proto(v1), json: `{"id":1}`},
		// Default profile, CONFLUENT: compatible.
		{method: "POST", path: "/compatibility/subjects/blob-value/versions/latest?verbose=true", body: proto(v2),
			json: `{"is_compatible":true}`},
		{method: "POST", path: "/governance/subjects/blob-value/check", body: proto(v2), notContains: []string{rule}},
		// An unknown profile is refused, naming the valid ones.
		{method: "PUT", path: "/governance/subjects/blob-value/policy", body: `{"protobufProfile":"BUF"}`, status: 422, code: 42283,
			contains: []string{`protobufProfile: unknown Protobuf profile \"BUF\": want CONFLUENT, WIRE, WIRE_JSON`}},
		{method: "PUT", path: "/governance/subjects/blob-value/policy", body: `{"protobufProfile":"wire"}`,
			json: `{"protobufProfile":"WIRE"}`},
		{method: "GET", path: "/governance/subjects/blob-value/policy/effective", json: `{"protobufProfile":"WIRE"}`},
		// WIRE: the compatibility endpoint, the dry run and registration
		// report the rule.
		{method: "POST", path: "/compatibility/subjects/blob-value/versions/latest?verbose=true", body: proto(v2),
			contains: []string{`"is_compatible":false`, "errorType:'" + rule + "', path:'.Blob.payload'"}},
		{method: "POST", path: "/governance/subjects/blob-value/check", body: proto(v2), contains: []string{rule, ".Blob.payload"}},
		{method: "POST", path: "/subjects/blob-value/versions", body: proto(v2), status: 409, code: 409, contains: []string{rule}},
		// Another subject keeps the default profile.
		{method: "POST", path: "/subjects/other-value/versions", body: proto(v2), json: `{"id":2}`},
	})
}

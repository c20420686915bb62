package api_test

import (
	"testing"

	"github.com/charter-dev/charter/compat/formats"
)

// TestUnverifiableSchemas: a schema that the subject's contracts cannot
// be verified against (a .proto file that declares no message; found by
// FuzzRegister) is a client error, never a 500: 42201 when proposed, 42283
// when a contract is published against it, and ignored as the baseline of
// a later version.
func TestUnverifiableSchemas(t *testing.T) {
	e := newEnvFormats(t, formats.Formats())
	const (
		enums   = "syntax = \"proto3\";\npackage shop;\nenum Status {\n  UNKNOWN = 0;\n  PAID = 1;\n}\n"
		order   = "syntax = \"proto3\";\npackage shop;\nenum Status {\n  UNKNOWN = 0;\n  PAID = 1;\n}\nmessage Order {\n  string id = 1;\n}\n"
		enumsV3 = "syntax = \"proto3\";\npackage shop;\nenum Status {\n  UNKNOWN = 0;\n  PAID = 1;\n  SHIPPED = 2;\n}\n"
		orderV3 = "syntax = \"proto3\";\npackage shop;\nenum Status {\n  UNKNOWN = 0;\n  PAID = 1;\n}\nmessage Order {\n  string id = 1;\n  string note = 2;\n}\n"
	)
	proto := `"schemaType":"PROTOBUF"`
	contract := `{"consumerVersion":"1","pact":` + apiPact("billing", `{"id":"o-1"}`) + `}`
	e.run([]step{
		{method: "PUT", path: "/config/orders", body: `{"compatibility":"NONE"}`},
		{method: "POST", path: "/subjects/orders/versions", body: schemaBody(enums, proto)},
		{method: "POST", path: "/governance/subjects/orders/contracts", body: contract, status: 422, code: 42283,
			contains: []string{"no contract can be verified against version 1 of subject 'orders': the .proto file declares no message"}},
		{method: "POST", path: "/subjects/orders/versions", body: schemaBody(order, proto)},
		{method: "POST", path: "/governance/subjects/orders/contracts", body: contract},
		{method: "POST", path: "/subjects/orders/versions", body: schemaBody(enumsV3, proto), status: 422, code: 42201,
			contains: []string{"the contracts published for subject 'orders' cannot be verified against it: the .proto file declares no message"}},
		{method: "POST", path: "/governance/subjects/orders/check", body: schemaBody(enumsV3, proto), status: 422, code: 42201},
		{method: "POST", path: "/governance/subjects/orders/contracts/verify", body: schemaBody(enumsV3, proto), status: 422, code: 42201},
		// Version 1, without a message, becomes the latest again: it is
		// no baseline, and the next version verifies without one.
		{method: "DELETE", path: "/subjects/orders/versions/2"},
		{method: "POST", path: "/subjects/orders/versions", body: schemaBody(orderV3, proto)},
	})
}

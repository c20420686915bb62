package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestBadInput sends malformed and invalid requests to a registry holding
// data and checks each answer's status and Confluent code, that none is a
// 500, that no unexpected error was logged, and that nothing changed.
func TestBadInput(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", "/subjects/s/versions", schemaBody(recA))
	e.mustDo("PUT", "/config/s", `{"compatibility":"BACKWARD"}`)
	before := e.snapshot()

	big := schemaBody(`{"type":"record","name":"Big","doc":"` + strings.Repeat("x", 300<<10) + `","fields":[]}`)
	largeSchema := schemaBody(`{"type":"record","name":"Big","doc":"` + strings.Repeat("x", 100<<10) + `","fields":[]}`)
	tests := []struct {
		name           string
		method, path   string
		body           string
		header         []string
		status, code   int
		messageContain string
	}{
		{"malformed JSON", "POST", "/subjects/s/versions", `{"schema": `, nil, 400, 400, "Malformed JSON"},
		{"not JSON", "POST", "/subjects/s/versions", `hello`, nil, 400, 400, "Malformed JSON"},
		{"trailing data", "POST", "/subjects/s/versions", schemaBody(recA) + ` {}`, nil, 400, 400, "after the request object"},
		{"wrong field type", "POST", "/subjects/s/versions", `{"schema": 5}`, nil, 422, 42201, `field "schema" must be a JSON string, got JSON number`},
		{"wrong nested field type", "POST", "/subjects/s/versions", schemaBody(recB, `"references":[{"name":"A","subject":"s","version":"one"}]`), nil, 422, 42201, `field "references.version" must be an integer`},
		{"lookup wrong field type", "POST", "/subjects/s", `{"schema": true}`, nil, 422, 42201, `field "schema"`},
		{"compatibility wrong field type", "POST", "/compatibility/subjects/s/versions/latest", `{"schemaType": 1, "schema": "x"}`, nil, 422, 42201, `field "schemaType"`},
		{"array body", "POST", "/subjects/s/versions", `[]`, nil, 422, 422, `got JSON array, want a JSON object such as {"schema": "..."}`},
		{"config array body", "PUT", "/config/s", `[]`, nil, 422, 422, "got JSON array, want a JSON object"},
		{"unknown field", "POST", "/subjects/s/versions", schemaBody(recA, `"foo":1`), nil, 422, 422, "Unrecognized field: foo"},
		{"unknown field accepted with header", "POST", "/subjects/s/versions", schemaBody(recA, `"foo":1`), []string{"Confluent-Accept-Unknown-Properties", "true"}, 200, 0, ""},
		{"schema not JSON", "POST", "/subjects/s/versions", schemaBody("not json"), nil, 422, 42201, "Invalid schema"},
		{"invalid avro", "POST", "/subjects/s/versions", schemaBody(`{"type":"record"}`), nil, 422, 42201, "Invalid schema"},
		{"empty schema", "POST", "/subjects/s/versions", schemaBody(""), nil, 422, 42201, "empty"},
		{"empty object", "POST", "/subjects/s/versions", `{}`, nil, 422, 42201, "empty"},
		{"empty body", "POST", "/subjects/s/versions", "", nil, 422, 42201, "empty"},
		{"lower-case schemaType", "POST", "/subjects/s/versions", schemaBody(recA, `"schemaType":"avro"`), nil, 422, 42201, `unknown schema type "avro"`},
		{"unknown schemaType", "POST", "/subjects/s/versions", schemaBody(recA, `"schemaType":"XML"`), nil, 422, 42201, `unknown schema type "XML"`},
		{"unsupported schemaType", "POST", "/subjects/s/versions", schemaBody(`syntax = "proto3"; message M {}`, `"schemaType":"PROTOBUF"`), nil, 422, 42201, "PROTOBUF is not supported by this server yet"},
		{"incompatible", "POST", "/subjects/s/versions", schemaBody(recAint), nil, 409, 409, "incompatible"},
		{"explicit id outside import", "POST", "/subjects/s/versions", schemaBody(recB, `"id":44`), nil, 422, 42205, "import mode"},
		{"explicit version not next", "POST", "/subjects/s/versions", schemaBody(recAb, `"version":9`), nil, 422, 42201, "next version"},
		{"reference version 0", "POST", "/subjects/s/versions", schemaBody(recB, `"references":[{"name":"A","subject":"s","version":0}]`), nil, 422, 42201, "invalid version"},
		{"reference without subject", "POST", "/subjects/s/versions", schemaBody(recB, `"references":[{"name":"A","version":1}]`), nil, 422, 42201, "subject"},
		{"subject with control character", "POST", "/subjects/a%01b/versions", schemaBody(recB), nil, 422, 42208, "control characters"},
		{"schema over limit", "POST", "/subjects/s/versions", largeSchema, nil, 422, 42209, "Schema too large"},
		{"body over limit", "POST", "/subjects/s/versions", big, nil, 413, 413, "too large"},
		{"lookup invalid schema", "POST", "/subjects/s", schemaBody("{"), nil, 422, 42201, "Invalid schema"},
		{"lookup empty schema", "POST", "/subjects/s", schemaBody(""), nil, 404, 40403, "empty"},
		{"lookup unknown subject", "POST", "/subjects/none", schemaBody(recA), nil, 404, 40401, "'none'"},
		{"unknown subject versions", "GET", "/subjects/none/versions", "", nil, 404, 40401, "Subject 'none' not found"},
		{"unknown subject version", "GET", "/subjects/none/versions/1", "", nil, 404, 40401, ""},
		{"unknown version", "GET", "/subjects/s/versions/99", "", nil, 404, 40402, "Version 99"},
		{"max version unknown", "GET", "/subjects/s/versions/2147483647", "", nil, 404, 40402, ""},
		{"version abc", "GET", "/subjects/s/versions/abc", "", nil, 422, 42202, "'abc'"},
		{"version 0", "GET", "/subjects/s/versions/0", "", nil, 422, 42202, ""},
		{"version -2", "GET", "/subjects/s/versions/-2", "", nil, 422, 42202, ""},
		{"version 2^31", "GET", "/subjects/s/versions/2147483648", "", nil, 422, 42202, ""},
		{"version huge", "GET", "/subjects/s/versions/99999999999999999999", "", nil, 422, 42202, ""},
		{"version empty-ish", "GET", "/subjects/s/versions/+1", "", nil, 422, 42202, ""},
		{"delete version abc", "DELETE", "/subjects/s/versions/abc", "", nil, 422, 42202, ""},
		{"referencedby version 0", "GET", "/subjects/s/versions/0/referencedby", "", nil, 422, 42202, ""},
		{"delete unknown version", "DELETE", "/subjects/s/versions/5", "", nil, 404, 40402, ""},
		{"delete unknown subject", "DELETE", "/subjects/none", "", nil, 404, 40401, ""},
		{"permanent delete live subject", "DELETE", "/subjects/s?permanent=true", "", nil, 404, 40405, ""},
		{"unknown id", "GET", "/schemas/ids/77", "", nil, 404, 40403, "Schema 77 not found"},
		{"invalid level", "PUT", "/config", `{"compatibility":"SIDEWAYS"}`, nil, 422, 42203, "SIDEWAYS"},
		{"invalid subject level", "PUT", "/config/s", `{"compatibilityLevel":"NOT_A_LEVEL"}`, nil, 422, 42203, ""},
		{"level of wrong type", "PUT", "/config", `{"compatibility":5}`, nil, 422, 422, ""},
		{"config malformed", "PUT", "/config", `{"compatibility":`, nil, 400, 400, ""},
		{"invalid mode", "PUT", "/mode", `{"mode":"SOMETIMES"}`, nil, 422, 42204, "SOMETIMES"},
		{"empty mode", "PUT", "/mode", `{"mode":""}`, nil, 422, 42204, ""},
		{"invalid subject mode", "PUT", "/mode/s", `{"mode":"x"}`, nil, 422, 42204, ""},
		{"compatibility invalid schema", "POST", "/compatibility/subjects/s/versions/latest", schemaBody("nope"), nil, 422, 42201, ""},
		{"compatibility version 0", "POST", "/compatibility/subjects/s/versions/0", schemaBody(recA), nil, 422, 42202, ""},
		{"unsupported media type", "POST", "/subjects/s/versions", schemaBody(recB), []string{"Content-Type", "text/xml"}, 415, 415, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e.log.Reset()
			status, ctype, body := e.do(tc.method, tc.path, tc.body, tc.header...)
			if status != tc.status {
				t.Fatalf("status %d, want %d; body %s", status, tc.status, body)
			}
			if ctype != "application/vnd.schemaregistry.v1+json" {
				t.Errorf("Content-Type %q", ctype)
			}
			if tc.code != 0 {
				var eb struct {
					ErrorCode int    `json:"error_code"`
					Message   string `json:"message"`
				}
				if err := json.Unmarshal([]byte(body), &eb); err != nil {
					t.Fatalf("body %q: %v", body, err)
				}
				if eb.ErrorCode != tc.code {
					t.Errorf("error_code %d, want %d (message %q)", eb.ErrorCode, tc.code, eb.Message)
				}
				if !strings.Contains(eb.Message, tc.messageContain) {
					t.Errorf("message %q does not contain %q", eb.Message, tc.messageContain)
				}
			}
			if strings.Contains(e.log.String(), "level=ERROR") {
				t.Errorf("unexpected error logged: %s", e.log.String())
			}
			if after := e.snapshot(); after != before {
				t.Errorf("state changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
	if status, _, _ := e.do("GET", "/subjects/s/versions", ""); status != http.StatusOK {
		t.Fatalf("registry unusable after bad input: status %d", status)
	}
}

package api_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/fuzztest"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/sqlite"
)

// The fuzz targets below send fuzzed request bodies, one target per kind
// of body the API reads, to the real handler (api.New over a
// registry.Service on a SQLite store, every schema format on), and fail on
// a panic (the handler's recovery answers it 500), on any 5xx, on an error
// answer that is not Confluent's error body, and on a request that takes
// more CPU than fuzztest.Bound allows (1 s per MB of body and query).
//
// Each target's arguments are (which, query, body): which picks one of the
// target's paths (which % len(paths)) and, with its top bit, sends
// Confluent-Accept-Unknown-Properties: true; query is the raw query string.
// One registry serves all the inputs of a fuzzing process, with fixtures
// (fuzzFixture) that give each body something to act on: subjects of the
// three formats with references, an owner, tags, a deprecation, a
// declared consumer, a contract and a producer. A registration that adds
// versions is undone after the request (permanent deletes), so the
// subjects' histories, which every check reads, do not grow; other writes
// replace or add small records. Inputs are therefore not quite
// independent: a failure found by `go test -fuzz` that does not reproduce
// with `go test -run FuzzX/ID` depends on what earlier inputs stored.

// fuzzSubjects are the fixture's subjects and their versions.
var fuzzSubjects = map[string][]int{
	"shipments":    {1, 2},
	"money":        {1},
	"money.proto":  {1},
	"orders-proto": {1},
	"orders-json":  {1},
}

const (
	fuzzShipV2    = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"},{"name":"email","type":"string"},{"name":"note","type":"string","default":""}]}`
	fuzzMoneyAvro = `{"type":"record","name":"Money","namespace":"common","fields":[{"name":"currency","type":"string"},{"name":"units","type":"long"}]}`
	fuzzMoney     = "syntax = \"proto3\";\npackage common;\n\nmessage Money {\n  string currency = 1;\n  int64 units = 2;\n}\n"
	fuzzOrder     = "syntax = \"proto3\";\npackage shop;\n\nimport \"money.proto\";\n\nmessage Order {\n  string id = 1;\n  common.Money total = 2;\n  repeated string lines = 3;\n  map<string, int32> counts = 4;\n  oneof payment {\n    string card = 5;\n    string iban = 6;\n  }\n}\n"
	fuzzOrderV2   = "syntax = \"proto3\";\npackage shop;\n\nimport \"money.proto\";\n\nmessage Order {\n  string id = 1;\n  common.Money total = 2;\n  repeated string lines = 3;\n  map<string, int32> counts = 4;\n  oneof payment {\n    string card = 5;\n    string iban = 6;\n  }\n  string note = 7;\n}\n"
	fuzzOrderRef  = `[{"name":"money.proto","subject":"money.proto","version":1}]`
	fuzzJSON      = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"id":{"type":"string"},"email":{"type":"string","format":"email"},"qty":{"type":"integer","minimum":0},"tags":{"type":"array","items":{"type":"string"}}},"required":["id"],"additionalProperties":false}`
	fuzzJSONV2    = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"id":{"type":"string"},"email":{"type":"string","format":"email"},"qty":{"type":"integer","minimum":0},"tags":{"type":"array","items":{"type":"string"}},"note":{"type":"string"}},"required":["id"],"additionalProperties":false}`
)

// fuzzFixture is the state every fuzzing process starts from.
var fuzzFixture = []struct{ method, path, body string }{
	{"POST", "/subjects/shipments/versions", schemaBody(apiShipV1)},
	{"POST", "/subjects/shipments/versions", schemaBody(fuzzShipV2)},
	{"POST", "/subjects/money/versions", schemaBody(fuzzMoneyAvro)},
	{"POST", "/subjects/money.proto/versions", schemaBody(fuzzMoney, `"schemaType":"PROTOBUF"`)},
	{"POST", "/subjects/orders-proto/versions", schemaBody(fuzzOrder, `"schemaType":"PROTOBUF"`, `"references":`+fuzzOrderRef)},
	{"POST", "/subjects/orders-json/versions", schemaBody(fuzzJSON, `"schemaType":"JSON"`)},
	{"PUT", "/governance/subjects/shipments/owner", `{"team":"logistics","contact":"#logistics","description":"parcels"}`},
	{"PUT", "/governance/subjects/shipments/tags", `{"tags":{"acme.Shipment.email":["PII"]}}`},
	{"POST", "/governance/subjects/shipments/deprecations", `{"path":".carrier_code","replacement":".id","reason":"carriers are records now"}`},
	{"PUT", "/governance/subjects/shipments/consumers/billing", `{"fields":[".id",".carrier_code"],"range":{"from":1}}`},
	{"PUT", "/governance/subjects/shipments/producers/fulfillment", `{"versions":[1,2]}`},
	{"POST", "/governance/subjects/shipments/contracts", `{"consumer":"mailer","consumerVersion":"1.0.0","pact":` + apiPact("mailer", `{"id":"s-1","email":"a@b.c"}`) + `}`},
}

// fuzzAPI is the registry one fuzzing process sends its inputs to.
type fuzzAPI struct {
	h http.Handler
	// log holds what the handler logged at warning level and above
	// during the current input (a 5xx's cause).
	mu  sync.Mutex
	log bytes.Buffer
}

func (a *fuzzAPI) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.log.Write(p)
}

// newFuzzAPI builds the registry and its fixtures.
func newFuzzAPI(f *testing.F) *fuzzAPI {
	f.Helper()
	store, err := sqlite.Open(f.Context(), filepath.Join(f.TempDir(), "charter.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = store.Close() })
	a := &fuzzAPI{}
	log := slog.New(slog.NewTextHandler(a, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a.h = api.New(registry.NewService(store, formats.Formats(), registry.WithLogger(log)), api.Options{Logger: log})
	for _, s := range fuzzFixture {
		if status, body := a.send(s.method, s.path, "", s.body, false); status != http.StatusOK {
			f.Fatalf("fixture %s %s: %d %s", s.method, s.path, status, body)
		}
	}
	return a
}

// send serves one request and returns its status and body.
func (a *fuzzAPI) send(method, path, query, body string, acceptUnknown bool) (int, string) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.URL.RawQuery = query
	req.Header.Set("Content-Type", api.ContentType)
	req.Header.Set(api.ActorHeader, "fuzz")
	if acceptUnknown {
		req.Header.Set("Confluent-Accept-Unknown-Properties", "true")
	}
	rec := httptest.NewRecorder()
	a.h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// fuzzTarget is one kind of request body: where it is sent, its seeds,
// and what to undo after a request.
type fuzzTarget struct {
	method string
	paths  []string
	seeds  []string
	// undo, when set, runs after every input with the path it was sent to
	// and the status it got.
	undo func(t *testing.T, a *fuzzAPI, path string, status int)
}

// fuzz runs target's fuzz loop.
func (target fuzzTarget) fuzz(f *testing.F) {
	// Seed i goes to path i (mod the paths): the schema seeds start with
	// one of each format in the order of the schema targets' paths. The
	// committed corpus (testdata/fuzz) sends the conformance schemas to
	// the subject of their format. Fewer seeds, a shorter baseline: every
	// run of .ci/fuzz starts by running them all.
	for i, s := range target.seeds {
		f.Add(uint8(i%len(target.paths)), "", []byte(s))
	}
	for i := range target.paths {
		f.Add(uint8(i|0x80), "normalize=true&verbose=true", []byte(target.seeds[0]))
	}
	a := newFuzzAPI(f)
	f.Fuzz(func(t *testing.T, which uint8, query string, body []byte) {
		path := target.paths[int(which&0x7f)%len(target.paths)]
		a.mu.Lock()
		a.log.Reset()
		a.mu.Unlock()
		var status int
		var answer string
		fuzztest.Bound(t, len(query)+len(body), func() {
			status, answer = a.send(target.method, path, query, string(body), which&0x80 != 0)
		})
		checkAnswer(t, a, target.method+" "+path+"?"+query, body, status, answer)
		if target.undo != nil {
			target.undo(t, a, path, status)
		}
	})
}

// checkAnswer fails t on a 5xx and on an error answer that is not
// Confluent's error body.
func checkAnswer(t *testing.T, a *fuzzAPI, request string, body []byte, status int, answer string) {
	t.Helper()
	if status >= 500 {
		a.mu.Lock()
		log := a.log.String()
		a.mu.Unlock()
		t.Fatalf("%s answered %d: %s\nbody: %q\nlog:\n%s", request, status, answer, clip(body), log)
	}
	if status >= 400 {
		var e struct {
			ErrorCode *int    `json:"error_code"`
			Message   *string `json:"message"`
		}
		if err := json.Unmarshal([]byte(answer), &e); err != nil || e.ErrorCode == nil || e.Message == nil || *e.Message == "" {
			t.Fatalf("%s answered %d without Confluent's error body: %s\nbody: %q", request, status, answer, clip(body))
		}
	}
}

// clip shortens a body for a failure message.
func clip(b []byte) []byte {
	if len(b) > 2000 {
		return append(b[:2000:2000], "…"...)
	}
	return b
}

// undoRegistration permanently deletes the versions a registration added
// to path's subject, so that its history stays the fixture's.
func undoRegistration(t *testing.T, a *fuzzAPI, path string, status int) {
	if status != http.StatusOK {
		return
	}
	subject := strings.TrimSuffix(strings.TrimPrefix(path, "/subjects/"), "/versions")
	st, answer := a.send("GET", "/subjects/"+subject+"/versions", "", "", false)
	if st == http.StatusNotFound {
		return
	}
	var versions []int
	if err := json.Unmarshal([]byte(answer), &versions); st != http.StatusOK || err != nil {
		t.Fatalf("versions of %s after a registration: %d %s", subject, st, answer)
	}
	for _, v := range versions {
		if slices.Contains(fuzzSubjects[subject], v) {
			continue
		}
		for _, q := range []string{"", "permanent=true"} {
			p := fmt.Sprintf("/subjects/%s/versions/%d", subject, v)
			if st, answer := a.send("DELETE", p, q, "", false); st != http.StatusOK {
				t.Fatalf("undo the registration: DELETE %s?%s: %d %s", p, q, st, answer)
			}
		}
	}
}

// schemaSeeds are register, lookup and compatibility bodies: the
// fixture's schemas and their next versions, in each format (the first
// three in the order of the targets' paths: Avro, Protobuf, JSON Schema),
// with references, metadata, a rule set, an id and a version.
var schemaSeeds = []string{
	schemaBody(fuzzShipV2),
	schemaBody(fuzzOrderV2, `"schemaType":"PROTOBUF"`, `"references":`+fuzzOrderRef),
	schemaBody(fuzzJSONV2, `"schemaType":"JSON"`),
	schemaBody(apiShipV1),
	schemaBody(apiShipV2),
	schemaBody(`{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"email","type":"string"},{"name":"note","type":"string","default":""},{"name":"money","type":"common.Money"}]}`,
		`"references":[{"name":"common.Money","subject":"money","version":1}]`),
	schemaBody(fuzzShipV2, `"metadata":{"properties":{"owner":"logistics"},"tags":{"acme.Shipment.email":["PII"]},"sensitive":["email"]}`,
		`"ruleSet":{"domainRules":[{"name":"r","kind":"CONDITION","mode":"WRITE","type":"CEL","expr":"message.id != ''"}]}`),
	schemaBody(fuzzShipV2, `"id":5`, `"version":3`),
	schemaBody(fuzzMoney, `"schemaType":"PROTOBUF"`),
	`{"schema":"string"}`,
	`{"schema":"[\"null\",{\"type\":\"map\",\"values\":\"long\"}]"}`,
	`{"schemaType":"PROTOBUF","schema":"` + base64.StdEncoding.EncodeToString([]byte("\n\x0bmoney.proto\x12\x06common")) + `"}`,
	`{"schema":"{}","schemaType":"JSON"}`,
	`{}`,
}

// FuzzRegister: POST /subjects/{subject}/versions.
func FuzzRegister(f *testing.F) {
	fuzzTarget{method: "POST", seeds: schemaSeeds, undo: undoRegistration, paths: []string{
		"/subjects/shipments/versions", "/subjects/orders-proto/versions", "/subjects/orders-json/versions",
		"/subjects/fresh/versions",
	}}.fuzz(f)
}

// FuzzLookup: POST /subjects/{subject}.
func FuzzLookup(f *testing.F) {
	fuzzTarget{method: "POST", seeds: schemaSeeds, paths: []string{
		"/subjects/shipments", "/subjects/orders-proto", "/subjects/orders-json", "/subjects/fresh",
	}}.fuzz(f)
}

// FuzzCompatibility: POST /compatibility/subjects/{subject}/versions[/{version}].
func FuzzCompatibility(f *testing.F) {
	fuzzTarget{method: "POST", seeds: schemaSeeds, paths: []string{
		"/compatibility/subjects/shipments/versions", "/compatibility/subjects/orders-proto/versions/latest",
		"/compatibility/subjects/orders-json/versions/1", "/compatibility/subjects/shipments/versions/1",
		"/compatibility/subjects/fresh/versions",
	}}.fuzz(f)
}

// FuzzGovernanceCheck: POST /governance/subjects/{subject}/check.
func FuzzGovernanceCheck(f *testing.F) {
	fuzzTarget{method: "POST", seeds: schemaSeeds, paths: []string{
		"/governance/subjects/shipments/check", "/governance/subjects/orders-proto/check",
		"/governance/subjects/orders-json/check", "/governance/subjects/fresh/check",
	}}.fuzz(f)
}

// FuzzContractVerify: POST /governance/subjects/{subject}/contracts/verify.
func FuzzContractVerify(f *testing.F) {
	fuzzTarget{method: "POST", seeds: schemaSeeds, paths: []string{
		"/governance/subjects/shipments/contracts/verify", "/governance/subjects/orders-proto/contracts/verify",
		"/governance/subjects/orders-json/contracts/verify",
	}}.fuzz(f)
}

// FuzzConfig: PUT /config[/{subject}].
func FuzzConfig(f *testing.F) {
	fuzzTarget{method: "PUT", paths: []string{"/config", "/config/shipments", "/config/fresh"}, seeds: []string{
		`{"compatibility":"FULL_TRANSITIVE"}`,
		`{"compatibilityLevel":"BACKWARD","normalize":true,"validateFields":true}`,
		`{"compatibility":"NONE","compatibilityGroup":"application.major.version","alias":"orders-json"}`,
		`{"defaultMetadata":{"properties":{"owner":"logistics"}},"overrideMetadata":{"properties":{"x":"y"}}}`,
		`{"defaultRuleSet":{"domainRules":[{"name":"r","kind":"CONDITION","mode":"WRITE","type":"CEL","expr":"true"}]},"overrideRuleSet":{}}`,
		`{"compatibilityPolicy":"LENIENT","validateRules":false,"compatibility":""}`,
	}}.fuzz(f)
}

// FuzzMode: PUT /mode[/{subject}].
func FuzzMode(f *testing.F) {
	fuzzTarget{method: "PUT", paths: []string{"/mode", "/mode/shipments", "/mode/fresh"}, seeds: []string{
		`{"mode":"READONLY"}`, `{"mode":"READWRITE"}`, `{"mode":"IMPORT"}`, `{"mode":"READONLY_OVERRIDE"}`, `{"mode":"nope"}`,
	}}.fuzz(f)
}

// FuzzPolicy: PUT /governance/policy and /governance/subjects/{subject}/policy.
func FuzzPolicy(f *testing.F) {
	fuzzTarget{method: "PUT", paths: []string{"/governance/policy", "/governance/subjects/shipments/policy", "/governance/subjects/orders-proto/policy"}, seeds: []string{
		`{"rules":{"PII_UNTAGGED":"warn"},"deprecationTtlDays":90}`,
		`{"rules":{"CONTRACT_FIELD_MISSING":"warning","DEPRECATION_EXPIRED":"error"}}`,
		`{"protobufProfile":"WIRE_JSON"}`,
		`{"rules":{"AVRO_FIELD_NO_DELETE_WITHOUT_DEFAULT":"off"}}`,
	}}.fuzz(f)
}

// FuzzOwner: PUT /governance/subjects/{subject}/owner.
func FuzzOwner(f *testing.F) {
	fuzzTarget{method: "PUT", paths: []string{"/governance/subjects/shipments/owner", "/governance/subjects/orders-json/owner", "/governance/subjects/fresh/owner"}, seeds: []string{
		`{"team":"logistics","contact":"#logistics","description":"parcels on their way"}`,
		`{"team":"logistics","contact":""}`,
		`{"team":"shop"}`,
	}}.fuzz(f)
}

// FuzzDeprecate: POST /governance/subjects/{subject}/deprecations.
func FuzzDeprecate(f *testing.F) {
	fuzzTarget{method: "POST", paths: []string{"/governance/subjects/shipments/deprecations", "/governance/subjects/orders-proto/deprecations", "/governance/subjects/orders-json/deprecations"}, seeds: []string{
		`{"path":".email","replacement":".id","reason":"r","ttlDays":30}`,
		`{"path":".no_such_field"}`,
		`{"version":1,"reason":"v1 is old"}`,
		`{"path":".total.units","ttlDays":0}`,
		`{"path":".tags"}`,
	}}.fuzz(f)
}

// FuzzExtension: POST /governance/subjects/{subject}/deprecations/{item}/extensions.
func FuzzExtension(f *testing.F) {
	fuzzTarget{method: "POST", paths: []string{
		"/governance/subjects/shipments/deprecations/field:.carrier_code/extensions",
		"/governance/subjects/shipments/deprecations/field:.id/extensions",
		"/governance/subjects/shipments/deprecations/version:1/extensions",
	}, seeds: []string{
		`{"consumer":"billing","days":35,"reason":"Q2 release","approver":"bob"}`,
		`{"consumer":"billing","until":"2030-01-01T00:00:00Z","reason":"r","approver":"bob"}`,
		`{"consumer":"billing","days":30,"reason":"Q2 release","approver":""}`,
	}}.fuzz(f)
}

// FuzzTags: PUT /governance/subjects/{subject}/tags.
func FuzzTags(f *testing.F) {
	fuzzTarget{method: "PUT", paths: []string{"/governance/subjects/shipments/tags", "/governance/subjects/orders-proto/tags", "/governance/subjects/orders-json/tags"}, seeds: []string{
		`{"tags":{"acme.Shipment.email":["PII"]}}`,
		`{"tags":{"shop.Order.id":["PII","KEY"],"shop.Order.total":[]}}`,
		`{"tags":{"#/properties/email":["PII"]}}`,
		`{"tags":{}}`,
	}}.fuzz(f)
}

// FuzzDismissal: POST /governance/subjects/{subject}/dismissals.
func FuzzDismissal(f *testing.F) {
	fuzzTarget{method: "POST", paths: []string{"/governance/subjects/shipments/dismissals", "/governance/subjects/orders-json/dismissals"}, seeds: []string{
		`{"field":".email","patternId":"PII_EMAIL","reason":"a test address"}`,
		`{"field":".id","patternId":"PII_NAME","reason":"r","by":"alice"}`,
		`{"field":".nope","patternId":"X"}`,
	}}.fuzz(f)
}

// FuzzContractPublish: POST /governance/subjects/{subject}/contracts.
func FuzzContractPublish(f *testing.F) {
	fuzzTarget{method: "POST", paths: []string{"/governance/subjects/shipments/contracts", "/governance/subjects/orders-proto/contracts", "/governance/subjects/orders-json/contracts"}, seeds: []string{
		`{"consumerVersion":"1.2.0","branch":"main","pact":` + apiPact("billing", `{"id":"s-1","carrier_code":"DHL"}`) + `}`,
		`{"consumer":"mailer","consumerVersion":"3","pact":` + apiPact("mailer-app", `{"id":"s-1","email":"a@b.c","total":{"currency":"EUR","units":"3"}}`) + `}`,
		`{"consumerVersion":"1","pact":{"consumer":{"name":"x"}}}`,
		`{"consumerVersion":"1","pact":` + fuzzPactV4 + `}`,
	}}.fuzz(f)
}

// fuzzPactV4 is a V4 message pact with matching rules and generators.
const fuzzPactV4 = `{"consumer":{"name":"tracker"},"provider":{"name":"shipments"},"interactions":[{"type":"Asynchronous/Messages","description":"a shipment",` +
	`"contents":{"contentType":"application/json","encoded":false,"content":{"id":"s-1","lines":["a"],"qty":2}},` +
	`"matchingRules":{"content":{"$.id":{"combine":"AND","matchers":[{"match":"regex","regex":"s-\\d+"}]},"$.qty":{"matchers":[{"match":"integer","min":0}]}}},` +
	`"generators":{"content":{"$.id":{"type":"Uuid"}}}}],"metadata":{"pactSpecification":{"version":"4.0"}}}`

// FuzzProducer: PUT /governance/subjects/{subject}/producers/{service}.
func FuzzProducer(f *testing.F) {
	fuzzTarget{method: "PUT", paths: []string{"/governance/subjects/shipments/producers/fulfillment", "/governance/subjects/orders-json/producers/shop"}, seeds: []string{
		`{"versions":[1]}`, `{"versions":[1,2]}`, `{"versions":[]}`, `{"versions":[-1,0,99]}`,
	}}.fuzz(f)
}

// FuzzConsumer: PUT /governance/subjects/{subject}/consumers/{service}.
func FuzzConsumer(f *testing.F) {
	fuzzTarget{method: "PUT", paths: []string{"/governance/subjects/shipments/consumers/audit", "/governance/subjects/orders-proto/consumers/audit"}, seeds: []string{
		`{"fields":[".id",".carrier_code"],"range":{"from":1}}`,
		`{"fields":[".total.units",".lines"],"range":{"from":1,"to":1}}`,
		`{"fields":["id"]}`,
		`{"fields":[".id"],"range":{"from":5,"to":1}}`,
	}}.fuzz(f)
}

// FuzzPactBrokerPut: PUT /pact-broker/pacts/provider/{p}/consumer/{c}/version/{v}.
func FuzzPactBrokerPut(f *testing.F) {
	fuzzTarget{method: "PUT", paths: []string{
		"/pact-broker/pacts/provider/shipments/consumer/mailer/version/2.0.0",
		"/pact-broker/pacts/provider/orders-proto/consumer/tracker/version/1",
	}, seeds: []string{
		apiPact("mailer", `{"id":"s-1","email":"a@b.c"}`),
		fuzzPactV4,
		`{"consumer":{"name":"x"}}`,
	}}.fuzz(f)
}

// FuzzPactBrokerPublish: POST /pact-broker/contracts/publish.
func FuzzPactBrokerPublish(f *testing.F) {
	content := func(pact string) string { return base64.StdEncoding.EncodeToString([]byte(pact)) }
	fuzzTarget{method: "POST", paths: []string{"/pact-broker/contracts/publish"}, seeds: []string{
		`{"branch":"main","buildUrl":"http://ci/1","contracts":[{"consumerName":"billing","content":"` + content(apiPact("billing", `{"id":"s-1","carrier_code":"DHL"}`)) +
			`","contentType":"application/json","onConflict":"overwrite","providerName":"shipments","specification":"pact"}],` +
			`"pacticipantName":"billing","pacticipantVersionNumber":"1.2.0","tags":["main"]}`,
		`{"contracts":[{"content":"` + content(fuzzPactV4) + `","providerName":"orders-json"},{"content":"e30=","providerName":"shipments"}],"pacticipantName":"tracker","pacticipantVersionNumber":"1"}`,
		`{"pacticipantName":"billing","pacticipantVersionNumber":"1","contracts":[{"providerName":"shipments","specification":"openapi","content":"e30="}]}`,
	}}.fuzz(f)
}

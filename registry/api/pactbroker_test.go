package api_test

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The request shapes below are those recorded from the real Pact CLI
// (npm @pact-foundation/pact-cli 18.1.2, user-agent pact-broker-cli/0.8.8;
// registry/clienttest TestPactCLIPublishAndCanIDeploy runs it):
// `pact-broker publish` GETs the index (Accept: application/hal+json,
// application/json), then POSTs /contracts/publish with the keys sorted,
// the pact re-serialised and base64-encoded, onConflict "overwrite", and
// branch, buildUrl and tags only when given; `pact-broker can-i-deploy`
// GETs /matrix?q[][pacticipant]=P&q[][version]=V&latestby=cvp&latest=true
// with the brackets not percent-encoded. Older clients PUT each pact.

type pbAnswer struct {
	Summary struct {
		Deployable               bool
		Reason                   string
		Success, Failed, Unknown int
	}
	Notices []struct{ Type, Text string }
	Matrix  []struct {
		Consumer, Provider struct {
			Name    string
			Version struct{ Number, Branch string }
		}
		VerificationResult *struct {
			Success  bool
			Findings []string
		}
	}
}

func decodePB(t *testing.T, body string) pbAnswer {
	t.Helper()
	var a pbAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return a
}

func matrixPath(pacticipant, version string) string {
	return "/pact-broker/matrix?q[][pacticipant]=" + pacticipant + "&q[][version]=" + version + "&latestby=cvp&latest=true"
}

// TestPactBrokerPublishAndCanIDeploy publishes pacts as the Pact CLI
// does, reads them back, and asks can-i-deploy before and after a
// breaking schema change.
func TestPactBrokerPublishAndCanIDeploy(t *testing.T) {
	e := newEnv(t)
	e.mustDo("POST", "/subjects/shipments-value/versions", schemaBody(apiShipV1))

	status, ctype, idx := e.do("GET", "/pact-broker", "")
	if status != 200 || !strings.HasPrefix(ctype, "application/hal+json") ||
		!strings.Contains(idx, `"pb:publish-contracts":{"href":"http://example.com/pact-broker/contracts/publish"`) {
		t.Fatalf("index: %d %s %s", status, ctype, idx)
	}

	// pact-broker publish: provider "shipments" maps to shipments-value.
	pact := apiPact("billing", `{"id":"s-1","carrier_code":"DHL"}`)
	pact = strings.Replace(pact, `"provider":{"name":"fulfillment"}`, `"provider":{"name":"shipments"}`, 1)
	pub := `{"branch":"main","buildUrl":"http://ci/1","contracts":[{"consumerName":"billing","content":"` + base64.StdEncoding.EncodeToString([]byte(pact)) +
		`","contentType":"application/json","onConflict":"overwrite","providerName":"shipments","specification":"pact"}],` +
		`"pacticipantName":"billing","pacticipantVersionNumber":"1.2.0","tags":["main"]}`
	status, _, body := e.do("POST", "/pact-broker/contracts/publish", pub, "Content-Type", "application/json", "Accept", "application/hal+json")
	if status != 200 || !strings.Contains(body, `"text":"Pact of billing 1.2.0 for shipments published to Charter subject shipments-value; it verifies against version 1"`) {
		t.Fatalf("publish contracts: %d %s", status, body)
	}
	// The CLI decodes the answer strictly; these members are the ones it
	// requires (without them it prints "Failed to process response notices").
	var pubAns struct {
		Embedded struct {
			Pacticipant struct {
				Name  string
				Links struct{ Self struct{ Href string } } `json:"_links"`
			}
			Version struct {
				Number string
				Links  struct {
					Self struct{ Href, Name, Title string }
				} `json:"_links"`
			}
		} `json:"_embedded"`
		Links struct {
			Pacticipant        *struct{ Href, Name, Title string }  `json:"pb:pacticipant"`
			PacticipantVersion *struct{ Href, Name, Title string }  `json:"pb:pacticipant-version"`
			Tags               []any                                `json:"pb:pacticipant-version-tags"`
			Contracts          []struct{ Href, Name, Title string } `json:"pb:contracts"`
		} `json:"_links"`
		Logs []any
	}
	if err := json.Unmarshal([]byte(body), &pubAns); err != nil {
		t.Fatal(err)
	}
	l := pubAns.Links
	if pubAns.Embedded.Pacticipant.Name != "billing" || pubAns.Embedded.Version.Number != "1.2.0" ||
		pubAns.Embedded.Version.Links.Self.Href != "http://example.com/pact-broker/matrix?q[][pacticipant]=billing&q[][version]=1.2.0" ||
		pubAns.Embedded.Pacticipant.Links.Self.Href != "http://example.com/pact-broker/matrix?q[][pacticipant]=billing" ||
		l.Pacticipant == nil || l.Pacticipant.Name != "billing" || l.PacticipantVersion == nil || l.PacticipantVersion.Name != "1.2.0" ||
		l.Tags == nil || pubAns.Logs == nil || len(l.Contracts) != 1 ||
		l.Contracts[0].Href != "http://example.com/pact-broker/pacts/provider/shipments-value/consumer/billing/latest" {
		t.Errorf("publish answer lacks what the Pact CLI decodes: %s", body)
	}
	// An older client PUTs the pact.
	mailer := apiPact("mailer", `{"id":"s-1","email":"a@b.c"}`)
	status, _, body = e.do("PUT", "/pact-broker/pacts/provider/shipments-value/consumer/mailer/version/3.0.0", mailer, "Content-Type", "application/json")
	if status != 200 || !strings.Contains(body, `"consumer":{"name":"mailer"}`) || !strings.Contains(body, `"pb:consumer-version":{"href":"http://example.com/pact-broker","title":"3.0.0"}`) {
		t.Fatalf("put pact: %d %s", status, body)
	}
	latest := e.mustDo("GET", "/pact-broker/pacts/provider/shipments/consumer/billing/latest", "")
	var got map[string]any
	if err := json.Unmarshal([]byte(latest), &got); err != nil || got["messages"] == nil || got["consumer"].(map[string]any)["name"] != "billing" {
		t.Errorf("latest pact: %s", latest)
	}
	rec := e.mustDo("GET", "/governance/subjects/shipments-value/contracts/billing", "")
	if !strings.Contains(rec, `"consumerVersion":"1.2.0","branch":"main"`) {
		t.Errorf("stored record: %s", rec)
	}

	a := decodePB(t, e.mustDo("GET", matrixPath("billing", "1.2.0"), ""))
	if !a.Summary.Deployable || a.Summary.Success != 1 || a.Summary.Failed != 0 || len(a.Matrix) != 1 ||
		a.Matrix[0].Provider.Name != "shipments-value" || a.Matrix[0].Provider.Version.Number != "1" ||
		a.Matrix[0].Consumer.Version.Branch != "main" || !a.Matrix[0].VerificationResult.Success {
		t.Errorf("matrix billing 1.2.0: %+v", a)
	}
	a = decodePB(t, e.mustDo("GET", "/pact-broker/can-i-deploy?pacticipant=billing&version=0.9.0", ""))
	if a.Summary.Deployable || a.Summary.Unknown != 1 || len(a.Matrix) != 0 || a.Summary.Reason != "No contract of billing version 0.9.0 is published to Charter" {
		t.Errorf("can-i-deploy of an unpublished version: %+v", a)
	}

	// The producer drops carrier_code (NONE compatibility lets it in):
	// billing can no longer deploy, mailer still can, the subject cannot.
	// By default the broken contract refuses the registration; the
	// operator lowers CONTRACT_FIELD_MISSING to a warning to let it in.
	e.mustDo("PUT", "/config/shipments-value", `{"compatibility":"NONE"}`)
	if code, _, body := e.do("POST", "/subjects/shipments-value/versions", schemaBody(apiShipV2)); code != 422 || !strings.Contains(body, "CONTRACT_FIELD_MISSING") {
		t.Fatalf("breaking registration: %d %s, want 422 CONTRACT_FIELD_MISSING", code, body)
	}
	e.mustDo("PUT", "/governance/subjects/shipments-value/policy", `{"rules":{"CONTRACT_FIELD_MISSING":"warning"}}`)
	e.mustDo("POST", "/subjects/shipments-value/versions", schemaBody(apiShipV2))
	a = decodePB(t, e.mustDo("GET", matrixPath("billing", "1.2.0"), ""))
	if a.Summary.Deployable || a.Summary.Failed != 1 || a.Matrix[0].Provider.Version.Number != "2" ||
		a.Matrix[0].VerificationResult.Success || !strings.HasPrefix(a.Matrix[0].VerificationResult.Findings[0], "CONTRACT_FIELD_MISSING .carrier_code") {
		t.Errorf("matrix billing after the break: %+v", a)
	}
	if len(a.Notices) != 2 || a.Notices[0].Type != "failure" || !strings.Contains(a.Notices[1].Text, "billing 1.2.0 does not verify against shipments-value version 2") {
		t.Errorf("notices %+v", a.Notices)
	}
	a = decodePB(t, e.mustDo("GET", "/pact-broker/can-i-deploy?pacticipant=mailer&version=3.0.0", ""))
	if !a.Summary.Deployable {
		t.Errorf("mailer: %+v", a)
	}
	a = decodePB(t, e.mustDo("GET", "/pact-broker/can-i-deploy?pacticipant=shipments&version=2", ""))
	var consumers []string
	for _, r := range a.Matrix {
		consumers = append(consumers, r.Consumer.Name)
	}
	if a.Summary.Deployable || a.Summary.Success != 1 || a.Summary.Failed != 1 || !reflect.DeepEqual(consumers, []string{"billing", "mailer"}) {
		t.Errorf("can-i-deploy of the subject: %+v", a)
	}

	e.run([]step{
		{method: "GET", path: "/pact-broker/can-i-deploy?pacticipant=nobody&version=1", status: 404, code: 40480},
		{method: "GET", path: "/pact-broker/matrix", status: 400, code: 400},
		{method: "GET", path: "/pact-broker/pacts/provider/shipments/consumer/nobody/latest", status: 404, code: 40480},
		{method: "PUT", path: "/pact-broker/pacts/provider/shipments/consumer/x/version/1", body: `{"consumer":{"name":"x"}}`, status: 422, code: 42283},
		{method: "PUT", path: "/pact-broker/pacts/provider/parcels/consumer/x/version/1", body: apiPact("x", `{"id":"1"}`), status: 404, code: 40401},
		{method: "POST", path: "/pact-broker/contracts/publish", body: `{"pacticipantName":"billing","contracts":[]}`, status: 422, code: 42283},
		{method: "POST", path: "/pact-broker/contracts/publish", body: `{"pacticipantName":"billing","pacticipantVersionNumber":"1","contracts":[{"providerName":"shipments","content":"not base64!"}]}`, status: 422, code: 42283},
		{method: "POST", path: "/pact-broker/contracts/publish", body: `{"pacticipantName":"billing","pacticipantVersionNumber":"1","contracts":[{"providerName":"shipments","specification":"openapi","content":"e30="}]}`, status: 422, code: 42283},
	})
}

// TestOpenAPICoversPactBrokerRoutes: every route pactBrokerRoutes
// registers is an operation of the document.
func TestOpenAPICoversPactBrokerRoutes(t *testing.T) {
	src, err := os.ReadFile("pactbroker.go")
	if err != nil {
		t.Fatal(err)
	}
	o := loadOAS(t)
	re := regexp.MustCompile(`mux\.HandleFunc\("([A-Z]+) "\+p\+"([^"]*)"`)
	ms := re.FindAllStringSubmatch(string(src), -1)
	if len(ms) != 6 {
		t.Fatalf("found %d routes in pactbroker.go", len(ms))
	}
	o.operation(t, "GET", "/pact-broker")
	for _, m := range ms {
		path := "/pact-broker" + strings.TrimSuffix(m[2], "/{$}")
		if m[2] == "/{$}" {
			path = "/pact-broker/"
		}
		o.operation(t, m[1], path)
	}
}

// isPactBrokerOp reports whether an OpenAPI operation is tagged
// "pact-broker" (called by TestPactBrokerAPIDocumented).
func isPactBrokerOp(op any) bool {
	m, _ := op.(map[string]any)
	tags, _ := m["tags"].([]any)
	for _, t := range tags {
		if t == "pact-broker" {
			return true
		}
	}
	return false
}

// TestPactBrokerAPIDocumented calls every pact-broker operation of the
// document, checking request and response bodies against its schemas.
func TestPactBrokerAPIDocumented(t *testing.T) {
	e := newGovEnv(t)
	if r := e.send("POST", "/subjects/shipments/versions", schemaBody(apiShipV1)); r.status != 200 {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	pact := apiPact("billing", `{"id":"s-1","carrier_code":"DHL"}`)
	const pp = "/pact-broker/pacts/provider/{provider}/consumer/{consumer}"
	e.call(200, "GET", "/pact-broker", "/pact-broker", "")
	e.call(200, "GET", "/pact-broker/", "/pact-broker/", "")
	e.call(200, "POST", "/pact-broker/contracts/publish", "/pact-broker/contracts/publish",
		`{"pacticipantName":"billing","pacticipantVersionNumber":"1","contracts":[{"consumerName":"billing","providerName":"shipments","specification":"pact","contentType":"application/json","content":"`+
			base64.StdEncoding.EncodeToString([]byte(pact))+`"}]}`)
	e.call(200, "PUT", pp+"/version/{version}", "/pact-broker/pacts/provider/shipments/consumer/mailer/version/2", apiPact("mailer", `{"id":"s-1"}`))
	e.call(200, "GET", pp+"/latest", "/pact-broker/pacts/provider/shipments/consumer/billing/latest", "")
	e.call(200, "GET", "/pact-broker/matrix", matrixPath("billing", "1"), "")
	e.call(200, "GET", "/pact-broker/can-i-deploy", "/pact-broker/can-i-deploy?pacticipant=shipments&version=1", "")
	e.call(404, "GET", "/pact-broker/can-i-deploy", "/pact-broker/can-i-deploy?pacticipant=nobody&version=1", "")
	for path, item := range e.oas.doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if isPactBrokerOp(op) && !e.oas.called[strings.ToUpper(method)+" "+path] {
				t.Errorf("the test never calls %s %s", strings.ToUpper(method), path)
			}
		}
	}
}

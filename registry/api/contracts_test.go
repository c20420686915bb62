package api_test

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	js "github.com/santhosh-tekuri/jsonschema/v6"
)

const (
	apiShipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"carrier_code","type":"string"},{"name":"email","type":"string"}]}`
	apiShipV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[{"name":"id","type":"string"},{"name":"email","type":"string"}]}`
)

func apiPact(consumer string, contents string) string {
	return `{"consumer":{"name":"` + consumer + `"},"provider":{"name":"fulfillment"},"messages":[{"description":"a shipment","contents":` +
		contents + `}],"metadata":{"pactSpecification":{"version":"3.0.0"}}}`
}

// validateBody checks body against a component schema of the document.
func (o *oas) validateBody(t *testing.T, ref, body string) {
	t.Helper()
	v, err := js.UnmarshalJSON(strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", ref, err)
	}
	if err := o.schema(t, ref).Validate(v); err != nil {
		t.Errorf("%s does not describe %s: %v", ref, body, err)
	}
}

// TestContractAPI publishes contracts, declares producers and consumers,
// verifies a proposal and queries impact, PII exposure, the history and
// the graph over HTTP; answers are checked against the OpenAPI schemas.
func TestContractAPI(t *testing.T) {
	e := newEnv(t)
	o := loadOAS(t)
	e.mustDo("POST", "/subjects/shipments/versions", schemaBody(apiShipV1))
	e.mustDo("PUT", "/governance/subjects/shipments/tags", `{"tags":{"acme.Shipment.email":["PII"]}}`)
	rec := e.mustDo("POST", "/governance/subjects/shipments/contracts",
		`{"consumerVersion":"1.2.0","branch":"main","pact":`+apiPact("billing", `{"id":"s-1","carrier_code":"DHL"}`)+`}`)
	o.validateBody(t, "#/components/schemas/ContractRecord", rec)
	if !strings.Contains(rec, `"reads":[".carrier_code",".id"]`) || !strings.Contains(rec, `"consumer":"billing"`) {
		t.Errorf("contract record %s", rec)
	}
	e.mustDo("POST", "/governance/subjects/shipments/contracts",
		`{"consumer":"mailer","consumerVersion":"3","pact":`+apiPact("mailer-app", `{"id":"s-1","email":"a@b.c"}`)+`}`)
	e.run([]step{
		{method: "POST", path: "/governance/subjects/shipments/contracts", body: `{"consumerVersion":"1","pact":{"consumer":{"name":"x"}}}`,
			status: 422, code: 42283, contains: []string{"Invalid contract"}},
		{method: "POST", path: "/governance/subjects/parcels/contracts", body: `{"consumerVersion":"1","pact":` + apiPact("x", `{"id":"1"}`) + `}`,
			status: 404, code: 40401},
		{method: "GET", path: "/governance/subjects/shipments/contracts/nobody", status: 404, code: 40480},
		{method: "PUT", path: "/governance/subjects/shipments/producers/fulfillment", body: `{"versions":[1]}`, contains: []string{`"kind":"set_producer"`}},
		{method: "PUT", path: "/governance/subjects/shipments/consumers/audit", body: `{"fields":[".id",".carrier_code"],"range":{"from":1}}`,
			contains: []string{`"source":"declared"`}},
		{method: "PUT", path: "/governance/subjects/shipments/consumers/audit", body: `{"fields":["id"]}`, status: 422, code: 42283},
		{method: "GET", path: "/governance/subjects/shipments/impact", status: 422, code: 42283},
		{method: "GET", path: "/governance/subjects/shipments/impact?path=.nope", status: 422, code: 42283},
		{method: "DELETE", path: "/governance/subjects/shipments/producers/nobody", status: 404, code: 40480},
	})
	imp := e.mustDo("GET", "/governance/subjects/shipments/impact?path=.carrier_code&change=remove", "")
	var impacts []struct{ Service string }
	if err := json.Unmarshal([]byte(imp), &impacts); err != nil || len(impacts) != 2 || impacts[0].Service != "audit" || impacts[1].Service != "billing" {
		t.Fatalf("impact = %s (%v)", imp, err)
	}
	pii := e.mustDo("GET", "/governance/lineage/pii?subject=shipments", "")
	o.validateBody(t, "#/components/schemas/Exposure", strings.TrimSuffix(strings.TrimPrefix(pii, "["), "]"))
	if !strings.Contains(pii, `"path":".email"`) || !strings.Contains(pii, `"service":"mailer"`) || strings.Contains(pii, `"service":"billing"`) {
		t.Errorf("pii = %s", pii)
	}
	ver := e.mustDo("POST", "/governance/subjects/shipments/contracts/verify", schemaBody(apiShipV2))
	o.validateBody(t, "#/components/schemas/ContractVerification", ver)
	if !strings.Contains(ver, `"broken":true`) || !strings.Contains(ver, `"allowed":false`) ||
		!strings.Contains(ver, `"ruleId":"CONTRACT_FIELD_MISSING"`) || !strings.Contains(ver, `"consumer":"billing"`) {
		t.Errorf("verify = %s", ver)
	}
	chs := e.mustDo("GET", "/governance/lineage/changes?subject=shipments&after=1", "")
	var changes []map[string]any
	if err := json.Unmarshal([]byte(chs), &changes); err != nil || len(changes) != 3 {
		t.Fatalf("changes after 1 = %s", chs)
	}
	for _, c := range changes {
		b, _ := json.Marshal(c)
		o.validateBody(t, "#/components/schemas/LineageChange", string(b))
	}
	for format, want := range map[string]string{"json": `"consumes"`, "dot": "digraph", "mermaid": "flowchart"} {
		status, _, body := e.do("GET", "/governance/lineage/graph?subject=shipments&format="+format, "")
		if status != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("graph %s: %d %.200s", format, status, body)
		}
	}
	// A withdrawn contract leaves the lineage.
	e.mustDo("DELETE", "/governance/subjects/shipments/contracts/billing", "")
	imp = e.mustDo("GET", "/governance/subjects/shipments/impact?path=.carrier_code", "")
	if strings.Contains(imp, "billing") {
		t.Errorf("impact after withdrawal = %s", imp)
	}
	list := e.mustDo("GET", "/governance/contracts", "")
	var recs []struct{ Consumer string }
	if err := json.Unmarshal([]byte(list), &recs); err != nil || len(recs) != 1 || recs[0].Consumer != "mailer" {
		t.Errorf("contracts = %.300s (%v)", list, err)
	}
	audit := e.mustDo("GET", "/governance/audit?action=contract.", "")
	if strings.Count(audit, `"action":"contract.`) != 3 {
		t.Errorf("contract audit = %.400s", audit)
	}
}

// TestOpenAPICoversContractRoutes: every route contractRoutes registers
// is an operation of the document.
func TestOpenAPICoversContractRoutes(t *testing.T) {
	src, err := os.ReadFile("contracts.go")
	if err != nil {
		t.Fatal(err)
	}
	o := loadOAS(t)
	re := regexp.MustCompile(`mux\.HandleFunc\("([A-Z]+) ([^"]*)"( ?\+ ?sub ?\+ ?"([^"]*)")?`)
	matches := re.FindAllStringSubmatch(string(src), -1)
	if len(matches) < 14 {
		t.Fatalf("found %d routes in contracts.go", len(matches))
	}
	for _, m := range matches {
		method, path := m[1], m[2]
		if m[3] != "" {
			path = "/governance/subjects/{subject}" + m[4]
		}
		o.operation(t, method, path)
	}
}

// isLineageOp reports whether an OpenAPI operation is tagged "lineage"
// (issue 5's operations, called by TestContractAPIDocumented).
func isLineageOp(op any) bool {
	m, _ := op.(map[string]any)
	tags, _ := m["tags"].([]any)
	for _, t := range tags {
		if t == "lineage" {
			return true
		}
	}
	return false
}

// TestContractAPIDocumented calls every lineage operation of the
// document, checking request and response bodies against its schemas.
func TestContractAPIDocumented(t *testing.T) {
	e := newGovEnv(t)
	const sub = "/governance/subjects/{subject}"
	const s = "/governance/subjects/shipments"
	if r := e.send("POST", "/subjects/shipments/versions", schemaBody(apiShipV1)); r.status != 200 {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	pub := `{"consumerVersion":"1","pact":` + apiPact("billing", `{"id":"s-1","carrier_code":"DHL"}`) + `}`
	e.call(200, "POST", sub+"/contracts", s+"/contracts", pub)
	e.call(422, "POST", sub+"/contracts", s+"/contracts", `{"consumerVersion":"1","pact":{}}`)
	e.call(200, "GET", sub+"/contracts", s+"/contracts", "")
	e.call(200, "GET", "/governance/contracts", "/governance/contracts", "")
	e.call(200, "GET", sub+"/contracts/{consumer}", s+"/contracts/billing", "")
	e.call(200, "POST", sub+"/contracts/verify", s+"/contracts/verify", schemaBody(apiShipV2))
	e.call(200, "PUT", sub+"/producers/{service}", s+"/producers/fulfillment", `{"versions":[1]}`)
	e.call(200, "PUT", sub+"/consumers/{service}", s+"/consumers/audit", `{"fields":[".id"],"range":{"from":1}}`)
	e.call(200, "GET", sub+"/impact", s+"/impact?path=.carrier_code&change=deprecate", "")
	e.call(200, "POST", sub+"/deprecations", s+"/deprecations", `{"path":".carrier_code","replacement":".carrier","ttlDays":30}`)
	mig := e.call(200, "GET", sub+"/migrations", s+"/migrations", "")
	wantContains(t, "migrations", mig.body, `"path":".carrier_code"`, `"daysLeft":30`, `"migrated":[]`,
		`"reading":[{"consumer":"billing","fields":[".carrier_code"],"source":"contract"`, `"extended":[]`)
	e.call(200, "GET", sub+"/migrations", s+"/migrations?path=.carrier_code", "")
	e.call(404, "GET", sub+"/migrations", s+"/migrations?path=.id", "")
	e.call(404, "GET", sub+"/migrations", "/governance/subjects/parcels/migrations", "")
	e.call(200, "GET", "/governance/lineage/pii", "/governance/lineage/pii", "")
	e.call(200, "GET", "/governance/lineage/changes", "/governance/lineage/changes", "")
	e.call(200, "GET", "/governance/lineage/graph", "/governance/lineage/graph", "")
	e.call(200, "DELETE", sub+"/consumers/{service}", s+"/consumers/audit", "")
	e.call(200, "DELETE", sub+"/producers/{service}", s+"/producers/fulfillment", "")
	e.call(200, "DELETE", sub+"/contracts/{consumer}", s+"/contracts/billing", "")
	e.call(404, "DELETE", sub+"/contracts/{consumer}", s+"/contracts/billing", "")
	for path, item := range e.oas.doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if isLineageOp(op) && !e.oas.called[strings.ToUpper(method)+" "+path] {
				t.Errorf("the test never calls %s %s", strings.ToUpper(method), path)
			}
		}
	}
}

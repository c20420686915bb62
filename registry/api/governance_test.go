package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/exporter"
	"github.com/charter-dev/charter/registry/sqlite"
)

// oas is the served OpenAPI document, parsed, with a compiler of its
// component schemas.
type oas struct {
	doc      map[string]any
	compiler *js.Compiler
	mu       sync.Mutex
	schemas  map[string]*js.Schema
	called   map[string]bool // "METHOD path" operations the test called
}

func loadOAS(t *testing.T) *oas {
	t.Helper()
	doc, err := js.UnmarshalJSON(bytes.NewReader(api.OpenAPI))
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	c := js.NewCompiler()
	c.DefaultDraft(js.Draft2020)
	if err := c.AddResource("openapi.json", doc); err != nil {
		t.Fatal(err)
	}
	m := doc.(map[string]any)
	if m["openapi"] != "3.1.0" {
		t.Fatalf("openapi version %v, want 3.1.0", m["openapi"])
	}
	return &oas{doc: m, compiler: c, schemas: map[string]*js.Schema{}, called: map[string]bool{}}
}

// schema compiles a "#/components/..." reference of the document.
func (o *oas) schema(t *testing.T, ref string) *js.Schema {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if s, ok := o.schemas[ref]; ok {
		return s
	}
	s, err := o.compiler.Compile("openapi.json" + ref)
	if err != nil {
		t.Fatalf("compile %s: %v", ref, err)
	}
	o.schemas[ref] = s
	return s
}

// operation returns the operation of method on the document path.
func (o *oas) operation(t *testing.T, method, path string) map[string]any {
	t.Helper()
	p, ok := o.doc["paths"].(map[string]any)[path].(map[string]any)
	if !ok {
		t.Fatalf("openapi.json has no path %s", path)
	}
	op, ok := p[strings.ToLower(method)].(map[string]any)
	if !ok {
		t.Fatalf("openapi.json has no %s %s", method, path)
	}
	return op
}

// contentSchemaRef returns the $ref of the first JSON content schema of
// a request body or response object, or a pointer to it (base is the
// object's pointer) when it is inline.
func contentSchemaRef(t *testing.T, obj map[string]any, base string) string {
	t.Helper()
	if ref, ok := obj["$ref"].(string); ok && strings.HasPrefix(ref, "#/components/responses/") {
		return "#/components/schemas/Error"
	}
	content, ok := obj["content"].(map[string]any)
	if !ok {
		t.Fatalf("no content in %v", obj)
	}
	for _, mt := range []string{"application/vnd.schemaregistry.v1+json", "application/json"} {
		if c, ok := content[mt].(map[string]any); ok {
			s := c["schema"].(map[string]any)
			if ref, ok := s["$ref"].(string); ok {
				return ref
			}
			return base + "/content/" + pointer(mt) + "/schema"
		}
	}
	t.Fatalf("no JSON content in %v", obj)
	return ""
}

func (o *oas) validate(t *testing.T, what, ref string, body []byte) {
	t.Helper()
	v, err := js.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", what, err, body)
	}
	if err := o.schema(t, ref).Validate(v); err != nil {
		t.Fatalf("%s does not match %s:\n%v\nbody: %s", what, ref, err, body)
	}
}

// pointer escapes a path for a JSON pointer.
func pointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// govEnv is the API over a store with a settable clock.
type govEnv struct {
	t   *testing.T
	h   http.Handler
	svc *registry.Service
	oas *oas
	mu  sync.Mutex
	now time.Time
}

var apiDay0 = time.Date(2026, 1, 5, 9, 30, 0, 0, time.UTC)

func newGovEnv(t *testing.T) *govEnv {
	t.Helper()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	e := &govEnv{t: t, oas: loadOAS(t), now: apiDay0}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sealer, err := exporter.NewSealer([]byte(exporterSecret))
	if err != nil {
		t.Fatal(err)
	}
	e.svc = registry.NewService(store, formats.Formats(),
		registry.WithLogger(log), registry.WithClock(func() time.Time { e.mu.Lock(); defer e.mu.Unlock(); return e.now }),
		registry.WithExporterSealer(sealer))
	e.h = api.New(e.svc, api.Options{Logger: log})
	return e
}

func (e *govEnv) day(n int) {
	e.mu.Lock()
	e.now = apiDay0.Add(time.Duration(n) * 24 * time.Hour)
	e.mu.Unlock()
}

type reply struct {
	status int
	header http.Header
	body   string
}

// send sends a request without checking it against the document.
func (e *govEnv) send(method, url, body string, header ...string) reply {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, url, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return reply{rec.Code, rec.Header(), rec.Body.String()}
}

// call sends a request to the operation (method, docPath) of the OpenAPI
// document: the request body of a call that must succeed must match its
// requestBody schema, a 200
// answer its 200 schema, any other answer the Error schema. want is the
// expected status.
func (e *govEnv) call(want int, method, docPath, url, body string, header ...string) reply {
	e.t.Helper()
	op := e.oas.operation(e.t, method, docPath)
	e.oas.mu.Lock()
	e.oas.called[method+" "+docPath] = true
	e.oas.mu.Unlock()
	what := method + " " + url
	if body != "" && want < 400 { // bad requests are sent on purpose
		rb, ok := op["requestBody"].(map[string]any)
		if !ok {
			e.t.Fatalf("%s: the document has no request body", what)
		}
		e.oas.validate(e.t, what+" request", contentSchemaRef(e.t, rb, "#/paths/"+pointer(docPath)+"/"+strings.ToLower(method)+"/requestBody"), []byte(body))
	}
	r := e.send(method, url, body, header...)
	if r.status != want {
		e.t.Fatalf("%s: status %d, want %d; body %s", what, r.status, want, r.body)
	}
	responses := op["responses"].(map[string]any)
	if r.status == http.StatusNoContent { // documented without content
		if _, ok := responses["204"]; !ok || r.body != "" {
			e.t.Errorf("%s: 204 with body %q; documented: %v", what, r.body, ok)
		}
		return r
	}
	if r.status == http.StatusOK {
		ref := contentSchemaRef(e.t, responses["200"].(map[string]any), "#/paths/"+pointer(docPath)+"/"+strings.ToLower(method)+"/responses/200")
		e.oas.validate(e.t, what+" response", ref, []byte(r.body))
	} else {
		e.oas.validate(e.t, what+" error", contentSchemaRef(e.t, responses["default"].(map[string]any), ""), []byte(r.body))
	}
	return r
}

func (e *govEnv) register(subject, schema string, want int, header ...string) reply {
	e.t.Helper()
	r := e.send("POST", "/subjects/"+subject+"/versions", schemaBody(schema), header...)
	if r.status != want {
		e.t.Fatalf("register %s: status %d, want %d; body %s", subject, r.status, want, r.body)
	}
	return r
}

func wantContains(t *testing.T, what, got string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(got, s) {
			t.Errorf("%s: %q does not contain %q", what, got, s)
		}
	}
}

func errorCode(t *testing.T, body string) int {
	t.Helper()
	var eb struct {
		ErrorCode int `json:"error_code"`
	}
	if err := json.Unmarshal([]byte(body), &eb); err != nil {
		t.Fatalf("error body %q: %v", body, err)
	}
	return eb.ErrorCode
}

const (
	shipV1 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"string"},{"name":"carrier_code","type":"string"}]}`
	shipV2 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"string"},{"name":"carrier_code","type":"string"},` +
		`{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null}]}`
	shipV3 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"string"},{"name":"carrier_code","type":"string"},` +
		`{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},` +
		`{"name":"weight_kg","type":"double","default":0}]}`
	shipV4 = `{"type":"record","name":"Shipment","namespace":"acme","fields":[` +
		`{"name":"id","type":"string"},{"name":"carrier_code","type":"string"},` +
		`{"name":"carrier","type":["null",{"type":"record","name":"Carrier","fields":[{"name":"code","type":"string"}]}],"default":null},` +
		`{"name":"weight_kg","type":"double","default":0},{"name":"note","type":"string","default":""}]}`
)

// TestGovernanceAPI drives every governance endpoint through the handler,
// validating each request and answer against the served OpenAPI
// document, along issue 4's acceptance scenario (day 0, 89, 90, 120).
func TestGovernanceAPI(t *testing.T) {
	e := newGovEnv(t)
	const s = "shipments-value"
	sub := "/governance/subjects/{subject}"
	alice := []string{api.ActorHeader, "alice"}

	e.call(200, "PUT", "/governance/policy", "/governance/policy", `{"rules":{"PII_UNTAGGED":"warn"},"deprecationTtlDays":90}`, alice...)
	e.call(200, "GET", "/governance/policy", "/governance/policy", "")
	rules := e.call(200, "GET", "/governance/rules", "/governance/rules", "")
	wantContains(t, "rules", rules.body, `"id":"DEPRECATION_EXPIRED"`, `"effective":"error"`, `"id":"EVENT_INLINE_BINARY"`, `"effective":"off"`)

	// An unowned subject's first version: OWNER_MISSING in a header.
	r := e.register(s, shipV1, 200)
	wantContains(t, "v1 findings", strings.Join(r.header.Values("Charter-Finding"), "\n"), "warning OWNER_MISSING: subject shipments-value has no owner")
	if r.header.Get("Charter-Semver") != "1.0.0" {
		t.Errorf("v1 semver %q", r.header.Get("Charter-Semver"))
	}
	e.call(404, "GET", sub+"/owner", "/governance/subjects/"+s+"/owner", "")
	e.call(422, "PUT", sub+"/owner", "/governance/subjects/"+s+"/owner", `{"team":"logistics","contact":""}`)
	e.call(200, "PUT", sub+"/owner", "/governance/subjects/"+s+"/owner", `{"team":"logistics","contact":"#logistics","description":"parcels on their way"}`, alice...)
	o := e.call(200, "GET", sub+"/owner", "/governance/subjects/"+s+"/owner", "")
	wantContains(t, "owner", o.body, `"updatedBy":"alice"`, `"team":"logistics"`)
	e.call(200, "GET", "/governance/owners", "/governance/owners?team=logistics", "")

	// Version 2 adds the carrier record; ownership shows in metadata.
	r = e.register(s, shipV2, 200)
	if len(r.header.Values("Charter-Finding")) != 0 || r.header.Get("Charter-Semver") != "1.1.0" {
		t.Errorf("v2 headers %v", r.header)
	}
	latest := e.send("GET", "/subjects/"+s+"/versions/latest", "")
	wantContains(t, "latest", latest.body, `"owner":"logistics"`, `"owner.contact":"#logistics"`)
	e.call(200, "GET", "/subjects/{subject}/metadata", "/subjects/"+s+"/metadata?key=owner&value=logistics", "")
	e.call(404, "GET", "/subjects/{subject}/metadata", "/subjects/"+s+"/metadata?key=owner&value=billing", "")

	// Deprecate carrier_code on day 0.
	e.call(422, "POST", sub+"/deprecations", "/governance/subjects/"+s+"/deprecations", `{"path":".no_such_field"}`)
	d := e.call(200, "POST", sub+"/deprecations", "/governance/subjects/"+s+"/deprecations",
		`{"path":".carrier_code","replacement":".carrier","reason":"carriers are records now"}`, alice...)
	wantContains(t, "deprecation", d.body, `"state":"deprecated"`, `"daysLeft":90`, `"expiresAt":"2026-04-05T09:30:00Z"`, `"by":"alice"`)
	e.call(200, "GET", sub+"/deprecations/{item}", "/governance/subjects/"+s+"/deprecations/field:.carrier_code", "")
	e.call(404, "GET", sub+"/deprecations/{item}", "/governance/subjects/"+s+"/deprecations/version:1", "")
	all := e.call(200, "GET", sub+"/deprecations", "/governance/subjects/"+s+"/deprecations?all=true", "")
	wantContains(t, "all fields", all.body, `"path":".id","state":"active"`)
	e.call(200, "GET", "/governance/deprecations", "/governance/deprecations", "")

	// Day 0 and 89: kept with a warning.
	r = e.register(s, shipV3, 200)
	wantContains(t, "day 0", r.header.Get("Charter-Finding"), "warning DEPRECATION_ACTIVE .carrier_code:", "90 days left")
	e.day(89)
	r = e.register(s, shipV4, 200)
	wantContains(t, "day 89", r.header.Get("Charter-Finding"), "1 day left", "expires on 2026-04-05")

	// Day 90: refused, naming field, expiry and replacement.
	e.day(90)
	v5 := strings.Replace(shipV4, `"default":""}]}`, `"default":""},{"name":"x","type":"int","default":0}]}`, 1)
	r = e.register(s, v5, 422)
	if errorCode(t, r.body) != 42281 {
		t.Errorf("day 90 error %s", r.body)
	}
	wantContains(t, "day 90", r.body, "field carrier_code", "expired on 2026-04-05", "use carrier instead")
	chk := e.call(200, "POST", sub+"/check", "/governance/subjects/"+s+"/check", schemaBody(v5))
	wantContains(t, "check", chk.body, `"allowed":false`, `"ruleId":"DEPRECATION_EXPIRED"`, `"semver":"1.4.0"`)

	// billing reads carrier_code (declared lineage) and gets an extension:
	// passes with a notice until it ends.
	e.call(200, "PUT", sub+"/consumers/{service}", "/governance/subjects/"+s+"/consumers/billing",
		`{"fields":[".id",".carrier_code"],"range":{"from":1}}`, alice...)
	e.call(422, "POST", sub+"/deprecations/{item}/extensions", "/governance/subjects/"+s+"/deprecations/field:.carrier_code/extensions",
		`{"consumer":"billing","days":30,"reason":"Q2 release","approver":""}`)
	x := e.call(200, "POST", sub+"/deprecations/{item}/extensions", "/governance/subjects/"+s+"/deprecations/field:.carrier_code/extensions",
		`{"consumer":"billing","days":35,"reason":"billing reads carrier_code until its Q2 release","approver":"bob"}`, alice...)
	wantContains(t, "extension", x.body, `"extendedUntil":"2026-05-10T09:30:00Z"`, `"consumers":["billing"]`)
	e.day(120)
	r = e.register(s, v5, 200)
	wantContains(t, "day 120", r.header.Get("Charter-Finding"), "notice DEPRECATION_EXTENDED .carrier_code:", "billing (extended until 2026-05-10, approved by bob)")
	e.call(200, "DELETE", sub+"/deprecations/{item}/extensions/{consumer}", "/governance/subjects/"+s+"/deprecations/field:.carrier_code/extensions/billing", "")
	e.call(404, "DELETE", sub+"/deprecations/{item}/extensions/{consumer}", "/governance/subjects/"+s+"/deprecations/field:.carrier_code/extensions/billing", "")

	// History: changelog, removed fields, state, audit.
	cl := e.call(200, "GET", sub+"/changelog", "/governance/subjects/"+s+"/changelog", "")
	wantContains(t, "changelog", cl.body, "field `carrier_code` deprecated, TTL 90 days, use `carrier` (carriers are records now)", `"semver":"1.4.0"`)
	e.call(404, "GET", sub+"/changelog", "/governance/subjects/nope/changelog", "")
	e.call(200, "GET", sub+"/removed", "/governance/subjects/"+s+"/removed", "")
	st := e.call(200, "GET", sub+"/state", "/governance/subjects/"+s+"/state", "")
	wantContains(t, "state", st.body, `"latestSemver":"1.4.0"`, `"team":"logistics"`)
	au := e.call(200, "GET", "/governance/audit", "/governance/audit?subject="+s+"&action=extension.", "")
	wantContains(t, "audit", au.body, `"action":"extension.grant"`, `"actor":"alice"`, `"action":"extension.revoke"`, `"actor":"anonymous"`)
	e.call(400, "GET", "/governance/audit", "/governance/audit?since=yesterday", "")
	e.call(200, "GET", "/governance/audit", "/governance/audit?since=2026-01-05T00:00:00Z&until=2026-02-01T00:00:00Z&after=1&limit=5&actor=alice", "")

	// Subject policy, tags and dismissals on a PII example.
	const o2 = "orders-value"
	e.call(200, "PUT", sub+"/owner", "/governance/subjects/"+o2+"/owner", `{"team":"shop","contact":"#shop"}`)
	e.register(o2, `{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"string"}]}`, 200)
	email := `{"type":"record","name":"Order","namespace":"shop","fields":[{"name":"id","type":"string"},{"name":"customer_email","type":"string","default":""}]}`
	chk = e.call(200, "POST", sub+"/check", "/governance/subjects/"+o2+"/check", schemaBody(email))
	wantContains(t, "untagged", chk.body, `"ruleId":"PII_UNTAGGED"`, `"severity":"warning"`, `"allowed":true`)
	e.call(422, "PUT", sub+"/policy", "/governance/subjects/"+o2+"/policy", `{"rules":{"PII_UNTAGGED":"fatal"}}`)
	e.call(200, "PUT", sub+"/policy", "/governance/subjects/"+o2+"/policy", `{"rules":{"PII_UNTAGGED":"error"}}`)
	e.call(200, "GET", sub+"/policy", "/governance/subjects/"+o2+"/policy", "")
	eff := e.call(200, "GET", sub+"/policy/effective", "/governance/subjects/"+o2+"/policy/effective", "")
	wantContains(t, "effective", eff.body, `"PII_UNTAGGED":"error"`, `"deprecationTtlDays":90`)
	r = e.register(o2, email, 422)
	if errorCode(t, r.body) != 42280 || !strings.Contains(r.body, "PII_UNTAGGED") {
		t.Errorf("PII refusal %s", r.body)
	}
	tags := e.call(200, "PUT", sub+"/tags", "/governance/subjects/"+o2+"/tags", `{"tags":{"shop.Order.customer_email":["PII"]}}`)
	wantContains(t, "tags", tags.body, `"path":".id"`)
	e.call(200, "GET", sub+"/tags", "/governance/subjects/"+o2+"/tags", "")
	e.register(o2, email, 200)
	tags = e.call(200, "GET", sub+"/tags", "/governance/subjects/"+o2+"/tags", "")
	wantContains(t, "field tags", tags.body, `"path":".customer_email","fullName":"shop.Order.customer_email","tags":["PII"],"governance":["PII"]`)
	e.call(200, "DELETE", sub+"/tags", "/governance/subjects/"+o2+"/tags", "")
	e.call(404, "DELETE", sub+"/tags", "/governance/subjects/"+o2+"/tags", "")
	e.call(422, "POST", sub+"/dismissals", "/governance/subjects/"+o2+"/dismissals", `{"field":".contact_phone","reason":" "}`)
	// A field no version has yet is a typo unless the schema is proposed.
	e.call(422, "POST", sub+"/dismissals", "/governance/subjects/"+o2+"/dismissals", `{"field":".contact_phone","patternId":"PII_PHONE","reason":"the shop's switchboard"}`, alice...)
	e.call(200, "POST", sub+"/dismissals", "/governance/subjects/"+o2+"/dismissals", `{"field":".contact_phone","patternId":"PII_PHONE","reason":"the shop's switchboard","proposed":true}`, alice...)
	ds := e.call(200, "GET", sub+"/dismissals", "/governance/subjects/"+o2+"/dismissals", "")
	wantContains(t, "dismissals", ds.body, `"by":"alice"`)
	phone := strings.Replace(email, `]}`, `,{"name":"contact_phone","type":"string","default":""}]}`, 1)
	chk = e.call(200, "POST", sub+"/check", "/governance/subjects/"+o2+"/check", schemaBody(phone))
	if strings.Contains(chk.body, "PII_UNTAGGED") {
		t.Errorf("dismissed field reported: %s", chk.body)
	}
	e.call(200, "DELETE", sub+"/dismissals/{field}", "/governance/subjects/"+o2+"/dismissals/.contact_phone?patternId=PII_PHONE", "")
	e.call(404, "DELETE", sub+"/dismissals/{field}", "/governance/subjects/"+o2+"/dismissals/.contact_phone?patternId=PII_PHONE", "")
	e.call(200, "DELETE", sub+"/policy", "/governance/subjects/"+o2+"/policy", "")
	e.call(404, "DELETE", sub+"/policy", "/governance/subjects/"+o2+"/policy", "")

	// Removing things.
	e.call(200, "DELETE", sub+"/deprecations/{item}", "/governance/subjects/"+s+"/deprecations/.carrier_code", "")
	e.call(200, "DELETE", sub+"/owner", "/governance/subjects/"+s+"/owner", "")
	e.call(200, "DELETE", "/governance/policy", "/governance/policy", "")
	e.call(404, "DELETE", "/governance/policy", "/governance/policy", "")

	doc := e.call(200, "GET", "/openapi.json", "/openapi.json", "")
	if doc.header.Get("Content-Type") != "application/json" {
		t.Errorf("openapi.json Content-Type %q", doc.header.Get("Content-Type"))
	}

	// Every operation of the document was called.
	for path, item := range e.oas.doc["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			if op := item.(map[string]any)[method]; method == "parameters" || isLineageOp(op) || isPactBrokerOp(op) || isAdminOp(op) || isConfluentOrMetaOp(op) || isDekOp(op) || isExporterOp(op) { // lineage ops: TestContractAPIDocumented; pact-broker: TestPactBrokerAPIDocumented; admin: TestAdminExportImport; confluent and meta: TestConfluentAPIDocumented; dek-registry: TestDekRegistryAPIDocumented; exporters: TestExportersAPIDocumented
				continue
			}
			if k := strings.ToUpper(method) + " " + path; !e.oas.called[k] {
				t.Errorf("the test never calls %s", k)
			}
		}
	}
}

// TestOpenAPICoversRoutes: every route governanceRoutes registers is an
// operation of the document.
func TestOpenAPICoversRoutes(t *testing.T) {
	src, err := os.ReadFile("governance.go")
	if err != nil {
		t.Fatal(err)
	}
	o := loadOAS(t)
	re := regexp.MustCompile(`mux\.HandleFunc\("([A-Z]+) ([^"]*)"( ?\+ ?sub ?\+ ?"([^"]*)")?`)
	matches := re.FindAllStringSubmatch(string(src), -1)
	if len(matches) < 30 {
		t.Fatalf("found %d routes in governance.go", len(matches))
	}
	for _, m := range matches {
		method, path := m[1], m[2]
		if m[3] != "" {
			path = "/governance/subjects/{subject}" + m[4]
		}
		o.operation(t, method, path)
	}
	// The schemas are strict: an undocumented member fails.
	for ref, body := range map[string]string{
		"#/components/schemas/Owner":             `{"subject":"s","team":"t","contact":"c","updatedAt":"2026-01-05T00:00:00Z","extra":1}`,
		"#/components/schemas/DeprecationStatus": `{"subject":"s","kind":"field","state":"deprecated","daysLeft":1,"extra":1}`,
		"#/components/schemas/Change":            `{"kind":"FIELD_ADDED","text":"t","bump":"huge"}`,
	} {
		v, _ := js.UnmarshalJSON(strings.NewReader(body))
		if err := o.schema(t, ref).Validate(v); err == nil {
			t.Errorf("%s accepts %s", ref, body)
		}
	}
	var ops []string
	for path := range o.doc["paths"].(map[string]any) {
		ops = append(ops, path)
	}
	slices.Sort(ops)
	if len(ops) < 20 {
		t.Errorf("document paths %v", ops)
	}
}

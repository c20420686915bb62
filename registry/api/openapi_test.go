package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/charter-dev/charter/registry/api"
)

// docPath is the OpenAPI path of a ServeMux pattern's path: "{$}" (the
// end of a path ending in "/") is dropped.
func docPath(pattern string) (method, path string) {
	method, path, _ = strings.Cut(pattern, " ")
	return method, strings.TrimSuffix(path, "{$}")
}

var docMethods = []string{"get", "put", "post", "delete", "patch", "head", "options", "trace"}

// TestOpenAPIDescribesEveryRoute walks the router: every route has an
// operation in /openapi.json, and every operation is a route.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	o := loadOAS(t)
	routes := map[string]bool{}
	for _, r := range api.Routes() {
		method, path := docPath(r.Pattern)
		routes[method+" "+path] = true
		item, ok := o.doc["paths"].(map[string]any)[path].(map[string]any)
		if !ok {
			t.Errorf("route %s: openapi.json has no path %s", r.Pattern, path)
			continue
		}
		op, ok := item[strings.ToLower(method)].(map[string]any)
		if !ok {
			t.Errorf("route %s: openapi.json has no %s %s", r.Pattern, method, path)
			continue
		}
		if s, _ := op["summary"].(string); s == "" {
			t.Errorf("%s %s has no summary", method, path)
		}
		// The document says which routes need no credentials.
		_, open := op["security"]
		if public := r.Kind == "public"; public != open {
			t.Errorf("%s %s: access %s, but the operation's security is %v", method, path, r.Kind, op["security"])
		}
	}
	for path, item := range o.doc["paths"].(map[string]any) {
		for _, m := range docMethods {
			if _, ok := item.(map[string]any)[m]; ok && !routes[strings.ToUpper(m)+" "+path] {
				t.Errorf("openapi.json describes %s %s, which no route serves", strings.ToUpper(m), path)
			}
		}
	}
}

// TestOpenAPIValid validates the document as OpenAPI 3.1 with
// kin-openapi (structure, references, path parameters, unique operation
// IDs, schemas as JSON Schema 2020-12), and checks what it leaves out:
// each parameter's location. A broken copy must fail, so that the
// validator is known to look.
func TestOpenAPIValid(t *testing.T) {
	doc := loadKin(t, api.OpenAPI)
	if !doc.IsOpenAPI31OrLater() || doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("openapi.json is not valid OpenAPI 3.1: %v", err)
	}
	checkParam := func(where string, p *openapi3.ParameterRef) {
		switch p.Value.In {
		case "path", "query", "header", "cookie":
		default:
			t.Errorf("%s: parameter %q is in %q", where, p.Value.Name, p.Value.In)
		}
	}
	for name, p := range doc.Components.Parameters {
		checkParam("components.parameters."+name, p)
	}
	for path, item := range doc.Paths.Map() {
		for _, p := range item.Parameters {
			checkParam(path, p)
		}
		for m, op := range item.Operations() {
			for _, p := range op.Parameters {
				checkParam(m+" "+path, p)
			}
		}
	}

	var broken map[string]any
	if err := json.Unmarshal(api.OpenAPI, &broken); err != nil {
		t.Fatal(err)
	}
	delete(broken["paths"].(map[string]any)["/schemas/ids/{id}"].(map[string]any), "parameters")
	b, _ := json.Marshal(broken)
	if err := loadKin(t, b).Validate(t.Context()); err == nil {
		t.Errorf("a document whose {id} is not declared validates: the validator checks nothing")
	}
}

// isConfluentOrMetaOp reports whether an OpenAPI operation is tagged
// confluent or meta (called by TestConfluentAPIDocumented).
func isConfluentOrMetaOp(op any) bool {
	m, _ := op.(map[string]any)
	tags, _ := m["tags"].([]any)
	return slices.Contains(tags, any("confluent")) || slices.Contains(tags, any("meta"))
}

func loadKin(t *testing.T, b []byte) *openapi3.T {
	t.Helper()
	l := openapi3.NewLoader()
	doc, err := l.LoadFromData(b)
	if err != nil {
		t.Fatalf("load openapi.json: %v", err)
	}
	return doc
}

// TestConfluentAPIDocumented calls every operation tagged confluent or
// meta, checking request and response bodies (errors included) against
// the document's schemas.
func TestConfluentAPIDocumented(t *testing.T) {
	e := newGovEnv(t)
	const (
		sv  = "/subjects/{subject}/versions"
		svv = "/subjects/{subject}/versions/{version}"
		ids = "/schemas/ids/{id}"
		cmp = "/compatibility/subjects/{subject}/versions"
	)
	e.call(200, "GET", "/", "/", "")
	for _, p := range []string{"/health", "/health/live", "/health/ready", "/health/startup", "/livez", "/readyz"} {
		e.call(200, "GET", p, p, "")
	}
	e.call(200, "GET", "/openapi.json", "/openapi.json", "")
	e.call(200, "GET", "/v1/metadata/id", "/v1/metadata/id", "")
	e.call(200, "GET", "/v1/metadata/version", "/v1/metadata/version", "")
	e.call(200, "GET", "/contexts", "/contexts", "")
	e.call(200, "GET", "/schemas/types", "/schemas/types", "")

	e.call(200, "POST", sv, "/subjects/orders-value/versions", schemaBody(metOrder1))
	e.call(200, "POST", sv, "/subjects/orders-value/versions?normalize=true", schemaBody(metOrder2))
	e.call(409, "POST", sv, "/subjects/orders-value/versions", schemaBody(metOrderBad))
	e.call(200, "POST", sv, "/subjects/parcels-value/versions", schemaBody(metProto, `"schemaType":"PROTOBUF"`))
	e.call(200, "POST", sv, "/subjects/refs-value/versions",
		schemaBody(`{"type":"record","name":"Box","fields":[{"name":"o","type":"Order"}]}`, `"references":[{"name":"Order","subject":"orders-value","version":1}]`))
	e.call(200, "GET", "/subjects", "/subjects?deleted=true&offset=0&limit=10", "")
	e.call(200, "POST", "/subjects/{subject}", "/subjects/orders-value", schemaBody(metOrder1))
	e.call(404, "POST", "/subjects/{subject}", "/subjects/orders-value", schemaBody(metOrderBad))
	e.call(200, "GET", sv, "/subjects/orders-value/versions?deletedAsNegative=true", "")
	e.call(200, "GET", svv, "/subjects/orders-value/versions/latest", "")
	e.call(200, "GET", svv, "/subjects/parcels-value/versions/1?format=serialized", "")
	e.call(404, "GET", svv, "/subjects/orders-value/versions/9", "")
	e.call(200, "GET", svv+"/schema", "/subjects/orders-value/versions/1/schema", "")
	e.call(200, "GET", svv+"/referencedby", "/subjects/orders-value/versions/1/referencedby", "")
	e.call(200, "POST", svv+"/tags", "/subjects/parcels-value/versions/1/tags",
		`{"tagsToAdd":[{"entity":{"entityPath":"Parcel.id","entityType":"SR_FIELD"},"tags":["KEY"]}]}`)
	e.call(200, "GET", "/subjects/{subject}/metadata", "/subjects/orders-value/metadata", "")
	e.call(200, "GET", "/schemas", "/schemas?latestOnly=true", "")
	e.call(200, "GET", ids, "/schemas/ids/1?fetchMaxId=true", "")
	e.call(404, "GET", ids, "/schemas/ids/99", "")
	e.call(200, "GET", ids+"/schema", "/schemas/ids/1/schema", "")
	e.call(200, "GET", ids+"/subjects", "/schemas/ids/1/subjects", "")
	e.call(200, "GET", ids+"/versions", "/schemas/ids/1/versions", "")
	e.call(200, "POST", cmp, "/compatibility/subjects/orders-value/versions?verbose=true", schemaBody(metOrderBad))
	e.call(200, "POST", cmp+"/{version}", "/compatibility/subjects/orders-value/versions/latest?verbose=true", schemaBody(metOrder2))

	e.call(200, "GET", "/config", "/config", "")
	e.call(200, "PUT", "/config", "/config", `{"compatibility":"FULL"}`)
	e.call(200, "DELETE", "/config", "/config", "")
	e.call(200, "PUT", "/config/{subject}", "/config/parcels-value", `{"compatibility":"NONE","normalize":true}`)
	e.call(200, "GET", "/config/{subject}", "/config/parcels-value", "")
	e.call(200, "DELETE", "/config/{subject}", "/config/parcels-value", "")
	e.call(404, "GET", "/config/{subject}", "/config/parcels-value", "")
	e.call(200, "GET", "/mode", "/mode", "")
	e.call(200, "PUT", "/mode", "/mode", `{"mode":"READWRITE"}`)
	e.call(200, "DELETE", "/mode", "/mode", "")
	e.call(200, "PUT", "/mode/{subject}", "/mode/parcels-value", `{"mode":"READONLY"}`)
	e.call(200, "GET", "/mode/{subject}", "/mode/parcels-value", "")
	e.call(200, "DELETE", "/mode/{subject}", "/mode/parcels-value", "")

	e.call(200, "DELETE", svv, "/subjects/parcels-value/versions/1", "")
	e.call(200, "DELETE", "/subjects/{subject}", "/subjects/refs-value", "")
	e.call(200, "DELETE", "/subjects/{subject}", "/subjects/refs-value?permanent=true", "")
	e.call(200, "POST", "/subjects/{subject}/versions", "/subjects/:.doc:s/versions", schemaBody(metOrder1))
	e.call(200, "DELETE", "/subjects/{subject}", "/subjects/:.doc:s", "")
	e.call(200, "DELETE", "/subjects/{subject}", "/subjects/:.doc:s?permanent=true", "")
	e.call(204, "DELETE", "/contexts/{context}", "/contexts/.doc", "")
	e.call(404, "DELETE", "/contexts/{context}", "/contexts/.doc", "")

	// /metrics answers Prometheus text, not JSON.
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	op := e.oas.operation(t, "GET", "/metrics")
	content := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)
	if _, ok := content["text/plain"]; rec.Code != http.StatusOK || !ok || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
		t.Errorf("GET /metrics: %d %s; documented as %v", rec.Code, rec.Header().Get("Content-Type"), content)
	}
	e.oas.called["GET /metrics"] = true

	for path, item := range e.oas.doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if !slices.Contains(docMethods, method) {
				continue
			}
			if isConfluentOrMetaOp(op) && !e.oas.called[strings.ToUpper(method)+" "+path] {
				t.Errorf("the test never calls %s %s", strings.ToUpper(method), path)
			}
		}
	}
}

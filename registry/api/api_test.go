package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestScenarios drives the API through Confluent's documented behaviour,
// one fresh store per scenario. Each scenario mirrors cases of the
// AxonOps BDD suite (../shared/conformance/axonops) or of the Confluent
// API reference.
func TestScenarios(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []step
	}{
		{"root and health", []step{
			{method: "GET", path: "/", json: `{}`},
			{method: "GET", path: "/health", json: `{"status":"UP"}`},
			{method: "GET", path: "/health/ready", json: `{"status":"UP"}`},
			{method: "GET", path: "/v1/metadata/version", json: `{"version":"v-test","commitId":"abc123"}`},
			{method: "GET", path: "/v1/metadata/id", contains: []string{`"id":"charter"`}},
			{method: "GET", path: "/schemas/types", json: `["AVRO"]`},
			{method: "GET", path: "/contexts", json: `["."]`},
		}},
		{"register returns id, same schema same id, second subject same id", []step{
			{method: "POST", path: "/subjects/orders-value/versions", body: schemaBody(recA), json: `{"id":1}`},
			{method: "POST", path: "/subjects/orders-value/versions", body: schemaBody(recA), json: `{"id":1}`},
			{method: "POST", path: "/subjects/other/versions", body: schemaBody(recA), json: `{"id":1}`},
			// White space differences: same canonical form, same ID.
			{method: "POST", path: "/subjects/orders-value/versions", body: schemaBody(strings.ReplaceAll(recA, ",", " , ")), json: `{"id":1}`},
			{method: "GET", path: "/subjects/orders-value/versions", json: `[1]`},
			{method: "GET", path: "/subjects", json: `["orders-value","other"]`},
			{method: "GET", path: "/schemas/ids/1", json: `{"schema":` + jsonString(recA) + `,"schemaType":"AVRO"}`},
			{method: "GET", path: "/schemas/ids/1/schema", json: recA},
			{method: "GET", path: "/schemas/ids/1/subjects", json: `["orders-value","other"]`},
			{method: "GET", path: "/schemas/ids/1/versions", json: `[{"subject":"orders-value","version":1},{"subject":"other","version":1}]`},
			{method: "GET", path: "/schemas/ids/1/subjects?subject=other", json: `["other"]`},
			{method: "GET", path: "/schemas/ids/1?fetchMaxId=true", contains: []string{`"maxId":1`}},
		}},
		{"versions, latest, -1, referencing an older identical version", []step{
			{method: "POST", path: "/subjects/s/versions", body: schemaBody(recA), json: `{"id":1}`},
			{method: "POST", path: "/subjects/s/versions", body: schemaBody(recAb), json: `{"id":2}`},
			// Re-registering v1 (not the latest) returns v1's id, no new version.
			{method: "POST", path: "/subjects/s/versions", body: schemaBody(recA), json: `{"id":1}`},
			{method: "GET", path: "/subjects/s/versions", json: `[1,2]`},
			{method: "GET", path: "/subjects/s/versions/latest", json: `{"subject":"s","version":2,"id":2,"schemaType":"AVRO","schema":` + jsonString(recAb) + `}`},
			{method: "GET", path: "/subjects/s/versions/-1", contains: []string{`"version":2`}},
			{method: "GET", path: "/subjects/s/versions/1", json: `{"subject":"s","version":1,"id":1,"schemaType":"AVRO","schema":` + jsonString(recA) + `}`},
			{method: "GET", path: "/subjects/s/versions/2/schema", json: recAb},
			{method: "POST", path: "/subjects/s", body: schemaBody(recA), json: `{"subject":"s","version":1,"id":1,"schemaType":"AVRO","schema":` + jsonString(recA) + `}`},
			{method: "GET", path: "/schemas", contains: []string{`"subject":"s","version":1`, `"subject":"s","version":2`}},
			{method: "GET", path: "/schemas?latestOnly=true", notContains: []string{`"version":1`}},
			{method: "GET", path: "/schemas?offset=1&limit=1", contains: []string{`"version":2`}, notContains: []string{`"version":1`}},
		}},
		{"incompatible change is 409 naming field and rule", []step{
			{method: "POST", path: "/subjects/orders-value/versions", body: schemaBody(recA)},
			{method: "POST", path: "/subjects/orders-value/versions", body: schemaBody(recAreq), status: 409, code: 409,
				contains: []string{`incompatible with an earlier schema for subject \"orders-value\"`, "AVRO_", `path:'.b'`, "{oldSchemaVersion: 1}", "compatibility: 'BACKWARD'"}},
			{method: "GET", path: "/subjects/orders-value/versions", json: `[1]`},
			{method: "POST", path: "/compatibility/subjects/orders-value/versions/latest", body: schemaBody(recAreq), json: `{"is_compatible":false}`},
			{method: "POST", path: "/compatibility/subjects/orders-value/versions/latest?verbose=true", body: schemaBody(recAreq), contains: []string{`"is_compatible":false`, `"messages":[`, "{oldSchemaVersion: 1}"}},
			{method: "POST", path: "/compatibility/subjects/orders-value/versions?verbose=true", body: schemaBody(recAb), json: `{"is_compatible":true}`},
			{method: "POST", path: "/compatibility/subjects/orders-value/versions/1", body: schemaBody(recAint), json: `{"is_compatible":false}`},
			{method: "POST", path: "/compatibility/subjects/orders-value/versions/7", body: schemaBody(recA), status: 404, code: 40402},
			{method: "POST", path: "/compatibility/subjects/nobody/versions/1", body: schemaBody(recA), status: 404, code: 40402},
			{method: "POST", path: "/compatibility/subjects/nobody/versions", body: schemaBody(recA), json: `{"is_compatible":true}`},
			{method: "POST", path: "/compatibility/subjects/orders-value/versions/abc", body: schemaBody(recA), status: 422, code: 42202},
		}},
		{"compatibility NONE, FULL, transitive", []step{
			{method: "PUT", path: "/config/t", body: `{"compatibility":"NONE"}`, json: `{"compatibility":"NONE"}`},
			{method: "POST", path: "/subjects/t/versions", body: schemaBody(recA)},
			{method: "POST", path: "/subjects/t/versions", body: schemaBody(recAint)},
			{method: "POST", path: "/subjects/t/versions", body: schemaBody(recA)},
			{method: "GET", path: "/subjects/t/versions", json: `[1,2]`},
			{method: "PUT", path: "/config/t", body: `{"compatibilityLevel":"backward_transitive"}`, json: `{"compatibility":"BACKWARD_TRANSITIVE"}`},
			// recAb reads v1 and v3 (a: string) but not v2 (a: int).
			{method: "POST", path: "/compatibility/subjects/t/versions?verbose=true", body: schemaBody(recAb), contains: []string{`"is_compatible":false`, "{oldSchemaVersion: 2}"}},
			{method: "PUT", path: "/config/t", body: `{"compatibility":"FULL"}`},
			{method: "POST", path: "/compatibility/subjects/t/versions", body: schemaBody(recAreq), json: `{"is_compatible":false}`},
		}},
		{"soft delete, permanent delete, version numbering", []step{
			{method: "PUT", path: "/config", body: `{"compatibility":"NONE"}`},
			{method: "POST", path: "/subjects/d/versions", body: schemaBody(recA)},
			{method: "POST", path: "/subjects/d/versions", body: schemaBody(recB)},
			{method: "DELETE", path: "/subjects/d/versions/2?permanent=true", status: 404, code: 40407},
			{method: "DELETE", path: "/subjects/d?permanent=true", status: 404, code: 40405},
			{method: "DELETE", path: "/subjects/d/versions/latest", json: `2`},
			{method: "DELETE", path: "/subjects/d/versions/2", status: 404, code: 40406},
			{method: "GET", path: "/subjects/d/versions", json: `[1]`},
			{method: "GET", path: "/subjects/d/versions?deleted=true", json: `[1,2]`},
			{method: "GET", path: "/subjects/d/versions?deletedOnly=true", json: `[2]`},
			{method: "GET", path: "/subjects/d/versions?deletedAsNegative=true", json: `[1,-2]`},
			{method: "GET", path: "/subjects/d/versions/2", status: 404, code: 40402},
			{method: "GET", path: "/subjects/d/versions/2?deleted=true", contains: []string{`"version":2`, `"deleted":true`}},
			{method: "GET", path: "/subjects/d/versions/latest", contains: []string{`"version":1`}},
			// Re-registering the soft-deleted schema makes a new version with the same id,
			// and removes the soft-deleted one nothing references (as Confluent).
			{method: "POST", path: "/subjects/d/versions", body: schemaBody(recB), json: `{"id":2}`},
			{method: "GET", path: "/subjects/d/versions", json: `[1,3]`},
			{method: "GET", path: "/subjects/d/versions?deleted=true", json: `[1,3]`},
			{method: "DELETE", path: "/subjects/d", json: `[1,3]`},
			{method: "DELETE", path: "/subjects/d", status: 404, code: 40404},
			{method: "GET", path: "/subjects/d/versions", status: 404, code: 40401},
			{method: "GET", path: "/subjects", json: `[]`},
			{method: "GET", path: "/subjects?deleted=true", json: `["d"]`},
			{method: "GET", path: "/subjects?deletedOnly=true", json: `["d"]`},
			{method: "POST", path: "/subjects/d", body: schemaBody(recA), status: 404, code: 40401},
			{method: "POST", path: "/subjects/d?deleted=true", body: schemaBody(recA), contains: []string{`"version":1`, `"deleted":true`}},
			// IDs stay resolvable.
			{method: "GET", path: "/schemas/ids/2", contains: []string{`"schemaType":"AVRO"`}},
			{method: "GET", path: "/schemas/ids/2/subjects", json: `[]`},
			{method: "GET", path: "/schemas/ids/2/subjects?deleted=true", json: `["d"]`},
			// Soft delete then register: versions continue.
			{method: "POST", path: "/subjects/d/versions", body: schemaBody(recA), json: `{"id":1}`},
			{method: "GET", path: "/subjects/d/versions", json: `[4]`},
			{method: "DELETE", path: "/subjects/d"},
			{method: "DELETE", path: "/subjects/d?permanent=true", json: `[3,4]`},
			{method: "GET", path: "/subjects?deleted=true", json: `[]`},
			// A hard delete forgets the IDs nothing holds any more.
			{method: "GET", path: "/schemas/ids/2", status: 404, code: 40403},
			{method: "GET", path: "/schemas/ids/2/subjects", status: 404, code: 40403},
			{method: "GET", path: "/schemas/ids/1/versions", status: 404, code: 40403},
			// After a permanent delete versions start again at 1.
			{method: "POST", path: "/subjects/d/versions", body: schemaBody(recB), contains: []string{`"id":`}},
			{method: "GET", path: "/subjects/d/versions", json: `[1]`},
			{method: "GET", path: "/subjects/d/versions/1", contains: []string{`"version":1`, `"schema":` + jsonString(recB)}},
		}},
		{"compatibility ignores soft-deleted versions", []step{
			{method: "POST", path: "/subjects/c/versions", body: schemaBody(recA)},
			{method: "POST", path: "/subjects/c/versions", body: schemaBody(recAint), status: 409},
			{method: "PUT", path: "/config/c", body: `{"compatibility":"NONE"}`},
			{method: "POST", path: "/subjects/c/versions", body: schemaBody(recAint)},
			{method: "DELETE", path: "/config/c", json: `{"compatibilityLevel":"NONE"}`},
			{method: "POST", path: "/subjects/c/versions", body: schemaBody(recA), json: `{"id":1}`},
			{method: "DELETE", path: "/subjects/c/versions/2"},
			{method: "POST", path: "/subjects/c/versions", body: schemaBody(recAc)},
			{method: "GET", path: "/subjects/c/versions", json: `[1,3]`},
		}},
		{"references: resolve, referencedby, delete refused", []step{
			{method: "POST", path: "/subjects/base/versions", body: schemaBody(`{"type":"record","name":"Base","namespace":"com.x","fields":[{"name":"id","type":"string"}]}`), json: `{"id":1}`},
			{method: "POST", path: "/subjects/user/versions", body: schemaBody(`{"type":"record","name":"User","namespace":"com.x","fields":[{"name":"b","type":"com.x.Base"}]}`, `"references":[{"name":"com.x.Base","subject":"base","version":1}]`), json: `{"id":2}`},
			{method: "POST", path: "/subjects/top/versions", body: schemaBody(`{"type":"record","name":"Top","namespace":"com.x","fields":[{"name":"u","type":"com.x.User"}]}`, `"references":[{"name":"com.x.User","subject":"user","version":-1}]`), json: `{"id":3}`},
			{method: "GET", path: "/schemas/ids/3", contains: []string{`"references":[{"name":"com.x.User","subject":"user","version":1}]`}},
			{method: "GET", path: "/subjects/base/versions/1/referencedby", json: `[2]`},
			{method: "GET", path: "/subjects/user/versions/latest/referencedby", json: `[3]`},
			{method: "DELETE", path: "/subjects/base/versions/1", status: 422, code: 42206},
			{method: "DELETE", path: "/subjects/base", status: 422, code: 42206},
			{method: "POST", path: "/subjects/bad/versions", body: schemaBody(`{"type":"record","name":"Bad","fields":[{"name":"b","type":"com.x.Missing"}]}`, `"references":[{"name":"com.x.Missing","subject":"nope","version":1}]`), status: 422, code: 42201},
			{method: "POST", path: "/subjects/bad/versions", body: schemaBody(`{"type":"record","name":"Bad","fields":[{"name":"b","type":"com.x.Base"}]}`, `"references":[{"name":"com.x.Base","subject":"base","version":99}]`), status: 422, code: 42201},
			// Deleting the referrers first frees the base.
			{method: "DELETE", path: "/subjects/top"},
			{method: "DELETE", path: "/subjects/user"},
			{method: "GET", path: "/subjects/base/versions/1/referencedby", json: `[]`},
			{method: "GET", path: "/subjects/base/versions/1/referencedby?deleted=true", json: `[2]`},
			{method: "DELETE", path: "/subjects/base/versions/1", json: `1`},
		}},
		{"config", []step{
			{method: "GET", path: "/config", json: `{"compatibilityLevel":"BACKWARD"}`},
			{method: "PUT", path: "/config", body: `{}`, json: `{}`},
			{method: "PUT", path: "/config", body: `{"compatibility":"FULL"}`, json: `{"compatibility":"FULL"}`},
			{method: "GET", path: "/config", json: `{"compatibilityLevel":"FULL"}`},
			{method: "GET", path: "/config/x", status: 404, code: 40408},
			{method: "GET", path: "/config/x?defaultToGlobal=true", json: `{"compatibilityLevel":"FULL"}`},
			{method: "PUT", path: "/config/x", body: `{"compatibility":"forward","normalize":true}`, json: `{"compatibility":"FORWARD","normalize":true}`},
			{method: "GET", path: "/config/x", json: `{"compatibilityLevel":"FORWARD","normalize":true}`},
			{method: "PUT", path: "/config/x", body: `{"compatibility":"NOT_A_LEVEL"}`, status: 422, code: 42203},
			{method: "DELETE", path: "/config/x", json: `{"compatibilityLevel":"FORWARD","normalize":true}`},
			{method: "DELETE", path: "/config/x", status: 404, code: 40401},
			{method: "DELETE", path: "/config", json: `{"compatibilityLevel":"FULL"}`},
			{method: "GET", path: "/config", json: `{"compatibilityLevel":"BACKWARD"}`},
		}},
		{"config kept on soft delete, removed on permanent delete", []step{
			{method: "PUT", path: "/config/k", body: `{"compatibility":"NONE"}`},
			{method: "POST", path: "/subjects/k/versions", body: schemaBody(recA)},
			{method: "DELETE", path: "/subjects/k"},
			{method: "GET", path: "/config/k", json: `{"compatibilityLevel":"NONE"}`},
			{method: "DELETE", path: "/subjects/k?permanent=true"},
			{method: "GET", path: "/config/k", status: 404, code: 40408},
		}},
		{"modes", []step{
			{method: "GET", path: "/mode", json: `{"mode":"READWRITE"}`},
			{method: "GET", path: "/mode/m", status: 404, code: 40409},
			{method: "GET", path: "/mode/m?defaultToGlobal=true", json: `{"mode":"READWRITE"}`},
			{method: "PUT", path: "/mode", body: `{"mode":"READONLY"}`, json: `{"mode":"READONLY"}`},
			{method: "POST", path: "/subjects/m/versions", body: schemaBody(recA), status: 422, code: 42205},
			{method: "PUT", path: "/mode/m", body: `{"mode":"READWRITE"}`},
			{method: "POST", path: "/subjects/m/versions", body: schemaBody(recA), json: `{"id":1}`},
			{method: "PUT", path: "/mode", body: `{"mode":"READONLY_OVERRIDE"}`},
			{method: "POST", path: "/subjects/m/versions", body: schemaBody(recAb), status: 422, code: 42205},
			{method: "DELETE", path: "/subjects/m", status: 422, code: 42205},
			{method: "PUT", path: "/config/m", body: `{"compatibility":"NONE"}`, status: 422, code: 42205},
			{method: "DELETE", path: "/config", status: 422, code: 42205},
			{method: "GET", path: "/config/m?defaultToGlobal=true", json: `{"compatibilityLevel":"BACKWARD"}`},
			{method: "GET", path: "/subjects/m/versions/1", contains: []string{`"id":1`}},
			{method: "PUT", path: "/mode", body: `{"mode":"INVALID"}`, status: 422, code: 42204},
			{method: "DELETE", path: "/mode", json: `{"mode":"READONLY_OVERRIDE"}`},
			{method: "DELETE", path: "/mode/m", json: `{"mode":"READWRITE"}`},
			{method: "DELETE", path: "/mode/m", status: 404, code: 40409},
			{method: "DELETE", path: "/mode/never", status: 404, code: 40401},
			{method: "POST", path: "/subjects/m/versions", body: schemaBody(recA, `"id":5`), status: 422, code: 42205},
		}},
		{"import mode preserves ids and versions", []step{
			{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`, json: `{"mode":"IMPORT"}`},
			{method: "POST", path: "/subjects/i/versions", body: schemaBody(recA), status: 422, code: 42205},
			{method: "POST", path: "/subjects/i/versions", body: schemaBody(recA, `"id":100`, `"version":3`), json: `{"id":100}`},
			{method: "POST", path: "/subjects/i/versions", body: schemaBody(recAint, `"id":101`), json: `{"id":101}`},
			{method: "POST", path: "/subjects/j/versions", body: schemaBody(recA, `"id":100`), json: `{"id":100}`},
			{method: "POST", path: "/subjects/j/versions", body: schemaBody(recB, `"id":100`), status: 422, code: 42205},
			{method: "POST", path: "/subjects/j/versions", body: schemaBody(recA, `"id":7`), json: `{"id":7}`}, // another id for held content: TestConfluentRestApiModeTest_testImportModeWithSameSchemaDifferentId
			{method: "PUT", path: "/mode", body: `{"mode":"READWRITE"}`},
			{method: "GET", path: "/subjects/i/versions", json: `[3,4]`},
			{method: "GET", path: "/subjects/i/versions/4", contains: []string{`"id":101`}},
			{method: "POST", path: "/subjects/n/versions", body: schemaBody(recB), json: `{"id":102}`},
			{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`, status: 422, code: 42205},
			{method: "PUT", path: "/mode?force=true", body: `{"mode":"IMPORT"}`, json: `{"mode":"IMPORT"}`},
			{method: "PUT", path: "/mode/fresh", body: `{"mode":"IMPORT"}`, json: `{"mode":"IMPORT"}`},
		}},
		{"pagination and prefixes", []step{
			{method: "POST", path: "/subjects/pag-a/versions", body: schemaBody(recA)},
			{method: "POST", path: "/subjects/pag-b/versions", body: schemaBody(recA)},
			{method: "POST", path: "/subjects/pag-c/versions", body: schemaBody(recA)},
			{method: "POST", path: "/subjects/zzz/versions", body: schemaBody(recA)},
			{method: "GET", path: "/subjects?subjectPrefix=pag-&limit=2", json: `["pag-a","pag-b"]`},
			{method: "GET", path: "/subjects?subjectPrefix=pag-&offset=1&limit=1", json: `["pag-b"]`},
			{method: "GET", path: "/subjects?subjectPrefix=pag-&offset=999", json: `[]`},
			{method: "GET", path: "/subjects?subjectPrefix=pag-&limit=0", json: `["pag-a","pag-b","pag-c"]`},
			{method: "GET", path: "/subjects?subjectPrefix=pag-&limit=-1", json: `["pag-a","pag-b","pag-c"]`},
			{method: "GET", path: "/subjects?subjectPrefix=:*:", json: `["pag-a","pag-b","pag-c","zzz"]`},
			{method: "GET", path: "/subjects?limit=x", status: 400, code: 400},
			{method: "GET", path: "/schemas/ids/1/subjects?offset=2", json: `["pag-c","zzz"]`},
			{method: "GET", path: "/schemas?subjectPrefix=zz", contains: []string{`"subject":"zzz"`}, notContains: []string{"pag-"}},
		}},
		{"subjects with URL-encoded characters", []step{
			{method: "POST", path: "/subjects/a%2Fb%20c/versions", body: schemaBody(recA), json: `{"id":1}`},
			{method: "GET", path: "/subjects", json: `["a/b c"]`},
			{method: "GET", path: "/subjects/a%2Fb%20c/versions/1", contains: []string{`"subject":"a/b c"`}},
			{method: "PUT", path: "/config/a%2Fb%20c", body: `{"compatibility":"NONE"}`},
			{method: "GET", path: "/config/a%2Fb%20c", json: `{"compatibilityLevel":"NONE"}`},
			{method: "POST", path: "/subjects/%C3%BCnic%C3%B8de.v1/versions", body: schemaBody(recA), json: `{"id":1}`},
			{method: "GET", path: "/subjects/%C3%BCnic%C3%B8de.v1/versions", json: `[1]`},
		}},
		{"unknown routes and methods", []step{
			{method: "GET", path: "/nope", status: 404, code: 404},
			{method: "POST", path: "/schemas/types", body: `{}`, status: 405, code: 405},
			{method: "DELETE", path: "/schemas/ids/1", status: 405, code: 405},
			{method: "PUT", path: "/subjects/x/versions/1", body: `{}`, status: 405, code: 405},
			{method: "GET", path: "/schemas/ids/abc", status: 404, code: 404},
			{method: "GET", path: "/schemas/ids/999999", status: 404, code: 40403},
			{method: "GET", path: "/schemas/ids/-1", status: 404, code: 40403},
			{method: "GET", path: "/schemas/ids/99999999999999999999", status: 404, code: 40403},
			{method: "GET", path: "/schemas/ids/999/subjects", status: 404, code: 40403},
			{method: "GET", path: "/schemas/ids/999/versions", status: 404, code: 40403},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			newEnv(t).run(tc.steps)
		})
	}
}

// jsonString is s as a JSON string literal (without Go's HTML escaping,
// so that it reads as the API writes it).
func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestRequestLogLine(t *testing.T) {
	e := newEnv(t)
	e.mustDo("GET", "/subjects", "")
	line := e.log.String()
	for _, want := range []string{"msg=request", "method=GET", "path=/subjects", "status=200", "duration_ms="} {
		if !strings.Contains(line, want) {
			t.Errorf("request log %q lacks %q", line, want)
		}
	}
}

func TestContentTypes(t *testing.T) {
	e := newEnv(t)
	for _, ct := range []string{
		"application/vnd.schemaregistry.v1+json",
		"application/vnd.schemaregistry+json",
		"application/json; charset=utf-8",
		"application/octet-stream",
		"application/x-www-form-urlencoded",
	} {
		status, got, body := e.do("POST", "/subjects/ct/versions", schemaBody(recA), "Content-Type", ct)
		if status != http.StatusOK || got != "application/vnd.schemaregistry.v1+json" {
			t.Errorf("Content-Type %s: status %d, response type %q, body %s", ct, status, got, body)
		}
	}
	status, _, body := e.do("POST", "/subjects/ct/versions", schemaBody(recA), "Content-Type", "text/plain")
	if status != http.StatusUnsupportedMediaType || !strings.Contains(body, `"error_code":415`) {
		t.Errorf("text/plain: status %d, body %s; want 415", status, body)
	}
}

// TestEncodedSubjects registers under subjects whose names need URL
// encoding (slashes, dot segments, '?', '#', '%') and reads them back.
func TestEncodedSubjects(t *testing.T) {
	e := newEnv(t)
	tests := []struct{ path, subject string }{
		{"a%2F..%2Fb", "a/../b"},
		{"a%2F%2Fb", "a//b"},
		{"%2E%2E", ".."},
		{"a%2Fb%2F", "a/b/"},
		{"%2Fa", "/a"},
		{"a%3Fb%23c", "a?b#c"},
		{"a%25b", "a%b"},
	}
	for _, tc := range tests {
		e.mustDo("POST", "/subjects/"+tc.path+"/versions", schemaBody(recA))
		body := e.mustDo("GET", "/subjects/"+tc.path+"/versions/latest", "")
		if !strings.Contains(body, `"subject":`+jsonString(tc.subject)) {
			t.Errorf("GET %s: %s, want subject %q", tc.path, body, tc.subject)
		}
	}
	if got := e.mustDo("GET", "/subjects", ""); !jsonEqual(t, got, `["..","/a","a%b","a/../b","a//b","a/b/","a?b#c"]`) {
		t.Errorf("subjects %s", got)
	}
}

// TestByIDCacheEviction reads a schema by ID from several goroutines
// while its only subject is deleted permanently: once the delete has
// answered, every read must answer 40403, never the cached schema.
func TestByIDCacheEviction(t *testing.T) {
	e := newEnv(t)
	for round := range 5 {
		subject := "evict-" + itoa(round)
		id := e.mustDo("POST", "/subjects/"+subject+"/versions", schemaBody(`{"type":"fixed","name":"F`+itoa(round)+`","size":4}`))
		path := "/schemas/ids/" + strings.TrimSuffix(strings.TrimPrefix(id, `{"id":`), "}")
		e.mustDo("GET", path, "")
		stop := make(chan struct{})
		done := make(chan struct{})
		for range 4 {
			go func() {
				defer func() { done <- struct{}{} }()
				for {
					select {
					case <-stop:
						return
					default:
						status, _, _ := e.do("GET", path, "")
						if status != http.StatusOK && status != http.StatusNotFound {
							t.Errorf("GET %s: status %d", path, status)
						}
					}
				}
			}()
		}
		e.mustDo("DELETE", "/subjects/"+subject, "")
		e.mustDo("DELETE", "/subjects/"+subject+"?permanent=true", "")
		if status, _, body := e.do("GET", path, ""); status != http.StatusNotFound {
			t.Fatalf("round %d: GET %s after the hard delete: %d %s", round, path, status, body)
		}
		close(stop)
		for range 4 {
			<-done
		}
		if status, _, body := e.do("GET", path, ""); status != http.StatusNotFound {
			t.Fatalf("round %d: GET %s after the readers stopped: %d %s", round, path, status, body)
		}
	}
}

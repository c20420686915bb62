package api_test

import (
	"fmt"
	"testing"
)

// ctxSchema returns the n-th of a series of Avro records, each backward
// compatible with the ones before, as Confluent's tests use
// TestUtils.getRandomCanonicalAvroString.
func ctxSchema(n int) string {
	fields := ""
	for i := range n {
		fields += fmt.Sprintf(`,{"name":"f%d","type":"string","default":""}`, i)
	}
	return `{"type":"record","name":"R","fields":[{"name":"id","type":"string"}` + fields + `]}`
}

// TestContextPaths follows Confluent's RestApiContextTest.testContextPaths:
// clients whose base URL is /contexts/.ctx1, /contexts/.ctx2 and
// /contexts/:.: (the default context) each number their schemas from 1,
// /subjects under a prefix lists that context's subjects (qualified, as
// Confluent answers), a by-ID read with an unqualified subject finds the
// context that subject is in, and a context is deleted only once empty.
func TestContextPaths(t *testing.T) {
	e := newEnv(t)
	reg := func(base, subject string, n int, id int) step {
		return step{method: "POST", path: base + "/subjects/" + subject + "/versions", body: schemaBody(ctxSchema(n)),
			json: fmt.Sprintf(`{"id":%d}`, id)}
	}
	e.run([]step{
		{method: "GET", path: "/contexts/.ctx1/subjects/testTopic1/versions", status: 404, code: 40401},
		reg("/contexts/.ctx1", "testTopic1", 1, 1),
		reg("/contexts/.ctx1", "testTopic1", 2, 2),
		reg("/contexts/.ctx1", "testTopic1", 1, 1), // registered again: its ID
		reg("/contexts/.ctx2", "testTopic2A", 1, 1),
		reg("/contexts/.ctx2", "testTopic2B", 1, 1),
		{method: "GET", path: "/contexts/:.:/schemas/ids/1", status: 404, code: 40403},
		reg("/contexts/:.:", "testTopic3", 3, 1),
		{method: "GET", path: "/subjects/testTopic3/versions", json: `[1]`},
		{method: "GET", path: "/subjects/:.:testTopic3/versions", json: `[1]`},
		{method: "GET", path: "/contexts/.ctx1/subjects/testTopic1/versions", json: `[1,2]`},
		{method: "GET", path: "/subjects/:.ctx1:testTopic1/versions", json: `[1,2]`},
		{method: "GET", path: "/contexts", json: `[".",".ctx1",".ctx2"]`},
		{method: "GET", path: "/contexts?contextPrefix=.ctx2", json: `[".ctx2"]`},
		{method: "GET", path: "/contexts?offset=1&limit=1", json: `[".ctx1"]`},
		{method: "GET", path: "/contexts/.ctx1/subjects", json: `[":.ctx1:testTopic1"]`},
		{method: "GET", path: "/contexts/.ctx2/subjects", json: `[":.ctx2:testTopic2A",":.ctx2:testTopic2B"]`},
		{method: "GET", path: "/contexts/:.:/subjects", json: `["testTopic3"]`},
		{method: "GET", path: "/subjects?subjectPrefix=", json: `["testTopic3"]`},
		{method: "GET", path: "/subjects", json: `[":.ctx1:testTopic1",":.ctx2:testTopic2A",":.ctx2:testTopic2B","testTopic3"]`},
		// Schema 1 asked for with subject testTopic3 is the default
		// context's; with testTopic2A, which only .ctx2 has, .ctx2's.
		{method: "GET", path: "/schemas/ids/1?subject=testTopic3", contains: []string{`\"f2\"`}},
		{method: "GET", path: "/schemas/ids/1?subject=testTopic2A", contains: []string{`\"f0\"`}, notContains: []string{`\"f1\"`}},
		{method: "GET", path: "/contexts/.ctx1/schemas/ids/2", contains: []string{`\"f1\"`}},
		{method: "GET", path: "/contexts/.ctx1/schemas/ids/2?fetchMaxId=true", contains: []string{`"maxId":2`}},
		{method: "GET", path: "/schemas/ids/2", status: 404, code: 40403},
		{method: "GET", path: "/contexts/.ctx2/schemas/ids/1/subjects", json: `[":.ctx2:testTopic2A",":.ctx2:testTopic2B"]`},
		{method: "GET", path: "/contexts/.ctx2/schemas/ids/1/versions",
			json: `[{"subject":":.ctx2:testTopic2A","version":1},{"subject":":.ctx2:testTopic2B","version":1}]`},
		// Delete testTopic1 (soft, then permanent), then its context.
		{method: "DELETE", path: "/contexts/.ctx1/subjects/testTopic1", json: `[1,2]`},
		{method: "DELETE", path: "/contexts/.ctx1/subjects/testTopic1?permanent=true", json: `[1,2]`},
		{method: "GET", path: "/contexts/.ctx1/subjects/testTopic1/versions", status: 404, code: 40401},
		{method: "DELETE", path: "/contexts/.ctx2", status: 422, code: 42211},
		{method: "DELETE", path: "/contexts/.ctx1", status: 204},
		{method: "DELETE", path: "/contexts/.ctx1", status: 404, code: 40401},
		{method: "GET", path: "/contexts", json: `[".",".ctx2"]`},
	})
}

// TestContextConfigAndModePaths: /contexts/.ctx/config and /mode address
// the context's level (":.ctx:"), which its subjects inherit before
// :.__GLOBAL: (Confluent's InMemoryCache.config); the global config is
// the default context's; IMPORT on a context takes explicit IDs there.
func TestContextConfigAndModePaths(t *testing.T) {
	e := newEnv(t)
	incompatible := `{"type":"record","name":"R","fields":[{"name":"other","type":"int"}]}`
	e.run([]step{
		{method: "PUT", path: "/contexts/.a/config", body: `{"compatibility":"NONE"}`, json: `{"compatibility":"NONE"}`},
		{method: "GET", path: "/config/:.a:", json: `{"compatibilityLevel":"NONE"}`},
		{method: "GET", path: "/contexts/.a/config", json: `{"compatibilityLevel":"NONE"}`},
		{method: "GET", path: "/contexts/.b/config", status: 404, code: 40408},
		{method: "PUT", path: "/config/:.__GLOBAL:", body: `{"compatibility":"FULL"}`},
		{method: "GET", path: "/contexts/.b/config/s?defaultToGlobal=true", json: `{"compatibilityLevel":"FULL"}`},
		{method: "GET", path: "/config/:.a:s?defaultToGlobal=true", json: `{"compatibilityLevel":"NONE"}`},
		{method: "PUT", path: "/config", body: `{"compatibility":"BACKWARD"}`},
		{method: "GET", path: "/config/s?defaultToGlobal=true", json: `{"compatibilityLevel":"BACKWARD"}`},
		{method: "GET", path: "/config/:.b:s?defaultToGlobal=true", json: `{"compatibilityLevel":"FULL"}`},
		// .a's NONE lets an incompatible version in.
		{method: "POST", path: "/contexts/.a/subjects/s/versions", body: schemaBody(ctxSchema(0)), json: `{"id":1}`},
		{method: "POST", path: "/contexts/.a/subjects/s/versions", body: schemaBody(incompatible), json: `{"id":2}`},
		{method: "POST", path: "/contexts/.a/compatibility/subjects/s/versions/latest", body: schemaBody(ctxSchema(0)), json: `{"is_compatible":true}`},
		// An exporter's destination: IMPORT on .mirror, explicit IDs kept there.
		{method: "PUT", path: "/contexts/.mirror/mode", body: `{"mode":"IMPORT"}`, json: `{"mode":"IMPORT"}`},
		{method: "GET", path: "/mode/:.mirror:", json: `{"mode":"IMPORT"}`},
		{method: "GET", path: "/contexts/.mirror/mode/s?defaultToGlobal=true", json: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/contexts/.mirror/subjects/s/versions", body: schemaBody(ctxSchema(0), `"id":42`, `"version":7`), json: `{"id":42}`},
		{method: "GET", path: "/contexts/.mirror/subjects/s/versions/7", contains: []string{`"id":42`, `"subject":":.mirror:s"`}},
		{method: "GET", path: "/contexts/.mirror/schemas/ids/42", contains: []string{`\"id\"`}},
		{method: "GET", path: "/schemas/ids/42", status: 404, code: 40403},
		{method: "POST", path: "/subjects/s/versions", body: schemaBody(ctxSchema(0), `"id":42`), status: 422, code: 42205},
		{method: "PUT", path: "/contexts/.ro/mode", body: `{"mode":"READONLY"}`},
		{method: "POST", path: "/contexts/.ro/subjects/s/versions", body: schemaBody(ctxSchema(0)), status: 422, code: 42205},
	})
}

// TestContextPrefixRefusals: an invalid context name in the prefix is
// 42208, the wildcard (":*:", "*") as in a subject: no context .* is
// made; the prefix on /contexts itself is not a route.
func TestContextPrefixRefusals(t *testing.T) {
	e := newEnv(t)
	e.run([]step{
		{method: "GET", path: "/contexts/.bad%E2%80%AEname/subjects", status: 422, code: 42208},
		{method: "GET", path: "/contexts/.bad:name/subjects", status: 422, code: 42208},
		{method: "POST", path: "/contexts/:*:/subjects/x/versions", body: schemaBody(ctxSchema(0)), status: 422, code: 42208},
		{method: "POST", path: "/contexts/*/subjects/x/versions", body: schemaBody(ctxSchema(0)), status: 422, code: 42208},
		{method: "POST", path: "/subjects/:*:x/versions", body: schemaBody(ctxSchema(0)), status: 422, code: 42208},
		{method: "POST", path: "/contexts/::/subjects/x/versions", body: schemaBody(ctxSchema(0)), status: 422, code: 42208},
		{method: "POST", path: "/contexts/.a%20b/subjects/s/versions", body: schemaBody(ctxSchema(0))},
		{method: "GET", path: "/contexts", json: `[".",".a b"]`},
		{method: "DELETE", path: "/contexts/.a%20b/subjects/s"},
		{method: "DELETE", path: "/contexts/.a%20b/subjects/s?permanent=true"},
		{method: "DELETE", path: "/contexts/.a%20b", status: 204},
		{method: "POST", path: "/contexts/.ok/subjects/s/versions", body: schemaBody(ctxSchema(0))},
		{method: "GET", path: "/contexts", json: `[".",".ok"]`},
		{method: "GET", path: "/contexts/ok/subjects", json: `[":.ok:s"]`}, // the dot is optional
	})
}

// TestDeleteModeRecursive follows Confluent's ModeResource.deleteSubjectMode
// with recursive=true: DELETE /contexts/.a/mode?recursive=true removes .a's
// level mode and every subject mode of .a, nothing of another context;
// DELETE /mode?recursive=true does the same for the default context.
func TestDeleteModeRecursive(t *testing.T) {
	e := newEnv(t)
	put := func(path, mode string) step {
		return step{method: "PUT", path: path, body: `{"mode":"` + mode + `"}`}
	}
	e.run([]step{
		put("/contexts/.a/mode", "READONLY"),
		put("/mode/:.a:s1", "IMPORT"),
		put("/contexts/.a/mode/s2", "READWRITE"),
		put("/mode/:.b:s", "READONLY"),
		put("/mode/s", "READONLY"),
		{method: "DELETE", path: "/contexts/.a/mode?recursive=true", json: `{"mode":"READONLY"}`},
		{method: "GET", path: "/mode/:.a:", status: 404, code: 40409},
		{method: "GET", path: "/mode/:.a:s1", status: 404, code: 40409},
		{method: "GET", path: "/mode/:.a:s2", status: 404, code: 40409},
		{method: "GET", path: "/mode/:.b:s", json: `{"mode":"READONLY"}`},
		{method: "GET", path: "/mode/s", json: `{"mode":"READONLY"}`},
		{method: "DELETE", path: "/contexts/.a/mode?recursive=true", json: `{"mode":null}`},
		{method: "DELETE", path: "/mode?recursive=true", json: `{"mode":null}`},
		{method: "GET", path: "/mode/s", status: 404, code: 40409},
		{method: "GET", path: "/mode/:.b:s", json: `{"mode":"READONLY"}`},
	})
}

// TestReferenceFormatQualified follows Confluent's SchemasResource and
// SubjectVersionsResource: ?referenceFormat=qualified answers the
// references of a schema outside the default context with their subjects
// qualified in its context; without it they are answered as registered.
func TestReferenceFormatQualified(t *testing.T) {
	e := newEnv(t)
	base := `{"type":"record","name":"Base","fields":[{"name":"b","type":"string"}]}`
	user := `{"type":"record","name":"User","fields":[{"name":"base","type":"Base"}]}`
	ref := `"references":[{"name":"Base","subject":"base","version":1}]`
	e.run([]step{
		{method: "POST", path: "/contexts/.a/subjects/base/versions", body: schemaBody(base), json: `{"id":1}`},
		{method: "POST", path: "/contexts/.a/subjects/user/versions", body: schemaBody(user, ref), json: `{"id":2}`},
		{method: "GET", path: "/contexts/.a/schemas/ids/2", contains: []string{`"subject":"base"`}},
		{method: "GET", path: "/contexts/.a/schemas/ids/2?referenceFormat=qualified", contains: []string{`"subject":":.a:base"`}},
		{method: "GET", path: "/contexts/.a/schemas/ids/2", contains: []string{`"subject":"base"`}}, // the cache keeps the stored form
		{method: "GET", path: "/subjects/:.a:user/versions/1?referenceFormat=qualified", contains: []string{`"subject":":.a:base"`}},
		{method: "GET", path: "/subjects/:.a:user/versions/1", contains: []string{`"references":[{"name":"Base","subject":"base"`}},
	})
}

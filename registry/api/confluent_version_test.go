package api_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

// The confluent:version metadata property, pinned by testConfluentVersion
// of Confluent's Avro, JSON Schema and Protobuf RestApiTest
// (core/src/test/java/io/confluent/kafka/schemaregistry/rest/
// {,json/,protobuf/}RestApiTest.java in confluentinc/schema-registry).
// The schemas are Charter's own.

// cvOp is one call of a confluent:version scenario. kind is "reg"
// (register), "look" (lookup), "latest" (GET latest) or "del" (soft
// delete of version del). version and meta are the request's, absent when
// nil / "". What is wanted: id (register), or version and the
// confluent:version property of the answered version ("" for none, and
// noMeta for no metadata at all); code is a wanted error code.
type cvOp struct {
	kind    string
	version *int
	meta    string
	del     int
	id      int
	ver     int
	cv      string
	noMeta  bool
	code    int
}

func vp(n int) *int { return &n }

func cvMeta(props string) string { return `{"properties":{` + props + `}}` }

// confluentVersionSteps is the scenario the three testConfluentVersion
// tests share: an explicit version (or -1) records the new version's
// number as the property; -1 gives the latest version again when it is
// this schema, else a new version; a lookup without the property finds
// the version with it and the reverse (when the property is that
// version's number); a property the request sets is rewritten to the new
// version's number; and a version that is not the next one is 42201.
func confluentVersionSteps() []cvOp {
	return []cvOp{
		{kind: "reg", id: 1},
		{kind: "latest", ver: 1, noMeta: true},
		{kind: "reg", version: vp(-1), id: 1},
		{kind: "reg", version: vp(2), id: 2},
		{kind: "reg", version: vp(-1), id: 2},
		{kind: "latest", ver: 2, cv: "2"},
		{kind: "look", ver: 1, noMeta: true},
		{kind: "look", meta: cvMeta(`"confluent:version":"1"`), ver: 1, noMeta: true},
		{kind: "look", meta: cvMeta(`"confluent:version":"2"`), ver: 2, cv: "2"},
		{kind: "del", del: 1},
		{kind: "look", ver: 2, cv: "2"},
		{kind: "reg", id: 2},
		{kind: "latest", ver: 2, cv: "2"},
		{kind: "reg", version: vp(3), id: 3},
		{kind: "reg", version: vp(-1), id: 3},
		{kind: "reg", version: vp(-1), id: 3},
		{kind: "latest", ver: 3, cv: "3"},
		{kind: "reg", version: vp(3), code: 42201},
		{kind: "reg", version: vp(4), id: 4},
		{kind: "look", ver: 4, cv: "4"},
		{kind: "reg", meta: cvMeta(`"confluent:version":"-1"`), id: 5},
		{kind: "latest", ver: 5, cv: "5"},
		{kind: "reg", meta: cvMeta(`"confluent:version":"2"`), id: 2},
		{kind: "reg", meta: cvMeta(`"confluent:version":"3"`), id: 3},
		{kind: "reg", meta: cvMeta(`"confluent:version":"0"`), id: 6},
		{kind: "latest", ver: 6, cv: "6"},
		{kind: "reg", meta: cvMeta(``), id: 6},
		{kind: "reg", meta: cvMeta(`"owner":"shipping"`), id: 7},
		{kind: "latest", ver: 7},
		{kind: "reg", version: vp(-1), id: 8},
		{kind: "latest", ver: 8, cv: "8"},
		{kind: "look", meta: cvMeta(`"owner":"shipping"`), ver: 7},
		{kind: "del", del: 7},
		{kind: "look", meta: cvMeta(`"owner":"shipping"`), ver: 8, cv: "8"},
	}
}

// runConfluentVersion plays ops under subject "test" with body building
// a register/lookup body from the extra members; text is the schema
// text every version answers.
func runConfluentVersion(t *testing.T, e *env, body func(extra ...string) string, text string, ops []cvOp) {
	t.Helper()
	for i, op := range ops {
		var extra []string
		if op.version != nil {
			extra = append(extra, `"version":`+itoa(*op.version))
		}
		if op.meta != "" {
			extra = append(extra, `"metadata":`+op.meta)
		}
		var status int
		var got string
		switch op.kind {
		case "reg":
			status, _, got = e.do("POST", "/subjects/test/versions", body(extra...))
		case "look":
			status, _, got = e.do("POST", "/subjects/test", body(extra...))
		case "latest":
			status, _, got = e.do("GET", "/subjects/test/versions/latest", "")
		case "del":
			status, _, got = e.do("DELETE", "/subjects/test/versions/"+itoa(op.del), "")
		}
		where := "step " + itoa(i+1) + " (" + op.kind + ")"
		if op.code != 0 {
			var eb struct {
				ErrorCode int `json:"error_code"`
			}
			if err := json.Unmarshal([]byte(got), &eb); err != nil || eb.ErrorCode != op.code || status != op.code/100 {
				t.Fatalf("%s: status %d body %s, want error %d", where, status, got, op.code)
			}
			continue
		}
		if status != http.StatusOK {
			t.Fatalf("%s: status %d, body %s", where, status, got)
		}
		if op.kind == "del" {
			if got != itoa(op.del) {
				t.Fatalf("%s: body %s, want %d", where, got, op.del)
			}
			continue
		}
		var v struct {
			ID       int              `json:"id"`
			Version  int              `json:"version"`
			Schema   string           `json:"schema"`
			Metadata *json.RawMessage `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(got), &v); err != nil {
			t.Fatalf("%s: %s is not JSON: %v", where, got, err)
		}
		switch op.kind {
		case "reg":
			if v.ID != op.id {
				t.Fatalf("%s: body %s, want id %d", where, got, op.id)
			}
			continue
		}
		if v.Version != op.ver || v.Schema != text {
			t.Fatalf("%s: body %s, want version %d of %q", where, got, op.ver, text)
		}
		if op.noMeta {
			if v.Metadata != nil {
				t.Fatalf("%s: body %s, want no metadata", where, got)
			}
			continue
		}
		var m struct {
			Properties map[string]string `json:"properties"`
		}
		if v.Metadata != nil {
			if err := json.Unmarshal(*v.Metadata, &m); err != nil {
				t.Fatalf("%s: metadata %s: %v", where, *v.Metadata, err)
			}
		}
		cv, ok := m.Properties["confluent:version"]
		if op.cv == "" && ok || op.cv != "" && cv != op.cv {
			t.Fatalf("%s: body %s, want confluent:version %q", where, got, op.cv)
		}
	}
}

// TestConfluentRestApiTest_testConfluentVersion: RestApiTest.
// testConfluentVersion with an Avro record, and a lookup of the record
// with a doc added, with version -1, which is 40403.
func TestConfluentRestApiTest_testConfluentVersion(t *testing.T) {
	const rec = `{"type":"record","name":"Shipment","fields":[{"name":"ref","type":"string"}]}`
	const withDoc = `{"type":"record","name":"Shipment","doc":"a parcel","fields":[{"name":"ref","type":"string"}]}`
	e := newEnv(t)
	runConfluentVersion(t, e, func(extra ...string) string { return schemaBody(rec, extra...) }, rec, confluentVersionSteps())
	e.run([]step{{method: "POST", path: "/subjects/test", body: schemaBody(withDoc, `"version":-1`), status: 404, code: 40403}})
}

// TestConfluentJsonRestApiTest_testConfluentVersion: json RestApiTest.
// testConfluentVersion with a JSON Schema.
func TestConfluentJsonRestApiTest_testConfluentVersion(t *testing.T) {
	const doc = `{"type":"object","properties":{"status":{"enum":["OPEN","SHIPPED"],"type":"string"}}}`
	e := newEnvFormats(t, allFormats)
	runConfluentVersion(t, e, func(extra ...string) string { return jsTyped(doc, extra...) }, doc, confluentVersionSteps())
}

// TestConfluentProtobufRestApiTest_testConfluentVersion: protobuf
// RestApiTest.testConfluentVersion with a Protobuf message (answered in
// Charter's canonical layout).
func TestConfluentProtobufRestApiTest_testConfluentVersion(t *testing.T) {
	msg := pbMsg("sku")
	e := newEnvFormats(t, allFormats)
	runConfluentVersion(t, e, func(extra ...string) string { return pbTyped(msg, extra...) }, pbCanonical(msg), confluentVersionSteps())
}

// TestConfluentVersionNotSetInImport: IMPORT stores the metadata as sent,
// an explicit version without confluent:version, as Confluent's register
// skips maybeSetMetadataRuleSet in IMPORT mode.
func TestConfluentVersionNotSetInImport(t *testing.T) {
	const rec = `{"type":"record","name":"Shipment","fields":[{"name":"ref","type":"string"}]}`
	newEnv(t).run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/test/versions", body: schemaBody(rec, `"id":50`, `"version":3`), json: `{"id":50}`},
		{method: "GET", path: "/subjects/test/versions/3", contains: []string{`"id":50`}, notContains: []string{`metadata`, `confluent:version`}},
	})
}

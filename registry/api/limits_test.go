package api_test

import (
	"strings"
	"testing"
)

// TestImportIDAndVersionRange checks that IMPORT mode takes ids and
// versions in [1, 2^31-1] only (Confluent's wire format has a 4-byte id and
// its API reads both as Java Integers): ids outside are 42201, versions
// 42202, and a refused request stores nothing.
func TestImportIDAndVersionRange(t *testing.T) {
	tests := []struct {
		name   string
		extra  []string
		status int
		code   int
		json   string
		msg    string
	}{
		{"largest id and version", []string{`"id":2147483647`, `"version":2147483647`}, 200, 0, `{"id":2147483647}`, ""},
		{"id 2^31", []string{`"id":2147483648`, `"version":1`}, 422, 42201, "", "id 2147483648 is out of range"},
		{"id 99999999999", []string{`"id":99999999999`, `"version":20`}, 422, 42201, "", "between 1 and 2147483647"},
		{"id beyond int64", []string{`"id":99999999999999999999`, `"version":1`}, 422, 42201, "", "id"},
		{"id fraction", []string{`"id":1.5`, `"version":1`}, 422, 42201, "", "id"},
		{"version 2^31", []string{`"id":800`, `"version":2147483648`}, 422, 42202, "", "'2147483648' is not a valid version"},
		{"version beyond int64", []string{`"id":800`, `"version":99999999999999999999`}, 422, 42202, "", "version"},
		{"id and version out of range", []string{`"id":4294967296`, `"version":4294967296`}, 422, 42201, "", "out of range"},
		{"no id in import", []string{`"version":3`}, 422, 42205, "", "a schema id must be given"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.mustDo("PUT", "/mode", `{"mode":"IMPORT"}`)
			before := e.snapshot()
			want := step{method: "POST", path: "/subjects/imp/versions", body: schemaBody(recA, tc.extra...),
				status: tc.status, code: tc.code, json: tc.json}
			if tc.msg != "" {
				want.contains = []string{tc.msg}
			}
			e.run([]step{want})
			if tc.status != 200 {
				if after := e.snapshot(); after != before {
					t.Errorf("a refused import changed the registry:\nbefore %s\nafter  %s", before, after)
				}
				if strings.Contains(e.log.String(), "level=ERROR") {
					t.Errorf("a refused import logged an error: %s", e.log.String())
				}
			}
		})
	}
}

// TestAllocationLimits checks that once IMPORT has used the largest id,
// registration still allocates ids (below the imported maximum, never one
// held or deleted), for other subjects too and after the imported subject
// is deleted; a subject at the largest version gets a clear error and
// stores nothing.
func TestAllocationLimits(t *testing.T) {
	e := newEnv(t)
	e.run([]step{
		{method: "PUT", path: "/mode", body: `{"mode":"IMPORT"}`},
		{method: "POST", path: "/subjects/top/versions", body: schemaBody(recA, `"id":2147483647`, `"version":1`), json: `{"id":2147483647}`},
		{method: "POST", path: "/subjects/last/versions", body: schemaBody(recB, `"id":5`, `"version":2147483647`), json: `{"id":5}`},
		{method: "PUT", path: "/mode", body: `{"mode":"READWRITE"}`},
	})
	before := e.snapshot()
	e.run([]step{
		// A known schema under a subject at the largest version.
		{method: "POST", path: "/subjects/last/versions", body: schemaBody(recA), status: 422, code: 42205,
			contains: []string{"largest version number, 2147483647"}},
		// Re-registering existing versions still works.
		{method: "POST", path: "/subjects/top/versions", body: schemaBody(recA), json: `{"id":2147483647}`},
		{method: "POST", path: "/subjects/last/versions", body: schemaBody(recB), json: `{"id":5}`},
		{method: "GET", path: "/subjects/last/versions", json: `[2147483647]`},
	})
	if after := e.snapshot(); after != before {
		t.Errorf("refused registrations changed the registry:\nbefore %s\nafter  %s", before, after)
	}
	e.run([]step{
		// New schemas get the smallest free ids below the imported maximum.
		{method: "POST", path: "/subjects/other/versions", body: schemaBody(recAint), json: `{"id":1}`},
		{method: "POST", path: "/subjects/other2/versions", body: schemaBody(recAb), json: `{"id":2}`},
		{method: "GET", path: "/schemas/ids/1?fetchMaxId=true", contains: []string{`"maxId":2147483647`}},
		// Deleting the imported subject frees nothing and blocks nothing.
		{method: "DELETE", path: "/subjects/top", json: `[1]`},
		{method: "DELETE", path: "/subjects/top?permanent=true", json: `[1]`},
		{method: "POST", path: "/subjects/other3/versions", body: schemaBody(recAc), json: `{"id":3}`},
		// Id 4 is free; 5 is held by "last".
		{method: "POST", path: "/subjects/other4/versions", body: schemaBody(recAreq), json: `{"id":4}`},
		{method: "POST", path: "/subjects/other5/versions", body: schemaBody(`{"type":"record","name":"C","fields":[]}`), json: `{"id":6}`},
	})
}

package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/charter-dev/charter/compat"
)

// TestRegisterAgreesWithLookup checks, for the three formats, that a
// registration of a schema the lookup endpoint (POST /subjects/{s}, same
// query) reports as present returns that version's id and adds no
// version, whichever normalize flags the first and the later requests
// used; and that when lookup reports 40403, register adds a version.
// Confluent's register runs the same lookup first (registerOrForward).
func TestRegisterAgreesWithLookup(t *testing.T) {
	t.Parallel()
	A, P, J := compat.Avro, compat.Protobuf, compat.JSON
	const (
		// avroLong spells a primitive as {"type":"string"}, which
		// normalization writes "string".
		avroLong  = `{"type":"record","name":"Z","namespace":"zz","fields":[{"name":"x","type":{"type":"string"}}]}`
		avroShort = `{"type":"record","name":"Z","namespace":"zz","fields":[{"name":"x","type":"string"}]}`
		avroOther = `{"type":"record","name":"Z","namespace":"zz","fields":[{"name":"x","type":"string"},{"name":"y","type":"int","default":0}]}`
		protoYX   = `syntax = "proto3"; package zz; message M { string y = 2; int32 x = 1; }`
		protoXY   = "syntax = \"proto3\";\npackage zz;\nmessage M {\n  int32 x = 1;\n  string y = 2;\n}\n"
		jsonBA    = `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}`
		jsonAB    = `{"properties":{"a":{"type":"integer"},"b":{"type":"string"}},"type":"object"}`
	)
	tests := []struct {
		name        string
		typ         compat.SchemaType
		first       string
		firstQuery  string
		second      string
		secondQuery string
		// found: lookup (and so register) finds the first version.
		found bool
	}{
		{"avro: normalized first, same text plain", A, avroLong, "?normalize=true", avroLong, "", true},
		{"avro: plain first, same text normalized", A, avroLong, "", avroLong, "?normalize=true", true},
		{"avro: normalized first, normal form plain", A, avroLong, "?normalize=true", avroShort, "", true},
		{"avro: plain first, other spelling normalized", A, avroShort, "", avroLong, "?normalize=true", true},
		{"avro: plain both, identical", A, avroLong, "", avroLong, "", true},
		{"avro: another schema", A, avroLong, "?normalize=true", avroOther, "", false},
		{"protobuf: normalized first, same text plain", P, protoYX, "?normalize=true", protoYX, "", true},
		{"protobuf: plain first, reordered normalized", P, protoYX, "", protoXY, "?normalize=true", true},
		{"protobuf: normalized first, same text normalized", P, protoYX, "?normalize=true", protoYX, "?normalize=true", true},
		{"json: normalized first, same text plain", J, jsonBA, "?normalize=true", jsonBA, "", true},
		{"json: plain first, reordered normalized", J, jsonBA, "", jsonAB, "?normalize=true", true},
		{"json: normalized first, reordered normalized", J, jsonBA, "?normalize=true", jsonAB, "?normalize=true", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnvFormats(t, allFormats)
			e.mustDo("PUT", "/config", `{"compatibility":"NONE"}`)
			var first struct {
				ID int64 `json:"id"`
			}
			if err := json.Unmarshal([]byte(e.mustDo("POST", "/subjects/nz/versions"+tc.firstQuery, typed(tc.typ, tc.first))), &first); err != nil {
				t.Fatal(err)
			}
			body := typed(tc.typ, tc.second)
			status, _, lookup := e.do("POST", "/subjects/nz"+tc.secondQuery, body)
			switch {
			case tc.found && status != http.StatusOK:
				t.Fatalf("lookup: status %d, body %s; want version 1", status, lookup)
			case !tc.found && status != http.StatusNotFound:
				t.Fatalf("lookup: status %d, body %s; want 40403", status, lookup)
			}
			var reg struct {
				ID int64 `json:"id"`
			}
			if err := json.Unmarshal([]byte(e.mustDo("POST", "/subjects/nz/versions"+tc.secondQuery, body)), &reg); err != nil {
				t.Fatal(err)
			}
			versions := e.mustDo("GET", "/subjects/nz/versions", "")
			if tc.found {
				if !jsonEqual(t, lookup, `{"subject":"nz","version":1,"id":`+itoa(int(first.ID))+`,"schemaType":`+schemaTypeJSON(tc.typ)+`,"schema":`+fieldOf(t, lookup, "schema")+`}`) {
					t.Errorf("lookup = %s, want version 1 id %d", lookup, first.ID)
				}
				if reg.ID != first.ID || versions != "[1]" {
					t.Errorf("register after lookup found version 1 (id %d): id %d, versions %s; want id %d, versions [1]", first.ID, reg.ID, versions, first.ID)
				}
			} else if reg.ID == first.ID || versions != "[1,2]" {
				t.Errorf("register of a schema lookup does not find: id %d, versions %s; want a new id, versions [1,2]", reg.ID, versions)
			}
			// Lookup and register keep agreeing afterwards.
			e.run([]step{{method: "POST", path: "/subjects/nz" + tc.secondQuery, body: body,
				contains: []string{`"id":` + itoa(int(reg.ID))}}})
		})
	}
}

// schemaTypeJSON is the schemaType member of a Schema entity for t.
func schemaTypeJSON(t compat.SchemaType) string {
	return `"` + string(t) + `"`
}

// fieldOf returns member name of the JSON object body, as JSON.
func fieldOf(t *testing.T, body, name string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	return string(m[name])
}

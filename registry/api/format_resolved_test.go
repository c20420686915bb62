package api_test

import (
	"encoding/json"
	"testing"
)

// TestFormatResolvedAvro: ?format=resolved answers an Avro schema with the
// named types of its references defined at their first use (one
// self-contained schema, as Confluent's AvroSchema.formattedString
// "resolved" writes Schema.toString() of the schema parsed with its
// references), on every read that answers a schema text: by id, by
// version, the raw /schema variants and a lookup. Without format, with
// "default" or an unknown value, the stored text (Confluent logs and
// answers the canonical string for an unknown format).
func TestFormatResolvedAvro(t *testing.T) {
	e := newEnv(t)
	const address = `{"type":"record","name":"Address","namespace":"acme","fields":[{"name":"city","type":"string"}]}`
	const order = `{"type":"record","name":"Order","namespace":"acme","fields":[{"name":"ship","type":"Address"},{"name":"bill","type":"acme.Address"}]}`
	const resolved = `{"type":"record","name":"Order","namespace":"acme","fields":[{"name":"ship","type":{"type":"record","name":"Address","fields":[{"name":"city","type":"string"}]}},{"name":"bill","type":"Address"}]}`
	e.mustDo("POST", "/subjects/address/versions", schemaBody(address))
	refs := `"references":[{"name":"acme.Address","subject":"address","version":1}]`
	var reg struct {
		ID int `json:"id"`
	}
	if err := json.Unmarshal([]byte(e.mustDo("POST", "/subjects/order/versions", schemaBody(order, refs))), &reg); err != nil {
		t.Fatal(err)
	}
	var stored struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal([]byte(e.mustDo("GET", "/subjects/order/versions/1", "")), &stored); err != nil {
		t.Fatal(err)
	}
	if stored.Schema == resolved {
		t.Fatalf("stored text is already resolved: %s", stored.Schema)
	}
	id := itoa(reg.ID)
	schemaOf := func(path, body string) string {
		t.Helper()
		method := "GET"
		if body != "" {
			method = "POST"
		}
		var got struct {
			Schema string `json:"schema"`
		}
		if err := json.Unmarshal([]byte(e.mustDo(method, path, body)), &got); err != nil {
			t.Fatal(err)
		}
		return got.Schema
	}
	rawOf := func(path string) string {
		t.Helper()
		var got any
		if err := json.Unmarshal([]byte(e.mustDo("GET", path, "")), &got); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(got)
		return string(b)
	}
	for _, c := range []struct{ format, want string }{
		{"resolved", resolved},
		{"RESOLVED", resolved},
		{"", stored.Schema},
		{"default", stored.Schema},
		{"nonsense", stored.Schema},
		{"serialized", stored.Schema},
	} {
		q := "?format=" + c.format
		for _, p := range []string{"/schemas/ids/" + id + q, "/subjects/order/versions/1" + q, "/subjects/order/versions/latest" + q} {
			if got := schemaOf(p, ""); got != c.want {
				t.Errorf("%s: %s\nwant %s", p, got, c.want)
			}
		}
		if got := schemaOf("/subjects/order"+q, schemaBody(order, refs)); got != c.want {
			t.Errorf("lookup %s: %s\nwant %s", q, got, c.want)
		}
		wantRaw := rawOfText(t, c.want)
		for _, p := range []string{"/schemas/ids/" + id + "/schema" + q, "/subjects/order/versions/1/schema" + q} {
			if got := rawOf(p); got != wantRaw {
				t.Errorf("%s: %s\nwant %s", p, got, wantRaw)
			}
		}
	}
	// A schema without references is its own resolved form.
	if got := schemaOf("/subjects/address/versions/1?format=resolved", ""); got != address {
		t.Errorf("resolved without references: %s", got)
	}
}

func rawOfText(t *testing.T, text string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestFormatResolvedJSONSchema: Confluent's JsonSchema.formattedString
// knows no format ("resolved" included: it logs and answers the canonical
// string), so a JSON Schema with a $ref to a reference answers its stored
// text with every format value.
func TestFormatResolvedJSONSchema(t *testing.T) {
	e := newEnvFormats(t, allFormats)
	const addr = `{"type":"object","properties":{"city":{"type":"string"}}}`
	const order = `{"type":"object","properties":{"ship":{"$ref":"address.json"}}}`
	e.mustDo("POST", "/subjects/address/versions", `{"schemaType":"JSON","schema":`+quote(addr)+`}`)
	body := `{"schemaType":"JSON","schema":` + quote(order) + `,"references":[{"name":"address.json","subject":"address","version":1}]}`
	e.mustDo("POST", "/subjects/order/versions", body)
	var stored struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal([]byte(e.mustDo("GET", "/subjects/order/versions/1", "")), &stored); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"", "?format=default", "?format=resolved", "?format=serialized"} {
		var got struct {
			Schema string `json:"schema"`
		}
		if err := json.Unmarshal([]byte(e.mustDo("GET", "/subjects/order/versions/1"+f, "")), &got); err != nil {
			t.Fatal(err)
		}
		if got.Schema != stored.Schema {
			t.Errorf("format %q: %s\nwant %s", f, got.Schema, stored.Schema)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

package upcast

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// jsonCheckSchemas are schemas made of the keywords the check
// understands.
var jsonCheckSchemas = []string{
	`{"type":"object","properties":{"orderId":{"type":"string"},"customer":{"type":"object","properties":{"name":{"type":"string"},"email":{"type":["string","null"]}},"required":["name"]},"amount":{"type":"number"},"currency":{"type":"string","default":"EUR"},"lines":{"type":"array"}},"required":["orderId","customer","amount"]}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","title":"T","type":"object","additionalProperties":false,"properties":{"n":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}},"flag":{"type":"boolean"},"any":true},"required":["n"]}`,
	`{"type":"object","additionalProperties":{"type":["integer","null"]},"properties":{"id":{"type":"string"}}}`,
	`{"type":["object","array"],"items":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}}`,
}

// genJSON returns a random value of the shapes encoding/json decodes,
// often close to the schemas above (their property names, nested).
func genJSON(rng *rand.Rand, depth int) any {
	names := []string{"orderId", "customer", "name", "email", "amount", "currency", "lines", "n", "tags", "flag", "any", "id", "x", "other"}
	switch k := rng.IntN(10); {
	case k < 3 && depth < 3:
		m := map[string]any{}
		for range rng.IntN(5) {
			m[names[rng.IntN(len(names))]] = genJSON(rng, depth+1)
		}
		return m
	case k < 4 && depth < 3:
		arr := make([]any, rng.IntN(3))
		for i := range arr {
			arr[i] = genJSON(rng, depth+1)
		}
		return arr
	case k < 5:
		return "s"
	case k < 6:
		return float64(rng.IntN(5))
	case k < 7:
		return rng.Float64()
	case k < 8:
		return rng.IntN(2) == 0
	case k < 9:
		return nil
	}
	return []float64{1, 2} // a Go type encoding/json never decodes to
}

// TestJSONCheckIsSound checks, for random values, that whenever the
// compiled check accepts a value the validator accepts it too (the check
// may only say "valid" or "don't know").
func TestJSONCheckIsSound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for i, text := range jsonCheckSchemas {
		var doc any
		if err := json.Unmarshal([]byte(text), &doc); err != nil {
			t.Fatal(err)
		}
		check := compileJSONCheck(doc)
		if check == nil {
			t.Fatalf("schema %d: not compiled, want a check", i)
		}
		st := &jsonState{text: text}
		val, err := st.compile()
		if err != nil {
			t.Fatal(err)
		}
		accepted := 0
		for range 3000 {
			v := genJSON(rng, 0)
			if m, ok := v.(map[string]any); ok && rng.IntN(2) == 0 {
				// Nudge towards valid values: fill required properties,
				// drop what schema 1 does not allow.
				if i == 1 {
					for k := range m {
						if k != "n" && k != "tags" && k != "flag" && k != "any" {
							delete(m, k)
						}
					}
					m["n"] = float64(3)
				} else {
					m["orderId"], m["amount"] = "o", 1.5
					m["customer"] = map[string]any{"name": "Ada"}
				}
			}
			if !check(v) {
				continue
			}
			accepted++
			if err := val.Validate(v); err != nil {
				t.Fatalf("schema %d: check accepts %#v, the validator does not: %v", i, v, err)
			}
		}
		if accepted < 50 {
			t.Errorf("schema %d: the check accepted only %d values; the test proves little", i, accepted)
		}
	}
}

func TestJSONCheck(t *testing.T) {
	var doc any
	_ = json.Unmarshal([]byte(jsonCheckSchemas[1]), &doc)
	check := compileJSONCheck(doc)
	for _, tc := range []struct {
		v    any
		want bool
	}{
		{map[string]any{"n": 3.0}, true},
		{map[string]any{"n": 3.0, "tags": []any{"a"}, "flag": true, "any": []any{1.0}}, true},
		{map[string]any{"n": 3.5}, false},                     // not an integer
		{map[string]any{"tags": []any{}}, false},              // n required
		{map[string]any{"n": 1.0, "x": 1.0}, false},           // no other properties
		{map[string]any{"n": 1.0, "tags": []any{1.0}}, false}, // items are strings
		{map[string]any{"n": math.Inf(1)}, false},
		{map[string]any{"n": 1}, false}, // an int is the validator's to judge
		{[]any{}, false},
	} {
		if got := check(tc.v); got != tc.want {
			t.Errorf("check(%#v) = %t, want %t", tc.v, got, tc.want)
		}
	}
	for _, text := range []string{
		`{"type":"object","properties":{"a":{"$ref":"#/definitions/A"}}}`,
		`{"enum":[1,2]}`,
		`{"type":"string","pattern":"^a"}`,
		`{"type":"string","format":"date-time"}`,
		`{"type":"array","items":[{"type":"string"}]}`,
		`{"type":"object","properties":{"a":false}}`,
		`{"type":"objekt"}`,
		`{"allOf":[{"type":"object"}]}`,
	} {
		var d any
		_ = json.Unmarshal([]byte(text), &d)
		if compileJSONCheck(d) != nil {
			t.Errorf("%s: compiled, want nil (the validator decides)", strings.TrimSpace(text))
		}
	}
}

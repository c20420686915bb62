package contracts_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/charter-dev/charter/contracts"
)

func TestParsePactErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, pact, want string
	}{
		{"not JSON", `{"consumer": `, "invalid JSON: unexpected end of input"},
		{"syntax error position", "{\n  \"consumer\": {\"name\": \"a\"},\n  x\n}", "invalid JSON: line 3, column 3"},
		{"array document", `[]`, "the document must be a JSON object"},
		{"trailing text", `{"consumer": {"name": "a"}} {}`, "text after the pact object"},
		{"no consumer", `{"messages": []}`, "no consumer name"},
		{"unknown version", `{"consumer": {"name": "a"}, "messages": [], "metadata": {"pactSpecification": {"version": "5.0.0"}}}`, `unknown pact specification version "5.0.0"`},
		{"V2 has no messages", `{"consumer": {"name": "a"}, "interactions": [], "metadata": {"pactSpecificationVersion": "2.0.0"}}`, "pact specification 2.0.0 has no message interactions"},
		{"HTTP pact", `{"consumer": {"name": "a"}, "interactions": [{"description": "x", "request": {}}], "metadata": {"pactSpecification": {"version": "3.0.0"}}}`, "it is an HTTP pact, not a message pact"},
		{"neither", `{"consumer": {"name": "a"}}`, `neither "messages" (V3) nor "interactions" (V4) found`},
		{"no message interaction", `{"consumer": {"name": "a"}, "interactions": [{"type": "Synchronous/HTTP", "description": "x"}]}`, "no asynchronous message interaction to verify"},
		{"no description", `{"consumer": {"name": "a"}, "messages": [{"contents": {}}]}`, "messages[0]: no description"},
		{"duplicate description", `{"consumer": {"name": "a"}, "messages": [{"description": "d", "contents": {}}, {"description": "d", "contents": {}}]}`, `interaction "d" appears twice`},
		{"bad rule path", `{"consumer": {"name": "a"}, "messages": [{"description": "d", "contents": {}, "matchingRules": {"body": {"a.b": {"matchers": [{"match": "type"}]}}}}]}`, `matching rule "a.b": a body path must start with "$"`},
		{"unterminated bracket", `{"consumer": {"name": "a"}, "messages": [{"description": "d", "contents": {}, "matchingRules": {"body": {"$.a[0": {"matchers": [{"match": "type"}]}}}}]}`, `"[" without "]"`},
		{"unknown matcher", `{"consumer": {"name": "a"}, "messages": [{"description": "d", "contents": {}, "matchingRules": {"body": {"$.a": {"matchers": [{"match": "fuzzy"}]}}}}]}`, `unknown matcher "fuzzy"`},
		{"bad regex", `{"consumer": {"name": "a"}, "messages": [{"description": "d", "contents": {}, "matchingRules": {"body": {"$.a": {"matchers": [{"match": "regex", "regex": "("}]}}}}]}`, `regex "("`},
		{"bad combine", `{"consumer": {"name": "a"}, "messages": [{"description": "d", "contents": {}, "matchingRules": {"body": {"$.a": {"combine": "XOR", "matchers": [{"match": "type"}]}}}}]}`, "combine must be AND or OR"},
		{"negative min", `{"consumer": {"name": "a"}, "messages": [{"description": "d", "contents": {}, "matchingRules": {"body": {"$.a": {"matchers": [{"match": "type", "min": -1}]}}}}]}`, "min must be a non-negative integer"},
		{"V4 contents not a body", `{"consumer": {"name": "a"}, "interactions": [{"type": "Asynchronous/Messages", "description": "d", "contents": "x"}], "metadata": {"pactSpecification": {"version": "4.0"}}}`, `"contents" must be a body object`},
		{"V4 bad base64", `{"consumer": {"name": "a"}, "interactions": [{"type": "Asynchronous/Messages", "description": "d", "contents": {"contentType": "application/json", "encoded": "base64", "content": "%%%"}}]}`, "invalid base64"},
		{"V4 unknown encoding", `{"consumer": {"name": "a"}, "interactions": [{"type": "Asynchronous/Messages", "description": "d", "contents": {"encoded": "rot13", "content": "x"}}]}`, `unknown encoding "rot13"`},
		{"V4 JSON string not JSON", `{"consumer": {"name": "a"}, "interactions": [{"type": "Asynchronous/Messages", "description": "d", "contents": {"contentType": "application/json", "encoded": "JSON", "content": "{"}}]}`, "contents are not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := contracts.ParsePact([]byte(tc.pact))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !errors.Is(err, contracts.ErrMalformedPact) {
				t.Errorf("error %v does not wrap ErrMalformedPact", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestParsePactShapes(t *testing.T) {
	t.Parallel()
	v4, err := contracts.ParsePact(mustRead(t, "testdata/pacts/compatible_protobuf.json"))
	if err != nil {
		t.Fatal(err)
	}
	in := v4.Interactions[0]
	if v4.Spec != contracts.SpecV4 || v4.Consumer != "tracking-ui" || v4.Provider != "shipping" || in.Key != "b1" ||
		in.ContentType != "application/json" || len(in.ProviderStates) != 1 || in.ProviderStates[0].Params["id"] != "s-1" {
		t.Errorf("V4 pact read as %+v", v4)
	}
	if len(in.Rules) != 7 || in.Rules[0].Path != "$.bookedAt" || in.Rules[0].Matchers[0].Type != contracts.MatchTimestamp ||
		in.Rules[0].Matchers[0].Format != "yyyy-MM-dd'T'HH:mm:ssXXX" {
		t.Errorf("V4 rules read as %+v", in.Rules)
	}
	// V4 "content" category and contents encoded as a JSON string.
	js, err := contracts.ParsePact(mustRead(t, "testdata/pacts/compatible_jsonschema.json"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := js.Interactions[0].Contents.(map[string]any)
	if body["source"] != "web" || len(js.Interactions[0].Rules) != 4 {
		t.Errorf("JSON-encoded contents read as %v, rules %v", js.Interactions[0].Contents, js.Interactions[0].Rules)
	}
	// HTTP interactions are skipped and counted.
	bin, err := contracts.ParsePact(mustRead(t, "testdata/pacts/contract_contents_unchecked.json"))
	if err != nil {
		t.Fatal(err)
	}
	if bin.Skipped != 1 || len(bin.Interactions) != 1 || !bin.Interactions[0].Binary || bin.Interactions[0].ContentType != "application/pdf" {
		t.Errorf("binary V4 pact read as %+v", bin)
	}
	// V3 with pact-jvm's string contents, "metaData" and the V2-style
	// matcher forms.
	v3, err := contracts.ParsePact([]byte(`{"consumer": {"name": "c"}, "provider": {"name": "p"},
		"messages": [{"description": "d", "providerState": "old style",
			"contents": "{\"a\": {\"b\": [1, 2]}, \"when\": \"2024-01-01\"}",
			"metaData": {"contentType": "application/json; charset=utf-8"},
			"matchingRules": {"$.body.a.b": {"min": 1}, "$.body.when": {"date": "yyyy-MM-dd"}, "$.body['a']": {"regex": "x"}}}],
		"metadata": {"pact-specification": {"version": "3.0.0"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	m := v3.Interactions[0]
	var rules []string
	for _, r := range m.Rules {
		b, _ := json.Marshal(r.Matchers)
		rules = append(rules, r.Path+" "+string(b))
	}
	wantRules := []string{`$.a.b [{"match":"type"}]`, `$.when [{"match":"date","format":"yyyy-MM-dd"}]`, `$['a'] [{"match":"regex","regex":"x"}]`}
	if !reflect.DeepEqual(rules, wantRules) {
		t.Errorf("V2-style rules read as\n%q\nwant\n%q", rules, wantRules)
	}
	if m.ProviderStates[0].Name != "old style" || m.ContentType != "application/json" {
		t.Errorf("V3 message read as %+v", m)
	}
	if got := m.Reads(); !reflect.DeepEqual(got, []string{".a", ".a.b", ".when"}) {
		t.Errorf("Reads = %v", got)
	}
}

// TestMatcherSelection pins Pact's weighting ("Matcher selection
// algorithm", V3) and cascade through the fields a contract reads and the
// type checks they lead to.
func TestMatcherSelection(t *testing.T) {
	t.Parallel()
	pact := `{"consumer": {"name": "c"}, "messages": [{"description": "d",
		"contents": {"item1": {"level": [{"id": 100}, {"id": "x"}]}, "attrs": {"k1": {"v": 1}}},
		"matchingRules": {"body": {
			"$.item1.level[1].id": {"matchers": [{"match": "regex", "regex": "x"}]},
			"$.*.level[*].id": {"matchers": [{"match": "integer"}]},
			"$.attrs": {"matchers": [{"match": "values"}]}
		}}}]}`
	p, err := contracts.ParsePact([]byte(pact))
	if err != nil {
		t.Fatal(err)
	}
	c := &contracts.Contract{Pact: p}
	if got, want := c.Reads(), []string{".attrs", ".attrs{}", ".attrs{}.v", ".item1", ".item1.level", ".item1.level[].id"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Reads = %v, want %v", got, want)
	}
	// id: level[0] is matched by "$.*.level[*].id" (integer), level[1]
	// by the more specific "$.item1.level[1].id" (regex on a string).
	// Findings are reported once per path: the first element's wins.
	for _, tc := range []struct {
		idType string
		want   []string
	}{
		{`"int"`, []string{`CONTRACT_TYPE_MISMATCH .item1.level[].id (regex "x", example "x")`}},
		{`"string"`, []string{`CONTRACT_TYPE_MISMATCH .item1.level[].id (integer, example 100)`}},
		{`["int", "string"]`, []string{`CONTRACT_TYPE_MISMATCH .item1.level[].id (integer, example 100)`}},
		{`"long"`, []string{`CONTRACT_TYPE_MISMATCH .item1.level[].id (regex "x", example "x")`}},
	} {
		schema := `{"type": "record", "name": "R", "fields": [
			{"name": "item1", "type": {"type": "record", "name": "I", "fields": [
				{"name": "level", "type": {"type": "array", "items": {"type": "record", "name": "L", "fields": [{"name": "id", "type": ` + tc.idType + `}]}}}]}},
			{"name": "attrs", "type": {"type": "map", "values": {"type": "record", "name": "V", "fields": [{"name": "v", "type": "int"}]}}}]}`
		s, err := contracts.ParseSchema(schema, "AVRO")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := contracts.Verify([]*contracts.Contract{c}, s, contracts.Options{Now: testNow})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range rep.Findings() {
			_, m, _ := strings.Cut(f.Message, "matcher ")
			m, _, _ = strings.Cut(m, ")")
			got = append(got, f.RuleID+" "+f.Path+" "+m+")")
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("id %s: findings %v, want %v", tc.idType, got, tc.want)
		}
	}
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

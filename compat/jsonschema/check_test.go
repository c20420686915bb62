package jsonschema_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/jsonschema"
)

// history parses schema texts as versions 1..n.
func history(t *testing.T, texts ...string) []compat.Previous {
	t.Helper()
	var out []compat.Previous
	for i, text := range texts {
		out = append(out, compat.Previous{Version: i + 1, Schema: mustParse(t, text)})
	}
	return out
}

func findings(res compat.Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, fmt.Sprintf("%s v%d %s %s", f.Direction, f.Version, f.RuleID, f.Path))
	}
	return out
}

// TestCheckLevels runs compat.Check with this format at every level over a
// closed-model history: v1 {id}, v2 {id, email?}, next {id, email?, phone}
// where phone is required with no default.
func TestCheckLevels(t *testing.T) {
	const (
		v1   = `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`
		v2   = `{"type":"object","properties":{"id":{"type":"string"},"email":{"type":"string"}},"required":["id"],"additionalProperties":false}`
		next = `{"type":"object","properties":{"id":{"type":"string"},"email":{"type":"string","maxLength":64}},"required":["id"],"additionalProperties":false}`
	)
	prev := history(t, v1, v2)
	n := mustParse(t, next)
	tests := []struct {
		level compat.Level
		want  []string
	}{
		{compat.None, nil},
		{compat.Backward, []string{"BACKWARD v2 JSON_MAX_LENGTH_ADDED #/properties/email/maxLength"}},
		// v1 has no email: the closed v1 never wrote one, so only v2 matters.
		{compat.BackwardTransitive, []string{"BACKWARD v2 JSON_MAX_LENGTH_ADDED #/properties/email/maxLength"}},
		{compat.Forward, nil},
		// v1 reading next: email is gone from v1's closed model.
		{compat.ForwardTransitive, []string{"FORWARD v1 JSON_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/email"}},
		{compat.Full, []string{"BACKWARD v2 JSON_MAX_LENGTH_ADDED #/properties/email/maxLength"}},
		{compat.FullTransitive, []string{
			"BACKWARD v2 JSON_MAX_LENGTH_ADDED #/properties/email/maxLength",
			"FORWARD v1 JSON_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/email",
		}},
	}
	for _, tc := range tests {
		res := compat.Check(jsonschema.Format{}, tc.level, n, prev)
		if got := findings(res); !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got  %v\n want %v", tc.level, got, tc.want)
		}
	}
}

// TestLenientPolicy checks the LENIENT policy on Confluent's open content
// model changes, and that STRICT stays the zero value.
func TestLenientPolicy(t *testing.T) {
	tests := []struct {
		name           string
		writer, reader string
		strict         []string
		lenient        []string
	}{
		{name: "optional property added to open model",
			writer: `{"properties":{"a":{"type":"string"}}}`,
			reader: `{"properties":{"a":{"type":"string"},"b":{"type":"number"}}}`,
			strict: []string{"JSON_OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"}},
		{name: "additionalProperties closed",
			writer: `{"additionalProperties":true}`, reader: `{"additionalProperties":false}`,
			strict: []string{"JSON_ADDITIONAL_PROPERTIES_REMOVED"}},
		{name: "property removed from closed model",
			writer: `{"properties":{"a":{},"b":{"type":"string"}},"additionalProperties":false}`,
			reader: `{"properties":{"a":{}},"additionalProperties":false}`,
			strict: []string{"JSON_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"}},
		{name: "required property without default stays incompatible",
			writer:  `{"properties":{"a":{"type":"string"}}}`,
			reader:  `{"properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["b"]}`,
			strict:  []string{"JSON_REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"},
			lenient: []string{"JSON_REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"}},
		{name: "type change stays incompatible",
			writer: `{"type":"string"}`, reader: `{"type":"number"}`,
			strict: []string{"JSON_TYPE_CHANGED"}, lenient: []string{"JSON_TYPE_CHANGED"}},
	}
	rules := func(vs []compat.Violation) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v.RuleID)
		}
		return out
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, r := mustParse(t, tc.writer), mustParse(t, tc.reader)
			if got := rules(jsonschema.Format{}.CheckRead(r, w)); !slices.Equal(got, tc.strict) {
				t.Errorf("zero-value Format: got %v, want %v", got, tc.strict)
			}
			if got := rules(jsonschema.Format{Policy: jsonschema.Strict}.CheckRead(r, w)); !slices.Equal(got, tc.strict) {
				t.Errorf("STRICT: got %v, want %v", got, tc.strict)
			}
			if got := rules(jsonschema.Format{Policy: jsonschema.Lenient}.CheckRead(r, w)); !slices.Equal(got, tc.lenient) {
				t.Errorf("LENIENT: got %v, want %v", got, tc.lenient)
			}
		})
	}
}

// TestDiff checks the full change list, compatible changes included.
func TestDiff(t *testing.T) {
	o := mustParse(t, `{"title":"v1","type":"object","properties":{"a":{"type":"string","maxLength":5},"b":{"type":"integer"}},"required":["a"]}`)
	u := mustParse(t, `{"title":"v2","type":"object","properties":{"a":{"type":"string","maxLength":8},"b":{"type":"number"},"c":{}}}`)
	changes, err := jsonschema.Diff(jsonschema.Strict, o, u)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, fmt.Sprintf("%s %s %v", c.Type, c.Path, c.Compatible))
	}
	want := []string{
		"TITLE_CHANGED #/ true",
		"REQUIRED_ATTRIBUTE_REMOVED #/required/a true",
		"MAX_LENGTH_INCREASED #/properties/a/maxLength true",
		"TYPE_EXTENDED #/properties/b true",
		"PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL #/properties/c true",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

type otherSchema struct{}

func (otherSchema) Type() compat.SchemaType { return compat.Avro }
func (otherSchema) Canonical() string       { return `"string"` }
func (otherSchema) Normalized() string      { return `"string"` }

func TestCheckReadForeignSchema(t *testing.T) {
	s := mustParse(t, `{"type":"string"}`)
	for _, vs := range [][]compat.Violation{
		jsonschema.Format{}.CheckRead(s, otherSchema{}),
		jsonschema.Format{}.CheckRead(otherSchema{}, s),
		jsonschema.Format{}.CheckRead(nil, s),
	} {
		if len(vs) != 1 || vs[0].RuleID != jsonschema.RuleTypeChanged {
			t.Errorf("got %v, want one %s", vs, jsonschema.RuleTypeChanged)
		}
	}
	if f := (jsonschema.Format{}); f.Type() != compat.JSON || s.Type() != compat.JSON {
		t.Errorf("Type() = %s, %s", f.Type(), s.Type())
	}
}

// TestConcurrentCheckRead shares parsed schemas between goroutines (run
// with -race): schemas are immutable and each check has its own state.
func TestConcurrentCheckRead(t *testing.T) {
	w := mustParse(t, `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"$ref":"#/definitions/n"}]}},"definitions":{"n":{"type":"number"}}}`)
	r := mustParse(t, `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]}}}`)
	want := fmt.Sprint(jsonschema.Format{}.CheckRead(r, w))
	done := make(chan string)
	for range 8 {
		go func() { done <- fmt.Sprint(jsonschema.Format{}.CheckRead(r, w)) }()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
	if want == "[]" {
		t.Error("want the narrowed anyOf reported")
	}
}

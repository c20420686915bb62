package compat_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
)

// fieldSchema is a toy schema for testing Check without a real format:
// "a b? c" has required fields a and c and an optional field b. A reader
// can read a writer when every required reader field is in the writer.
type fieldSchema struct {
	text     string
	required []string
	all      []string
}

func (s fieldSchema) Type() compat.SchemaType { return "TOY" }
func (s fieldSchema) Canonical() string       { return s.text }
func (s fieldSchema) Normalized() string      { return s.text }

type toyFormat struct{}

func (toyFormat) Type() compat.SchemaType { return "TOY" }

func (toyFormat) Parse(text string, _ []compat.Dependency) (compat.Schema, error) {
	s := fieldSchema{text: text}
	for _, f := range strings.Fields(text) {
		name, optional := strings.CutSuffix(f, "?")
		s.all = append(s.all, name)
		if !optional {
			s.required = append(s.required, name)
		}
	}
	return s, nil
}

func (toyFormat) CheckRead(reader, writer compat.Schema) []compat.Violation {
	r, w := reader.(fieldSchema), writer.(fieldSchema)
	var out []compat.Violation
	for _, f := range r.required {
		if !slices.Contains(w.all, f) {
			out = append(out, compat.Violation{RuleID: "TOY_MISSING", Path: "." + f, Message: "missing " + f})
		}
	}
	return out
}

func toyHistory(t *testing.T, texts ...string) []compat.Previous {
	t.Helper()
	var out []compat.Previous
	for i, text := range texts {
		s, _ := toyFormat{}.Parse(text, nil)
		out = append(out, compat.Previous{Version: i + 1, Schema: s})
	}
	return out
}

func render(res compat.Result) []string {
	var out []string
	for _, f := range res.Findings {
		out = append(out, fmt.Sprintf("%s v%d %s", f.Direction, f.Version, f.Path))
	}
	return out
}

func TestCheckLevels(t *testing.T) {
	// v1 "a b" → v2 "a b? c?" → new "a c": the new schema needs c (absent
	// in v1 only) and drops b (required by v1 only).
	prev := toyHistory(t, "a b", "a b? c?")
	next, _ := toyFormat{}.Parse("a c", nil)
	tests := []struct {
		level compat.Level
		want  []string
	}{
		{compat.None, nil},
		{compat.Backward, nil},
		{compat.BackwardTransitive, []string{"BACKWARD v1 .c"}},
		{compat.Forward, nil},
		{compat.ForwardTransitive, []string{"FORWARD v1 .b"}},
		{compat.Full, nil},
		{compat.FullTransitive, []string{"BACKWARD v1 .c", "FORWARD v1 .b"}},
	}
	for _, tc := range tests {
		res := compat.Check(toyFormat{}, tc.level, next, prev)
		if got := render(res); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.level, got, tc.want)
		}
		if res.Level != tc.level || res.Compatible() != (len(tc.want) == 0) {
			t.Errorf("%s: Level=%s Compatible=%v", tc.level, res.Level, res.Compatible())
		}
	}
}

func TestCheckNewestFirstEveryViolation(t *testing.T) {
	prev := toyHistory(t, "x y", "x z", "w")
	next, _ := toyFormat{}.Parse("p q", nil)
	res := compat.Check(toyFormat{}, compat.FullTransitive, next, prev)
	want := []string{
		"BACKWARD v3 .p", "BACKWARD v3 .q", "FORWARD v3 .w",
		"BACKWARD v2 .p", "BACKWARD v2 .q", "FORWARD v2 .x", "FORWARD v2 .z",
		"BACKWARD v1 .p", "BACKWARD v1 .q", "FORWARD v1 .x", "FORWARD v1 .y",
	}
	if got := render(res); !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	// The non-transitive level only looks at the latest version.
	res = compat.Check(toyFormat{}, compat.Full, next, prev)
	if got := render(res); !slices.Equal(got, want[:3]) {
		t.Errorf("FULL: got %v, want %v", got, want[:3])
	}
}

func TestCheckNoPrevious(t *testing.T) {
	next, _ := toyFormat{}.Parse("a", nil)
	for _, level := range compat.Levels {
		if res := compat.Check(toyFormat{}, level, next, nil); !res.Compatible() || res.Level != level {
			t.Errorf("%s with no previous version: %+v", level, res)
		}
	}
}

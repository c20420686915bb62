package project

import (
	"reflect"
	"testing"
)

func TestJSONPointerLines(t *testing.T) {
	t.Parallel()
	text := `{
  "type": "object",
  "properties": {
    "a/b": {"type": "string"},
    "list": {
      "type": "array",
      "items": [
        {"type": "integer"},
        {"enum": ["x", "y"]}
      ]
    }
  },
  "required": ["a/b"]
}`
	got := map[string]int{}
	jsonPointerLines(text, got)
	want := map[string]int{
		"#": 1, "#/type": 2, "#/properties": 3,
		"#/properties/a~1b": 4, "#/properties/a~1b/type": 4,
		"#/properties/list": 5, "#/properties/list/type": 6, "#/properties/list/items": 7,
		"#/properties/list/items/0": 8, "#/properties/list/items/0/type": 8,
		"#/properties/list/items/1": 9, "#/properties/list/items/1/enum": 9,
		"#/properties/list/items/1/enum/0": 9, "#/properties/list/items/1/enum/1": 9,
		"#/required": 13, "#/required/0": 13,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lines:\n got %v\nwant %v", got, want)
	}
	// Broken JSON keeps what was read before the error, without panicking.
	part := map[string]int{}
	jsonPointerLines("{\n\"a\": 1,\n\"b\": ", part)
	if part["#/a"] != 2 {
		t.Errorf("partial: %v", part)
	}
}

func TestProtoDeclLines(t *testing.T) {
	t.Parallel()
	text := `syntax = "proto3";
// message Fake {
/* message Hidden {
} */
message Order {
  string note = 1; // "message Nope {"
  message Line {
    int32 qty = 1;
  }
  enum State { NEW = 0; }
}
enum Top {
  TOP_UNSPECIFIED = 0;
}
message Other { string s = 1; }
`
	got := map[string]int{}
	protoDeclLines(text, got)
	want := map[string]int{".Order": 5, ".Order.Line": 7, ".Order.State": 10, ".Top": 12, ".Other": 15}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestParentPath(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		".a.b":            ".a",
		".a":              "",
		".a.b[]":          ".a.b",
		".m{}":            ".m",
		".billing<x.Y>":   ".billing",
		"#/properties/a":  "#/properties",
		"#/properties":    "",
		".lines[].price":  ".lines[]",
		"#/required/name": "#/required",
	} {
		if got := parentPath(in); got != want {
			t.Errorf("parentPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLocatorFallsBackToAncestors(t *testing.T) {
	t.Parallel()
	l := &locator{byPath: map[string]int{".a": 3, "#": 1, "#/properties": 4}}
	for path, want := range map[string]int{".a.gone": 3, ".a": 3, ".zzz": 0, "#/": 1, "#/properties/x": 4, "#/required/x": 0} {
		if got := l.line(path); got != want {
			t.Errorf("line(%q) = %d, want %d", path, got, want)
		}
	}
}

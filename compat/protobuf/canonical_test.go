package protobuf_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
)

// TestCanonicalGolden compares Canonical and Normalized of each
// testdata/canonical/<case>/input.proto with its golden files (-update
// rewrites them), and checks that both texts parse back to themselves.
func TestCanonicalGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "canonical", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no canonical cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			s := mustParseFile(t, filepath.Join(dir, "input.proto"))
			for _, g := range []struct{ file, got string }{
				{"canonical.golden", s.Canonical()},
				{"normalized.golden", s.Normalized()},
			} {
				path := filepath.Join(dir, g.file)
				if *update {
					if err := os.WriteFile(path, []byte(g.got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if g.got != string(want) {
					t.Errorf("%s:\n got:\n%s\nwant:\n%s", path, g.got, want)
				}
			}
			again, err := protobuf.Parse(s.Canonical(), nil)
			if err != nil || again.Canonical() != s.Canonical() {
				t.Errorf("canonical text does not parse back to itself: %v", err)
			}
			again, err = protobuf.Parse(s.Normalized(), nil)
			if err != nil || again.Normalized() != s.Normalized() {
				t.Errorf("normalized text does not parse back to itself: %v", err)
			}
		})
	}
}

func parseText(t *testing.T, text string) compat.Schema {
	t.Helper()
	s, err := protobuf.Format{}.Parse(text, nil)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, text)
	}
	return s
}

func TestCanonicalAndNormalizedEquality(t *testing.T) {
	base := "syntax = \"proto3\";\npackage shop;\nimport \"google/protobuf/timestamp.proto\";\nimport \"google/protobuf/duration.proto\";\n" +
		"option java_package = \"a.b\";\noption go_package = \"x/y\";\n" +
		"message Order {\n  string id = 1;\n  google.protobuf.Timestamp at = 2;\n  Line line = 3;\n  message Line { int32 qty = 1; }\n  reserved 7, 8, 9;\n}\n" +
		"enum Status {\n  STATUS_UNSPECIFIED = 0;\n  STATUS_OPEN = 1;\n}\n"
	tests := []struct {
		name                      string
		other                     string
		sameCanonical, sameNormal bool
	}{
		{"whitespace and comments", "// header\nsyntax   =   \"proto3\" ;\npackage shop;\n\n/* imports */\nimport \"google/protobuf/timestamp.proto\";\nimport \"google/protobuf/duration.proto\";\n" +
			"option java_package = 'a.b';\noption go_package = \"x/\" \"y\";\n" +
			"message Order {\n  string id = 0x1; // id\n  google.protobuf.Timestamp at = 2;\n  Line line = 3;\n  message Line { int32 qty = 01; }\n  reserved 7, 8, 9;\n}\n" +
			"enum Status {\n  STATUS_UNSPECIFIED = 0;\n  STATUS_OPEN = 1;\n}\n", true, true},
		{"reordered imports, options, fields, enum", "syntax = \"proto3\";\npackage shop;\nimport \"google/protobuf/duration.proto\";\nimport \"google/protobuf/timestamp.proto\";\n" +
			"enum Status {\n  STATUS_UNSPECIFIED = 0;\n  STATUS_OPEN = 1;\n}\n" +
			"option go_package = \"x/y\";\noption java_package = \"a.b\";\n" +
			"message Order {\n  reserved 9, 7 to 8;\n  message Line { int32 qty = 1; }\n  .shop.Order.Line line = 3;\n  .google.protobuf.Timestamp at = 2;\n  string id = 1;\n}\n", false, true},
		{"trailing comment", base[:len(base)-len("}\n")] + "  // same\n}\n", true, true},
		{"messages reordered", "syntax = \"proto3\";\npackage shop;\nmessage B { int32 x = 1; }\nmessage A { int32 x = 1; }\n", false, false},
		{"type changed", replaceOnce(base, "string id = 1;", "bytes id = 1;"), false, false},
		{"number changed", replaceOnce(base, "string id = 1;", "string id = 4;"), false, false},
		{"json_name default made explicit", replaceOnce(base, "string id = 1;", "string id = 1 [json_name = \"id\"];"), false, true},
	}
	b := parseText(t, base)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := parseText(t, tc.other)
			if got := o.Canonical() == b.Canonical(); got != tc.sameCanonical {
				t.Errorf("equal Canonical = %v, want %v:\n%s\n----\n%s", got, tc.sameCanonical, b.Canonical(), o.Canonical())
			}
			if got := o.Normalized() == b.Normalized(); got != tc.sameNormal {
				t.Errorf("equal Normalized = %v, want %v:\n%s\n----\n%s", got, tc.sameNormal, b.Normalized(), o.Normalized())
			}
		})
	}
}

func replaceOnce(s, old, new string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	panic("not found: " + old)
}

func TestMessageIndexes(t *testing.T) {
	s, err := protobuf.Parse(`syntax = "proto3";
package shop;
message Order {
  map<string, int32> counts = 1;
  message Line { int32 qty = 1; }
  message Note {
    message Author { string name = 1; }
  }
}
enum Status { STATUS_UNSPECIFIED = 0; }
message Refund { string id = 1; }
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		indexes []int
		name    string
	}{
		{nil, "shop.Order"},
		{[]int{0}, "shop.Order"},
		{[]int{1}, "shop.Refund"},
		{[]int{0, 0}, "shop.Order.Line"}, // the map entry is not counted
		{[]int{0, 1}, "shop.Order.Note"},
		{[]int{0, 1, 0}, "shop.Order.Note.Author"},
	}
	for _, tc := range tests {
		got, err := s.MessageName(tc.indexes)
		if err != nil || got != tc.name {
			t.Errorf("MessageName(%v) = %q, %v; want %q", tc.indexes, got, err, tc.name)
		}
		back, err := s.MessageIndexes("." + tc.name)
		want := tc.indexes
		if len(want) == 0 {
			want = []int{0}
		}
		if err != nil || !equalInts(back, want) {
			t.Errorf("MessageIndexes(%q) = %v, %v; want %v", tc.name, back, err, want)
		}
	}
	for _, bad := range [][]int{{2}, {-1}, {0, 2}, {1, 0}, {0, 1, 0, 0}} {
		if name, err := s.MessageName(bad); err == nil {
			t.Errorf("MessageName(%v) = %q, want an error", bad, name)
		}
	}
	for _, bad := range []string{"shop.Status", "shop.Order.CountsEntry", "Order", "shop.Missing"} {
		if idx, err := s.MessageIndexes(bad); err == nil {
			t.Errorf("MessageIndexes(%q) = %v, want an error", bad, idx)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

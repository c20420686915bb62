package protobuf_test

import (
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
)

// TestWithTags: tags are added to a nested message's field without
// repeats and to a nested message, an existing (confluent.field_meta) keeps its doc, removing
// every tag of a field leaves no option, and the result parses again to
// the same text.
func TestWithTags(t *testing.T) {
	src := "syntax = \"proto3\";\npackage shop;\nimport \"confluent/meta.proto\";\n" +
		"message Order {\n  message Line {\n    string sku = 1 [(confluent.field_meta) = { doc: \"stock unit\", tags: [\"KEY\"] }];\n  }\n  string email = 2 [(confluent.field_meta).tags = \"PII\"];\n}\n"
	s, err := protobuf.Parse(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.WithTags(
		[]compat.SchemaTags{{Path: "Order.Line.sku", Kind: "SR_FIELD", Tags: []string{"KEY", "STOCK"}}},
		[]compat.SchemaTags{{Path: ".Order.email", Kind: "SR_FIELD", Tags: []string{"PII"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := out.Canonical()
	for _, want := range []string{`doc: "stock unit"`, `tags: ["KEY", "STOCK"]`, "string email = 2;"} {
		if !strings.Contains(text, want) {
			t.Errorf("text does not contain %q:\n%s", want, text)
		}
	}
	again, err := protobuf.Parse(text, nil)
	if err != nil || again.Canonical() != text {
		t.Fatalf("the tagged text does not parse to itself (%v):\n%s", err, text)
	}
	msg, err := s.WithTags([]compat.SchemaTags{{Path: ".Order.Line", Kind: "SR_RECORD", Tags: []string{"LINE"}}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if text := msg.Canonical(); !strings.Contains(text, "option (confluent.message_meta) = {") || !strings.Contains(text, `tags: ["LINE"]`) {
		t.Errorf("the message is not tagged:\n%s", text)
	}
	if _, err := s.WithTags([]compat.SchemaTags{{Path: "Order.total", Kind: "SR_FIELD", Tags: []string{"X"}}}, nil, nil); err == nil ||
		!strings.Contains(err.Error(), "Order.total") {
		t.Errorf("unknown field: err %v", err)
	}
}

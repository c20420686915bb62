package serve_test

import (
	"fmt"
	"testing"

	"github.com/charter-dev/charter/cmd/internal/command/serve"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/compat/protobuf"
)

// TestFormats: `charter serve` parses the three schema types, each with
// the configuration that gives Confluent's verdicts (the zero Formats).
func TestFormats(t *testing.T) {
	got := map[compat.SchemaType]compat.Format{}
	for _, f := range serve.Formats() {
		got[f.Type()] = f
	}
	if len(got) != 3 || got[compat.Avro] == nil || got[compat.Protobuf] == nil || got[compat.JSON] == nil {
		t.Fatalf("Formats() types = %v, want AVRO, PROTOBUF and JSON", keys(got))
	}
	if f, ok := got[compat.Protobuf].(protobuf.Format); !ok || f.Profile != protobuf.ProfileRegistry {
		t.Errorf("Protobuf format = %#v, want protobuf.Format with ProfileRegistry", got[compat.Protobuf])
	}
	if f, ok := got[compat.JSON].(jsonschema.Format); !ok || (f.Policy != "" && f.Policy != jsonschema.Strict) {
		t.Errorf("JSON Schema format = %#v, want jsonschema.Format with the STRICT policy", got[compat.JSON])
	}
}

func keys(m map[compat.SchemaType]compat.Format) []string {
	var out []string
	for k := range m {
		out = append(out, fmt.Sprint(k))
	}
	return out
}

package contracts

import (
	"fmt"
	"os"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
)

// ParseSchemaType reads a --type value: AVRO, PROTOBUF or JSON (any case).
func ParseSchemaType(s string) (compat.SchemaType, error) {
	if t, ok := formats.ParseType(s); ok {
		return t, nil
	}
	return "", fmt.Errorf("unknown schema type %q (want AVRO, PROTOBUF or JSON)", s)
}

// ParseSchema parses schema text of type t with the Charter format of that
// type (compat/formats).
func ParseSchema(text string, t compat.SchemaType) (compat.Schema, error) {
	e, ok := formats.ByType(t)
	if !ok {
		return nil, fmt.Errorf("unknown schema type %q", t)
	}
	return e.Format.Parse(text, nil)
}

// ReadSchemaFile reads and parses a schema file; t "" infers the type from
// the extension (compat/formats: .avsc, .proto, .json; an .avro file holds
// Avro data, not a schema). Errors name the file.
func ReadSchemaFile(path string, t compat.SchemaType) (compat.Schema, error) {
	if t == "" {
		if t = formats.OfFile(path); t == "" {
			return nil, fmt.Errorf("schema %s: cannot tell its type from the extension (use --type AVRO|PROTOBUF|JSON)", path)
		}
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", err)
	}
	s, err := ParseSchema(string(text), t)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", path, err)
	}
	return s, nil
}

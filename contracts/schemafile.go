package contracts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/compat/protobuf"
)

// TypeFromExtension infers a schema file's type from its name: .avsc and
// .avro are AVRO, .proto is PROTOBUF, .json is JSON. ok is false for any
// other extension.
func TypeFromExtension(path string) (t compat.SchemaType, ok bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".avsc", ".avro":
		return compat.Avro, true
	case ".proto":
		return compat.Protobuf, true
	case ".json":
		return compat.JSON, true
	}
	return "", false
}

// ParseSchemaType reads a --type value: AVRO, PROTOBUF or JSON (any case).
func ParseSchemaType(s string) (compat.SchemaType, error) {
	switch t := compat.SchemaType(strings.ToUpper(s)); t {
	case compat.Avro, compat.Protobuf, compat.JSON:
		return t, nil
	}
	return "", fmt.Errorf("unknown schema type %q (want AVRO, PROTOBUF or JSON)", s)
}

// ParseSchema parses schema text of type t with the Charter format of that
// type.
func ParseSchema(text string, t compat.SchemaType) (compat.Schema, error) {
	var f compat.Format
	switch t {
	case compat.Avro:
		f = avro.Format{}
	case compat.Protobuf:
		f = protobuf.Format{}
	case compat.JSON:
		f = jsonschema.Format{}
	default:
		return nil, fmt.Errorf("unknown schema type %q", t)
	}
	return f.Parse(text, nil)
}

// ReadSchemaFile reads and parses a schema file; t "" infers the type from
// the extension. Errors name the file.
func ReadSchemaFile(path string, t compat.SchemaType) (compat.Schema, error) {
	if t == "" {
		var ok bool
		if t, ok = TypeFromExtension(path); !ok {
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

package global

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry/client"
)

// SchemaInput is a schema file and the flags that describe it, as
// `charter register` and `charter lookup` take them.
type SchemaInput struct {
	Type      string
	Refs      []string
	Metadata  string
	RuleSet   string
	Normalize bool
}

// SchemaTypeValues are the values of --type (SchemaInput.AddFlags).
var SchemaTypeValues = []string{"avro", "protobuf", "json"}

// AddFlags registers --type, --ref, --metadata, --rule-set and
// --normalize on fs.
func (in *SchemaInput) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&in.Type, "type", "", "schema format: avro, protobuf or json (default: by extension, "+extensions()+")")
	fs.StringArrayVar(&in.Refs, "ref", nil, "reference NAME=SUBJECT:VERSION (VERSION a number or latest), as the schema names it: an Avro full name, a Protobuf import path or a JSON Schema $ref (repeatable)")
	fs.StringVar(&in.Metadata, "metadata", "", "file with the data-contract metadata, a JSON object {\"tags\": …, \"properties\": …}")
	fs.StringVar(&in.RuleSet, "rule-set", "", "file with the data-contract ruleSet, a JSON object {\"migrationRules\": […], \"domainRules\": […]}")
	fs.BoolVar(&in.Normalize, "normalize", false, "compare and store the normalized form of the schema")
}

// Read reads file and the flags into what the registry takes.
func (in *SchemaInput) Read(file string) (client.NewSchema, error) {
	var s client.NewSchema
	t, err := schemaType(in.Type, file)
	if err != nil {
		return s, err
	}
	text, err := os.ReadFile(file)
	if err != nil {
		return s, fmt.Errorf("read schema: %w", err)
	}
	s.Type, s.Text = t, string(text)
	for _, r := range in.Refs {
		ref, err := ParseRef(r)
		if err != nil {
			return s, err
		}
		s.References = append(s.References, ref)
	}
	if in.Metadata != "" {
		s.Metadata = new(client.Metadata)
		if err := readJSONFile(in.Metadata, "--metadata", s.Metadata); err != nil {
			return s, err
		}
	}
	if in.RuleSet != "" {
		s.RuleSet = new(client.RuleSet)
		if err := readJSONFile(in.RuleSet, "--rule-set", s.RuleSet); err != nil {
			return s, err
		}
	}
	return s, nil
}

// ReadOptions returns the client options the flags ask for.
func (in *SchemaInput) ReadOptions() []client.ReadOption {
	if in.Normalize {
		return []client.ReadOption{client.Normalize()}
	}
	return nil
}

// schemaType is --type, else the format of file's extension.
func schemaType(flag, file string) (compat.SchemaType, error) {
	if flag == "" {
		t := formats.OfFile(file)
		if t == "" {
			return "", fmt.Errorf("cannot tell the format of %s from its extension: pass --type avro, protobuf or json", file)
		}
		return t, nil
	}
	if t, ok := formats.ParseType(flag); ok {
		return t, nil
	}
	return "", fmt.Errorf("invalid --type %q: want avro, protobuf or json", flag)
}

// extensions lists the schema file extensions, as --type's help gives
// them: ".avsc .proto .json".
func extensions() string {
	var exts []string
	for _, e := range formats.All() {
		exts = append(exts, e.Extensions...)
	}
	return strings.Join(exts, " ")
}

// ParseRef reads NAME=SUBJECT:VERSION; VERSION is a number or "latest".
// The version is after the last colon, so subjects with colons work.
func ParseRef(s string) (client.Reference, error) {
	name, rest, ok := strings.Cut(s, "=")
	i := strings.LastIndexByte(rest, ':')
	if !ok || name == "" || i <= 0 || i == len(rest)-1 {
		return client.Reference{}, fmt.Errorf("invalid --ref %q: want NAME=SUBJECT:VERSION, e.g. acme.Customer=customer-value:1", s)
	}
	subject, v := rest[:i], rest[i+1:]
	if v == "latest" {
		return client.Reference{Name: name, Subject: subject, Version: client.Latest}, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return client.Reference{}, fmt.Errorf("invalid --ref %q: version %q is not a number ≥ 1 or latest", s, v)
	}
	return client.Reference{Name: name, Subject: subject, Version: n}, nil
}

// ParseVersion reads a version argument: a number ≥ 1, or "latest" (or
// -1) for client.Latest.
func ParseVersion(s string) (int, error) {
	if s == "latest" || s == "-1" {
		return client.Latest, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("invalid version %q: want a number ≥ 1 or latest", s)
	}
	return n, nil
}

// readJSONFile decodes a JSON object from path into v, refusing unknown
// fields.
func readJSONFile(path, flag string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s %s: %v", flag, path, err)
	}
	return nil
}

// ReadRawJSONObject reads a file holding one JSON object, for config
// fields kept raw (defaultMetadata and the like).
func ReadRawJSONObject(path, flag string) (json.RawMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, fmt.Errorf("%s %s: want a JSON object: %v", flag, path, err)
	}
	return json.RawMessage(bytes.TrimSpace(b)), nil
}

// Package formats is Charter's one table of schema formats: for each
// schema type, its schema file extensions, its parser and checker (a
// [compat.Format]) and its rule table. The registry, charter check,
// contracts, upcast and the tests take their formats from here, so that a
// new format is added in one place.
//
// Package compat cannot list its formats itself (they import it), hence
// this sub-package.
//
// .avro is not a schema extension: it is the Avro object container file,
// which holds data (with the writer's schema in its header). Avro schemas
// are .avsc files.
package formats

import (
	"fmt"
	"path"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/compat/protobuf"
	"github.com/charter-dev/charter/compat/rule"
)

// Entry is one schema format.
type Entry struct {
	// Type is the Confluent schemaType: AVRO, PROTOBUF or JSON.
	Type compat.SchemaType
	// Title names the format for people: Avro, Protobuf, JSON Schema.
	Title string
	// Extensions are the extensions of schema files in this format, lower
	// case with the dot, the usual one first.
	Extensions []string
	// Format parses and checks schemas with Confluent Schema Registry's
	// verdicts (Protobuf's CONFLUENT profile, JSON Schema's STRICT
	// policy). It is a [compat.Profiled] when the format's rules come in
	// profiles.
	Format compat.Format
	// Rules lists the format's compatibility rules.
	Rules func() []rule.Rule
}

// Name is the lower-case name of the type, as flags and charter.yaml
// spell it: avro, protobuf, json.
func (e Entry) Name() string { return strings.ToLower(string(e.Type)) }

// Profiles lists the names of the format's rule profiles, the default
// first; nil when it has none.
func (e Entry) Profiles() []string {
	if p, ok := e.Format.(compat.Profiled); ok {
		return p.Profiles()
	}
	return nil
}

var all = []Entry{
	{Type: compat.Avro, Title: "Avro", Extensions: []string{".avsc"}, Format: avro.Format{}, Rules: avro.Rules},
	{Type: compat.Protobuf, Title: "Protobuf", Extensions: []string{".proto"}, Format: protobuf.Format{}, Rules: protobuf.Rules},
	{Type: compat.JSON, Title: "JSON Schema", Extensions: []string{".json"}, Format: jsonschema.Format{}, Rules: jsonschema.Rules},
}

// All returns every format: Avro (Confluent's default type), Protobuf,
// JSON Schema.
func All() []Entry {
	out := make([]Entry, len(all))
	for i, e := range all {
		e.Extensions = append([]string(nil), e.Extensions...)
		out[i] = e
	}
	return out
}

// Formats returns the Format of every entry of All, for
// registry.NewService.
func Formats() []compat.Format {
	out := make([]compat.Format, len(all))
	for i, e := range all {
		out[i] = e.Format
	}
	return out
}

// ByType returns the format of a schema type.
func ByType(t compat.SchemaType) (Entry, bool) {
	for _, e := range All() {
		if e.Type == t {
			return e, true
		}
	}
	return Entry{}, false
}

// ParseType returns the schema type a name gives, in any case ("avro",
// "PROTOBUF", "Json"); ok is false for any other name.
func ParseType(name string) (compat.SchemaType, bool) {
	for _, e := range all {
		if strings.EqualFold(string(e.Type), name) {
			return e.Type, true
		}
	}
	return "", false
}

// ByExtension returns the format whose schema files have the extension ext
// (with the dot, any case: ".avsc", ".PROTO").
func ByExtension(ext string) (Entry, bool) {
	for _, e := range All() {
		for _, x := range e.Extensions {
			if strings.EqualFold(x, ext) {
				return e, true
			}
		}
	}
	return Entry{}, false
}

// OfFile returns the schema type a file name's extension gives, "" when
// no format has that extension.
func OfFile(name string) compat.SchemaType {
	e, _ := ByExtension(path.Ext(name))
	return e.Type
}

// Lookup returns the Format of type t checking with the named rule profile
// ("" is the format's default; see Entry.Profiles). Errors: an unknown
// type, or a profile the format does not have.
func Lookup(t compat.SchemaType, profile string) (compat.Format, error) {
	e, ok := ByType(t)
	if !ok {
		return nil, fmt.Errorf("unknown schema type %q", t)
	}
	return compat.WithProfile(e.Format, profile)
}

// Package avro is Charter's Avro format for package compat: it parses Avro
// schemas, renders their stored (Canonical) and normalized text, and checks
// whether a reader schema can read data written with a writer schema.
//
// Parsing validates with github.com/hamba/avro/v2 (each Parse uses its own
// hamba SchemaCache, so two versions of one record never collide) and builds
// Charter's own order-preserving model, which Canonical, Normalized and
// CheckRead use.
//
// CheckRead implements the "Schema Resolution" section of the Avro 1.11/1.12
// specification (https://avro.apache.org/docs/1.12.0/specification/#schema-resolution):
// primitive promotions, records matched by simple name or reader alias,
// fields by name or reader field alias, reader defaults, enum symbols and
// enum defaults, fixed size and name, unions on either side, arrays, maps
// and recursive types. On logical types Charter is stricter than Java and
// Python Avro (and so Confluent), which ignore them: see the rules
// AVRO_DECIMAL_SCALE_MISMATCH, AVRO_DECIMAL_PRECISION_NARROWED and
// AVRO_LOGICAL_TYPE_MISMATCH in [Rules].
//
// Where the specification leaves room, Charter decides as follows (each
// choice is pinned by a test):
//   - a type alias without a dot is relative to its type's namespace (as
//     the specification says; Python Avro 1.11 does not qualify it);
//   - a reader union reads a writer type with the branch of the same type
//     and full name if there is one, otherwise with the first branch that
//     matches (the specification's first-match rule; hamba, and Java's
//     checker, accept any branch that resolves);
//   - a reader field takes the writer field of its own name before one
//     named by its aliases.
//
// Violation paths: ".a.b" for record fields (reader field names), "[]" for
// array items, "{}" for map values, "<T>" for a union branch where T is the
// branch's type name (full name for records, enums and fixeds; "int",
// "array", "map"… otherwise), "." for the root. For example
// ".lines[].price<bytes>". [Schema.Fields] lists the fields of a schema
// with the same paths, for governance (tags, deprecation, PII).
package avro

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	hamba "github.com/hamba/avro/v2"

	"github.com/charter-dev/charter/compat"
)

// Format is the Avro [compat.Format]. The zero value is ready to use and
// safe for concurrent use.
type Format struct{}

var _ compat.Format = Format{}

// Type returns compat.Avro.
func (Format) Type() compat.SchemaType { return compat.Avro }

// Schema is a parsed Avro schema. It is immutable and safe for concurrent
// use.
type Schema struct {
	root       *node
	hamba      hamba.Schema
	canonical  string
	normalized string
	api        func() hamba.API // sync.OnceValue: s's own frozen hamba config
	resolved   func() string    // sync.OnceValue: Resolved
}

var _ compat.Schema = (*Schema)(nil)

// Type returns compat.Avro.
func (*Schema) Type() compat.SchemaType { return compat.Avro }

// Canonical returns the schema text as Java Avro's Schema.toString() writes
// it (the text Confluent stores and serves): compact, keys in Java's order,
// namespaces written only where they change, defaults, doc, aliases, order
// and every custom property kept, types from references referred to by
// name.
func (s *Schema) Canonical() string { return s.canonical }

// Normalized returns Canonical with meaning-preserving differences removed
// (used for normalize=true): full names everywhere, a fixed key order,
// sorted aliases and property keys, and "order":"ascending" and a decimal's
// "scale":0 dropped since they are the defaults. Types from references stay
// references (not inlined), as in Canonical.
func (s *Schema) Normalized() string { return s.normalized }

// Resolved returns Canonical with the named types of references defined
// at their first use instead of referred to by name: one self-contained
// schema, as Java Avro's Schema.toString() writes a schema parsed with its
// references (Confluent's ?format=resolved).
func (s *Schema) Resolved() string {
	if s.resolved == nil { // not from Parse
		return canonicalText(s.root, nil)
	}
	return s.resolved()
}

// Hamba returns the schema as parsed by github.com/hamba/avro/v2, for
// encoding and decoding data. Encode and decode it with [Schema.API], never
// with hamba's package-level functions (see there).
func (s *Schema) Hamba() hamba.Schema { return s.hamba }

// API returns a hamba configuration frozen for this schema alone, for
// encoding and decoding data with s.Hamba(): s.API().Marshal(s.Hamba(), v).
//
// hamba caches the encoders and decoders it builds in the frozen config,
// keyed by the schema's fingerprint: its Parsing Canonical Form, which
// leaves out field defaults, enum defaults, doc, aliases, order and custom
// properties (for a schema resolved against a writer, the key adds the
// writer's fingerprint and the top-level record's defaults only). So with
// hamba's shared DefaultConfig (hamba.Marshal, hamba.Unmarshal, a Reader or
// Writer made without a config), two schemas that differ only in a
// default share one encoder, and what a process encodes depends on which
// schema it saw first: a record field missing from a map value is filled
// with the other schema's default, or refused as required. A config per
// parsed schema holds only that schema's own codecs. Passing it any other
// schema (one resolved from s, say) brings the shared-cache problem back:
// use a config of its own for that, such as [FreshAPI] or [UncachedAPI].
func (s *Schema) API() hamba.API {
	if s.api == nil { // not from Parse
		return FreshAPI()
	}
	return s.api()
}

// FreshAPI returns a new frozen hamba configuration with hamba's default
// settings and an empty cache, for one schema (see [Schema.API]).
func FreshAPI() hamba.API { return hamba.Config{}.Freeze() }

// UncachedAPI is hamba's default configuration with its encoder and
// decoder caches disabled: each call builds its codec afresh, so it is
// correct for any schema and meant for paths that are not hot (see
// [Schema.API]).
var UncachedAPI = hamba.Config{DisableCaching: true}.Freeze()

// Parse parses Avro schema text. deps are the schemas it references
// (Confluent schema references), in dependency order; their named types may
// be used by name in text. The error is one line: invalid JSON (with line
// and column), an invalid schema, or a failing reference.
func (Format) Parse(text string, deps []compat.Dependency) (compat.Schema, error) {
	s, err := Parse(text, deps)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Parse is Format.Parse returning the concrete *Schema.
func Parse(text string, deps []compat.Dependency) (*Schema, error) {
	root, known, hs, err := parseModel(text, deps)
	if err != nil {
		return nil, err
	}
	return &Schema{
		root:       root,
		hamba:      hs,
		canonical:  canonicalText(root, known),
		normalized: normalizedText(root, known),
		api:        sync.OnceValue(FreshAPI),
		resolved:   sync.OnceValue(func() string { return canonicalText(root, nil) }),
	}, nil
}

// parseModel parses text with deps into its model: the root, the named
// types the references define (known) and hamba's schema.
func parseModel(text string, deps []compat.Dependency) (*node, map[*node]bool, hamba.Schema, error) {
	b := newBuilder()
	cache := &hamba.SchemaCache{}
	for _, d := range deps {
		if _, _, err := parseOne(b, cache, d.Text); err != nil {
			return nil, nil, nil, fmt.Errorf("reference %q: %w", d.Name, err)
		}
	}
	known := make(map[*node]bool, len(b.defined))
	for _, n := range b.defined {
		known[n] = true
		// Lines count in the schema text; a referenced schema's fields
		// are declared elsewhere.
		for _, f := range n.fields {
			f.line = 0
		}
	}
	root, hs, err := parseOne(b, cache, text)
	if err != nil {
		return nil, nil, nil, err
	}
	return root, known, hs, nil
}

// parseOne reads one schema text into b's names and cache.
func parseOne(b *builder, cache *hamba.SchemaCache, text string) (*node, hamba.Schema, error) {
	v, err := parseJSON(text)
	if err != nil {
		return nil, nil, err
	}
	root, err := b.buildTop(v)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid Avro schema: %s", oneLine(err.Error()))
	}
	hs, err := hambaParse(text, cache)
	if err != nil {
		return nil, nil, fmt.Errorf("invalid Avro schema: %s", oneLine(strings.TrimPrefix(err.Error(), "avro: ")))
	}
	return root, hs, nil
}

// hambaParse calls hamba/avro, turning a panic into an error.
func hambaParse(text string, cache *hamba.SchemaCache) (s hamba.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("schema parser failed: %v", r)
		}
	}()
	s, err = hamba.ParseWithCache(text, "", cache)
	if err == nil && s == nil {
		err = errors.New("schema parser returned no schema")
	}
	return s, err
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// CheckRead reports every reason why data written with writer cannot be
// read with reader (see the package documentation for paths and [Rules]
// for rule IDs). Both must come from this package's Parse; any other
// schema yields one AVRO_TYPE_MISMATCH violation at ".".
func (Format) CheckRead(reader, writer compat.Schema) []compat.Violation {
	r, ok1 := reader.(*Schema)
	w, ok2 := writer.(*Schema)
	if !ok1 || !ok2 || r == nil || w == nil || r.root == nil || w.root == nil {
		return []compat.Violation{{
			RuleID:  RuleTypeMismatch,
			Path:    ".",
			Message: "both schemas must be Avro schemas parsed by compat/avro",
		}}
	}
	return checkRead(r.root, w.root)
}

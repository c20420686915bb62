package compat

// Field is one field of a parsed schema, in the format-neutral shape that
// governance works on: PII detection, deprecation, reserved names, the
// changelog, contract verification and lineage all read Fields, so each is
// written once for every format (DESIGN.md, "The one abstraction everything
// shares").
type Field struct {
	// Path locates the field from the schema's root in dotted form, the
	// same syntax as Violation.Path: ".shipment.carrier.code"; array items
	// add "[]", map values "{}". A field reachable through several paths
	// (a named type used twice) appears once per path.
	Path string `json:"path"`
	// Name is the field's own name (the last path element).
	Name string `json:"name"`
	// FullName is the name Confluent's data-contract rules give the
	// field, which metadata.tags path globs are matched against: the
	// declaring record's full name and the field name in Avro
	// ("com.acme.Customer.ssn"), the field descriptor's full name in
	// Protobuf ("acme.v1.Customer.ssn"), "$" and the property names in
	// JSON Schema ("$.customer.ssn"). Paths through one named type share
	// its fields' FullNames, so FullName identifies the declaration.
	FullName string `json:"fullName,omitempty"`
	// Type is the field's type as the format spells it: "string",
	// "com.acme.Address", "array", "int64", "object" …
	Type string `json:"type"`
	// Required is true when data must carry the field: no default in
	// Avro, proto2 `required`, listed in JSON Schema `required`.
	Required bool `json:"required,omitempty"`
	// HasDefault is true when a reader can fill the field when it is
	// absent (Avro default, JSON Schema default; every proto3 field).
	HasDefault bool `json:"hasDefault,omitempty"`
	// Doc is the field's documentation (Avro doc, JSON Schema
	// description, Protobuf leading comment) when the format keeps it.
	Doc string `json:"doc,omitempty"`
	// Tags are the field's inline tags: Avro and JSON Schema
	// "confluent:tags", Protobuf (confluent.field_meta).tags. Sorted,
	// without duplicates.
	Tags []string `json:"tags,omitempty"`
	// Deprecated is true when the schema marks the field deprecated
	// (Avro "deprecated" property, JSON Schema "deprecated": true, the
	// Protobuf `deprecated` option).
	Deprecated bool `json:"deprecated,omitempty"`
	// Props holds the field's other string annotations (custom Avro
	// properties, JSON Schema extension keywords, confluent.field_meta
	// params) for policies that look for markers such as masking.
	Props map[string]string `json:"props,omitempty"`
	// Line is the 1-based line of the field's declaration in the schema
	// text, 0 when unknown.
	Line int `json:"line,omitempty"`
}

// FieldLister is implemented by a Schema whose format can list its fields.
// Every Charter format implements it.
type FieldLister interface {
	// Fields returns every field of the schema, depth first in
	// declaration order. Recursive types are listed once per path up to
	// the first repetition of a named type on the path.
	Fields() []Field
}

// Fields returns the fields of s, or nil when its format cannot list them.
func Fields(s Schema) []Field {
	if fl, ok := s.(FieldLister); ok {
		return fl.Fields()
	}
	return nil
}

// Package protobuf is Charter's Protocol Buffers format for package compat:
// it parses .proto files, renders their stored (Canonical) and normalized
// text, and checks whether a reader schema can read data written with a
// writer schema.
//
// A subject's schema is one .proto file. Parsing and linking use
// github.com/bufbuild/protocompile; imports resolve, in this order, to the
// schema's references ([compat.Dependency], Name = import path), to
// Confluent's confluent/meta.proto and confluent/type/decimal.proto
// (embedded, Apache-2.0, see include/NOTICE.md) and to the standard
// google/protobuf/*.proto files shipped with protoc.
//
// # Compatibility rules
//
// CheckRead compares two files element by element: messages and enums by
// their name relative to the file's package (".Order.Line"), fields by
// number, enum values by number. Which rules run is chosen by the Format's
// [Profile]:
//
//   - [ProfileRegistry] (the zero value) gives Confluent Schema Registry's
//     verdicts (its Protobuf SchemaDiff): the rules named after Confluent's
//     incompatible change types (PROTO_MESSAGE_REMOVED,
//     PROTO_FIELD_KIND_CHANGED, ...), plus PROTO_REQUIRED_FIELD_* on label
//     changes, which Confluent does not look at.
//   - [ProfileRegistryJSON] adds the rules of the protobuf JSON mapping
//     (field and enum value names), which Confluent treats as compatible.
//   - [ProfileWire] and [ProfileWireJSON] reproduce buf's WIRE and WIRE_JSON
//     breaking-change categories (buf v1.75, configuration v2).
//
// A subject selects a profile by name ([ProfileNames]: CONFLUENT, the
// default, WIRE or WIRE_JSON) in the registry's governance policy
// (protobufProfile) and in charter.yaml (protobuf_profile);
// [Format.WithProfile] returns the Format of a name.
//
// Paths: "." for the file, ".Msg" or ".Outer.Inner" for a message (names
// relative to the package), ".Msg.field" for a field (the reader's field name,
// or the writer's when the reader has no field with that number), ".Msg.oneof"
// for a oneof, ".Enum.VALUE" for an enum value. When a check follows a field
// into a message type defined in an import, the path continues through the
// field name: ".Order.customer.email". Field and enum numbers are never part
// of a path; messages give them in parentheses: field "email" (3).
// [Schema.Fields] lists a file's fields with the same paths, for governance
// (tags, deprecation, PII).
//
// # Message indexes
//
// [Schema.MessageName] and [Schema.MessageIndexes] translate between a
// message's full name and the message indexes of Confluent's wire format
// ([0] for the first message of the file, [1, 0] for the first message nested
// in the second one). Map entry messages, which do not appear in .proto text,
// are not counted, as in Confluent's Java serializers.
package protobuf

import (
	"github.com/charter-dev/charter/compat"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Format is the Protobuf [compat.Format]. The zero value checks with
// [ProfileRegistry]. It is safe for concurrent use.
type Format struct {
	// Profile selects the rule set CheckRead applies; the zero value is
	// ProfileRegistry.
	Profile Profile
}

var (
	_ compat.Format   = Format{}
	_ compat.Profiled = Format{}
)

// Profiles returns [ProfileNames].
func (Format) Profiles() []string { return ProfileNames() }

// WithProfile returns f checking with the profile of a name of
// [ProfileNames] ("" is CONFLUENT).
func (f Format) WithProfile(name string) (compat.Format, error) {
	p, err := ProfileByName(name)
	if err != nil {
		return nil, err
	}
	f.Profile = p
	return f, nil
}

// Type returns compat.Protobuf.
func (Format) Type() compat.SchemaType { return compat.Protobuf }

// Parse parses a .proto file with its references (see the package
// documentation). The error is one line, with file:line:column when the
// parser gives a position.
func (Format) Parse(text string, deps []compat.Dependency) (compat.Schema, error) {
	s, err := Parse(text, deps)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// CheckRead reports every reason, among the rules of f.Profile, why data
// written with writer cannot be read with reader. Both must come from this
// package's Parse; any other schema yields one PROTO_MESSAGE_REMOVED
// violation at ".".
func (f Format) CheckRead(reader, writer compat.Schema) []compat.Violation {
	r, ok1 := reader.(*Schema)
	w, ok2 := writer.(*Schema)
	if !ok1 || !ok2 || r == nil || w == nil || r.fd == nil || w.fd == nil {
		return []compat.Violation{{
			RuleID:  RuleMessageRemoved,
			Path:    ".",
			Message: "both schemas must be Protobuf schemas parsed by compat/protobuf",
		}}
	}
	rules, ok := profiles[f.Profile]
	if !ok {
		rules = profiles[ProfileRegistry]
	}
	return checkRead(rules, r.fd, w.fd)
}

// Schema is a parsed .proto file. It is immutable and safe for concurrent
// use.
type Schema struct {
	fd         protoreflect.FileDescriptor
	canonical  string
	normalized string
	// src holds the declaration line and comment of fields, read from
	// the syntax trees before they are dropped (see Fields).
	src map[protoreflect.FullName]fieldSource
	// serialized is set when the schema was sent as a base64
	// FileDescriptorProto.
	serialized bool
	printed    printed
}

var _ compat.Schema = (*Schema)(nil)

// Type returns compat.Protobuf.
func (*Schema) Type() compat.SchemaType { return compat.Protobuf }

// Canonical returns the file re-printed from its syntax tree: comments and
// whitespace dropped, one declaration per line, two-space indentation,
// string literals re-quoted and number literals in decimal. Everything else
// is kept as written, in source order (names as qualified in the source,
// option syntax, empty statements dropped). Files that differ only in
// whitespace, comments, quoting or number notation have equal Canonical
// text, which is valid .proto text.
func (s *Schema) Canonical() string { return s.canonical }

// Normalized returns the file re-printed from its linked descriptor so
// that semantically equal files are equal: explicit syntax, imports sorted,
// options sorted by name (one per line, message values in text format),
// type references fully qualified (".pkg.Msg"), fields in number order with
// each oneof at its first member's place, enum values in number order,
// reserved ranges merged and sorted, reserved names sorted, enums, services
// and methods sorted by name, json_name written only where it differs from
// the default. Messages keep their declaration order, because Confluent's
// wire format names a message by its index in the file. The text is valid
// .proto text.
func (s *Schema) Normalized() string { return s.normalized }

// Descriptor returns the linked file descriptor, for encoding and decoding
// data.
func (s *Schema) Descriptor() protoreflect.FileDescriptor { return s.fd }

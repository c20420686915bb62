// Package compat decides whether a new schema may follow earlier ones.
//
// It is format-neutral: each schema language (Avro first; Protobuf and JSON
// Schema later) supplies a [Format] that parses schema text and reports, for a
// reader and a writer schema, every [Violation] that stops the reader from
// decoding data written with the writer. Compatibility levels (BACKWARD,
// FORWARD, FULL and their transitive forms) are computed here from those
// reader/writer checks, once for every format.
//
// compat knows nothing of HTTP, storage or policy; arrows point into it.
package compat

import "fmt"

// SchemaType names a schema language as the Confluent API spells it.
type SchemaType string

// Schema types accepted by the registry (Confluent `schemaType`).
const (
	Avro     SchemaType = "AVRO"
	Protobuf SchemaType = "PROTOBUF"
	JSON     SchemaType = "JSON"
)

// Dependency is a schema that the schema being parsed refers to, already
// resolved to its text. Name is the reference name used in the referring
// schema (the Avro full name, the Protobuf import path, the JSON Schema $ref
// URL). Dependencies are given in dependency order: a dependency's own
// dependencies come before it.
type Dependency struct {
	Name string
	Text string
}

// Schema is a parsed schema of one format.
type Schema interface {
	// Type is the schema's language.
	Type() SchemaType
	// Canonical is the schema's stored text: compact, stable for equal
	// input, keeping everything that changes how data is read (defaults,
	// aliases, doc and custom properties included). Two registrations with
	// equal Canonical text and references get the same schema ID.
	Canonical() string
	// Normalized is Canonical with semantically irrelevant differences
	// removed as well (key order, name qualification); used when the
	// client asks for normalize=true.
	Normalized() string
}

// Format is one schema language: a parser and a reader/writer checker.
type Format interface {
	// Type is the language this Format handles.
	Type() SchemaType
	// Parse parses schema text with its resolved dependencies. The error
	// says what is wrong in one line (with position when the parser has it).
	Parse(text string, deps []Dependency) (Schema, error)
	// CheckRead reports every reason why data written with writer cannot
	// be read with reader. An empty result means reader can read writer.
	// Both schemas come from this Format's Parse.
	CheckRead(reader, writer Schema) []Violation
}

// Violation is one difference that breaks reading, with a stable rule ID,
// the field path where it occurs (e.g. ".shipment.carrier.code") and a
// one-line message a person can act on.
type Violation struct {
	RuleID  string `json:"ruleId"`
	Path    string `json:"path"`
	Message string `json:"message"`
	// Undecided marks a violation that says the format could not decide
	// (a bound on its work was reached), not that reading breaks. It
	// refuses all the same: a limit never widens a verdict to
	// compatible. The registry answers it with its own error rather than
	// as an incompatibility.
	Undecided bool `json:"undecided,omitempty"`
}

func (v Violation) String() string {
	return fmt.Sprintf("%s at %s: %s", v.RuleID, v.Path, v.Message)
}

package compat

// SchemaTags are tags to add to or remove from one element of a schema,
// as Confluent's SchemaTags (an entity and its tags) name them: Path is
// the element's path in the schema and Kind its entity type, "SR_FIELD"
// for a field or "SR_RECORD" for a record (a Protobuf message).
type SchemaTags struct {
	Path string
	Kind string
	Tags []string
}

// Tagger is a Schema whose elements' tags can be edited in its text (an
// optional capability, found by type assertion). WithTags returns the
// schema with add's tags added, then remove's removed, parsed again with
// deps; an element that is not in the schema, or a kind the format does
// not tag, is an error.
type Tagger interface {
	WithTags(add, remove []SchemaTags, deps []Dependency) (Schema, error)
}

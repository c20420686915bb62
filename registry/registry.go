// Package registry is Charter's schema registry domain: subjects, versions,
// schema IDs (one ID space per schema context, context.go), compatibility
// config, modes and references, with the semantics of Confluent Schema
// Registry.
//
// Persistence sits behind the narrow [Store] interface; backends live in
// sub-packages (registry/sqlite, registry/postgres) and all pass the
// same suite in registry/storetest.
//
// Governance (Charter issue 4) lives beside it: ownership, policies,
// deprecations with TTLs and extensions, tags, PII dismissals, removed
// fields, semantic versions and the audit log, kept through the optional
// [GovernanceTx] part of a transaction and evaluated on every registration
// by the pure policy engine of package registry/governance, with the time
// of an injected clock ([WithClock]) and the actor of the request's
// context ([WithActor]).
package registry

import (
	"encoding/json"

	"github.com/charter-dev/charter/compat"
)

// Reference points from a schema to another registered schema that it uses
// (Confluent `references` entry). Name is how the referring schema text names
// the dependency: an Avro full name, a Protobuf import path or a JSON Schema
// $ref URL.
type Reference struct {
	Name    string `json:"name"`
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// Schema is a stored schema: immutable once created and identified by its
// ID in its context. The same Fingerprint always maps to the same ID in a
// context.
type Schema struct {
	// Context is the schema's context, whose ID space ID is in: "" for the
	// default one (see ContextOf). ID and Fingerprint are unique within it.
	Context    string            `json:"-"`
	ID         int64             `json:"id"`
	Type       compat.SchemaType `json:"schemaType"`
	Text       string            `json:"schema"`
	References []Reference       `json:"references,omitempty"`
	// Metadata and RuleSet are Confluent data-contract objects, kept as the
	// client sent them (normalised JSON). Nil when absent.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	RuleSet  json.RawMessage `json:"ruleSet,omitempty"`
	// Fingerprint identifies the schema's content: type, text, references,
	// metadata and ruleSet. Computed by the service, unique in the store.
	Fingerprint string `json:"-"`
}

// SubjectVersion binds a schema ID to version n of a subject. Deleted marks a
// soft delete: the version is hidden from listings and compatibility checks
// but its schema ID stays resolvable.
type SubjectVersion struct {
	Subject  string `json:"subject"`
	Version  int    `json:"version"`
	SchemaID int64  `json:"id"`
	Deleted  bool   `json:"deleted,omitempty"`
}

// Mode controls which writes a subject (or the whole registry) accepts.
type Mode string

// Modes, as in Confluent Schema Registry. READWRITE is the default.
const (
	ModeReadWrite        Mode = "READWRITE"
	ModeReadOnly         Mode = "READONLY"
	ModeReadOnlyOverride Mode = "READONLY_OVERRIDE"
	ModeImport           Mode = "IMPORT"
)

// Config is the compatibility configuration of a subject or of the whole
// registry (subject ""). Pointer and empty fields mean "not set here", so
// subject config falls back to the global one field by field.
type Config struct {
	Compatibility  compat.Level `json:"compatibilityLevel,omitempty"`
	Normalize      *bool        `json:"normalize,omitempty"`
	ValidateFields *bool        `json:"validateFields,omitempty"`
	// ValidateNewSchemas and ValidateRules are kept and answered, as
	// Confluent's Config does, and have no effect: Charter validates
	// every new schema and every rule.
	ValidateNewSchemas *bool  `json:"validateNewSchemas,omitempty"`
	ValidateRules      *bool  `json:"validateRules,omitempty"`
	CompatibilityGroup string `json:"compatibilityGroup,omitempty"`
	Alias              string `json:"alias,omitempty"`
	// AliasForDeks, when set, is the subject whose DEKs the DEK routes of
	// this subject use, before Alias (Confluent's AliasFilter).
	AliasForDeks     string          `json:"aliasForDeks,omitempty"`
	DefaultMetadata  json.RawMessage `json:"defaultMetadata,omitempty"`
	OverrideMetadata json.RawMessage `json:"overrideMetadata,omitempty"`
	DefaultRuleSet   json.RawMessage `json:"defaultRuleSet,omitempty"`
	OverrideRuleSet  json.RawMessage `json:"overrideRuleSet,omitempty"`
}

package pii

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat"
)

// Metadata is a Confluent data-contract Metadata object as registered with
// a schema version: {"tags": {glob: [tag…]}, "properties": {k: v},
// "sensitive": [property…]}.
type Metadata struct {
	// Tags maps a path glob (see MatchGlob) to the tags it gives every
	// field whose full name it matches.
	Tags map[string][]string `json:"tags,omitempty"`
	// Properties are free-form key/value pairs (owner, major version…).
	Properties map[string]string `json:"properties,omitempty"`
	// Sensitive names properties whose values are secret.
	Sensitive []string `json:"sensitive,omitempty"`
}

// ParseMetadata decodes a Confluent Metadata JSON object. Empty input and
// JSON null give the zero Metadata; anything else that is not an object
// of that shape is an error.
func ParseMetadata(raw []byte) (Metadata, error) {
	var md Metadata
	if isEmptyJSON(raw) {
		return md, nil
	}
	if err := json.Unmarshal(raw, &md); err != nil {
		return Metadata{}, fmt.Errorf("parse metadata: %w", err)
	}
	return md, nil
}

// RuleSet is a Confluent data-contract RuleSet: domain rules (run on
// every read or write), migration rules (run between versions) and
// encoding rules (run on the serialized bytes).
type RuleSet struct {
	MigrationRules []Rule `json:"migrationRules,omitempty"`
	DomainRules    []Rule `json:"domainRules,omitempty"`
	EncodingRules  []Rule `json:"encodingRules,omitempty"`
}

// Rule is one Confluent data-contract rule. Kind is CONDITION or
// TRANSFORM; Mode is UPGRADE, DOWNGRADE, UPDOWN, WRITE, READ or WRITEREAD;
// Type names the executor (ENCRYPT, CEL, CEL_FIELD, JSONATA …); Tags
// restrict a field-level rule to fields carrying one of them (none: every
// field).
type Rule struct {
	Name      string            `json:"name"`
	Doc       string            `json:"doc,omitempty"`
	Kind      string            `json:"kind,omitempty"`
	Mode      string            `json:"mode,omitempty"`
	Type      string            `json:"type,omitempty"`
	Tags      []string          `json:"tags,omitempty"`
	Params    map[string]string `json:"params,omitempty"`
	Expr      string            `json:"expr,omitempty"`
	OnSuccess string            `json:"onSuccess,omitempty"`
	OnFailure string            `json:"onFailure,omitempty"`
	Disabled  bool              `json:"disabled,omitempty"`
}

// ParseRuleSet decodes a Confluent RuleSet JSON object. Empty input and
// JSON null give the zero RuleSet.
func ParseRuleSet(raw []byte) (RuleSet, error) {
	var rs RuleSet
	if isEmptyJSON(raw) {
		return rs, nil
	}
	if err := json.Unmarshal(raw, &rs); err != nil {
		return RuleSet{}, fmt.Errorf("parse ruleSet: %w", err)
	}
	return rs, nil
}

func isEmptyJSON(raw []byte) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// ConfluentName returns the name that metadata.tags globs are matched
// against: f.FullName, which each format sets to the name Confluent's rule
// executors give the field. Charter paths map to it as follows:
//
//	Avro      .customer.contact.phone      → shop.contact.Contact.phone (declaring record's full name + field)
//	Protobuf  .Order.customer.email        → acme.common.Customer.email (field descriptor's full name)
//	JSON      .customer.addresses[].street → $.customer.addresses.street ("$", property names; no [] or {})
//
// A field without FullName falls back to "$" and its path without the
// "[]", "{}" and "<T>" segments.
func ConfluentName(f compat.Field) string {
	if f.FullName != "" {
		return f.FullName
	}
	var b strings.Builder
	b.WriteByte('$')
	p := f.Path
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '[', '{':
			if i+1 < len(p) {
				i++ // "[]" or "{}"
			}
		case '<':
			if j := strings.IndexByte(p[i:], '>'); j >= 0 {
				i += j
			}
		default:
			b.WriteByte(p[i])
		}
	}
	return b.String()
}

// TagResolver gives fields their effective tags under one Metadata, with
// its globs compiled once. The zero value resolves inline tags only. It is
// safe for concurrent use.
type TagResolver struct {
	globs []taggedGlob
}

type taggedGlob struct {
	g    glob
	tags []string
}

// NewTagResolver compiles md.Tags.
func NewTagResolver(md Metadata) *TagResolver {
	keys := make([]string, 0, len(md.Tags))
	for k := range md.Tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	r := &TagResolver{globs: make([]taggedGlob, 0, len(keys))}
	for _, k := range keys {
		r.globs = append(r.globs, taggedGlob{g: compileGlob(k), tags: md.Tags[k]})
	}
	return r
}

// Tags returns f's effective tags: its inline tags and the tags of every
// metadata.tags glob that matches ConfluentName(f), sorted, without
// duplicates or empty strings (Confluent data contracts, "Tags", the
// union of inline and external tags).
func (r *TagResolver) Tags(f compat.Field) []string {
	var out []string
	for _, t := range f.Tags {
		if t != "" {
			out = append(out, t)
		}
	}
	if r != nil && len(r.globs) > 0 {
		name := ConfluentName(f)
		for _, g := range r.globs {
			if g.g.match(name) {
				for _, t := range g.tags {
					if t != "" {
						out = append(out, t)
					}
				}
			}
		}
	}
	if len(out) > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// EffectiveTags returns f's inline tags united with the tags md.Tags gives
// it (see TagResolver.Tags).
func EffectiveTags(f compat.Field, md Metadata) []string {
	return NewTagResolver(md).Tags(f)
}

// ResolveTags returns a copy of fields whose Tags are their effective tags
// under md. The input is not modified.
func ResolveTags(fields []compat.Field, md Metadata) []compat.Field {
	r := NewTagResolver(md)
	out := make([]compat.Field, len(fields))
	for i, f := range fields {
		f.Tags = r.Tags(f)
		out[i] = f
	}
	return out
}

// hasAnyTag reports whether tags and want share a tag, compared without
// regard to case (Confluent compares exactly; Charter errs towards seeing
// a field as tagged when a team writes "pii" for "PII").
func hasAnyTag(tags, want []string) bool {
	for _, t := range tags {
		for _, w := range want {
			if strings.EqualFold(t, w) {
				return true
			}
		}
	}
	return false
}

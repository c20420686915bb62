package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat"
)

// SchemaByID returns the schema with ID id in context schemaCtx ("" the
// default one; GET /schemas/ids/{id}). IDs stay resolvable after their
// versions are soft deleted, so consumers can still decode old data; once
// every version holding it is permanently deleted the ID is forgotten.
// Errors: 40403 unknown or forgotten ID.
func (s *Service) SchemaByID(ctx context.Context, schemaCtx string, id int64) (Schema, error) {
	var out Schema
	err := s.view(ctx, "get schema by id", func(tx Tx) error {
		st, err := storedSchema(ctx, tx, SchemaKey{Context: schemaCtx, ID: id})
		out = st
		return err
	})
	return out, err
}

// storedSchema returns schema k, or 40403. The store holds only schemas
// that a subject version (soft-deleted included) holds: the permanent
// delete of the last one deletes the schema (forgetOrphans), as in
// Confluent.
func storedSchema(ctx context.Context, tx Tx, k SchemaKey) (Schema, error) {
	st, err := tx.SchemaByID(ctx, k.Context, k.ID)
	if errors.Is(err, ErrNotFound) {
		return Schema{}, errSchemaNotFound(k.ID)
	}
	if err != nil {
		return Schema{}, fmt.Errorf("get schema %d: %w", k.ID, err)
	}
	return st, nil
}

// hasVersions reports whether any subject version, soft-deleted
// included, holds schema k.
func hasVersions(ctx context.Context, tx Tx, k SchemaKey) (bool, error) {
	vs, err := tx.Versions(ctx, VersionQuery{SchemaID: k.ID, Context: k.Context, IncludeDeleted: true})
	if err != nil {
		return false, fmt.Errorf("list versions of schema %d: %w", k.ID, err)
	}
	return len(vs) > 0, nil
}

// MaxSchemaID returns the largest schema ID ever stored in context
// schemaCtx ("" the default one), forgotten ones included, 0 when none
// (fetchMaxId; it never goes down, as in Confluent).
func (s *Service) MaxSchemaID(ctx context.Context, schemaCtx string) (int64, error) {
	var out int64
	err := s.view(ctx, "get max schema id", func(tx Tx) error {
		var err error
		out, err = tx.MaxSchemaID(ctx, schemaCtx)
		return err
	})
	return out, err
}

// VersionsOfID returns the subject versions bound to schema id of context
// schemaCtx (GET /schemas/ids/{id}/versions), restricted to subject when
// it is not "", soft-deleted ones only with includeDeleted. Errors: 40403
// unknown ID.
func (s *Service) VersionsOfID(ctx context.Context, schemaCtx string, id int64, subject string, includeDeleted bool) ([]SubjectVersion, error) {
	var out []SubjectVersion
	err := s.view(ctx, "get versions of schema id", func(tx Tx) error {
		if _, err := storedSchema(ctx, tx, SchemaKey{Context: schemaCtx, ID: id}); err != nil {
			return err
		}
		vs, err := tx.Versions(ctx, VersionQuery{SchemaID: id, Context: schemaCtx, Subject: subject, IncludeDeleted: includeDeleted})
		if err != nil {
			return fmt.Errorf("list versions of schema %d: %w", id, err)
		}
		out = vs
		return nil
	})
	return out, err
}

// SubjectsOfID returns the subjects that hold schema id (GET
// /schemas/ids/{id}/subjects), sorted, with the same filters as
// VersionsOfID. Errors: 40403 unknown ID.
func (s *Service) SubjectsOfID(ctx context.Context, schemaCtx string, id int64, subject string, includeDeleted bool) ([]string, error) {
	vs, err := s.VersionsOfID(ctx, schemaCtx, id, subject, includeDeleted)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, v := range vs {
		if len(out) == 0 || out[len(out)-1] != v.Subject {
			out = append(out, v.Subject)
		}
	}
	return out, nil
}

// SubjectQuery selects subjects for GET /subjects.
type SubjectQuery struct {
	// Prefix selects subjects as Confluent's subjectPrefix does (see
	// subjectPrefix): AllContexts keeps every context's, "" the default
	// context's, ":.ctx:" those of .ctx.
	Prefix string
	// Deleted also lists subjects whose versions are all soft-deleted.
	Deleted bool
	// DeletedOnly lists only those (it wins over Deleted).
	DeletedOnly bool
}

// Subjects returns subject names sorted (GET /subjects). A subject is live
// while it has a live version.
func (s *Service) Subjects(ctx context.Context, q SubjectQuery) ([]string, error) {
	out := []string{}
	err := s.view(ctx, "list subjects", func(tx Tx) error {
		prefix, keep := subjectPrefix(q.Prefix)
		vs, err := tx.Versions(ctx, VersionQuery{SubjectPrefix: prefix, IncludeDeleted: q.Deleted || q.DeletedOnly})
		if err != nil {
			return fmt.Errorf("list versions: %w", err)
		}
		liveSubjects := map[string]bool{}
		var names []string
		for _, v := range vs {
			if !keep(v.Subject) {
				continue
			}
			if len(names) == 0 || names[len(names)-1] != v.Subject {
				names = append(names, v.Subject)
			}
			if !v.Deleted {
				liveSubjects[v.Subject] = true
			}
		}
		for _, n := range names {
			if q.DeletedOnly && liveSubjects[n] {
				continue
			}
			out = append(out, n)
		}
		return nil
	})
	return out, err
}

// SubjectVersionsQuery selects versions for SubjectVersions.
type SubjectVersionsQuery struct {
	// Deleted includes soft-deleted versions.
	Deleted bool
	// DeletedOnly returns only soft-deleted versions (wins over Deleted).
	DeletedOnly bool
}

// SubjectVersions returns the versions of subject, ascending (GET
// /subjects/{s}/versions). Errors: 40401 when the subject has no versions,
// or only soft-deleted ones and neither Deleted nor DeletedOnly is set.
func (s *Service) SubjectVersions(ctx context.Context, subject string, q SubjectVersionsQuery) ([]SubjectVersion, error) {
	var out []SubjectVersion
	err := s.view(ctx, "list versions", func(tx Tx) error {
		subject, err := resolveAlias(ctx, tx, subject)
		if err != nil {
			return err
		}
		vs, err := subjectVersions(ctx, tx, subject)
		if err != nil {
			return err
		}
		out = []SubjectVersion{}
		for _, v := range vs {
			switch {
			case q.DeletedOnly:
				if v.Deleted {
					out = append(out, v)
				}
			case q.Deleted || !v.Deleted:
				out = append(out, v)
			}
		}
		if len(vs) == 0 || (len(out) == 0 && !q.DeletedOnly) {
			return errSubjectNotFound(subject)
		}
		return nil
	})
	return out, err
}

// Version returns version n of subject (Latest for the highest) with its
// schema (GET /subjects/{s}/versions/{v}). Soft-deleted versions are found
// only with includeDeleted. The subject's owner, when recorded, shows in
// the metadata properties (governance.PropOwner …) unless the schema's
// own metadata sets them. Errors: 40401 the subject has no (live)
// versions; 40402 no such version.
func (s *Service) Version(ctx context.Context, subject string, n int, includeDeleted bool) (SubjectSchema, error) {
	var out SubjectSchema
	err := s.view(ctx, "get version", func(tx Tx) error {
		subject, err := resolveAlias(ctx, tx, subject)
		if err != nil {
			return err
		}
		v, err := lookupVersion(ctx, tx, subject, n, includeDeleted)
		if err != nil {
			return err
		}
		st, err := storedSchema(ctx, tx, v.Key())
		if err != nil {
			return err
		}
		out = SubjectSchema{Subject: subject, Version: v.Version, Deleted: v.Deleted, Schema: st}
		return withOwnerView(ctx, tx, &out)
	})
	return out, err
}

// lookupVersion finds version n of subject, with Confluent's errors.
func lookupVersion(ctx context.Context, tx Tx, subject string, n int, includeDeleted bool) (SubjectVersion, error) {
	vs, err := subjectVersions(ctx, tx, subject)
	if err != nil {
		return SubjectVersion{}, err
	}
	if !includeDeleted {
		vs = live(vs)
	}
	if len(vs) == 0 {
		return SubjectVersion{}, errSubjectNotFound(subject)
	}
	v, ok := findVersion(vs, n, includeDeleted)
	if !ok {
		return SubjectVersion{}, errVersionNotFound(subject, n)
	}
	return v, nil
}

// ReferencedBy returns the IDs of schemas that reference version n of
// subject, ascending (GET /subjects/{s}/versions/{v}/referencedby). Only
// schemas that still have a live version count (a soft-deleted referrer no
// longer blocks deletes), unless includeDeleted. A referrer of another
// context is listed by its ID in its own context, as Confluent's
// getReferencedBy lists it (an ID held in several contexts is listed
// once). Errors: as Version.
func (s *Service) ReferencedBy(ctx context.Context, subject string, n int, includeDeleted bool) ([]int64, error) {
	var out []int64
	err := s.view(ctx, "get referencedby", func(tx Tx) error {
		subject, err := resolveAlias(ctx, tx, subject)
		if err != nil {
			return err
		}
		v, err := lookupVersion(ctx, tx, subject, n, true)
		if err != nil {
			return err
		}
		keys, err := referrers(ctx, tx, v.Subject, v.Version, includeDeleted)
		out = referrerIDs(keys)
		return err
	})
	return out, err
}

// referrerIDs returns the IDs of keys, ascending, each once.
func referrerIDs(keys []SchemaKey) []int64 {
	out := []int64{}
	for _, k := range keys {
		out = append(out, k.ID)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// referrers returns the schemas, of any context, with a version (live,
// or any with includeDeleted) that reference (subject, version), ordered
// by ID, then context.
func referrers(ctx context.Context, tx Tx, subject string, version int, includeDeleted bool) ([]SchemaKey, error) {
	keys, err := tx.ReferencedBy(ctx, subject, version)
	if err != nil {
		return nil, fmt.Errorf("list references to %q version %d: %w", subject, version, err)
	}
	out := []SchemaKey{}
	for _, k := range keys {
		vs, err := tx.Versions(ctx, VersionQuery{SchemaID: k.ID, Context: k.Context, IncludeDeleted: includeDeleted})
		if err != nil {
			return nil, fmt.Errorf("list versions of schema %d of context %q: %w", k.ID, ContextName(k.Context), err)
		}
		if len(vs) > 0 {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID != out[j].ID {
			return out[i].ID < out[j].ID
		}
		return out[i].Context < out[j].Context
	})
	return out, nil
}

// SchemaQuery selects subject versions for GET /schemas.
type SchemaQuery struct {
	// SubjectPrefix selects subjects as SubjectQuery.Prefix does: ""
	// the default context's, AllContexts every context's.
	SubjectPrefix string
	// Deleted includes soft-deleted versions.
	Deleted bool
	// LatestOnly keeps the highest listed version of each subject.
	LatestOnly bool
	// Aliases also lists the subjects that an alias starting with
	// SubjectPrefix names (each subject once).
	Aliases bool
	// RuleType, when set, keeps the versions whose ruleSet has a rule of
	// that type (after LatestOnly, as Confluent filters).
	RuleType string
}

// Schemas returns subject versions with their schemas, ordered by subject
// then version (GET /schemas).
func (s *Service) Schemas(ctx context.Context, q SchemaQuery) ([]SubjectSchema, error) {
	out := []SubjectSchema{}
	err := s.view(ctx, "list schemas", func(tx Tx) error {
		prefix, keep := subjectPrefix(q.SubjectPrefix)
		want := prefix
		var aliased map[string]bool
		if q.Aliases {
			byTarget, err := subjectAliases(ctx, tx)
			if err != nil {
				return err
			}
			aliased = map[string]bool{}
			for target, names := range byTarget {
				for _, n := range names {
					if strings.HasPrefix(n, q.SubjectPrefix) {
						aliased[target] = true
					}
				}
			}
			if len(aliased) > 0 {
				prefix = ""
			}
		}
		vs, err := tx.Versions(ctx, VersionQuery{SubjectPrefix: prefix, IncludeDeleted: q.Deleted})
		if err != nil {
			return fmt.Errorf("list versions: %w", err)
		}
		kept := vs[:0:0]
		for _, v := range vs {
			if (strings.HasPrefix(v.Subject, want) && keep(v.Subject)) || aliased[v.Subject] {
				kept = append(kept, v)
			}
		}
		vs = kept
		if q.LatestOnly {
			latest := vs[:0:0]
			for i, v := range vs {
				if i+1 == len(vs) || vs[i+1].Subject != v.Subject {
					latest = append(latest, v)
				}
			}
			vs = latest
		}
		byID := map[SchemaKey]Schema{}
		for _, v := range vs {
			st, ok := byID[v.Key()]
			if !ok {
				st, err = storedSchema(ctx, tx, v.Key())
				if err != nil {
					return err
				}
				byID[v.Key()] = st
			}
			if q.RuleType != "" && !hasRuleOfType(st.RuleSet, q.RuleType) {
				continue
			}
			out = append(out, SubjectSchema{Subject: v.Subject, Version: v.Version, Deleted: v.Deleted, Schema: st})
		}
		return nil
	})
	return out, err
}

// hasRuleOfType reports whether ruleSet has a domain, migration or
// encoding rule of type typ (Confluent's RuleSet.hasRulesWithType).
func hasRuleOfType(ruleSet json.RawMessage, typ string) bool {
	var rs map[string][]struct {
		Type string `json:"type"`
	}
	if len(ruleSet) == 0 || json.Unmarshal(ruleSet, &rs) != nil {
		return false
	}
	for _, list := range []string{"domainRules", "migrationRules", "encodingRules"} {
		for _, r := range rs[list] {
			if r.Type == typ {
				return true
			}
		}
	}
	return false
}

// SubjectAliases returns, for each subject that some subject's config
// names as its alias target, those alias subjects sorted (GET
// /schemas?aliases=true lists them with the target's schemas).
func (s *Service) SubjectAliases(ctx context.Context) (map[string][]string, error) {
	var out map[string][]string
	err := s.view(ctx, "list aliases", func(tx Tx) error {
		var err error
		out, err = subjectAliases(ctx, tx)
		return err
	})
	return out, err
}

// subjectAliases is SubjectAliases in tx; a store without config
// listing has none.
func subjectAliases(ctx context.Context, tx Tx) (map[string][]string, error) {
	out := map[string][]string{}
	bt, ok := tx.(BackupTx)
	if !ok {
		return out, nil
	}
	cs, err := bt.Configs(ctx)
	if err != nil {
		return nil, fmt.Errorf("list configs: %w", err)
	}
	for _, c := range cs {
		if c.Subject != "" && c.Config.Alias != "" {
			target := AliasTarget(c.Subject, c.Config.Alias)
			out[target] = append(out[target], c.Subject)
		}
	}
	for _, names := range out {
		sort.Strings(names)
	}
	return out, nil
}

// FormatSerialized and FormatResolved are the values of ?format= that
// change what a read of a schema returns: "serialized" answers a Protobuf
// schema as its base64 FileDescriptorProto; "resolved" answers an Avro
// schema with the named types of its references defined inline (one
// self-contained schema, Confluent's AvroSchema.formattedString). Every
// other value ("", "default", one Charter does not know) and a format the
// schema type does not have (resolved for JSON Schema and Protobuf,
// serialized for Avro and JSON Schema) answers the stored text, as
// Confluent does (its JsonSchema knows no format at all).
const (
	FormatSerialized = "serialized"
	FormatResolved   = "resolved"
)

// FormatChangesText reports whether ?format=format may answer another
// text than the stored one (a cache of stored-text answers must not
// answer it).
func FormatChangesText(format string) bool {
	f := strings.ToLower(format)
	return f == FormatSerialized || f == FormatResolved
}

// serializer is a parsed schema with a serialized form (Protobuf).
type serializer interface{ Serialized() string }

// resolver is a parsed schema with a resolved form (Avro).
type resolver interface{ Resolved() string }

// FormattedText returns st's text as ?format=format asks (see
// FormatSerialized). Errors: a stored schema that no longer parses.
func (s *Service) FormattedText(ctx context.Context, st Schema, format string) (string, error) {
	format = strings.ToLower(format) // Confluent's Format.get lower-cases
	if !FormatChangesText(format) || (format == FormatResolved && (st.Type != compat.Avro || len(st.References) == 0)) {
		return st.Text, nil
	}
	var out string
	err := s.view(ctx, "format schema", func(tx Tx) error {
		p, err := s.parseStored(ctx, tx, st)
		if err != nil {
			return err
		}
		out = st.Text
		if ser, ok := p.(serializer); ok && format == FormatSerialized {
			out = ser.Serialized()
		}
		if res, ok := p.(resolver); ok && format == FormatResolved {
			out = res.Resolved()
		}
		return nil
	})
	return out, err
}

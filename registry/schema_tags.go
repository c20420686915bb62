package registry

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/srerr"
)

// hasSchemaTags reports whether req edits schema tags.
func hasSchemaTags(req RegisterRequest) bool {
	return len(req.TagsToAdd) > 0 || len(req.TagsToRemove) > 0
}

// withSchemaTags returns p with req's tag edits applied (p itself when
// there are none), as Confluent applies schemaTagsToAdd and
// schemaTagsToRemove before a registration, a lookup or a compatibility
// check looks at the schema. A format that does not edit tags, or an
// element the schema does not have, is 42201.
func withSchemaTags(p compat.Schema, req RegisterRequest, deps []compat.Dependency) (compat.Schema, error) {
	if !hasSchemaTags(req) {
		return p, nil
	}
	t, ok := p.(compat.Tagger)
	if !ok {
		return nil, srerr.New(srerr.ErrInvalidSchema,
			"Invalid schema: schemaTagsToAdd and schemaTagsToRemove are not supported for %s schemas yet", p.Type())
	}
	out, err := t.WithTags(req.TagsToAdd, req.TagsToRemove, deps)
	if err != nil {
		return nil, srerr.New(srerr.ErrInvalidSchema, "Invalid schema: %v", err)
	}
	return out, nil
}

// TagSchemaRequest is Confluent's TagSchemaRequest, the body of POST
// /subjects/{s}/versions/{v}/tags: a new version made of version v's
// schema with its tags edited.
type TagSchemaRequest struct {
	// NewVersion is the version number asked for (0: the next one).
	NewVersion int
	// TagsToAdd and TagsToRemove are RegisterRequest's.
	TagsToAdd, TagsToRemove []compat.SchemaTags
	// Metadata replaces version v's when set. RuleSet is the new
	// version's; RulesToMerge (a ruleSet) and RulesToRemove (rule
	// names) edit instead the rule set of the version before NewVersion
	// (the latest when NewVersion is 0).
	Metadata, RuleSet json.RawMessage
	RulesToMerge      json.RawMessage
	RulesToRemove     []string
}

// ModifySchemaTags registers version v of subject again with its tags
// edited, as Confluent's modifySchemaTags (the older API beside
// schemaTagsToAdd on register): the metadata is req's or version v's,
// with confluent:version, which the registration sets to the new
// version's number. Errors are Version's and Register's.
func (s *Service) ModifySchemaTags(ctx context.Context, subject string, v int, req TagSchemaRequest) (SubjectSchema, error) {
	for _, c := range []struct {
		raw      json.RawMessage
		sentinel *srerr.Error
		what     string
	}{{req.Metadata, srerr.ErrInvalidSchema, "metadata"}, {req.RuleSet, srerr.ErrInvalidRuleSet, "ruleSet"}, {req.RulesToMerge, srerr.ErrInvalidRuleSet, "rulesToMerge"}} {
		if err := checkContract(c.raw, c.sentinel, c.what, srerr.ErrInvalidSchema); err != nil {
			return SubjectSchema{}, err
		}
	}
	ss, err := s.Version(ctx, subject, v, false)
	if err != nil {
		return SubjectSchema{}, err
	}
	meta := compactJSON(req.Metadata)
	if meta == nil {
		meta = ss.Schema.Metadata
	}
	rules := req.RuleSet
	if compactJSON(req.RulesToMerge) != nil || len(req.RulesToRemove) > 0 {
		prev := Latest
		if req.NewVersion > 1 {
			prev = req.NewVersion - 1
		}
		var old json.RawMessage
		if ps, err := s.Version(ctx, subject, prev, false); err == nil {
			old = ps.Schema.RuleSet
		}
		rules = withoutRules(mergeRuleSets(old, req.RulesToMerge), req.RulesToRemove)
		if compactJSON(rules) == nil {
			// The modification left no rule: as Confluent's
			// maybeModifyPreviousRuleSet, that is an empty rule set, not
			// "no ruleSet given", which would take the latest version's.
			rules = json.RawMessage(`{}`)
		}
	}
	return s.Register(ctx, subject, RegisterRequest{
		Schema: ss.Schema.Text, Type: ss.Schema.Type, References: ss.Schema.References,
		Metadata: withConfluentVersion(meta, req.NewVersion), RuleSet: rules, Version: req.NewVersion,
		TagsToAdd: req.TagsToAdd, TagsToRemove: req.TagsToRemove, versionAsSent: true,
	})
}

// withoutRules returns ruleSet without the rules named in names.
func withoutRules(ruleSet json.RawMessage, names []string) json.RawMessage {
	m := decodeObject(ruleSet)
	if m == nil || len(names) == 0 {
		return ruleSet
	}
	for _, list := range []string{"migrationRules", "domainRules", "encodingRules"} {
		rules, _ := m[list].([]any)
		kept := rules[:0]
		for _, r := range rules {
			if rm, ok := r.(map[string]any); ok {
				if name, _ := rm["name"].(string); slices.Contains(names, name) {
					continue
				}
			}
			kept = append(kept, r)
		}
		if rules != nil {
			m[list] = kept
		}
	}
	return encodeObject(m, true)
}

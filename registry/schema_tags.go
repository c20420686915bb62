package registry

import (
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

package registry

import (
	"context"
	"encoding/json"

	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// LatestWithMetadata returns the latest version of subject whose
// metadata.properties hold every key/value pair of want (GET
// /subjects/{s}/metadata?key=k&value=v…, the call behind Confluent
// clients' use.latest.with.metadata). The subject's ownership counts as
// properties (see governance.PropOwner). With includeDeleted,
// soft-deleted versions count too. Errors: 40401 the subject has no
// (live) versions; 40403 no version matches.
func (s *Service) LatestWithMetadata(ctx context.Context, subject string, want map[string]string, includeDeleted bool) (SubjectSchema, error) {
	var out SubjectSchema
	err := s.view(ctx, "get latest with metadata", func(tx Tx) error {
		subject, err := resolveAlias(ctx, tx, subject)
		if err != nil {
			return err
		}
		vs, err := subjectVersions(ctx, tx, subject)
		if err != nil {
			return err
		}
		if !includeDeleted {
			vs = live(vs)
		}
		if len(vs) == 0 {
			return errSubjectNotFound(subject)
		}
		owner, err := ownerProperties(ctx, tx, subject)
		if err != nil {
			return err
		}
	versions:
		for i := len(vs) - 1; i >= 0; i-- {
			st, err := storedSchema(ctx, tx, vs[i].Key())
			if err != nil {
				return err
			}
			st.Metadata = withOwner(st.Metadata, owner)
			for k, v := range want {
				if got, ok := metadataProperty(st.Metadata, k); !ok || got != v {
					continue versions
				}
			}
			out = SubjectSchema{Subject: subject, Version: vs[i].Version, Deleted: vs[i].Deleted, Schema: st}
			return nil
		}
		return srerr.New(srerr.ErrSchemaNotFound, "No version of subject '%s' has metadata properties %v", subject, want)
	})
	return out, err
}

// ownerProperties returns the metadata properties that expose the owner
// of subject, nil when it has none (or the store keeps no governance).
func ownerProperties(ctx context.Context, tx Tx, subject string) (map[string]string, error) {
	g, ok := tx.(GovernanceTx)
	if !ok {
		return nil, nil
	}
	var o governance.Owner
	found, err := getRecord(ctx, g, kindOwner, subject, "", &o)
	if err != nil || !found {
		return nil, err
	}
	props := map[string]string{governance.PropOwner: o.Team, governance.PropOwnerContact: o.Contact}
	if o.Description != "" {
		props[governance.PropOwnerDescription] = o.Description
	}
	return props, nil
}

// withOwner returns metadata with the owner properties added where the
// metadata does not set them itself. The stored schema is unchanged: the
// properties are a view, not part of the schema's identity.
func withOwner(meta json.RawMessage, owner map[string]string) json.RawMessage {
	if len(owner) == 0 {
		return meta
	}
	m := decodeObject(meta)
	if m == nil {
		m = map[string]any{}
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	for k, v := range owner {
		if _, set := props[k]; !set {
			props[k] = v
		}
	}
	m["properties"] = props
	b, err := json.Marshal(m)
	if err != nil {
		return meta
	}
	return b
}

// withOwnerView adds subject's owner properties to the metadata of ss.
func withOwnerView(ctx context.Context, tx Tx, ss *SubjectSchema) error {
	owner, err := ownerProperties(ctx, tx, ss.Subject)
	if err != nil {
		return err
	}
	ss.Schema.Metadata = withOwner(ss.Schema.Metadata, owner)
	return nil
}

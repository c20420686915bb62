package api

import (
	"encoding/json"
	"net/http"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
)

// schemaRequest is Confluent's RegisterSchemaRequest, the body of
// register, lookup and compatibility calls. propagateSchemaTags, which
// Charter does not act on yet, is accepted so that clients sending it are
// not refused.
type schemaRequest struct {
	Schema              string               `json:"schema"`
	SchemaType          string               `json:"schemaType"`
	References          []registry.Reference `json:"references"`
	Metadata            json.RawMessage      `json:"metadata"`
	RuleSet             json.RawMessage      `json:"ruleSet"`
	ID                  *int64               `json:"id"`
	Version             *int                 `json:"version"`
	SchemaTagsToAdd     []schemaTags         `json:"schemaTagsToAdd"`
	SchemaTagsToRemove  []schemaTags         `json:"schemaTagsToRemove"`
	PropagateSchemaTags *bool                `json:"propagateSchemaTags"`
}

// schemaTags is Confluent's SchemaTags: an entity of a schema and tags.
type schemaTags struct {
	Entity struct {
		EntityPath string `json:"entityPath"`
		EntityType string `json:"entityType"`
	} `json:"entity"`
	Tags []string `json:"tags"`
}

func toSchemaTags(in []schemaTags) []compat.SchemaTags {
	var out []compat.SchemaTags
	for _, t := range in {
		out = append(out, compat.SchemaTags{Path: t.Entity.EntityPath, Kind: t.Entity.EntityType, Tags: t.Tags})
	}
	return out
}

func (q schemaRequest) toService(r *http.Request) registry.RegisterRequest {
	out := registry.RegisterRequest{
		Schema:       q.Schema,
		Type:         compat.SchemaType(q.SchemaType),
		References:   q.References,
		Metadata:     q.Metadata,
		RuleSet:      q.RuleSet,
		Normalize:    boolParam(r, "normalize"),
		TagsToAdd:    toSchemaTags(q.SchemaTagsToAdd),
		TagsToRemove: toSchemaTags(q.SchemaTagsToRemove),
	}
	if q.ID != nil && *q.ID > 0 {
		out.ID = *q.ID
	}
	if q.Version != nil && *q.Version > 0 {
		out.Version = *q.Version
	} else if q.Version != nil && *q.Version < 0 {
		out.Version = registry.Latest
	}
	return out
}

// schemaEntity is Confluent's Schema entity: one version of a subject.
type schemaEntity struct {
	Subject    string               `json:"subject"`
	Version    int                  `json:"version"`
	ID         int64                `json:"id"`
	SchemaType compat.SchemaType    `json:"schemaType"`
	References []registry.Reference `json:"references,omitempty"`
	Metadata   json.RawMessage      `json:"metadata,omitempty"`
	RuleSet    json.RawMessage      `json:"ruleSet,omitempty"`
	Schema     string               `json:"schema"`
	Deleted    bool                 `json:"deleted,omitempty"`
	// Aliases is set by GET /schemas?aliases=true only (Confluent's
	// ExtendedSchema).
	Aliases []string `json:"aliases,omitempty"`
}

func toEntity(ss registry.SubjectSchema) schemaEntity {
	return schemaEntity{
		Subject:    ss.Subject,
		Version:    ss.Version,
		ID:         ss.Schema.ID,
		SchemaType: ss.Schema.Type,
		References: ss.Schema.References,
		Metadata:   ss.Schema.Metadata,
		RuleSet:    ss.Schema.RuleSet,
		Schema:     ss.Schema.Text,
		Deleted:    ss.Deleted,
	}
}

// listSubjects: GET /subjects?subjectPrefix&deleted&deletedOnly&offset&limit.
func (s *server) listSubjects(w http.ResponseWriter, r *http.Request) {
	p, err := pageParams(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	// Confluent's default is the context wildcard (every context's
	// subjects, qualified); an empty prefix is the default context's.
	prefix := registry.AllContexts
	if q := r.URL.Query(); q.Has("subjectPrefix") {
		prefix = q.Get("subjectPrefix")
	}
	subjects, err := s.svc.Subjects(r.Context(), registry.SubjectQuery{
		Prefix:      prefix,
		Deleted:     boolParam(r, "deleted"),
		DeletedOnly: boolParam(r, "deletedOnly"),
	})
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, paginate(subjects, p))
}

// register: POST /subjects/{subject}/versions?normalize → {"id": N}.
// Governance warnings and notices come in Charter-Finding headers and the
// semantic version in Charter-Semver (findingHeaders).
func (s *server) register(w http.ResponseWriter, r *http.Request) {
	var req schemaRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	ss, err := s.svc.Register(r.Context(), r.PathValue("subject"), req.toService(r))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	findingHeaders(w, ss)
	writeJSON(w, http.StatusOK, struct {
		ID int64 `json:"id"`
	}{ss.Schema.ID})
}

// tagSchemaRequest is Confluent's TagSchemaRequest.
type tagSchemaRequest struct {
	NewVersion    *int            `json:"newVersion"`
	TagsToAdd     []schemaTags    `json:"tagsToAdd"`
	TagsToRemove  []schemaTags    `json:"tagsToRemove"`
	Metadata      json.RawMessage `json:"metadata"`
	RuleSet       json.RawMessage `json:"ruleSet"`
	RulesToMerge  json.RawMessage `json:"rulesToMerge"`
	RulesToRemove []string        `json:"rulesToRemove"`
}

// modifySchemaTags: POST /subjects/{subject}/versions/{version}/tags →
// {"id": N}: the version registered again with its tags edited, as a new
// version (headers as register).
func (s *server) modifySchemaTags(w http.ResponseWriter, r *http.Request) {
	v, err := version(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	var req tagSchemaRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	tr := registry.TagSchemaRequest{TagsToAdd: toSchemaTags(req.TagsToAdd), TagsToRemove: toSchemaTags(req.TagsToRemove),
		Metadata: req.Metadata, RuleSet: req.RuleSet, RulesToMerge: req.RulesToMerge, RulesToRemove: req.RulesToRemove}
	if req.NewVersion != nil && *req.NewVersion > 0 {
		tr.NewVersion = *req.NewVersion
	}
	ss, err := s.svc.ModifySchemaTags(r.Context(), r.PathValue("subject"), v, tr)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	findingHeaders(w, ss)
	writeJSON(w, http.StatusOK, struct {
		ID int64 `json:"id"`
	}{ss.Schema.ID})
}

// lookupSchema: POST /subjects/{subject}?normalize&deleted&format → Schema
// entity (format as getVersion).
func (s *server) lookupSchema(w http.ResponseWriter, r *http.Request) {
	var req schemaRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	ss, err := s.svc.Lookup(r.Context(), r.PathValue("subject"), req.toService(r), boolParam(r, "deleted"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	e := toEntity(ss)
	if e.Schema, err = s.svc.FormattedText(r.Context(), ss.Schema, r.URL.Query().Get("format")); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, e)
}

// deleteSubject: DELETE /subjects/{subject}?permanent → [versions].
func (s *server) deleteSubject(w http.ResponseWriter, r *http.Request) {
	vs, err := s.svc.DeleteSubject(r.Context(), r.PathValue("subject"), boolParam(r, "permanent"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, vs)
}

// listVersions: GET /subjects/{subject}/versions?deleted&deletedOnly&
// deletedAsNegative&offset&limit → [1, 2, …]; with deletedAsNegative,
// soft-deleted versions are listed too, negated.
func (s *server) listVersions(w http.ResponseWriter, r *http.Request) {
	p, err := pageParams(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	negative := boolParam(r, "deletedAsNegative")
	vs, err := s.svc.SubjectVersions(r.Context(), r.PathValue("subject"), registry.SubjectVersionsQuery{
		Deleted:     boolParam(r, "deleted") || negative,
		DeletedOnly: boolParam(r, "deletedOnly"),
	})
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out := make([]int, len(vs))
	for i, v := range vs {
		out[i] = v.Version
		if negative && v.Deleted {
			out[i] = -v.Version
		}
	}
	writeJSON(w, http.StatusOK, paginate(out, p))
}

// version parses the {version} path segment (42202 when invalid).
func version(r *http.Request) (int, error) {
	return registry.ParseVersion(r.PathValue("version"))
}

// getVersion: GET /subjects/{subject}/versions/{version}?deleted&format.
func (s *server) getVersion(w http.ResponseWriter, r *http.Request) {
	ss, err := s.subjectVersion(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	e := toEntity(ss)
	e.References = referencesAs(r, ss.Schema.Context, e.References)
	if e.Schema, err = s.svc.FormattedText(r.Context(), ss.Schema, r.URL.Query().Get("format")); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, e)
}

// getVersionSchema: GET /subjects/{subject}/versions/{version}/schema →
// the schema text itself (format as getVersion).
func (s *server) getVersionSchema(w http.ResponseWriter, r *http.Request) {
	ss, err := s.subjectVersion(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	text, err := s.svc.FormattedText(r.Context(), ss.Schema, r.URL.Query().Get("format"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeRaw(w, http.StatusOK, []byte(text))
}

func (s *server) subjectVersion(r *http.Request) (registry.SubjectSchema, error) {
	v, err := version(r)
	if err != nil {
		return registry.SubjectSchema{}, err
	}
	return s.svc.Version(r.Context(), r.PathValue("subject"), v, boolParam(r, "deleted"))
}

// deleteVersion: DELETE /subjects/{subject}/versions/{version}?permanent
// → the version number.
func (s *server) deleteVersion(w http.ResponseWriter, r *http.Request) {
	v, err := version(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	n, err := s.svc.DeleteVersion(r.Context(), r.PathValue("subject"), v, boolParam(r, "permanent"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, n)
}

// referencedBy: GET /subjects/{subject}/versions/{version}/referencedby
// ?deleted&offset&limit → [schema ids].
func (s *server) referencedBy(w http.ResponseWriter, r *http.Request) {
	p, err := pageParams(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	v, err := version(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	ids, err := s.svc.ReferencedBy(r.Context(), r.PathValue("subject"), v, boolParam(r, "deleted"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, paginate(ids, p))
}

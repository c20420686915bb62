package api

import (
	"net/http"
	"strings"

	"github.com/charter-dev/charter/registry"
)

// schemaKey returns the schema a by-ID route names: the {id} path
// segment in the context that ?subject= selects (registry.Service.IDContext:
// the default context without it; the /contexts/{ctx} prefix sets it to
// ":ctx:"). Errors: a plain 404 for a non-numeric ID, 40403 for an ID no
// schema can have or one that a qualified subject does not hold.
func (s *server) schemaKey(r *http.Request) (registry.SchemaKey, error) {
	id, err := parseID(r)
	if err != nil {
		return registry.SchemaKey{}, err
	}
	c, err := s.svc.IDContext(r.Context(), id, r.URL.Query().Get("subject"))
	if err != nil {
		return registry.SchemaKey{}, err
	}
	return registry.SchemaKey{Context: c, ID: id}, nil
}

// subjectFilter returns the subject that GET /schemas/ids/{id}/subjects
// and /versions keep to: ?subject= qualified in key's context, or ""
// (keep all) when it is absent or names a context alone (":.ctx:").
func subjectFilter(r *http.Request, key registry.SchemaKey) string {
	subject := registry.NormalizeSubject(r.URL.Query().Get("subject"))
	if registry.SubjectName(subject) == "" {
		return ""
	}
	if strings.HasPrefix(subject, ":.") {
		return subject
	}
	return registry.QualifyIn(key.Context, subject)
}

// referencesAs returns refs as ?referenceFormat= asks: "qualified" names
// each subject qualified in schemaCtx, the schema's context, as
// Confluent's SchemasResource and SubjectVersionsResource do for a schema
// outside the default context; anything else answers refs as stored.
func referencesAs(r *http.Request, schemaCtx string, refs []registry.Reference) []registry.Reference {
	if schemaCtx == "" || len(refs) == 0 || r.URL.Query().Get("referenceFormat") != "qualified" {
		return refs
	}
	out := make([]registry.Reference, len(refs))
	for i, ref := range refs {
		out[i] = ref
		out[i].Subject = registry.QualifyIn(schemaCtx, ref.Subject)
	}
	return out
}

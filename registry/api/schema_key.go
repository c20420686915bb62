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

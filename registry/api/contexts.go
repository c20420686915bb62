package api

import (
	"net/http"
	"strings"
)

// contexts: GET /contexts?contextPrefix&offset&limit → the contexts that
// exist, "." (the default one) first, then by name (registry.Service.Contexts);
// contextPrefix keeps those starting with it (case-sensitive, as
// Confluent's).
func (s *server) contexts(w http.ResponseWriter, r *http.Request) {
	p, err := pageParams(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	all, err := s.svc.Contexts(r.Context())
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	prefix := r.URL.Query().Get("contextPrefix")
	out := []string{}
	for _, c := range all {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	writeJSON(w, http.StatusOK, paginate(out, p))
}

// deleteContext: DELETE /contexts/{context} → 204 without a body, as
// Confluent's ContextsResource.deleteContext (registry.Service.DeleteContext).
// A context with versions left is 42211, an unknown one (or the default
// one) 40401.
func (s *server) deleteContext(w http.ResponseWriter, r *http.Request) {
	if err := s.svc.DeleteContext(r.Context(), r.PathValue("context")); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	w.Header().Set("Content-Type", ContentType)
	w.WriteHeader(http.StatusNoContent)
}

package api

import (
	"net/http"

	"github.com/charter-dev/charter/registry/srerr"
)

// compatibilityResponse is Confluent's CompatibilityCheckResponse;
// messages only with verbose=true and an incompatible schema.
type compatibilityResponse struct {
	IsCompatible bool     `json:"is_compatible"`
	Messages     []string `json:"messages,omitempty"`
	// Evidence answers verbose=true&evidence=true (Charter's own).
	Evidence *evidenceResponse `json:"evidence,omitempty"`
}

// checkCompatibility: POST /compatibility/subjects/{subject}/versions[/{version}]
// ?verbose&normalize → {"is_compatible": …, "messages": […]}. Without a
// version the schema is checked as register would check it. With
// verbose=true&evidence=true the answer also carries "evidence" (see
// checkEvidence): generated events read across the change, within
// evidenceTimeout.
func (s *server) checkCompatibility(w http.ResponseWriter, r *http.Request) {
	v := 0
	if r.PathValue("version") != "" {
		var err error
		if v, err = version(r); err != nil {
			writeError(w, r, s.log, err)
			return
		}
	}
	var req schemaRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	res, err := s.svc.CheckCompatibility(r.Context(), r.PathValue("subject"), v, req.toService(r))
	if code, _, msg := srerr.Code(err); err != nil && code == srerr.ErrInvalidSchema.Code && boolParam(r, "verbose") {
		// An invalid schema is a verbose check's message, not an error, as
		// Confluent's CompatibilityResource answers it
		// (RestApiTest.testSchemaNormalization).
		writeJSON(w, http.StatusOK, compatibilityResponse{IsCompatible: false, Messages: []string{msg}})
		return
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out := compatibilityResponse{IsCompatible: res.Compatible}
	if boolParam(r, "verbose") {
		out.Messages = res.Messages
		if boolParam(r, "evidence") {
			out.Evidence = s.checkEvidence(r, v, req, res)
		}
	}
	writeJSON(w, http.StatusOK, out)
}

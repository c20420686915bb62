package api

import (
	"encoding/json"
	"net/http"

	"github.com/charter-dev/charter/registry/dek"
	"github.com/charter-dev/charter/registry/srerr"
)

// dekPrefix is where the DEK registry lives, as on Confluent's server.
const dekPrefix = "/dek-registry/v1/keks"

// keyRoutes registers the DEK registry (Confluent's DekRegistryResource;
// registry/dek has its semantics).
func (s *server) keyRoutes(mux *router) {
	mux.HandleFunc("GET "+dekPrefix, s.listKeks)
	mux.HandleFunc("POST "+dekPrefix, s.createKek)
	mux.HandleFunc("GET "+dekPrefix+"/{name}", s.getKek)
	mux.HandleFunc("PUT "+dekPrefix+"/{name}", s.putKek)
	mux.HandleFunc("DELETE "+dekPrefix+"/{name}", s.deleteKek)
	mux.HandleFunc("POST "+dekPrefix+"/{name}/undelete", s.undeleteKek)
	mux.HandleFunc("POST "+dekPrefix+"/{name}/test", s.testKek)
	mux.HandleFunc("GET "+dekPrefix+"/{name}/deks", s.listDekSubjects)
	mux.HandleFunc("POST "+dekPrefix+"/{name}/deks", s.createDek)
	mux.HandleFunc("GET "+dekPrefix+"/{name}/deks/{subject}", s.dekAlias(s.getDek))
	mux.HandleFunc("POST "+dekPrefix+"/{name}/deks/{subject}", s.dekAlias(s.createDek))
	mux.HandleFunc("DELETE "+dekPrefix+"/{name}/deks/{subject}", s.dekAlias(s.deleteDeks))
	mux.HandleFunc("POST "+dekPrefix+"/{name}/deks/{subject}/undelete", s.dekAlias(s.undeleteDeks))
	mux.HandleFunc("GET "+dekPrefix+"/{name}/deks/{subject}/versions", s.dekAlias(s.listDekVersions))
	mux.HandleFunc("GET "+dekPrefix+"/{name}/deks/{subject}/versions/{version}", s.dekAlias(s.getDek))
	mux.HandleFunc("DELETE "+dekPrefix+"/{name}/deks/{subject}/versions/{version}", s.dekAlias(s.deleteDekVersion))
	mux.HandleFunc("POST "+dekPrefix+"/{name}/deks/{subject}/versions/{version}/undelete", s.dekAlias(s.undeleteDekVersion))
}

// dekAlias runs h with the {subject} path value that Confluent's
// AliasFilter makes of it: the subject config's aliasForDeks, else its
// alias, else the subject itself. Access was decided on the subject
// named; setting an alias needs write access to its target.
func (s *server) dekAlias(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		subject, err := s.svc.DekSubject(r.Context(), r.PathValue("subject"))
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		r.SetPathValue("subject", subject)
		h(w, r)
	}
}

// decodeKeyBody reads a DEK registry request body. Confluent's entities
// ignore unknown properties (@JsonIgnoreProperties(ignoreUnknown =
// true)), so this does too.
func (s *server) decodeKeyBody(w http.ResponseWriter, r *http.Request, dst any) error {
	r.Header.Set(acceptUnknownHeader, "true")
	return s.decodeBody(w, r, dst)
}

// noContent answers 204, or err (Confluent's deletes and undeletes).
func (s *server) noContent(w http.ResponseWriter, r *http.Request, err error) {
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// algorithmParam reads ?algorithm= (42271 for an unknown one).
func algorithmParam(r *http.Request) (dek.Algorithm, error) {
	return dek.ParseAlgorithm(r.URL.Query().Get("algorithm"))
}

// subjectPrefixes reads every ?subjectPrefix= (Confluent takes a list).
func subjectPrefixes(r *http.Request) []string {
	return r.URL.Query()["subjectPrefix"]
}

func (s *server) listKeks(w http.ResponseWriter, r *http.Request) {
	p, err := pageParams(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	names, err := s.svc.Keys().KekNames(r.Context(), subjectPrefixes(r), boolParam(r, "deleted"))
	s.answer(w, r, paginate(names, p), err)
}

func (s *server) getKek(w http.ResponseWriter, r *http.Request) {
	k, err := s.svc.Keys().Kek(r.Context(), r.PathValue("name"), boolParam(r, "deleted"))
	s.answer(w, r, k, err)
}

func (s *server) createKek(w http.ResponseWriter, r *http.Request) {
	var req dek.CreateKekRequest
	if err := s.decodeKeyBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if req.Shared && boolParam(r, "testSharing") {
		writeError(w, r, s.log, srerr.New(srerr.ErrInvalidKey,
			"Invalid or missing value for field 'shared' of key: Charter has no access to the KMS, so it cannot test sharing (leave testSharing out)"))
		return
	}
	k, err := s.svc.Keys().CreateKek(r.Context(), req)
	s.answer(w, r, k, err)
}

func (s *server) putKek(w http.ResponseWriter, r *http.Request) {
	var body struct {
		KmsProps json.RawMessage `json:"kmsProps"`
		Doc      *string         `json:"doc"`
		Shared   *bool           `json:"shared"`
	}
	if err := s.decodeKeyBody(w, r, &body); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	req := dek.UpdateKekRequest{Doc: body.Doc, Shared: body.Shared}
	switch string(body.KmsProps) {
	case "":
	case "null":
		req.KmsPropsNull = true
	default:
		if err := json.Unmarshal(body.KmsProps, &req.KmsProps); err != nil {
			writeError(w, r, s.log, srerr.New(srerr.ErrUnprocessableEntity, "Cannot read field \"kmsProps\": want an object of strings"))
			return
		}
		if req.KmsProps == nil {
			req.KmsProps = map[string]string{}
		}
	}
	if req.Shared != nil && *req.Shared && boolParam(r, "testSharing") {
		writeError(w, r, s.log, srerr.New(srerr.ErrInvalidKey,
			"Invalid or missing value for field 'shared' of key: Charter has no access to the KMS, so it cannot test sharing (leave testSharing out)"))
		return
	}
	k, err := s.svc.Keys().UpdateKek(r.Context(), r.PathValue("name"), req)
	s.answer(w, r, k, err)
}

func (s *server) deleteKek(w http.ResponseWriter, r *http.Request) {
	s.noContent(w, r, s.svc.Keys().DeleteKek(r.Context(), r.PathValue("name"), boolParam(r, "permanent")))
}

func (s *server) undeleteKek(w http.ResponseWriter, r *http.Request) {
	s.noContent(w, r, s.svc.Keys().UndeleteKek(r.Context(), r.PathValue("name")))
}

func (s *server) testKek(w http.ResponseWriter, r *http.Request) {
	k, err := s.svc.Keys().TestKek(r.Context(), r.PathValue("name"))
	s.answer(w, r, k, err)
}

func (s *server) listDekSubjects(w http.ResponseWriter, r *http.Request) {
	p, err := pageParams(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	subjects, err := s.svc.Keys().DekSubjects(r.Context(), r.PathValue("name"), boolParam(r, "deleted"))
	s.answer(w, r, paginate(subjects, p), err)
}

func (s *server) listDekVersions(w http.ResponseWriter, r *http.Request) {
	p, err := pageParams(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	alg, err := algorithmParam(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	vs, err := s.svc.Keys().DekVersions(r.Context(), r.PathValue("name"), r.PathValue("subject"), alg, boolParam(r, "deleted"))
	s.answer(w, r, paginate(vs, p), err)
}

// dekVersion reads the {version} path value; without one (GET
// .../deks/{subject}) it is version 1, as Confluent's getDek.
func dekVersion(r *http.Request) (int, error) {
	v := r.PathValue("version")
	if v == "" {
		return 1, nil
	}
	return dek.ParseVersion(v)
}

func (s *server) getDek(w http.ResponseWriter, r *http.Request) {
	v, err := dekVersion(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	alg, err := algorithmParam(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	d, err := s.svc.Keys().Dek(r.Context(), r.PathValue("name"), r.PathValue("subject"), v, alg, boolParam(r, "deleted"))
	s.answer(w, r, d, err)
}

// createDek is POST .../deks/{subject} and the older POST .../deks with
// the subject in the body (the one confluent-kafka-go's client calls); the
// path's subject wins, as in Confluent's createDekWithSubject.
func (s *server) createDek(w http.ResponseWriter, r *http.Request) {
	var req dek.CreateDekRequest
	if err := s.decodeKeyBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if subject := r.PathValue("subject"); subject != "" {
		req.Subject = subject
	} else if !s.requireSubjectWrite(w, r, req.Subject) {
		return
	}
	d, err := s.svc.Keys().CreateDek(r.Context(), r.PathValue("name"), req, boolParam(r, "rewrap"))
	s.answer(w, r, d, err)
}

func (s *server) deleteDeks(w http.ResponseWriter, r *http.Request) {
	alg, err := algorithmParam(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.noContent(w, r, s.svc.Keys().DeleteDeks(r.Context(), r.PathValue("name"), r.PathValue("subject"), alg, boolParam(r, "permanent")))
}

func (s *server) deleteDekVersion(w http.ResponseWriter, r *http.Request) {
	v, err := dek.ParseVersion(r.PathValue("version"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	alg, err := algorithmParam(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.noContent(w, r, s.svc.Keys().DeleteDekVersion(r.Context(), r.PathValue("name"), r.PathValue("subject"), v, alg, boolParam(r, "permanent")))
}

func (s *server) undeleteDeks(w http.ResponseWriter, r *http.Request) {
	alg, err := algorithmParam(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.noContent(w, r, s.svc.Keys().UndeleteDeks(r.Context(), r.PathValue("name"), r.PathValue("subject"), alg))
}

func (s *server) undeleteDekVersion(w http.ResponseWriter, r *http.Request) {
	v, err := dek.ParseVersion(r.PathValue("version"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	alg, err := algorithmParam(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.noContent(w, r, s.svc.Keys().UndeleteDekVersion(r.Context(), r.PathValue("name"), r.PathValue("subject"), v, alg))
}

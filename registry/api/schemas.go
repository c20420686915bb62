package api

import (
	"encoding/json"
	"net/http"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
)

// schemaString is Confluent's SchemaString entity (GET /schemas/ids/{id}).
type schemaString struct {
	Subject    string               `json:"subject,omitempty"`
	Version    int                  `json:"version,omitempty"`
	Schema     string               `json:"schema"`
	SchemaType compat.SchemaType    `json:"schemaType"`
	References []registry.Reference `json:"references,omitempty"`
	Metadata   json.RawMessage      `json:"metadata,omitempty"`
	RuleSet    json.RawMessage      `json:"ruleSet,omitempty"`
	MaxID      *int64               `json:"maxId,omitempty"`
}

// schemaByID: GET /schemas/ids/{id}?fetchMaxId&subject&format. subject
// selects the context the ID is in (registry.Service.IDContext; the
// /contexts/{ctx} prefix sets it to ":ctx:"), the default context without
// it; fetchMaxId answers that context's largest ID. format=serialized
// answers a Protobuf schema as its base64 FileDescriptorProto,
// format=resolved an Avro one with its references inlined
// (registry.FormattedText). The encoded answer is cached per context and
// ID (schemas are immutable), so repeated reads cost no store transaction;
// the cache forgets an ID when the Service does. With a ?subject= that
// names a subject holding the ID (not a context alone), the answer also
// has that subject and its version, as Confluent's SchemaString of the
// schema entity it looked up under the subject (its first version with
// the ID, a live one before a soft-deleted one).
func (s *server) schemaByID(w http.ResponseWriter, r *http.Request) {
	key, err := s.schemaKey(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	fetchMax := boolParam(r, "fetchMaxId")
	var under registry.SubjectVersion
	if subject := subjectFilter(r, key); subject != "" {
		if under, err = s.versionUnder(r, key, subject); err != nil {
			writeError(w, r, s.log, err)
			return
		}
	}
	// Answers that depend on the query are not cached.
	serialized := registry.FormatChangesText(r.URL.Query().Get("format")) || r.URL.Query().Has("referenceFormat") || under.Subject != ""
	cached, gen, ok := s.cachedByID(key)
	if ok && !fetchMax && !serialized {
		writeRaw(w, http.StatusOK, cached)
		return
	}
	st, err := s.svc.SchemaByID(r.Context(), key.Context, key.ID)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	text, err := s.svc.FormattedText(r.Context(), st, r.URL.Query().Get("format"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out := schemaString{
		Subject:    under.Subject,
		Version:    under.Version,
		Schema:     text,
		SchemaType: st.Type,
		References: referencesAs(r, st.Context, st.References),
		Metadata:   st.Metadata,
		RuleSet:    st.RuleSet,
	}
	if fetchMax || serialized {
		if !fetchMax {
			writeJSON(w, http.StatusOK, out)
			return
		}
		max, err := s.svc.MaxSchemaID(r.Context(), key.Context)
		if err != nil {
			writeError(w, r, s.log, err)
			return
		}
		out.MaxID = &max
		writeJSON(w, http.StatusOK, out)
		return
	}
	body, err := marshalJSON(out)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	s.cacheByID(key, body, gen)
	writeRaw(w, http.StatusOK, body)
}

// versionUnder returns the version of subject that binds schema key: its
// first live one, else its first soft-deleted one, else none (a subject
// that does not hold the ID; IDContext has refused a qualified one).
func (s *server) versionUnder(r *http.Request, key registry.SchemaKey, subject string) (registry.SubjectVersion, error) {
	vs, err := s.svc.VersionsOfID(r.Context(), key.Context, key.ID, subject, true)
	if err != nil {
		return registry.SubjectVersion{}, err
	}
	for _, v := range vs {
		if !v.Deleted {
			return v, nil
		}
	}
	if len(vs) > 0 {
		return vs[0], nil
	}
	return registry.SubjectVersion{}, nil
}

// schemaTextByID: GET /schemas/ids/{id}/schema → the schema text itself.
func (s *server) schemaTextByID(w http.ResponseWriter, r *http.Request) {
	key, err := s.schemaKey(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	st, err := s.svc.SchemaByID(r.Context(), key.Context, key.ID)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	text, err := s.svc.FormattedText(r.Context(), st, r.URL.Query().Get("format"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeRaw(w, http.StatusOK, []byte(text))
}

// subjectsByID: GET /schemas/ids/{id}/subjects?subject&deleted&offset&limit.
func (s *server) subjectsByID(w http.ResponseWriter, r *http.Request) {
	p, err := pageParams(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	key, err := s.schemaKey(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	subjects, err := s.svc.SubjectsOfID(r.Context(), key.Context, key.ID, subjectFilter(r, key), boolParam(r, "deleted"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, paginate(subjects, p))
}

// subjectVersion is Confluent's SubjectVersion entity.
type subjectVersion struct {
	Subject string `json:"subject"`
	Version int    `json:"version"`
}

// versionsByID: GET /schemas/ids/{id}/versions?subject&deleted&offset&limit.
func (s *server) versionsByID(w http.ResponseWriter, r *http.Request) {
	p, err := pageParams(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	key, err := s.schemaKey(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	vs, err := s.svc.VersionsOfID(r.Context(), key.Context, key.ID, subjectFilter(r, key), boolParam(r, "deleted"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out := make([]subjectVersion, len(vs))
	for i, v := range vs {
		out[i] = subjectVersion{Subject: v.Subject, Version: v.Version}
	}
	writeJSON(w, http.StatusOK, paginate(out, p))
}

// schemaTypes: GET /schemas/types → the types this server parses.
func (s *server) schemaTypes(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.svc.Types())
}

// listSchemas: GET /schemas?subjectPrefix&deleted&latestOnly&aliases&ruleType&offset&limit
// → [Schema entity]; with aliases, each lists the subjects aliased to it.
func (s *server) listSchemas(w http.ResponseWriter, r *http.Request) {
	p, err := pageParams(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	q := registry.SchemaQuery{
		SubjectPrefix: r.URL.Query().Get("subjectPrefix"),
		Deleted:       boolParam(r, "deleted"),
		LatestOnly:    boolParam(r, "latestOnly"),
		Aliases:       boolParam(r, "aliases"),
		RuleType:      r.URL.Query().Get("ruleType"),
	}
	all, err := s.svc.Schemas(r.Context(), q)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	var aliases map[string][]string
	if q.Aliases {
		if aliases, err = s.svc.SubjectAliases(r.Context()); err != nil {
			writeError(w, r, s.log, err)
			return
		}
	}
	all = paginate(all, p)
	out := make([]schemaEntity, len(all))
	for i, ss := range all {
		out[i] = toEntity(ss)
		out[i].Aliases = aliases[ss.Subject]
	}
	writeJSON(w, http.StatusOK, out)
}

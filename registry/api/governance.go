package api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// Charter's governance API lives under /governance, a prefix no
// Confluent endpoint uses; GET /openapi.json describes it (OpenAPI 3.1).
// Errors use Confluent's error body with Charter's codes (srerr: 40480,
// 42280–42283).
//
// Who makes a change (the actor of audit entries) is set by identify
// (authorize.go).

// governanceRoutes registers the governance endpoints.
func (s *server) governanceRoutes(mux *router) {
	mux.HandleFunc("GET /openapi.json", s.openAPI)
	mux.HandleFunc("GET /subjects/{subject}/metadata", s.latestWithMetadata)

	mux.HandleFunc("GET /governance/rules", s.govRules)
	mux.HandleFunc("GET /governance/policy", s.getPolicy)
	mux.HandleFunc("PUT /governance/policy", s.putPolicy)
	mux.HandleFunc("DELETE /governance/policy", s.deletePolicy)
	mux.HandleFunc("GET /governance/owners", s.listOwners)
	mux.HandleFunc("GET /governance/deprecations", s.allDeprecations)
	mux.HandleFunc("GET /governance/audit", s.auditLog)

	const sub = "/governance/subjects/{subject}"
	mux.HandleFunc("GET "+sub+"/owner", s.getOwner)
	mux.HandleFunc("PUT "+sub+"/owner", s.putOwner)
	mux.HandleFunc("DELETE "+sub+"/owner", s.deleteOwner)
	mux.HandleFunc("GET "+sub+"/policy", s.getPolicy)
	mux.HandleFunc("PUT "+sub+"/policy", s.putPolicy)
	mux.HandleFunc("DELETE "+sub+"/policy", s.deletePolicy)
	mux.HandleFunc("GET "+sub+"/policy/effective", s.effectivePolicy)
	mux.HandleFunc("GET "+sub+"/deprecations", s.listDeprecations)
	mux.HandleFunc("POST "+sub+"/deprecations", s.deprecate)
	mux.HandleFunc("GET "+sub+"/deprecations/{item}", s.getDeprecation)
	mux.HandleFunc("DELETE "+sub+"/deprecations/{item}", s.undeprecate)
	mux.HandleFunc("POST "+sub+"/deprecations/{item}/extensions", s.grantExtension)
	mux.HandleFunc("DELETE "+sub+"/deprecations/{item}/extensions/{consumer}", s.revokeExtension)
	mux.HandleFunc("GET "+sub+"/tags", s.getTags)
	mux.HandleFunc("PUT "+sub+"/tags", s.putTags)
	mux.HandleFunc("DELETE "+sub+"/tags", s.deleteTags)
	mux.HandleFunc("GET "+sub+"/dismissals", s.listDismissals)
	mux.HandleFunc("POST "+sub+"/dismissals", s.dismiss)
	mux.HandleFunc("DELETE "+sub+"/dismissals/{field}", s.deleteDismissal)
	mux.HandleFunc("GET "+sub+"/removed", s.removedFields)
	mux.HandleFunc("GET "+sub+"/changelog", s.changelog)
	mux.HandleFunc("GET "+sub+"/state", s.state)
	mux.HandleFunc("POST "+sub+"/check", s.check)
}

// answer writes v, or the error.
func (s *server) answer(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// latestWithMetadata: GET /subjects/{subject}/metadata?key=k&value=v…&deleted
// → the Schema entity of the latest version whose metadata properties
// match every pair (Confluent; keys and values pair up in order).
func (s *server) latestWithMetadata(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	keys, values := q["key"], q["value"]
	if len(keys) != len(values) {
		writeError(w, r, s.log, srerr.New(srerr.ErrBadRequest, "key and value parameters must pair up: got %s and %s", rule.Plural(len(keys), "key"), rule.Plural(len(values), "value")))
		return
	}
	want := make(map[string]string, len(keys))
	for i, k := range keys {
		want[k] = values[i]
	}
	ss, err := s.svc.LatestWithMetadata(r.Context(), r.PathValue("subject"), want, boolParam(r, "deleted"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, toEntity(ss))
}

// govRules: GET /governance/rules?subject= → every governance rule with
// its default and its effective severity (globally, or for subject).
func (s *server) govRules(w http.ResponseWriter, r *http.Request) {
	pol, err := s.svc.Governance().EffectivePolicy(r.Context(), r.URL.Query().Get("subject"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out := governance.RuleStatuses(pol)
	writeJSON(w, http.StatusOK, out)
}

func (s *server) getPolicy(w http.ResponseWriter, r *http.Request) {
	p, err := s.svc.Governance().Policy(r.Context(), r.PathValue("subject"))
	s.answer(w, r, p, err)
}

func (s *server) effectivePolicy(w http.ResponseWriter, r *http.Request) {
	p, err := s.svc.Governance().EffectivePolicy(r.Context(), r.PathValue("subject"))
	s.answer(w, r, p, err)
}

func (s *server) putPolicy(w http.ResponseWriter, r *http.Request) {
	var p governance.PolicyConfig
	if err := s.decodeBody(w, r, &p); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out, err := s.svc.Governance().SetPolicy(r.Context(), r.PathValue("subject"), p)
	s.answer(w, r, out, err)
}

func (s *server) deletePolicy(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Governance().DeletePolicy(r.Context(), r.PathValue("subject"))
	s.answer(w, r, out, err)
}

func (s *server) listOwners(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Governance().Owners(r.Context(), r.URL.Query().Get("team"))
	s.answer(w, r, out, err)
}

func (s *server) getOwner(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Governance().Owner(r.Context(), r.PathValue("subject"))
	s.answer(w, r, out, err)
}

// ownerRequest is the body of PUT /governance/subjects/{s}/owner: an
// absent member keeps its stored value.
type ownerRequest struct {
	Team        *string `json:"team"`
	Contact     *string `json:"contact"`
	Description *string `json:"description"`
}

func (s *server) putOwner(w http.ResponseWriter, r *http.Request) {
	var req ownerRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if !s.mayAssignOwner(w, r, req.Team) {
		return
	}
	out, err := s.svc.Governance().UpdateOwner(r.Context(), r.PathValue("subject"), registry.OwnerUpdate{Team: req.Team, Contact: req.Contact, Description: req.Description})
	s.answer(w, r, out, err)
}

func (s *server) deleteOwner(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Governance().DeleteOwner(r.Context(), r.PathValue("subject"))
	s.answer(w, r, out, err)
}

func (s *server) allDeprecations(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Governance().AllDeprecations(r.Context())
	s.answer(w, r, out, err)
}

func (s *server) listDeprecations(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Governance().Deprecations(r.Context(), r.PathValue("subject"), boolParam(r, "all"))
	s.answer(w, r, out, err)
}

// deprecateRequest is the body of POST
// /governance/subjects/{s}/deprecations: a field path or a version. On an
// item deprecated already, an absent reason, replacement or ttlDays keeps
// the stored value; an explicit "" clears reason or replacement.
type deprecateRequest struct {
	Path        string  `json:"path"`
	Version     int     `json:"version"`
	Reason      *string `json:"reason"`
	Replacement *string `json:"replacement"`
	TTLDays     int     `json:"ttlDays"`
}

func (s *server) deprecate(w http.ResponseWriter, r *http.Request) {
	var req deprecateRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	var item governance.Item
	switch {
	case req.Path != "" && req.Version != 0:
		writeError(w, r, s.log, srerr.New(srerr.ErrInvalidGovernance, "Deprecate a field path or a version, not both"))
		return
	case req.Version != 0:
		if req.Version < 0 {
			writeError(w, r, s.log, srerr.New(srerr.ErrInvalidGovernance, "Invalid version %d", req.Version))
			return
		}
		item = governance.VersionItem(req.Version)
	default:
		it, err := governance.ParseItem(req.Path)
		if err != nil || it.Kind != governance.ItemField {
			writeError(w, r, s.log, srerr.New(srerr.ErrInvalidGovernance, "Give the field path to deprecate (\"path\": \".carrier_code\") or a version"))
			return
		}
		item = it
	}
	dr := registry.DeprecateRequest{Item: item, TTLDays: req.TTLDays}
	for _, m := range []struct {
		src   *string
		dst   *string
		clear string
	}{{req.Reason, &dr.Reason, registry.ClearReason}, {req.Replacement, &dr.Replacement, registry.ClearReplacement}} {
		switch {
		case m.src == nil:
		case strings.TrimSpace(*m.src) == "":
			dr.Clear = append(dr.Clear, m.clear)
		default:
			*m.dst = *m.src
		}
	}
	out, err := s.svc.Governance().Deprecate(r.Context(), r.PathValue("subject"), dr)
	s.answer(w, r, out, err)
}

// item parses the {item} path segment.
func item(r *http.Request) (governance.Item, error) {
	it, err := governance.ParseItem(r.PathValue("item"))
	if err != nil {
		return governance.Item{}, srerr.New(srerr.ErrInvalidGovernance, "Invalid item %q: %v", r.PathValue("item"), err)
	}
	return it, nil
}

func (s *server) getDeprecation(w http.ResponseWriter, r *http.Request) {
	it, err := item(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out, err := s.svc.Governance().Deprecation(r.Context(), r.PathValue("subject"), it)
	s.answer(w, r, out, err)
}

func (s *server) undeprecate(w http.ResponseWriter, r *http.Request) {
	it, err := item(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out, err := s.svc.Governance().Undeprecate(r.Context(), r.PathValue("subject"), it)
	s.answer(w, r, out, err)
}

// extensionRequest is the body of POST
// /governance/subjects/{s}/deprecations/{item}/extensions: an end (until,
// RFC 3339) or a number of days from now.
type extensionRequest struct {
	Consumer string    `json:"consumer"`
	Until    time.Time `json:"until"`
	Days     int       `json:"days"`
	Reason   string    `json:"reason"`
	Approver string    `json:"approver"`
}

func (s *server) grantExtension(w http.ResponseWriter, r *http.Request) {
	it, err := item(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	var req extensionRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if p, ok := principal(r); ok {
		req.Approver = p.Name // the approver is who grants, not a name in the body
	}
	out, err := s.svc.Governance().GrantExtension(r.Context(), r.PathValue("subject"), it, registry.ExtensionRequest{
		Consumer: req.Consumer, Until: req.Until, Days: req.Days, Reason: req.Reason, Approver: req.Approver})
	s.answer(w, r, out, err)
}

func (s *server) revokeExtension(w http.ResponseWriter, r *http.Request) {
	it, err := item(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out, err := s.svc.Governance().RevokeExtension(r.Context(), r.PathValue("subject"), it, r.PathValue("consumer"))
	s.answer(w, r, out, err)
}

func (s *server) getTags(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Governance().Tags(r.Context(), r.PathValue("subject"))
	s.answer(w, r, out, err)
}

// tagsRequest is the body of PUT /governance/subjects/{s}/tags.
type tagsRequest struct {
	Tags map[string][]string `json:"tags"`
}

func (s *server) putTags(w http.ResponseWriter, r *http.Request) {
	var req tagsRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out, err := s.svc.Governance().SetTags(r.Context(), r.PathValue("subject"), req.Tags)
	s.answer(w, r, out, err)
}

func (s *server) deleteTags(w http.ResponseWriter, r *http.Request) {
	tags, err := s.svc.Governance().DeleteTags(r.Context(), r.PathValue("subject"))
	s.answer(w, r, tagsRequest{Tags: tags}, err)
}

func (s *server) listDismissals(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Governance().Dismissals(r.Context(), r.PathValue("subject"))
	s.answer(w, r, out, err)
}

// dismissalRequest is the body of POST /governance/subjects/{s}/dismissals.
type dismissalRequest struct {
	Field     string `json:"field"`
	PatternID string `json:"patternId"`
	Reason    string `json:"reason"`
	By        string `json:"by"`
	Proposed  bool   `json:"proposed"`
}

func (s *server) dismiss(w http.ResponseWriter, r *http.Request) {
	var req dismissalRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if p, ok := principal(r); ok {
		req.By = p.Name // who reviewed is who is authenticated, not a name in the body
	}
	out, err := s.svc.Governance().Dismiss(r.Context(), r.PathValue("subject"), governance.Dismissal{
		Field: req.Field, PatternID: req.PatternID, Reason: req.Reason, By: req.By, Proposed: req.Proposed})
	s.answer(w, r, out, err)
}

func (s *server) deleteDismissal(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Governance().DeleteDismissal(r.Context(), r.PathValue("subject"), r.PathValue("field"), r.URL.Query().Get("patternId"))
	s.answer(w, r, out, err)
}

func (s *server) removedFields(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Governance().RemovedFields(r.Context(), r.PathValue("subject"))
	s.answer(w, r, out, err)
}

func (s *server) changelog(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Governance().Changelog(r.Context(), r.PathValue("subject"))
	s.answer(w, r, out, err)
}

func (s *server) state(w http.ResponseWriter, r *http.Request) {
	at, err := atParam(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out, err := s.svc.Governance().State(r.Context(), r.PathValue("subject"), at)
	s.answer(w, r, out, err)
}

// check: POST /governance/subjects/{s}/check?normalize&at with a
// RegisterSchemaRequest → the verdict a registration would get (as of
// at: an RFC 3339 time or a date).
func (s *server) check(w http.ResponseWriter, r *http.Request) {
	at, err := atParam(r)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	var req schemaRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out, err := s.svc.Governance().Check(r.Context(), r.PathValue("subject"), req.toService(r), at)
	s.answer(w, r, out, err)
}

// auditLog: GET /governance/audit?subject&action&actor&since&until&after&limit
// → audit entries, oldest first. since and until are RFC 3339 times;
// action keeps actions starting with it; after is an entry ID (paging);
// limit defaults to 1000.
func (s *server) auditLog(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	aq := registry.AuditQuery{Subject: q.Get("subject"), ActionPrefix: q.Get("action"), Actor: q.Get("actor"), Limit: 1000}
	for _, f := range []struct {
		name string
		dst  *time.Time
	}{{"since", &aq.Since}, {"until", &aq.Until}} {
		if v := q.Get(f.name); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				writeError(w, r, s.log, srerr.New(srerr.ErrBadRequest, "Invalid %s %q: want an RFC 3339 time such as 2026-01-05T00:00:00Z", f.name, v))
				return
			}
			*f.dst = t
		}
	}
	for _, f := range []struct {
		name string
		set  func(int64)
	}{{"after", func(n int64) { aq.AfterID = n }}, {"limit", func(n int64) { aq.Limit = int(n) }}} {
		if v := q.Get(f.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				writeError(w, r, s.log, srerr.New(srerr.ErrBadRequest, "Invalid %s %q: want a non-negative integer", f.name, v))
				return
			}
			f.set(n)
		}
	}
	out, err := s.svc.Governance().Audit(r.Context(), aq)
	s.answer(w, r, out, err)
}

// findingHeaders reports a registration's governance warnings and notices
// in response headers, so that the Confluent response body stays as
// Confluent clients expect it: one Charter-Finding header per finding
// ("warning DEPRECATION_ACTIVE .carrier_code: …") and Charter-Semver.
func findingHeaders(w http.ResponseWriter, ss registry.SubjectSchema) {
	h := w.Header()
	for _, f := range ss.Findings {
		line := fmt.Sprintf("%s %s", f.Severity, f.RuleID)
		if f.Path != "" {
			line += " " + f.Path
		}
		h.Add("Charter-Finding", headerSafe(line+": "+f.Message))
	}
	if ss.SemVer != "" {
		h.Set("Charter-Semver", ss.SemVer)
	}
}

// headerSafe replaces control characters (a header value cannot hold
// them) with spaces.
func headerSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

package api

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
)

// configRequest is Confluent's ConfigUpdateRequest. Both `compatibility`
// (the documented name) and `compatibilityLevel` (what GET returns) are
// accepted; `compatibility` wins when both are set. An empty alias or
// compatibilityGroup clears it, and so does JSON null. Fields Charter does
// not act on are accepted, so that a config copied from Confluent applies:
// validateNewSchemas and validateRules are stored and answered, with no
// effect (Charter always validates a new schema and its rules);
// compatibilityPolicy is ignored. aliasForDeks is stored and, as alias,
// cleared by JSON null or "".
type configRequest struct {
	Compatibility       *string         `json:"compatibility"`
	CompatibilityLevel  *string         `json:"compatibilityLevel"`
	CompatibilityGroup  clearableString `json:"compatibilityGroup"`
	CompatibilityPolicy *string         `json:"compatibilityPolicy"`
	Normalize           *bool           `json:"normalize"`
	ValidateFields      *bool           `json:"validateFields"`
	ValidateRules       *bool           `json:"validateRules"`
	ValidateNewSchemas  *bool           `json:"validateNewSchemas"`
	AliasForDeks        clearableString `json:"aliasForDeks"`
	Alias               clearableString `json:"alias"`
	DefaultMetadata     json.RawMessage `json:"defaultMetadata"`
	OverrideMetadata    json.RawMessage `json:"overrideMetadata"`
	DefaultRuleSet      json.RawMessage `json:"defaultRuleSet"`
	OverrideRuleSet     json.RawMessage `json:"overrideRuleSet"`
}

func (q configRequest) toUpdate() registry.ConfigUpdate {
	u := registry.ConfigUpdate{
		Compatibility:      q.Compatibility,
		Normalize:          q.Normalize,
		ValidateFields:     q.ValidateFields,
		ValidateNewSchemas: q.ValidateNewSchemas,
		ValidateRules:      q.ValidateRules,
		CompatibilityGroup: q.CompatibilityGroup.update(),
		Alias:              q.Alias.update(),
		AliasForDeks:       q.AliasForDeks.update(),
		DefaultMetadata:    q.DefaultMetadata,
		OverrideMetadata:   q.OverrideMetadata,
		DefaultRuleSet:     q.DefaultRuleSet,
		OverrideRuleSet:    q.OverrideRuleSet,
	}
	if q.Compatibility == nil || *q.Compatibility == "" {
		u.Compatibility = q.CompatibilityLevel
	}
	return u
}

// clearableString is a config member that JSON null clears, as
// Confluent's ConfigUpdateRequest reads an Optional that a client set to
// Optional.empty() (RestApiCompatibilityTest.testClearCompatibilityGroup);
// an absent member changes nothing.
type clearableString struct {
	set bool
	v   string
}

func (c *clearableString) UnmarshalJSON(b []byte) error {
	c.set = true
	if string(b) == "null" {
		c.v = ""
		return nil
	}
	return json.Unmarshal(b, &c.v)
}

// update is the member as a ConfigUpdate field: nil when absent, "" (clear)
// when null.
func (c clearableString) update() *string {
	if !c.set {
		return nil
	}
	return &c.v
}

// configUpdateResponse is what PUT /config answers: the stored config
// with the level under `compatibility`, as Confluent echoes its request.
type configUpdateResponse struct {
	Compatibility      compat.Level    `json:"compatibility,omitempty"`
	Normalize          *bool           `json:"normalize,omitempty"`
	ValidateFields     *bool           `json:"validateFields,omitempty"`
	ValidateNewSchemas *bool           `json:"validateNewSchemas,omitempty"`
	ValidateRules      *bool           `json:"validateRules,omitempty"`
	CompatibilityGroup string          `json:"compatibilityGroup,omitempty"`
	Alias              string          `json:"alias,omitempty"`
	AliasForDeks       string          `json:"aliasForDeks,omitempty"`
	DefaultMetadata    json.RawMessage `json:"defaultMetadata,omitempty"`
	OverrideMetadata   json.RawMessage `json:"overrideMetadata,omitempty"`
	DefaultRuleSet     json.RawMessage `json:"defaultRuleSet,omitempty"`
	OverrideRuleSet    json.RawMessage `json:"overrideRuleSet,omitempty"`
}

// getConfig: GET /config[/{subject}]?defaultToGlobal →
// {"compatibilityLevel": …}.
func (s *server) getConfig(w http.ResponseWriter, r *http.Request) {
	c, err := s.svc.Config(r.Context(), r.PathValue("subject"), boolParam(r, "defaultToGlobal"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// putConfig: PUT /config[/{subject}] → {"compatibility": …}.
func (s *server) putConfig(w http.ResponseWriter, r *http.Request) {
	var req configRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if strings.TrimSpace(req.Alias.v) != "" && r.PathValue("subject") != "" && !s.mayWriteAliasTarget(w, r, strings.TrimSpace(req.Alias.v)) {
		return
	}
	if strings.TrimSpace(req.AliasForDeks.v) != "" && r.PathValue("subject") != "" && !s.mayWriteAliasTarget(w, r, strings.TrimSpace(req.AliasForDeks.v)) {
		return
	}
	c, err := s.svc.SetConfig(r.Context(), r.PathValue("subject"), req.toUpdate())
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, configUpdateResponse{
		Compatibility:      c.Compatibility,
		Normalize:          c.Normalize,
		ValidateFields:     c.ValidateFields,
		ValidateNewSchemas: c.ValidateNewSchemas,
		ValidateRules:      c.ValidateRules,
		CompatibilityGroup: c.CompatibilityGroup,
		Alias:              c.Alias,
		AliasForDeks:       c.AliasForDeks,
		DefaultMetadata:    c.DefaultMetadata,
		OverrideMetadata:   c.OverrideMetadata,
		DefaultRuleSet:     c.DefaultRuleSet,
		OverrideRuleSet:    c.OverrideRuleSet,
	})
}

// deleteConfig: DELETE /config[/{subject}] → the removed config.
func (s *server) deleteConfig(w http.ResponseWriter, r *http.Request) {
	c, err := s.svc.DeleteConfig(r.Context(), r.PathValue("subject"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// modeBody is Confluent's Mode entity and ModeUpdateRequest.
type modeBody struct {
	Mode string `json:"mode"`
}

// getMode: GET /mode[/{subject}]?defaultToGlobal → {"mode": …}.
func (s *server) getMode(w http.ResponseWriter, r *http.Request) {
	m, err := s.svc.Mode(r.Context(), r.PathValue("subject"), boolParam(r, "defaultToGlobal"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, modeBody{Mode: string(m)})
}

// putMode: PUT /mode[/{subject}]?force → {"mode": …}.
func (s *server) putMode(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Mode *string `json:"mode"`
	}
	if err := s.decodeBody(w, r, &in); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if in.Mode == nil {
		// A null or absent mode clears it, as Confluent's setMode does
		// (RestApiModeTest.testClearMode); the answer has no mode.
		if err := s.svc.ClearMode(r.Context(), r.PathValue("subject")); err != nil {
			writeError(w, r, s.log, err)
			return
		}
		writeJSON(w, http.StatusOK, struct{}{})
		return
	}
	req := modeBody{Mode: *in.Mode}
	// Decided on the mode as the Service will parse it (ParseMode), so no
	// spelling reaches IMPORT past this check.
	if m, err := registry.ParseMode(strings.TrimSpace(req.Mode)); err == nil && m == registry.ModeImport && !s.requireAdmin(w, r, "IMPORT mode") {
		return
	}
	m, err := s.svc.SetMode(r.Context(), r.PathValue("subject"), req.Mode, boolParam(r, "force"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, modeBody{Mode: string(m)})
}

// deleteMode: DELETE /mode[/{subject}]?recursive → the removed mode; with
// recursive on a context level (DELETE /contexts/.ctx/mode?recursive=true)
// every subject mode of the context goes too, and {"mode":null} answers a
// level that had no mode of its own.
func (s *server) deleteMode(w http.ResponseWriter, r *http.Request) {
	del := s.svc.DeleteMode
	if boolParam(r, "recursive") {
		// A context's level and every subject mode in it (Confluent's
		// deleteSubjectMode with recursive).
		del = s.svc.DeleteModeRecursive
	}
	m, err := del(r.Context(), r.PathValue("subject"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if m == "" { // recursive, and the level had no mode of its own
		writeRaw(w, http.StatusOK, []byte(`{"mode":null}`))
		return
	}
	writeJSON(w, http.StatusOK, modeBody{Mode: string(m)})
}

package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/charter-dev/charter/registry/exporter"
	"github.com/charter-dev/charter/registry/srerr"
)

// exporterPrefix is where the schema exporters live, as on Confluent's
// server.
const exporterPrefix = "/exporters"

// exporterRoutes registers the schema exporters (Confluent's
// SchemaExporterResource; registry/exporter has their semantics).
func (s *server) exporterRoutes(mux *router) {
	mux.HandleFunc("GET "+exporterPrefix, s.listExporters)
	mux.HandleFunc("POST "+exporterPrefix, s.createExporter)
	mux.HandleFunc("GET "+exporterPrefix+"/{name}", s.getExporter)
	mux.HandleFunc("PUT "+exporterPrefix+"/{name}", s.updateExporter)
	mux.HandleFunc("DELETE "+exporterPrefix+"/{name}", s.deleteExporter)
	mux.HandleFunc("GET "+exporterPrefix+"/{name}/config", s.getExporterConfig)
	mux.HandleFunc("PUT "+exporterPrefix+"/{name}/config", s.putExporterConfig)
	mux.HandleFunc("GET "+exporterPrefix+"/{name}/status", s.getExporterStatus)
	mux.HandleFunc("PUT "+exporterPrefix+"/{name}/pause", s.exporterAction((*exporter.Service).Pause))
	mux.HandleFunc("PUT "+exporterPrefix+"/{name}/resume", s.exporterAction((*exporter.Service).Resume))
	mux.HandleFunc("PUT "+exporterPrefix+"/{name}/reset", s.exporterAction((*exporter.Service).Reset))
}

// exporterName is the answer of Confluent's exporter writes.
type exporterName struct {
	Name string `json:"name"`
}

func (s *server) listExporters(w http.ResponseWriter, r *http.Request) {
	names, err := s.svc.Exporters().Names(r.Context())
	s.answer(w, r, names, err)
}

// decodeExporterBody reads an exporter request. Confluent's entities
// ignore unknown properties (kekRenameFormat, for one, which Charter
// has no use for), so this does too.
func (s *server) decodeExporterBody(w http.ResponseWriter, r *http.Request, dst any) error {
	r.Header.Set(acceptUnknownHeader, "true")
	return s.decodeBody(w, r, dst)
}

func (s *server) createExporter(w http.ResponseWriter, r *http.Request) {
	var req exporter.Request
	if err := s.decodeExporterBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	name, err := s.svc.Exporters().Create(r.Context(), req)
	s.answer(w, r, exporterName{name}, err)
}

func (s *server) getExporter(w http.ResponseWriter, r *http.Request) {
	e, err := s.svc.Exporters().Get(r.Context(), r.PathValue("name"))
	s.answer(w, r, e, err)
}

func (s *server) updateExporter(w http.ResponseWriter, r *http.Request) {
	var req exporter.Request
	if err := s.decodeExporterBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	name := r.PathValue("name")
	err := s.svc.Exporters().Update(r.Context(), name, req)
	s.answer(w, r, exporterName{name}, err)
}

func (s *server) deleteExporter(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	s.answer(w, r, exporterName{name}, s.svc.Exporters().Delete(r.Context(), name))
}

func (s *server) getExporterConfig(w http.ResponseWriter, r *http.Request) {
	c, err := s.svc.Exporters().Config(r.Context(), r.PathValue("name"))
	s.answer(w, r, c, err)
}

// putExporterConfig merges a config into the exporter's: the body is the
// config object itself, or {"config": {...}}.
func (s *server) putExporterConfig(w http.ResponseWriter, r *http.Request) {
	var body map[string]json.RawMessage
	if err := s.decodeExporterBody(w, r, &body); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if inner, ok := body["config"]; ok && len(body) == 1 && len(inner) > 0 && inner[0] == '{' {
		body = nil
		if err := json.Unmarshal(inner, &body); err != nil {
			writeError(w, r, s.log, srerr.New(srerr.ErrUnprocessableEntity, "Cannot read field \"config\": want an object of strings"))
			return
		}
	}
	cfg := make(map[string]string, len(body))
	for k, v := range body {
		var str string
		if err := json.Unmarshal(v, &str); err != nil {
			writeError(w, r, s.log, srerr.New(srerr.ErrInvalidExporterConfig, "Missing or invalid exporter config: the value of '%s' is not a string", clipKey(k)))
			return
		}
		cfg[k] = str
	}
	name := r.PathValue("name")
	err := s.svc.Exporters().UpdateConfig(r.Context(), name, cfg)
	s.answer(w, r, exporterName{name}, err)
}

// clipKey shortens an echoed config key to 200 bytes.
func clipKey(k string) string {
	if len(k) > 200 {
		return k[:200] + "…"
	}
	return k
}

func (s *server) getExporterStatus(w http.ResponseWriter, r *http.Request) {
	st, err := s.svc.Exporters().Status(r.Context(), r.PathValue("name"))
	s.answer(w, r, st, err)
}

// exporterAction answers a pause, resume or reset: {"name": ...}.
func (s *server) exporterAction(act func(*exporter.Service, context.Context, string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		s.answer(w, r, exporterName{name}, act(s.svc.Exporters(), r.Context(), name))
	}
}

package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/srerr"
)

// Consumer contracts and lineage (Charter issue 5), under /governance
// like the rest of Charter's own API; GET /openapi.json describes them.

// contractRoutes registers the contract and lineage endpoints.
func (s *server) contractRoutes(mux *router) {
	mux.HandleFunc("GET /governance/contracts", s.listContracts)
	mux.HandleFunc("GET /governance/lineage/graph", s.lineageGraph)
	mux.HandleFunc("GET /governance/lineage/pii", s.lineagePII)
	mux.HandleFunc("GET /governance/lineage/changes", s.lineageChanges)

	const sub = "/governance/subjects/{subject}"
	mux.HandleFunc("GET "+sub+"/contracts", s.listContracts)
	mux.HandleFunc("POST "+sub+"/contracts", s.publishContract)
	mux.HandleFunc("POST "+sub+"/contracts/verify", s.verifyContracts)
	mux.HandleFunc("GET "+sub+"/contracts/{consumer}", s.getContract)
	mux.HandleFunc("DELETE "+sub+"/contracts/{consumer}", s.deleteContract)
	mux.HandleFunc("PUT "+sub+"/producers/{service}", s.putProducer)
	mux.HandleFunc("DELETE "+sub+"/producers/{service}", s.deleteProducer)
	mux.HandleFunc("PUT "+sub+"/consumers/{service}", s.putConsumer)
	mux.HandleFunc("DELETE "+sub+"/consumers/{service}", s.deleteConsumer)
	mux.HandleFunc("GET "+sub+"/impact", s.impact)
	mux.HandleFunc("GET "+sub+"/migrations", s.migrations)
}

// migrations: GET …/{s}/migrations?path=.carrier_code → the migration
// status of the subject's deprecated fields (every one without path):
// []registry.DeprecationMigration. Not …/deprecations/status, which a
// field named "status" (…/deprecations/{item}) would collide with.
func (s *server) migrations(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Governance().DeprecationMigrations(r.Context(), r.PathValue("subject"), r.URL.Query().Get("path"))
	s.answer(w, r, out, err)
}

// publishContractRequest is the body of POST …/contracts: the pact file
// (a JSON object) and who publishes it.
type publishContractRequest struct {
	Consumer        string          `json:"consumer"`
	ConsumerVersion string          `json:"consumerVersion"`
	Branch          string          `json:"branch"`
	Pact            json.RawMessage `json:"pact"`
}

// publishContract: POST /governance/subjects/{s}/contracts → the stored
// ContractRecord with its verification against the latest version.
func (s *server) publishContract(w http.ResponseWriter, r *http.Request) {
	var req publishContractRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if !s.requireTeam(w, r, req.Consumer) {
		return
	}
	out, err := s.svc.ContractRegistry().PublishContract(r.Context(), registry.PublishContractRequest{Subject: r.PathValue("subject"),
		Consumer: req.Consumer, ConsumerVersion: req.ConsumerVersion, Branch: req.Branch, Pact: req.Pact})
	s.answer(w, r, out, err)
}

// listContracts: GET /governance/contracts, GET …/{s}/contracts.
func (s *server) listContracts(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.ContractRegistry().Contracts(r.Context(), r.PathValue("subject"))
	s.answer(w, r, out, err)
}

func (s *server) getContract(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.ContractRegistry().Contract(r.Context(), r.PathValue("subject"), r.PathValue("consumer"))
	s.answer(w, r, out, err)
}

func (s *server) deleteContract(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.ContractRegistry().DeleteContract(r.Context(), r.PathValue("subject"), r.PathValue("consumer"))
	s.answer(w, r, out, err)
}

// verifyContracts: POST /governance/subjects/{s}/contracts/verify with a
// RegisterSchemaRequest body → ContractVerification (per consumer,
// interaction and field; policy findings as a registration would get).
func (s *server) verifyContracts(w http.ResponseWriter, r *http.Request) {
	var req schemaRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out, err := s.svc.ContractRegistry().VerifyContracts(r.Context(), r.PathValue("subject"), req.toService(r))
	s.answer(w, r, out, err)
}

type producerRequest struct {
	Versions []int `json:"versions"`
}

func (s *server) putProducer(w http.ResponseWriter, r *http.Request) {
	var req producerRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	out, err := s.svc.Lineage().SetProducer(r.Context(), lineage.Producer{Service: r.PathValue("service"), Subject: r.PathValue("subject"), Versions: req.Versions})
	s.answer(w, r, out, err)
}

func (s *server) deleteProducer(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Lineage().RemoveProducer(r.Context(), r.PathValue("subject"), r.PathValue("service"))
	s.answer(w, r, out, err)
}

type consumerRequest struct {
	Fields []string              `json:"fields"`
	Range  *lineage.VersionRange `json:"range"`
}

// putConsumer: PUT …/consumers/{service} {"fields": [".id"], "range":
// {"from": 1}} declares what a service reads by hand.
func (s *server) putConsumer(w http.ResponseWriter, r *http.Request) {
	var req consumerRequest
	if err := s.decodeBody(w, r, &req); err != nil {
		writeError(w, r, s.log, err)
		return
	}
	c := lineage.Consumer{Service: r.PathValue("service"), Subject: r.PathValue("subject"), Fields: req.Fields, Source: lineage.SourceDeclared}
	if req.Range != nil {
		c.Range = *req.Range
	}
	out, err := s.svc.Lineage().DeclareConsumer(r.Context(), c)
	s.answer(w, r, out, err)
}

func (s *server) deleteConsumer(w http.ResponseWriter, r *http.Request) {
	out, err := s.svc.Lineage().RemoveConsumer(r.Context(), r.PathValue("subject"), r.PathValue("service"))
	s.answer(w, r, out, err)
}

// impact: GET …/{s}/impact?path=.carrier_code&change=remove|rename|retype|deprecate&version=n
// → []lineage.Impact.
func (s *server) impact(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	iq := lineage.ImpactQuery{Subject: r.PathValue("subject"), Path: q.Get("path"), Change: lineage.FieldChange(q.Get("change"))}
	if iq.Path == "" {
		writeError(w, r, s.log, srerr.New(srerr.ErrInvalidGovernance, "Give the field path: ?path=.carrier_code"))
		return
	}
	if v := q.Get("version"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			writeError(w, r, s.log, srerr.New(srerr.ErrInvalidVersion, "Invalid version %q", v))
			return
		}
		iq.Version = n
	}
	out, err := s.svc.Lineage().Impact(r.Context(), iq)
	s.answer(w, r, out, err)
}

// lineagePII: GET /governance/lineage/pii?subject&tag=PII → []lineage.Exposure.
func (s *server) lineagePII(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	out, err := s.svc.Lineage().Exposure(r.Context(), q.Get("subject"), q.Get("tag"))
	s.answer(w, r, out, err)
}

// lineageChanges: GET /governance/lineage/changes?subject&after → the
// lineage history, oldest first.
func (s *server) lineageChanges(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var after int64
	if a := q.Get("after"); a != "" {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil || n < 0 {
			writeError(w, r, s.log, srerr.New(srerr.ErrBadRequest, "Invalid after %q: want a revision", a))
			return
		}
		after = n
	}
	out, err := s.svc.Lineage().LineageChanges(r.Context(), q.Get("subject"), after)
	if out == nil {
		out = []lineage.Change{}
	}
	s.answer(w, r, out, err)
}

// lineageGraph: GET /governance/lineage/graph?subject&at=RFC3339&format=json|dot|mermaid
// → the graph as JSON, Graphviz DOT (text/vnd.graphviz) or Mermaid
// (text/plain).
func (s *server) lineageGraph(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var at time.Time
	if a := q.Get("at"); a != "" {
		t, err := time.Parse(time.RFC3339Nano, a)
		if err != nil {
			writeError(w, r, s.log, srerr.New(srerr.ErrBadRequest, "Invalid at %q: want an RFC 3339 time", a))
			return
		}
		at = t
	}
	format := strings.ToLower(q.Get("format"))
	if format != "" && format != "json" && format != "dot" && format != "mermaid" {
		writeError(w, r, s.log, srerr.New(srerr.ErrBadRequest, "Invalid format %q: want json, dot or mermaid", format))
		return
	}
	g, err := s.svc.Lineage().LineageGraph(r.Context(), q.Get("subject"), at)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	var buf bytes.Buffer
	ct := "application/json"
	switch format {
	case "dot":
		ct, err = "text/vnd.graphviz; charset=utf-8", g.WriteDOT(&buf)
	case "mermaid":
		ct, err = "text/plain; charset=utf-8", g.WriteMermaid(&buf)
	default:
		err = g.WriteJSON(&buf)
	}
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

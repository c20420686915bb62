package api

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
)

// evidenceTimeout bounds the evidence of one compatibility call.
const evidenceTimeout = 2 * time.Second

// evidenceResponse is Charter's addition to a verbose compatibility
// answer with evidence=true (a field Confluent's clients ignore): the
// evidence of each pair compared (compat/evidence, 100 generated events),
// each breaking finding's counterexample, and the evidence rules'
// findings.
type evidenceResponse struct {
	Pairs           []evidence.Pair  `json:"pairs"`
	Counterexamples []counterexample `json:"counterexamples,omitempty"`
	Findings        []compat.Finding `json:"findings,omitempty"`
	NotRead         string           `json:"notRead,omitempty"`
}

type counterexample struct {
	compat.Finding
	Outcome evidence.Outcome `json:"outcome"`
}

// checkEvidence reads generated events of the candidate against the
// version the check compared (version, or the latest live one), at the
// subject's level; schemas with references are not read yet.
func (s *server) checkEvidence(r *http.Request, version int, req schemaRequest, res registry.CompatibilityResult) *evidenceResponse {
	out := &evidenceResponse{}
	fail := func(err error) *evidenceResponse {
		out.NotRead = err.Error()
		return out
	}
	sreq := req.toService(r)
	if len(sreq.References) > 0 {
		return fail(errors.New("the schema has references"))
	}
	t := sreq.Type
	if t == "" {
		t = compat.Avro
	}
	f, ok := formats.ByType(t)
	if !ok {
		return fail(errors.New("unknown schema type " + string(t)))
	}
	next, err := f.Format.Parse(sreq.Schema, nil)
	if err != nil {
		return fail(err)
	}
	if version == 0 {
		version = registry.Latest
	}
	ctx, cancel := context.WithTimeout(r.Context(), evidenceTimeout)
	defer cancel()
	prev, err := s.svc.Version(ctx, r.PathValue("subject"), version, false)
	if err != nil {
		return fail(err)
	}
	if len(prev.Schema.References) > 0 || prev.Schema.Type != t {
		return fail(errors.New("the compared version has references or another type"))
	}
	ps, err := f.Format.Parse(prev.Schema.Text, nil)
	if err != nil {
		return fail(err)
	}
	level := res.Level
	if level == "" {
		level = compat.DefaultLevel
	}
	rep, err := evidence.Check(ctx, level, next, []compat.Previous{{Version: prev.Version, Schema: ps}}, evidence.Options{})
	if err != nil {
		return fail(err)
	}
	out.Pairs, out.Findings = rep.Pairs, rep.Findings
	for _, fd := range res.Findings {
		if o, ok := rep.Counterexample(fd); ok {
			out.Counterexamples = append(out.Counterexamples, counterexample{Finding: fd, Outcome: o})
		}
	}
	return out
}

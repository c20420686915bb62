package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
)

// evidenceTimeout bounds the evidence of one compatibility call (a
// variable for the tests).
var evidenceTimeout = 2 * time.Second

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
	// NotCompared are the versions the check compared that the time
	// budget left unread (newest first), and Budget says so.
	NotCompared []int  `json:"notCompared,omitempty"`
	Budget      string `json:"budget,omitempty"`
}

type counterexample struct {
	compat.Finding
	Outcome evidence.Outcome `json:"outcome"`
}

// checkEvidence reads generated events of the candidate against each
// version the check compared (res.Versions: the one given, the latest,
// or every live one under a transitive level), newest first, at the
// subject's level; schemas with references are not read yet. The time
// budget (evidenceTimeout) bounds the whole: the versions it leaves
// unread are named in notCompared. Evidence never changes the verdict.
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
	level := res.Level
	if level == "" {
		level = compat.DefaultLevel
	}
	if version != 0 {
		// One given version: the transitive variant means the same.
		level = compat.Level(strings.TrimSuffix(string(level), "_TRANSITIVE"))
	}
	ctx, cancel := context.WithTimeout(r.Context(), evidenceTimeout)
	defer cancel()
	var skipped []string
	for i := len(res.Versions) - 1; i >= 0; i-- {
		n := res.Versions[i]
		if ctx.Err() != nil {
			out.NotCompared = append(out.NotCompared, n)
			continue
		}
		prev, err := s.svc.Version(ctx, r.PathValue("subject"), n, false)
		if err != nil {
			if ctx.Err() != nil {
				out.NotCompared = append(out.NotCompared, n)
				continue
			}
			return fail(err)
		}
		if len(prev.Schema.References) > 0 || prev.Schema.Type != t {
			skipped = append(skipped, strconv.Itoa(n))
			continue
		}
		ps, err := f.Format.Parse(prev.Schema.Text, nil)
		if err != nil {
			return fail(err)
		}
		// One version at a time, so that the budget stops between
		// versions and each pair read is whole or marked partial.
		rep, err := evidence.Check(ctx, level, next, []compat.Previous{{Version: prev.Version, Schema: ps}}, evidence.Options{})
		if err != nil {
			return fail(err)
		}
		for _, p := range rep.Pairs {
			if p.Result.Partial && p.Result.Events == 0 {
				if !slices.Contains(out.NotCompared, n) {
					out.NotCompared = append(out.NotCompared, n)
				}
				continue
			}
			out.Pairs = append(out.Pairs, p)
		}
		out.Findings = append(out.Findings, rep.Findings...)
		for _, fd := range res.Findings {
			if fd.Version != n {
				continue
			}
			if o, ok := rep.Counterexample(fd); ok {
				out.Counterexamples = append(out.Counterexamples, counterexample{Finding: fd, Outcome: o})
			}
		}
	}
	if len(skipped) > 0 {
		out.NotRead = "versions " + strings.Join(skipped, ", ") + " have references or another type"
	}
	if len(out.NotCompared) > 0 {
		out.Budget = fmt.Sprintf("the time budget of %v ran out before every version was read: versions %v were not compared; the verdict is the rules' alone for them", evidenceTimeout, out.NotCompared)
	}
	return out
}

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
// evidenceSlotWait is how long a compatibility call waits for an
// evidence slot (evidence.Acquire) before it answers without evidence.
var evidenceSlotWait = 100 * time.Millisecond

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
// subject's level, each schema parsed with its references. The time
// budget (evidenceTimeout) bounds the whole: the versions it leaves
// unread are named in notCompared. Evidence never changes the verdict.
func (s *server) checkEvidence(r *http.Request, version int, req schemaRequest, res registry.CompatibilityResult) *evidenceResponse {
	out := &evidenceResponse{}
	fail := func(err error) *evidenceResponse {
		out.NotRead = err.Error()
		return out
	}
	sreq := req.toService(r)
	t := sreq.Type
	if t == "" {
		t = compat.Avro
	}
	ctx, cancel := context.WithTimeout(r.Context(), evidenceTimeout)
	defer cancel()
	release, ok := evidence.Acquire(ctx, evidenceSlotWait)
	if !ok {
		out.NotRead = evidence.Busy
		return out
	}
	defer release()
	// Parsed with its references, as the check read it.
	next, err := s.svc.ParseRequest(ctx, sreq)
	if err != nil && ctx.Err() == nil {
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
	var skipped, notRead []string
	for i := len(res.Versions) - 1; i >= 0; i-- {
		n := res.Versions[i]
		if ctx.Err() != nil {
			out.NotCompared = append(out.NotCompared, n)
			continue
		}
		prev, ps, err := s.svc.ParsedVersion(ctx, r.PathValue("subject"), n)
		if err != nil {
			if ctx.Err() != nil {
				out.NotCompared = append(out.NotCompared, n)
				continue
			}
			return fail(err)
		}
		if prev.Schema.Type != t {
			skipped = append(skipped, strconv.Itoa(n))
			continue
		}
		// One version at a time, so that the budget stops between
		// versions and each pair read is whole or marked partial.
		rep, err := evidence.Check(ctx, level, next, []compat.Previous{{Version: prev.Version, Schema: ps}}, evidence.Options{})
		if errors.Is(err, evidence.ErrUnsupported) {
			notRead = append(notRead, fmt.Sprintf("version %d: %v", n, err))
			continue
		}
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
			if p.Result.NotRead != "" {
				// No event valid for the writer: said, never an
				// "events: 0" read as compatible.
				notRead = append(notRead, fmt.Sprintf("version %d %s: %s", n, p.Direction, p.Result.NotRead))
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
		notRead = append(notRead, "versions "+strings.Join(skipped, ", ")+" are of another schema type")
	}
	out.NotRead = strings.Join(notRead, "; ")
	if len(out.NotCompared) > 0 {
		out.Budget = fmt.Sprintf("the time budget of %v ran out before every version was read: versions %v were not compared; the verdict is the rules' alone for them", evidenceTimeout, out.NotCompared)
	}
	return out
}

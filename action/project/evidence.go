package project

import (
	"context"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/evidence"
	"github.com/charter-dev/charter/compat/rule"
)

// DefaultEvidenceTimeout bounds the evidence of one subject when
// Options.EvidenceTimeout is zero.
const DefaultEvidenceTimeout = 10 * time.Second

// EvidenceSummary is what the events generated for a subject's pairs
// showed (Options.Evidence): the counts over every pair its level
// compares (each direction against each version compared).
type EvidenceSummary struct {
	// Pairs is how many reader/writer pairs were read.
	Pairs int `json:"pairs"`
	// Events is how many events were read, over all pairs.
	Events int `json:"events"`
	// Equal events read back equal; Defaulted ones equal but for a
	// default the reader filled; Lossy ones lost a value; Refused ones
	// the reader rejected.
	Equal     int `json:"equal"`
	Defaulted int `json:"defaulted"`
	Lossy     int `json:"lossy"`
	Refused   int `json:"refused"`
	// Unexplained are the breaking outcomes (a loss, a refusal) that no
	// finding of the subject names: each with its counterexample, shown
	// rather than passed over in a count.
	Unexplained []evidence.Unexplained `json:"unexplained,omitempty"`
	// Partial is true when the time bound cut a pair short.
	Partial bool `json:"partial,omitempty"`
	// NotRead says why no events were read (a schema pair the evidence
	// engine does not support, such as a JSON Schema whose $refs leave
	// the document, or a writer the generator could make no valid event
	// for); the counts are then zero. When only some pairs read no
	// event, it names those pairs and the counts are the others'.
	NotRead string `json:"notRead,omitempty"`
}

// Breaking reports whether an event was lost or refused.
func (e EvidenceSummary) Breaking() bool { return e.Lossy+e.Refused > 0 }

// readEvidence reads generated events across the change for every pair
// the subject's level compares (compat/evidence): each compatibility
// finding of fs gets its counterexample (or the count of events that
// showed nothing there), and the evidence rules' findings come back, to
// be kept with the others.
func (c *checker) readEvidence(s *Subject, previous []compat.Previous, fs []rule.Finding) (*EvidenceSummary, []rule.Finding) {
	sum := &EvidenceSummary{}
	var same []compat.Previous
	for _, p := range previous {
		if p.Schema != nil && p.Schema.Type() == s.Current.Parsed.Type() {
			same = append(same, p)
		}
	}
	if s.Level == compat.None || len(same) == 0 {
		return nil, nil
	}
	timeout := c.evidenceTimeout
	if timeout <= 0 {
		timeout = DefaultEvidenceTimeout
	}
	ctx, cancel := context.WithTimeout(c.ctx, timeout)
	defer cancel()
	rep, err := evidence.Check(ctx, s.Level, s.Current.Parsed, same, evidence.Options{Events: c.evidence})
	if err != nil {
		// ErrUnsupported (a pair the engine cannot generate events
		// for) or a schema it could not read: said, never a failure.
		sum.NotRead = err.Error()
		return sum, nil
	}
	var named []compat.Finding
	for i := range fs {
		AttachEvidence(rep, &fs[i])
		if fs[i].Direction != "" {
			named = append(named, compat.Finding{Violation: compat.Violation{RuleID: fs[i].RuleID, Path: fs[i].Path}, Direction: compat.Direction(fs[i].Direction), Version: fs[i].Version})
		}
	}
	sum = SummariseEvidence(rep, named)
	if sum.Events == 0 && !sum.Partial {
		return sum, nil
	}
	more := evidence.RuleFindings(s.Name, rep)
	for i := range more {
		AttachEvidence(rep, &more[i])
	}
	return sum, more
}

// SummariseEvidence is the EvidenceSummary of rep, whose unexplained
// outcomes are the breaking ones no finding of named names. charter check
// and charter diff both summarise through it.
func SummariseEvidence(rep evidence.Report, named []compat.Finding) *EvidenceSummary {
	sum := &EvidenceSummary{}
	for _, p := range rep.Pairs {
		r := p.Result
		sum.Pairs++
		sum.Events += r.Events
		sum.Equal += r.Equal
		sum.Defaulted += r.Defaulted
		sum.Lossy += r.Lossy
		sum.Refused += r.Refused
		sum.Partial = sum.Partial || r.Partial
	}
	if sum.Events == 0 && !sum.Partial {
		return &EvidenceSummary{NotRead: evidence.NoValidEvent}
	}
	// A pair without events proves nothing: said, with the pairs that
	// read some still counted.
	sum.NotRead = strings.Join(rep.NotRead(), "; ")
	sum.Unexplained = rep.Unexplained(named)
	return sum
}

// AttachEvidence sets fd.Evidence from rep for a compatibility finding
// (one with a direction): the counterexample Report.Counterexample
// attributes to it (an event that breaks at its own path, never at
// another field's), or only the count of the pair's events when none
// isolates it. A finding whose pair read no event (Result.NotRead) gets
// none. charter check and charter diff both attach through it.
func AttachEvidence(rep evidence.Report, fd *rule.Finding) {
	if fd.Direction == "" {
		return
	}
	cf := compat.Finding{Violation: compat.Violation{RuleID: fd.RuleID, Path: fd.Path}, Direction: compat.Direction(fd.Direction), Version: fd.Version}
	res, ok := rep.Pair(cf.Direction, cf.Version)
	if !ok || res.Events == 0 {
		return
	}
	ev := &rule.Evidence{Events: res.Events}
	if o, ok := rep.Counterexample(cf); ok {
		ev.Event, ev.Class, ev.Path, ev.Reader, ev.Read = o.Event, o.Class.String(), o.Path, o.Reader, o.Read
	}
	fd.Evidence = ev
}

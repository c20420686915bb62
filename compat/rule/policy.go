// Package rule is Charter's one rule model: a [Rule] (stable ID, purpose,
// source, category, format, default severity), one [Severity] and one
// [Finding], whatever fires it (compatibility at the subject's level,
// consumer contracts, PII policy, deprecation TTLs, ownership, semantic
// versions), so the registry, the CLI (`charter check`) and the CI action
// evaluate and render findings the same way. Each package that fires
// rules declares them beside that code; package action/rules is the
// catalog of them all.
package rule

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Severity is how much a Finding matters. Errors fail a gate; warnings
// and notices are reported and pass.
type Severity int

// Severities, least severe first.
const (
	Notice Severity = iota
	Warning
	Error
)

var severityNames = [...]string{"notice", "warning", "error"}

func (s Severity) String() string {
	if s < Notice || s > Error {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity accepts "notice", "warning" (or "warn") and "error", in
// any letter case, and "off" (ok false: the rule is disabled).
func ParseSeverity(s string) (sev Severity, enabled bool, err error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "notice", "info":
		return Notice, true, nil
	case "warning", "warn":
		return Warning, true, nil
	case "error":
		return Error, true, nil
	case "off", "none", "ignore":
		return Notice, false, nil
	}
	return Notice, false, fmt.Errorf("invalid severity %q: want error, warning, notice or off", s)
}

// MarshalText encodes the severity as its name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a severity name (not "off").
func (s *Severity) UnmarshalText(b []byte) error {
	sev, enabled, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	if !enabled {
		return fmt.Errorf("invalid severity %q for a finding", b)
	}
	*s = sev
	return nil
}

// Finding is one thing a gate reports. Every finding names its rule, the
// subject, the field path and a fix.
type Finding struct {
	// RuleID is the stable SCREAMING_SNAKE ID of the rule that fired
	// (AVRO_…, PROTO_…, JSON_…, CONTRACT_…, PII_…, DEPRECATION_…, OWNER_…,
	// SEMVER_…).
	RuleID   string   `json:"ruleId"`
	Severity Severity `json:"severity"`
	// Subject is the registry subject the finding is about.
	Subject string `json:"subject"`
	// File and Line locate the finding in the working tree when known
	// (Line is 1-based; 0 when unknown).
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Path is the field path (".shipment.carrier.code"), "" for findings
	// about the whole schema or subject.
	Path string `json:"path,omitempty"`
	// Message says what is wrong in one sentence.
	Message string `json:"message"`
	// Hint says how to fix it, when there is a known fix.
	Hint string `json:"hint,omitempty"`
	// Consumer names the consumer a contract finding is about.
	Consumer string `json:"consumer,omitempty"`
	// Version is the earlier subject version the finding was checked
	// against, 0 when none.
	Version int `json:"version,omitempty"`
	// Direction is the reading direction of a compatibility finding:
	// "BACKWARD" (the new schema reads data written with the earlier
	// one) or "FORWARD" (the earlier schema reads data written with the
	// new one); "" for other findings.
	Direction string `json:"direction,omitempty"`
	// Evidence is what generated events read across the change showed
	// about a compatibility finding (charter check --evidence); nil
	// without evidence.
	Evidence *Evidence `json:"evidence,omitempty"`
}

// Evidence is what the events generated for a finding's pair (the
// writer's events read with the reader, compat/evidence) showed at the
// finding: the smallest event found that breaks there and what the
// reader did with it, or none when no generated event broke.
type Evidence struct {
	// Events is how many events of the pair were read.
	Events int `json:"events"`
	// Event is the counterexample as the writer wrote it (JSON), absent
	// when none of the events broke.
	Event json.RawMessage `json:"event,omitempty"`
	// Class is what the reader did with it: "loss" (read, but a value
	// was dropped, truncated or changed) or "refused".
	Class string `json:"class,omitempty"`
	// Path is where the event breaks, in the writer's terms.
	Path string `json:"path,omitempty"`
	// Reader says in one sentence what the reader did.
	Reader string `json:"reader,omitempty"`
	// Read is what the reader made of the event (JSON), absent when it
	// refused it.
	Read json.RawMessage `json:"read,omitempty"`
}

// Report is the result of one gate run: every finding, not just the first.
type Report struct {
	Findings []Finding `json:"findings"`
}

// Failed reports whether any finding is an Error.
func (r Report) Failed() bool {
	for _, f := range r.Findings {
		if f.Severity == Error {
			return true
		}
	}
	return false
}

// Count returns how many findings have severity s.
func (r Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

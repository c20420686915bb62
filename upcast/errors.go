package upcast

import (
	"errors"
	"fmt"
	"strings"
)

// Failure classes. Every error an upcast returns is an *Error whose Kind is
// one of these, so a replay job can decide with errors.Is what to do
// (dead-letter, stop, alert).
var (
	// ErrUnknownVersion: the event's writer version or schema ID is not a
	// version of its subject, or the event does not say which it is.
	ErrUnknownVersion = errors.New("unknown writer version")
	// ErrMissingStep: no chain of steps leads from the writer version to
	// the target (also returned by Build, inside a *GapError).
	ErrMissingStep = errors.New("no upcast path")
	// ErrDecode: the payload or its envelope cannot be decoded with the
	// writer schema.
	ErrDecode = errors.New("cannot decode event")
	// ErrStep: a step (Go function or migration rule) returned an error.
	ErrStep = errors.New("upcast step failed")
	// ErrInvalidOutput: a step's output does not validate against the
	// schema of the version it claims to produce.
	ErrInvalidOutput = errors.New("output does not validate against the schema")
	// ErrParked: Replay did not upcast the event because an earlier event
	// with the same key failed (see WithParkKeys).
	ErrParked = errors.New("key parked after an earlier failure")
)

// Error is a failed upcast of one event: what failed (Kind), for which
// event, at which version and in which step. A replay job dead-letters the
// event with it; the original bytes stay in the Event it passed in.
type Error struct {
	// Kind is one of ErrUnknownVersion, ErrMissingStep, ErrDecode,
	// ErrStep, ErrInvalidOutput, ErrParked.
	Kind error
	// EventID is Event.ID (may be empty).
	EventID string
	Subject string
	// Version is the writer version (0 when unknown), SchemaID the writer
	// schema ID (0 when unknown), Target the version being produced.
	Version  int
	SchemaID int64
	Target   int
	// Step is the step that failed or whose output is invalid ("" when
	// the failure is not in a step).
	Step *StepInfo
	// Err is the cause (a step's own error, a decoder's error…).
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("upcast")
	if e.EventID != "" {
		fmt.Fprintf(&b, " event %q", e.EventID)
	}
	if e.Subject != "" {
		fmt.Fprintf(&b, " of %s", e.Subject)
	}
	switch {
	case e.Version > 0:
		fmt.Fprintf(&b, " v%d", e.Version)
	case e.SchemaID > 0:
		fmt.Fprintf(&b, " (schema ID %d)", e.SchemaID)
	}
	if e.Target > 0 {
		fmt.Fprintf(&b, " to v%d", e.Target)
	}
	if e.Step != nil {
		fmt.Fprintf(&b, ": step %s", e.Step)
	}
	fmt.Fprintf(&b, ": %v", e.Kind)
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns Kind and the cause, so errors.Is matches both.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Gap is one version of a subject that has no path to the target.
type Gap struct {
	// From is the version with no path; Stuck the furthest version it
	// reaches; Next the version after Stuck towards the target.
	From, Stuck, Next int
	// Reason says why Stuck cannot go to Next: no step registered, no
	// migration rule, and the incompatibilities found by compat.
	Reason string
}

// GapError is Build's error when versions of a subject have no path to the
// target. errors.Is(err, ErrMissingStep) matches it.
type GapError struct {
	Subject string
	Target  int
	Gaps    []Gap
}

func (e *GapError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "subject %s: %d version(s) cannot reach v%d:", e.Subject, len(e.Gaps), e.Target)
	for _, g := range e.Gaps {
		if g.Stuck == g.From {
			fmt.Fprintf(&b, " v%d: v%d→v%d: %s;", g.From, g.Stuck, g.Next, g.Reason)
		} else {
			fmt.Fprintf(&b, " v%d (reaches v%d): v%d→v%d: %s;", g.From, g.Stuck, g.Stuck, g.Next, g.Reason)
		}
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Unwrap returns ErrMissingStep.
func (e *GapError) Unwrap() error { return ErrMissingStep }

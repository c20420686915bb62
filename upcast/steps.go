package upcast

import (
	"fmt"
	"sort"
	"sync"
)

// Func is one hand-written step: it turns a value of its from version into
// a value of its to version. Values are the generic decoded form of the
// subject's format (see the package documentation): nested maps, slices
// and scalars. A step owns its input: it may change the map in place and
// return it. It must be safe to call from several goroutines at once
// (a pure function is). An error fails the event with ErrStep.
type Func func(old map[string]any) (map[string]any, error)

// StepKind says where a step comes from.
type StepKind string

// The kinds of step a chain can hold.
const (
	// StepGo is a Func registered in Steps: an upcaster (from < to) or a
	// downcaster (from > to).
	StepGo StepKind = "go"
	// StepRule runs the Confluent migrationRules (JSONata) of the newer
	// version of the pair.
	StepRule StepKind = "rule"
	// StepImplicit is schema resolution: Avro reader/writer resolution,
	// JSON Schema defaults, Protobuf field numbers (unknown fields
	// dropped). Used only where compat finds the reader can read the
	// writer.
	StepImplicit StepKind = "implicit"
)

// StepInfo describes one step of a chain.
type StepInfo struct {
	From, To int
	Kind     StepKind
	// Name is the step's name: the Func's registered name, the rule
	// names joined by "+", or the format's resolution ("AVRO resolution").
	Name string
}

// String renders the step as "v1→v2 go(splitCustomer)".
func (s StepInfo) String() string {
	if s.Name == "" {
		return fmt.Sprintf("v%d→v%d %s", s.From, s.To, s.Kind)
	}
	return fmt.Sprintf("v%d→v%d %s(%s)", s.From, s.To, s.Kind, s.Name)
}

type stepKey struct {
	subject  string
	from, to int
}

type goStep struct {
	name string
	fn   Func
}

// Steps is a registry of hand-written steps keyed by subject and version
// pair. Register upcasters (from < to) for real breaking changes only:
// compatible versions are bridged by schema resolution, and versions with
// Confluent migrationRules by those rules. Downcasters (from > to) serve
// bridge jobs that feed consumers not yet migrated. The zero value is
// ready to use; it is safe for concurrent use, but steps registered after
// a chain was built are not seen by that chain.
type Steps struct {
	mu sync.RWMutex
	m  map[stepKey]goStep
}

// NewSteps returns an empty registry.
func NewSteps() *Steps { return &Steps{} }

// Register adds the step from→to of subject under name (used in errors,
// counts and reports; "" gives "v1→v2"). Versions are registry version
// numbers (≥ 1); from == to, a nil fn or a pair registered twice is an
// error.
func (s *Steps) Register(subject string, from, to int, name string, fn Func) error {
	switch {
	case subject == "":
		return fmt.Errorf("register step v%d→v%d: empty subject", from, to)
	case from < 1 || to < 1:
		return fmt.Errorf("register step v%d→v%d of %s: versions start at 1", from, to, subject)
	case from == to:
		return fmt.Errorf("register step v%d→v%d of %s: a step must change the version", from, to, subject)
	case fn == nil:
		return fmt.Errorf("register step v%d→v%d of %s: nil function", from, to, subject)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[stepKey]goStep{}
	}
	k := stepKey{subject, from, to}
	if _, dup := s.m[k]; dup {
		return fmt.Errorf("register step v%d→v%d of %s: already registered", from, to, subject)
	}
	s.m[k] = goStep{name: name, fn: fn}
	return nil
}

// MustRegister is Register that panics on error, for package-level setup.
func (s *Steps) MustRegister(subject string, from, to int, name string, fn Func) *Steps {
	if err := s.Register(subject, from, to, name, fn); err != nil {
		panic(err)
	}
	return s
}

// For returns the steps registered for subject, ordered by from then to.
func (s *Steps) For(subject string) []StepInfo {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []StepInfo
	for k, st := range s.m {
		if k.subject == subject {
			out = append(out, StepInfo{From: k.from, To: k.to, Kind: StepGo, Name: st.name})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].To < out[j].To
	})
	return out
}

// snapshot copies the subject's steps (so a built chain does not change).
func (s *Steps) snapshot(subject string) map[[2]int]goStep {
	out := map[[2]int]goStep{}
	if s == nil {
		return out
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for k, st := range s.m {
		if k.subject == subject {
			out[[2]int{k.from, k.to}] = st
		}
	}
	return out
}

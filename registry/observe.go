package registry

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charter-dev/charter/compat"
)

// Observer is told what a Service does, for metrics (registry/api
// implements it with Prometheus; the registry itself imports no metrics
// library). Its methods are called synchronously, from the request's
// goroutine, so they must be quick and must not call the Service.
type Observer interface {
	// Verdict is called once per compatibility verdict: a new version
	// judged by Register (not in IMPORT mode, not a schema the subject
	// already has), a compatibility check (CheckCompatibility) and a dry
	// run (Governance.Check). It is called after the transaction ended,
	// committed or not, so a transaction the store retried counts once.
	Verdict(v Verdict)
	// StoreOp is called after every store transaction the Service runs:
	// op is its operation name, a short constant such as "register
	// schema" or "get schema by id"; write says Store.Update (else
	// Store.View); err is the transaction's error (a refusal such as
	// 409 included).
	StoreOp(op string, write bool, d time.Duration, err error)
}

// Verdict sources.
const (
	VerdictRegister = "register" // POST /subjects/{s}/versions
	VerdictCheck    = "check"    // POST /compatibility/subjects/{s}/versions[/{v}]
	VerdictDryRun   = "dry_run"  // POST /governance/subjects/{s}/check
)

// Verdict is one compatibility verdict: a candidate schema compared at
// Level with Compared earlier versions of Subject.
type Verdict struct {
	// Source is VerdictRegister, VerdictCheck or VerdictDryRun.
	Source  string
	Subject string
	Type    compat.SchemaType
	Level   compat.Level
	// Compared is how many earlier versions the candidate was compared
	// with: 0 when the level is NONE or the subject has no live version
	// to compare with (the verdict is then compatible by definition).
	Compared int
	// Findings are the compatibility findings (none when compatible),
	// each with its rule ID.
	Findings []compat.Finding
}

// Compatible reports whether the verdict found no incompatibility.
func (v Verdict) Compatible() bool { return len(v.Findings) == 0 }

// observers are the Service's Observers, read without a lock on every
// store transaction.
type observers struct {
	mu   sync.Mutex
	list atomic.Pointer[[]Observer]
}

// Observe registers o to be told of every verdict and store transaction
// from now on.
func (s *Service) Observe(o Observer) {
	s.obs.mu.Lock()
	defer s.obs.mu.Unlock()
	var list []Observer
	if cur := s.obs.list.Load(); cur != nil {
		list = append(list, *cur...)
	}
	list = append(list, o)
	s.obs.list.Store(&list)
}

// observing returns the registered Observers (nil when none).
func (s *Service) observing() []Observer {
	if l := s.obs.list.Load(); l != nil {
		return *l
	}
	return nil
}

// verdict tells the Observers of v.
func (s *Service) verdict(v Verdict) {
	for _, o := range s.observing() {
		o.Verdict(v)
	}
}

// compared is how many earlier versions a check at level compares with
// among the n given.
func compared(level compat.Level, n int) int {
	switch {
	case level == compat.None || level == "" || n == 0:
		return 0
	case level.Transitive():
		return n
	}
	return 1
}

// timed runs one store transaction, telling the Observers how long it
// took.
func (s *Service) timed(op string, write bool, fn func() error) error {
	obs := s.observing()
	if len(obs) == 0 {
		return fn()
	}
	start := time.Now()
	err := fn()
	d := time.Since(start)
	rep := err
	if _, ok := errors.AsType[*coldSummary](err); ok {
		// A registration left to build its subject's summary outside
		// the write transaction (summary.go): not a failure.
		rep = nil
	}
	for _, o := range obs {
		o.StoreOp(op, write, d, rep)
	}
	return err
}

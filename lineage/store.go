package lineage

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// ChangeKind is what a lineage change does.
type ChangeKind string

// Change kinds.
const (
	// ChangeSetProducer records (or replaces) a producer of a subject.
	ChangeSetProducer ChangeKind = "set_producer"
	// ChangeRemoveProducer forgets a producer of a subject.
	ChangeRemoveProducer ChangeKind = "remove_producer"
	// ChangeSetConsumer records (or replaces) what a consumer reads.
	ChangeSetConsumer ChangeKind = "set_consumer"
	// ChangeRemoveConsumer forgets a consumer of a subject.
	ChangeRemoveConsumer ChangeKind = "remove_consumer"
)

// Change is one entry of the lineage history: who declared what, when.
// Exactly one of Producer and Consumer is set, matching Kind; a remove
// needs only the service and subject.
type Change struct {
	// Revision is assigned by the Store, increasing from 1.
	Revision int64      `json:"revision"`
	At       time.Time  `json:"at"`
	Actor    string     `json:"actor,omitempty"`
	Kind     ChangeKind `json:"kind"`
	Producer *Producer  `json:"producer,omitempty"`
	Consumer *Consumer  `json:"consumer,omitempty"`
}

// ErrBadChange is returned for a change whose kind and payload disagree.
var ErrBadChange = errors.New("invalid lineage change")

// Validate reports whether the change is well formed.
func (c Change) Validate() error {
	switch c.Kind {
	case ChangeSetProducer, ChangeRemoveProducer:
		if c.Producer == nil || c.Consumer != nil || c.Producer.Service == "" || c.Producer.Subject == "" {
			return fmt.Errorf("%s: %w: needs a producer with a service and a subject", c.Kind, ErrBadChange)
		}
	case ChangeSetConsumer, ChangeRemoveConsumer:
		if c.Consumer == nil || c.Producer != nil || c.Consumer.Service == "" || c.Consumer.Subject == "" {
			return fmt.Errorf("%s: %w: needs a consumer with a service and a subject", c.Kind, ErrBadChange)
		}
	default:
		return fmt.Errorf("%w: unknown kind %q", ErrBadChange, c.Kind)
	}
	if c.At.IsZero() {
		return fmt.Errorf("%s: %w: no time", c.Kind, ErrBadChange)
	}
	return nil
}

// Store is what lineage needs from the registry's storage: an append-only
// history of changes. The registry implements it over its store, in the
// same transaction as the audit log entry; MemStore is the in-memory form
// for tests. Schema versions and their fields are not stored here: they are
// the registry's own versions, listed with compat.Fields when a graph is
// built.
type Store interface {
	// AppendLineage validates ch, assigns it the next revision and
	// stores it. It returns ErrBadChange (wrapped) for an invalid
	// change, or the storage error.
	AppendLineage(ctx context.Context, ch Change) (Change, error)
	// LineageChanges returns the changes with a revision greater than
	// after, oldest first; subject "" means every subject.
	LineageChanges(ctx context.Context, subject string, after int64) ([]Change, error)
}

// Replay applies changes (oldest first) made up to and including until
// (zero: all of them) and returns the producers and consumers then in
// force, sorted by subject and service; Versions are left for the caller
// to fill from the registry. A later set replaces an earlier one for the
// same service and subject; a remove forgets it.
func Replay(changes []Change, until time.Time) Declarations {
	type key struct{ service, subject string }
	prods := map[key]Producer{}
	cons := map[key]Consumer{}
	for _, c := range changes {
		if !until.IsZero() && c.At.After(until) {
			continue
		}
		switch c.Kind {
		case ChangeSetProducer:
			prods[key{c.Producer.Service, c.Producer.Subject}] = *c.Producer
		case ChangeRemoveProducer:
			delete(prods, key{c.Producer.Service, c.Producer.Subject})
		case ChangeSetConsumer:
			cons[key{c.Consumer.Service, c.Consumer.Subject}] = *c.Consumer
		case ChangeRemoveConsumer:
			delete(cons, key{c.Consumer.Service, c.Consumer.Subject})
		}
	}
	var d Declarations
	for _, p := range prods {
		d.Producers = append(d.Producers, p)
	}
	for _, c := range cons {
		d.Consumers = append(d.Consumers, c)
	}
	sort.Slice(d.Producers, func(i, j int) bool {
		a, b := d.Producers[i], d.Producers[j]
		return a.Subject < b.Subject || a.Subject == b.Subject && a.Service < b.Service
	})
	sort.Slice(d.Consumers, func(i, j int) bool {
		a, b := d.Consumers[i], d.Consumers[j]
		return a.Subject < b.Subject || a.Subject == b.Subject && a.Service < b.Service
	})
	return d
}

// MemStore is a Store in memory, safe for concurrent use.
type MemStore struct {
	mu      sync.Mutex
	changes []Change
}

var _ Store = (*MemStore)(nil)

// AppendLineage implements Store.
func (m *MemStore) AppendLineage(ctx context.Context, ch Change) (Change, error) {
	if err := ctx.Err(); err != nil {
		return Change{}, err
	}
	if err := ch.Validate(); err != nil {
		return Change{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ch.Revision = int64(len(m.changes)) + 1
	m.changes = append(m.changes, ch)
	return ch, nil
}

// LineageChanges implements Store.
func (m *MemStore) LineageChanges(ctx context.Context, subject string, after int64) ([]Change, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Change
	for _, c := range m.changes {
		if c.Revision <= after {
			continue
		}
		if subject != "" && subjectOf(c) != subject {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

func subjectOf(c Change) string {
	if c.Producer != nil {
		return c.Producer.Subject
	}
	if c.Consumer != nil {
		return c.Consumer.Subject
	}
	return ""
}

package registry

import (
	"context"
	"fmt"
	"time"

	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry/governance"
)

// AddState fills st.Readers (each consumer reading the subject at now
// and the fields it reads, from the lineage: published contracts and
// declared consumers) and st.Consumers (those consumers, and any the
// ConsumerSource names, sorted).
func (lin *Lineage) AddState(ctx context.Context, _ Tx, g GovernanceTx, subject string, now time.Time, st *governance.SubjectState) error {
	s := lin.s
	chs, err := lineageChanges(ctx, g, subject, 0)
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for _, c := range lineage.Replay(chs, now).Consumers {
		if c.Subject != subject {
			continue
		}
		if st.Readers == nil {
			st.Readers = map[string][]string{}
		}
		st.Readers[c.Service] = append(st.Readers[c.Service], c.Fields...)
		names[c.Service] = true
	}
	if s.consumers != nil {
		cs, err := s.consumers.Consumers(ctx, subject)
		if err != nil {
			return fmt.Errorf("consumers of %q: %w", subject, err)
		}
		for _, c := range cs {
			names[c] = true
		}
	}
	st.Consumers = sortedKeys(names)
	if len(st.Consumers) == 0 {
		st.Consumers = nil
	}
	return nil
}

// Registered records nothing: lineage changes through its own calls.
func (lin *Lineage) Registered(context.Context, GovernanceTx, Registered) error { return nil }

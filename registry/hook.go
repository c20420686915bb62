package registry

import (
	"context"
	"time"

	"github.com/charter-dev/charter/registry/governance"
)

// RegistrationHook is how a service plugs into registration, inside the
// registration's transaction: it adds what it knows of the subject to the
// state the gate judges with, and records what a registration changed.
// Governance, Lineage and ContractRegistry are the registry's hooks, run
// in that order on stores whose transactions implement GovernanceTx.
type RegistrationHook interface {
	// AddState adds to st what the service knows of subject as of now.
	AddState(ctx context.Context, tx Tx, g GovernanceTx, subject string, now time.Time, st *governance.SubjectState) error
	// Registered records a registration the gate allowed.
	Registered(ctx context.Context, g GovernanceTx, r Registered) error
}

// Registered is a registration as the hooks see it once it is stored:
// the subject, the version and schema ID it got, and the gate's
// governance result (semantic version, removed and restored fields, new
// inline deprecations).
type Registered struct {
	Subject string
	Version int
	ID      int64
	Result  governance.Result
}

// hooks returns the registration hooks, in order.
func (s *Service) hooks() []RegistrationHook {
	return []RegistrationHook{s.Governance(), s.Lineage(), s.ContractRegistry()}
}

// registered runs every hook's Registered.
func (s *Service) registered(ctx context.Context, g GovernanceTx, r Registered) error {
	for _, h := range s.hooks() {
		if err := h.Registered(ctx, g, r); err != nil {
			return err
		}
	}
	return nil
}

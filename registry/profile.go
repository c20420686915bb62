package registry

import (
	"context"
	"fmt"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/governance"
)

// subjectFormat returns f checking with the rule profile that subject's
// effective governance policy selects (protobufProfile, for a Protobuf
// subject): the format of registration, the dry run and the compatibility
// endpoint. f itself over a store without governance.
func subjectFormat(ctx context.Context, tx Tx, f compat.Format, subject string) (compat.Format, error) {
	g, ok := tx.(GovernanceTx)
	if !ok || f.Type() != compat.Protobuf {
		return f, nil
	}
	pol, err := effectivePolicy(ctx, g, subject)
	if err != nil {
		return nil, err
	}
	return withPolicyProfile(f, pol)
}

// withPolicyProfile returns f with the rule profile pol selects for its
// type.
func withPolicyProfile(f compat.Format, pol governance.PolicyConfig) (compat.Format, error) {
	if f.Type() != compat.Protobuf {
		return f, nil
	}
	pf, err := compat.WithProfile(f, pol.ProtobufProfile)
	if err != nil {
		return nil, fmt.Errorf("policy protobufProfile: %w", err)
	}
	return pf, nil
}

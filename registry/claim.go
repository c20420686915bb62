package registry

import (
	"context"

	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

type claimKey struct{}

// WithClaim returns ctx asking that a registration made with it claim its
// subject for team when the subject has no owner yet: the owner is set
// in the registration's own transaction, with the actor as contact. The
// API sets it once it has decided that the authenticated principal may
// write to the unowned subject (auth's `unowned: claim`).
func WithClaim(ctx context.Context, team string) context.Context {
	return context.WithValue(ctx, claimKey{}, team)
}

func claimFrom(ctx context.Context) string {
	t, _ := ctx.Value(claimKey{}).(string)
	return t
}

// claim records the team of ctx's claim as the owner of subject when it
// has none. A subject that another team came to own after the API's
// decision (a concurrent claim) refuses the registration: 40301.
func (gov *Governance) claim(ctx context.Context, g GovernanceTx, subject string) error {
	team := claimFrom(ctx)
	if team == "" {
		return nil
	}
	var cur governance.Owner
	had, err := getRecord(ctx, g, kindOwner, subject, "", &cur)
	if err != nil {
		return err
	}
	if had {
		if cur.Team == team {
			return nil
		}
		return srerr.New(srerr.ErrForbidden, "Subject '%s' was claimed by team '%s' while this registration ran; only its members may register", subject, cur.Team)
	}
	s := gov.s
	o := governance.Owner{Subject: subject, Team: team, Contact: ActorFrom(ctx), UpdatedAt: s.now(), UpdatedBy: ActorFrom(ctx)}
	if err := putRecord(ctx, g, kindOwner, subject, "", o); err != nil {
		return err
	}
	return s.audit(ctx, g, governance.ActionOwnerSet, subject, "claim", nil, o)
}

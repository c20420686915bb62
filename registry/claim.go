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

type expectedOwnerKey struct{}

// WithExpectedOwner returns ctx asking that an ownership change made with
// it (UpdateOwner, DeleteOwner) happen only while team ("" for none)
// still owns the subject: the API decided on that owner, and a concurrent
// change (another team's claim) must not slip in between. A mismatch is
// 40301.
func WithExpectedOwner(ctx context.Context, team string) context.Context {
	return context.WithValue(ctx, expectedOwnerKey{}, team)
}

// checkExpectedOwner compares the owner found in the transaction (had,
// cur) with the one ctx expects.
func checkExpectedOwner(ctx context.Context, subject string, had bool, cur governance.Owner) error {
	want, ok := ctx.Value(expectedOwnerKey{}).(string)
	if !ok {
		return nil
	}
	got := ""
	if had {
		got = cur.Team
	}
	if got == want {
		return nil
	}
	if got == "" {
		return srerr.New(srerr.ErrForbidden, "Forbidden: the owner of subject '%s' changed while this request ran (it has none now); retry", subject)
	}
	return srerr.New(srerr.ErrForbidden, "Forbidden: subject '%s' came to be owned by team '%s' while this request ran; retry", subject, got)
}

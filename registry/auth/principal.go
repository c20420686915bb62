// Package auth is who is asking: the auth file, the authentication of
// requests (bearer tokens, HTTP basic, OIDC JWTs, TLS client
// certificates) and the decisions of who may do what.
//
// A principal's teams are the team names owners, contracts and declared
// consumers use: a member of the team that owns a subject may change it,
// and a principal publishes contracts and declares consumers for its own
// teams only. Identity comes only from verified credentials, never from
// a header a client can set.
package auth

import (
	"context"
	"slices"
)

// Principal is an authenticated caller.
type Principal struct {
	// Name is the principal's name (the auth file's name, the JWT's name
	// claim, or the client certificate's CN or first SAN).
	Name string
	// Teams are the teams the principal belongs to, in the auth file's
	// (or the token's) order.
	Teams []string
	// Admin is true for the auth file's admins.
	Admin bool
	// Method says how the principal was authenticated: "token",
	// "basic", "oidc" or "mtls".
	Method string
}

// InTeam reports whether p is a member of team.
func (p Principal) InTeam(team string) bool { return slices.Contains(p.Teams, team) }

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal of ctx; false for anonymous
// requests and when authentication is off.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

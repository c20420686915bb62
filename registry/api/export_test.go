package api

import (
	"net/http"
	"sort"
)

// Route is one endpoint and who may call it, for the authorization
// matrix test.
type Route struct {
	Pattern string
	// Kind is the access kind's name: public, read, check, owner,
	// owner-soft-admin-permanent, team, admin.
	Kind string
	// Team names the path value holding the team of a team write ("" when
	// the body holds it).
	Team string
}

// Routes returns every registered route, sorted by pattern.
func Routes() []Route {
	rt := &router{mux: http.NewServeMux(), s: &server{}}
	(&server{}).routes(rt)
	names := map[accessKind]string{public: "public", read: "read", check: "check", owner: "owner",
		ownerSoftAdminPermanent: "owner-soft-admin-permanent", teamWrite: "team", admin: "admin", authenticated: "authenticated"}
	var out []Route
	for _, p := range rt.patterns {
		a := routeAccess[p]
		out = append(out, Route{Pattern: p, Kind: names[a.kind], Team: a.team})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pattern < out[j].Pattern })
	return out
}

package api

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/auth"
	"github.com/charter-dev/charter/registry/srerr"
)

// ActorHeader names the request header that says who makes a change when
// authentication is off (a registry on a loopback address): the audit
// log records it, else the basic-auth user name, else "anonymous". With
// authentication on it is ignored: the actor is the authenticated
// principal.
const ActorHeader = "X-Charter-Actor"

// challenge is the WWW-Authenticate header of a 401.
const challenge = `Basic realm="charter", charset="UTF-8"`

// identify puts who is asking into the request's context. Without an
// Authenticator, the actor is the name of a verified TLS client
// certificate (serve --tls-client-ca), else whoever ActorHeader (or the
// basic-auth user) claims. With one, it is the principal of the request's verified
// credentials (auth.PrincipalFrom), the actor of every audit entry; bad
// credentials answer 401 (40101) and a used-up rate limit 429 (42980).
func (s *server) identify(next http.Handler) http.Handler {
	a := s.opts.Auth
	if a == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			actor := strings.TrimSpace(r.Header.Get(ActorHeader))
			if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 && len(r.TLS.VerifiedChains[0]) > 0 {
				actor = auth.CertName(r.TLS.VerifiedChains[0][0])
			}
			if actor == "" {
				if user, _, ok := r.BasicAuth(); ok {
					actor = user
				}
			}
			if actor != "" {
				r = r.WithContext(registry.WithActor(r.Context(), actor))
			}
			next.ServeHTTP(w, r)
		})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok, err := a.Authenticate(r)
		if err != nil {
			unauthorized(w, r, s, strings.TrimPrefix(err.Error(), auth.ErrInvalidCredentials.Error()+": "))
			return
		}
		key := "anonymous@" + clientHost(r)
		if ok {
			key = p.Name
			r = r.WithContext(registry.WithActor(auth.WithPrincipal(r.Context(), p), p.Name))
		}
		// Health probes come from load balancers, anonymous and often:
		// they are never rate-limited.
		if allowed, wait := a.Allow(key); !allowed && !isProbe(r.URL.Path) {
			w.Header().Set("Retry-After", strconv.Itoa(int(max(time.Second, wait+time.Second-1)/time.Second)))
			writeError(w, r, s.log, srerr.New(srerr.ErrRateLimited, "Too many requests from '%s'; retry in %s", key, wait.Round(time.Millisecond)))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isProbe reports whether path is a health probe's (/health...,
// /livez, /readyz).
func isProbe(path string) bool {
	return strings.HasPrefix(path, "/health") || path == "/livez" || path == "/readyz"
}

// clientHost is the host part of r's remote address.
func clientHost(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

func unauthorized(w http.ResponseWriter, r *http.Request, s *server, reason string) {
	w.Header().Add("WWW-Authenticate", challenge)
	w.Header().Add("WWW-Authenticate", `Bearer realm="charter"`)
	writeError(w, r, s.log, srerr.New(srerr.ErrUnauthorized, "Unauthorized: %s", reason))
}

// forbidden answers 403 (40301) with err's one-line reason.
func forbidden(w http.ResponseWriter, r *http.Request, s *server, err error) {
	writeError(w, r, s.log, srerr.New(srerr.ErrForbidden, "Forbidden: %s", err.Error()))
}

// authorize wraps h in the check its access requires once authentication
// is on; without it every endpoint is open.
func (s *server) authorize(a access, h http.HandlerFunc) http.Handler {
	if s.opts.Auth == nil || a.kind == public {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := auth.PrincipalFrom(r.Context())
		if !ok {
			if (a.kind == read || a.kind == check) && s.opts.Auth.Config().Anonymous == auth.AnonymousRead {
				h(w, r)
				return
			}
			unauthorized(w, r, s, "this endpoint needs credentials (a bearer token, or HTTP basic user and password)")
			return
		}
		kind := a.kind
		if kind == ownerSoftAdminPermanent {
			kind = owner
			if r.URL.Query().Get("permanent") == "true" {
				kind = admin
			}
		}
		var err error
		switch kind {
		case admin:
			err = auth.CanAdminister(p, r.Method+" "+r.URL.Path)
		case owner:
			var claim string
			claim, err = s.canWriteSubject(r, p)
			if err == nil && claim != "" && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/versions") {
				r = r.WithContext(registry.WithClaim(r.Context(), claim))
			}
		case teamWrite:
			if a.team != "" {
				err = auth.CanActForTeam(p, r.PathValue(a.team))
			}
		}
		if err != nil {
			var denied *auth.DeniedError
			if errors.As(err, &denied) {
				forbidden(w, r, s, err)
			} else {
				writeError(w, r, s.log, err)
			}
			return
		}
		h(w, r)
	})
}

// canWriteSubject decides p's write to the request's subject; for an
// unowned subject it allows, it returns the team a registration claims
// it for.
func (s *server) canWriteSubject(r *http.Request, p auth.Principal) (claim string, err error) {
	subject := r.PathValue("subject")
	o, err := s.svc.Governance().Owner(r.Context(), subject)
	switch {
	case errors.Is(err, srerr.ErrGovernanceNotFound):
		o.Team = ""
	case err != nil:
		return "", err
	}
	if err := auth.CanWriteSubject(p, subject, o.Team, s.opts.Auth.Config().Unowned); err != nil {
		return "", err
	}
	if o.Team == "" {
		return auth.ClaimTeam(p), nil
	}
	return "", nil
}

// requireTeam is the check of a teamWrite whose team is in the body: it
// answers 403 and returns false when the request's principal may not act
// for team. Always true without authentication.
func (s *server) requireTeam(w http.ResponseWriter, r *http.Request, team string) bool {
	if s.opts.Auth == nil {
		return true
	}
	p, _ := auth.PrincipalFrom(r.Context()) // authorize let only principals in
	if err := auth.CanActForTeam(p, team); err != nil {
		forbidden(w, r, s, err)
		return false
	}
	return true
}

// requireAdmin answers 403 and returns false when authentication is on
// and the request's principal is no admin (what names the operation).
func (s *server) requireAdmin(w http.ResponseWriter, r *http.Request, what string) bool {
	if s.opts.Auth == nil {
		return true
	}
	p, _ := auth.PrincipalFrom(r.Context())
	if err := auth.CanAdminister(p, what); err != nil {
		forbidden(w, r, s, err)
		return false
	}
	return true
}

// principal returns the request's principal; false without
// authentication.
func principal(r *http.Request) (auth.Principal, bool) {
	return auth.PrincipalFrom(r.Context())
}

// mayAssignOwner is the extra check of PUT …/owner: a subject without an
// owner may be claimed by a principal for one of its own teams only (an
// admin may name any team); the owning team's members may hand the
// subject to any team. It answers 403 and returns false when not.
func (s *server) mayAssignOwner(w http.ResponseWriter, r *http.Request, team *string) bool {
	p, ok := principal(r)
	if !ok || p.Admin || team == nil {
		return true
	}
	_, err := s.svc.Governance().Owner(r.Context(), r.PathValue("subject"))
	if !errors.Is(err, srerr.ErrGovernanceNotFound) {
		return true // owned: authorize has checked membership
	}
	return s.requireTeam(w, r, strings.TrimSpace(*team))
}

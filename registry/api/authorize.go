package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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
		host := auth.ClientAddr(r)
		if wait := a.FailureWait(host); wait > 0 && r.Header.Get("Authorization") != "" {
			tooMany(w, r, s, wait, "Too many refused credentials from %s; retry in %s", host, wait.Round(time.Millisecond))
			return
		}
		p, ok, err := a.Authenticate(r)
		if err != nil {
			a.Failed(host)
			unauthorized(w, r, s, strings.TrimPrefix(err.Error(), auth.ErrInvalidCredentials.Error()+": "))
			return
		}
		key := "anonymous@" + host
		if ok {
			key = p.Name
			r = r.WithContext(registry.WithActor(auth.WithPrincipal(r.Context(), p), p.Name))
		}
		// Health probes come from load balancers, anonymous and often:
		// they are never rate-limited.
		if allowed, wait := a.Allow(key); !allowed && !isProbe(r.URL.Path) {
			tooMany(w, r, s, wait, "Too many requests from '%s'; retry in %s", key, wait.Round(time.Millisecond))
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

// tooMany answers 429 (42980) with Retry-After in whole seconds.
func tooMany(w http.ResponseWriter, r *http.Request, s *server, wait time.Duration, format string, args ...any) {
	w.Header().Set("Retry-After", auth.RetryAfter(wait))
	writeError(w, r, s.log, srerr.New(srerr.ErrRateLimited, format, args...))
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
			if boolParam(r, "permanent") { // read as the delete handlers read it
				kind = admin
			}
		}
		if kind == owner && !a.bodySubject && registry.IsContextLevel(r.PathValue("subject")) {
			// PUT /config/:.ctx: (/contexts/.ctx/config) and the like set a
			// whole context's level, as the global config and mode do.
			kind = admin
		}
		var err error
		switch kind {
		case admin:
			err = auth.CanAdminister(p, r.Method+" "+r.URL.Path)
		case owner:
			if a.bodySubject {
				break // the handler calls requireSubjectWrite
			}
			var claim, owned string
			claim, owned, err = s.canWriteSubject(r, p)
			if err == nil && claim != "" && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/versions") {
				r = r.WithContext(registry.WithClaim(r.Context(), claim))
			}
			if err == nil && !p.Admin && strings.HasSuffix(r.URL.Path, "/owner") {
				// An ownership change happens only while the owner
				// decided on still owns the subject.
				ctx := registry.WithExpectedOwner(r.Context(), owned)
				r = r.WithContext(context.WithValue(ctx, decidedOwnerKey{}, owned))
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
func (s *server) canWriteSubject(r *http.Request, p auth.Principal) (claim, owner string, err error) {
	subject := r.PathValue("subject")
	// A subject whose config names an alias sends registrations to the
	// alias: the principal must be allowed to write there too.
	if c, err := s.svc.Config(r.Context(), subject, false); err == nil && c.Alias != "" && registry.AliasTarget(subject, c.Alias) != subject {
		if _, _, err := s.canWriteOne(r, p, registry.AliasTarget(subject, c.Alias)); err != nil {
			return "", "", err
		}
	} else if err != nil && !errors.Is(err, srerr.ErrSubjectConfigNotFound) && !errors.Is(err, srerr.ErrSubjectNotFound) {
		return "", "", err
	}
	return s.canWriteOne(r, p, subject)
}

// canWriteOne decides p's write to subject itself (its alias aside) and
// returns the owning team it decided on ("" for none).
func (s *server) canWriteOne(r *http.Request, p auth.Principal, subject string) (claim, owner string, err error) {
	o, err := s.svc.Governance().Owner(r.Context(), subject)
	switch {
	case errors.Is(err, srerr.ErrGovernanceNotFound):
		o.Team = ""
	case err != nil:
		return "", "", err
	}
	if err := auth.CanWriteSubject(p, subject, o.Team, s.opts.Auth.Config().Unowned); err != nil {
		return "", "", err
	}
	if o.Team == "" {
		return auth.ClaimTeam(p), "", nil
	}
	return "", o.Team, nil
}

// requireSubjectWrite is the check of an owner write whose subject is in
// the body: it answers 403 and returns false when the request's principal
// may not write subject. Always true without authentication.
func (s *server) requireSubjectWrite(w http.ResponseWriter, r *http.Request, subject string) bool {
	p, ok := principal(r)
	if !ok {
		return true
	}
	if _, _, err := s.canWriteOne(r, p, subject); err != nil {
		var denied *auth.DeniedError
		if errors.As(err, &denied) {
			forbidden(w, r, s, err)
		} else {
			writeError(w, r, s.log, err)
		}
		return false
	}
	return true
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
	if owner, _ := r.Context().Value(decidedOwnerKey{}).(string); owner != "" {
		return true // owned: authorize has checked membership
	}
	return s.requireTeam(w, r, strings.TrimSpace(*team))
}

// decidedOwnerKey holds, for an ownership change, the owning team
// authorize decided on ("" for none), so that mayAssignOwner need not
// read it again.
type decidedOwnerKey struct{}

// mayWriteAliasTarget is the extra check of PUT /config/{s} naming an
// alias: registrations to s then land in the alias's target, so the
// principal must be allowed to write there. The target is the one reads
// and registrations resolve to, registry.AliasTarget (an unqualified
// alias is in s's context, as Confluent's qualifySubjectWithParent). It
// answers 403 and returns false when not.
func (s *server) mayWriteAliasTarget(w http.ResponseWriter, r *http.Request, alias string) bool {
	p, ok := principal(r)
	if !ok {
		return true
	}
	target := registry.AliasTarget(r.PathValue("subject"), alias)
	if _, _, err := s.canWriteOne(r, p, target); err != nil {
		var denied *auth.DeniedError
		if errors.As(err, &denied) {
			forbidden(w, r, s, fmt.Errorf("an alias to '%s' sends registrations there: %w", target, err))
		} else {
			writeError(w, r, s.log, err)
		}
		return false
	}
	return true
}

package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/auth"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// The UI's actions. Each is the API endpoint of the same change (named
// in its comment) behind the same decision: registry/api's access.go
// gives these endpoints the "owner" access, which authorize decides with
// auth.CanWriteSubject against the subject's owning team and the auth
// file's `unowned` setting; PUT …/owner adds mayAssignOwner's check.
// Without authentication every action is open, as the API is.

// writeDecision decides whether the request's principal may change
// subject: nil when it may, a *auth.DeniedError (403) or 40101 when not.
func (u *ui) writeDecision(r *http.Request, subject string) error {
	if u.opts.Auth == nil {
		return nil
	}
	p := identityOf(r).principal
	if p == nil {
		return srerr.New(srerr.ErrUnauthorized, "Unauthorized: sign in to change subject '%s'", subject)
	}
	o, err := u.svc.Governance().Owner(r.Context(), subject)
	switch {
	case errors.Is(err, srerr.ErrGovernanceNotFound):
		o.Team = ""
	case err != nil:
		return err
	}
	return auth.CanWriteSubject(*p, subject, o.Team, u.opts.Auth.Config().Unowned)
}

// mayWrite is writeDecision for a page: whether to show the forms, and
// the reason when not.
func (u *ui) mayWrite(r *http.Request, subject string) (bool, string) {
	err := u.writeDecision(r, subject)
	if err == nil {
		return true, ""
	}
	var denied *auth.DeniedError
	if errors.As(err, &denied) {
		return false, denied.Reason
	}
	if errors.Is(err, srerr.ErrUnauthorized) {
		return false, "Sign in to change this subject."
	}
	return false, "Changes are not available: " + err.Error()
}

// action runs one form post: CSRF, authorization, then do; a success
// redirects (303) to the form's return page with ?done=done.
func (u *ui) action(w http.ResponseWriter, r *http.Request, done string, do func(subject string) error) {
	if err := u.parseForm(w, r); err != nil {
		u.fail(w, r, err)
		return
	}
	subject := r.PathValue("subject")
	if err := u.writeDecision(r, subject); err != nil {
		u.fail(w, r, err)
		return
	}
	if err := do(subject); err != nil {
		u.fail(w, r, err)
		return
	}
	http.Redirect(w, r, withDone(safeReturn(r.PostFormValue("return"), subjectURL(subject)), done), http.StatusSeeOther)
}

// formInt reads an optional non-negative integer field.
func formInt(r *http.Request, name string) (int, error) {
	s := strings.TrimSpace(r.PostFormValue(name))
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, srerr.New(srerr.ErrInvalidGovernance, "Invalid %s %q: want a whole number of days", name, s)
	}
	return n, nil
}

// deprecate: POST /governance/subjects/{s}/deprecations (a field path
// with a TTL, replacement and reason).
func (u *ui) deprecate(w http.ResponseWriter, r *http.Request) {
	u.action(w, r, "deprecated", func(subject string) error {
		it, err := governance.ParseItem(r.PostFormValue("path"))
		if err != nil || it.Kind != governance.ItemField {
			return srerr.New(srerr.ErrInvalidGovernance, "Choose the field to deprecate")
		}
		ttl, err := formInt(r, "ttlDays")
		if err != nil {
			return err
		}
		_, err = u.svc.Governance().Deprecate(r.Context(), subject, registry.DeprecateRequest{Item: it, TTLDays: ttl,
			Reason: strings.TrimSpace(r.PostFormValue("reason")), Replacement: strings.TrimSpace(r.PostFormValue("replacement"))})
		return err
	})
}

// formItem reads the item field (an item key).
func formItem(r *http.Request) (governance.Item, error) {
	it, err := governance.ParseItem(r.PostFormValue("item"))
	if err != nil {
		return governance.Item{}, srerr.New(srerr.ErrInvalidGovernance, "Invalid item %q: %v", r.PostFormValue("item"), err)
	}
	return it, nil
}

// grantExtension: POST …/deprecations/{item}/extensions; as in the API,
// the approver is the signed-in principal when there is one.
func (u *ui) grantExtension(w http.ResponseWriter, r *http.Request) {
	u.action(w, r, "extended", func(subject string) error {
		it, err := formItem(r)
		if err != nil {
			return err
		}
		days, err := formInt(r, "days")
		if err != nil {
			return err
		}
		req := registry.ExtensionRequest{Consumer: strings.TrimSpace(r.PostFormValue("consumer")), Days: days,
			Reason: strings.TrimSpace(r.PostFormValue("reason")), Approver: strings.TrimSpace(r.PostFormValue("approver"))}
		if until := strings.TrimSpace(r.PostFormValue("until")); until != "" {
			t, err := time.Parse(time.DateOnly, until)
			if err != nil {
				return srerr.New(srerr.ErrInvalidGovernance, "Invalid end date %q: want a date such as 2026-06-30", until)
			}
			req.Until = t.Add(24*time.Hour - time.Second) // to the end of that day, UTC
		}
		if p := identityOf(r).principal; p != nil {
			req.Approver = p.Name
		}
		_, err = u.svc.Governance().GrantExtension(r.Context(), subject, it, req)
		return err
	})
}

// revokeExtension: DELETE …/deprecations/{item}/extensions/{consumer}.
func (u *ui) revokeExtension(w http.ResponseWriter, r *http.Request) {
	u.action(w, r, "revoked", func(subject string) error {
		it, err := formItem(r)
		if err != nil {
			return err
		}
		_, err = u.svc.Governance().RevokeExtension(r.Context(), subject, it, r.PostFormValue("consumer"))
		return err
	})
}

// dismiss: POST /governance/subjects/{s}/dismissals (the actor is who
// dismisses).
func (u *ui) dismiss(w http.ResponseWriter, r *http.Request) {
	u.action(w, r, "dismissed", func(subject string) error {
		_, err := u.svc.Governance().Dismiss(r.Context(), subject, governance.Dismissal{Field: strings.TrimSpace(r.PostFormValue("field")),
			PatternID: strings.TrimSpace(r.PostFormValue("patternId")), Reason: strings.TrimSpace(r.PostFormValue("reason"))})
		return err
	})
}

// withdrawDismissal: DELETE /governance/subjects/{s}/dismissals/{field}?patternId=.
func (u *ui) withdrawDismissal(w http.ResponseWriter, r *http.Request) {
	u.action(w, r, "withdrawn", func(subject string) error {
		_, err := u.svc.Governance().DeleteDismissal(r.Context(), subject, r.PostFormValue("field"), r.PostFormValue("patternId"))
		return err
	})
}

// setOwner: PUT /governance/subjects/{s}/owner. A subject without an
// owner may be claimed by a principal for one of its own teams only (an
// admin may name any team), as the API's mayAssignOwner decides.
func (u *ui) setOwner(w http.ResponseWriter, r *http.Request) {
	u.action(w, r, "owner", func(subject string) error {
		team := strings.TrimSpace(r.PostFormValue("team"))
		contact := strings.TrimSpace(r.PostFormValue("contact"))
		desc := strings.TrimSpace(r.PostFormValue("description"))
		if p := identityOf(r).principal; p != nil && !p.Admin {
			if _, err := u.svc.Governance().Owner(r.Context(), subject); errors.Is(err, srerr.ErrGovernanceNotFound) {
				if err := auth.CanActForTeam(*p, team); err != nil {
					return err
				}
			}
		}
		_, err := u.svc.Governance().UpdateOwner(r.Context(), subject, registry.OwnerUpdate{Team: &team, Contact: &contact, Description: &desc})
		return err
	})
}

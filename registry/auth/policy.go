package auth

import (
	"fmt"
	"strings"
)

// DeniedError is an authenticated principal asking for what it may not
// do; Reason is one line saying why (the API answers 403, code 40301).
type DeniedError struct{ Reason string }

func (e *DeniedError) Error() string { return e.Reason }

func denied(format string, args ...any) error {
	return &DeniedError{Reason: fmt.Sprintf(format, args...)}
}

// CanAdminister allows admins only.
func CanAdminister(p Principal, what string) error {
	if p.Admin {
		return nil
	}
	return denied("%s needs an admin; principal '%s' is not one", what, p.Name)
}

// CanWriteSubject decides a write to subject by p: admins may; a member
// of owner (the team owning subject, "" when unowned) may; an unowned
// subject may be written by any principal with a team under UnownedClaim,
// by admins only under UnownedAdminOnly.
func CanWriteSubject(p Principal, subject, owner, unowned string) error {
	switch {
	case p.Admin:
		return nil
	case owner != "":
		if p.InTeam(owner) {
			return nil
		}
		return denied("subject '%s' is owned by team '%s'; principal '%s' is not a member (teams: %s)", subject, owner, p.Name, teamList(p))
	case unowned == UnownedAdminOnly:
		return denied("subject '%s' has no owner and the auth config says unowned: admin-only; ask an admin to set its owner", subject)
	case len(p.Teams) == 0:
		return denied("subject '%s' has no owner, and principal '%s' belongs to no team that could claim it", subject, p.Name)
	}
	return nil
}

// CanActForTeam decides a write p makes for team (publishing a contract,
// declaring a consumer): admins and members of team may.
func CanActForTeam(p Principal, team string) error {
	if p.Admin || p.InTeam(team) {
		return nil
	}
	return denied("principal '%s' may act only for its own teams (%s), not for '%s'", p.Name, teamList(p), team)
}

// ClaimTeam is the team that claims an unowned subject p registers: its
// first team ("" for none).
func ClaimTeam(p Principal) string {
	if len(p.Teams) == 0 {
		return ""
	}
	return p.Teams[0]
}

func teamList(p Principal) string {
	if len(p.Teams) == 0 {
		return "none"
	}
	return strings.Join(p.Teams, ", ")
}

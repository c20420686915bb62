package web

import (
	"net/http"
	"slices"
	"sort"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
)

type teamsView struct {
	Teams []teamRow
}

// teamRow is one team of the team list: subjects owned and read.
type teamRow struct {
	Name         string
	Owns, Reads  int
	MustMigrate  int
	NextDeadline time.Time
}

// migrationDue is a deprecated field a team still reads: by when it must
// move off it.
type migrationDue struct {
	Subject     string
	Path        string
	Replacement string
	State       governance.State
	ExpiresAt   time.Time
	DaysLeft    int
	Extended    *registry.ExtendedConsumer
	Fields      []string
}

type teamView struct {
	Team    string
	Owns    []registry.SubjectSummary
	Reads   []registry.SubjectSummary
	Migrate []migrationDue
}

// teamsPage lists the teams that own or read a subject.
func (u *ui) teamsPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	sums, err := u.svc.SubjectSummaries(ctx)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	migs, err := u.svc.Governance().AllDeprecationMigrations(ctx)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	rows := map[string]*teamRow{}
	row := func(n string) *teamRow {
		if rows[n] == nil {
			rows[n] = &teamRow{Name: n}
		}
		return rows[n]
	}
	for _, s := range sums {
		if s.Owner != nil {
			row(s.Owner.Team).Owns++
		}
		for _, c := range s.Consumers {
			row(c).Reads++
		}
	}
	for _, m := range migs {
		for _, due := range dueOf(m) {
			t := row(due.consumer)
			t.MustMigrate++
			if t.NextDeadline.IsZero() || due.by.Before(t.NextDeadline) {
				t.NextDeadline = due.by
			}
		}
	}
	var v teamsView
	for _, t := range rows {
		v.Teams = append(v.Teams, *t)
	}
	sort.Slice(v.Teams, func(i, j int) bool { return v.Teams[i].Name < v.Teams[j].Name })
	u.render(w, r, http.StatusOK, "teams", "Teams", "teams", v)
}

type due struct {
	consumer string
	by       time.Time
}

// dueOf lists the consumers that still read m's field and by when they
// must stop: the expiry, or the end of their extension.
func dueOf(m registry.DeprecationMigration) []due {
	var out []due
	for _, c := range m.Reading {
		out = append(out, due{c.Consumer, m.ExpiresAt})
	}
	for _, c := range m.Extended {
		out = append(out, due{c.Consumer, c.Until})
	}
	return out
}

// teamPage is one team: what it owns, what it reads, and what it must
// migrate before when.
func (u *ui) teamPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	team := r.PathValue("team")
	sums, err := u.svc.SubjectSummaries(ctx)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	migs, err := u.svc.Governance().AllDeprecationMigrations(ctx)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	v := teamView{Team: team}
	for _, s := range sums {
		if s.Owner != nil && s.Owner.Team == team {
			v.Owns = append(v.Owns, s)
		}
		if slices.Contains(s.Consumers, team) {
			v.Reads = append(v.Reads, s)
		}
	}
	for _, m := range migs {
		for _, c := range m.Reading {
			if c.Consumer == team {
				v.Migrate = append(v.Migrate, migrationDue{Subject: m.Subject, Path: m.Path, Replacement: m.Replacement, State: m.State, ExpiresAt: m.ExpiresAt, DaysLeft: m.DaysLeft, Fields: c.Fields})
			}
		}
		for i, c := range m.Extended {
			if c.Consumer == team {
				due := migrationDue{Subject: m.Subject, Path: m.Path, Replacement: m.Replacement, State: m.State, ExpiresAt: m.ExpiresAt, DaysLeft: m.DaysLeft, Fields: c.Fields}
				// An extension that ends before the expiry changes
				// nothing: the deadline stays the expiry.
				if c.Until.After(m.ExpiresAt) {
					due.Extended = &m.Extended[i]
				}
				v.Migrate = append(v.Migrate, due)
			}
		}
	}
	deadline := func(d migrationDue) time.Time {
		if d.Extended != nil {
			return d.Extended.Until
		}
		return d.ExpiresAt
	}
	sort.SliceStable(v.Migrate, func(i, j int) bool { return deadline(v.Migrate[i]).Before(deadline(v.Migrate[j])) })
	u.render(w, r, http.StatusOK, "team", "Team "+team, "teams", v)
}

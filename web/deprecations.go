package web

import (
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// deprecationRow is one deprecated field or version with its readers.
type deprecationRow struct {
	governance.DeprecationStatus
	Migration *registry.DeprecationMigration
}

// Readers counts the consumers still reading the item (with or without
// an extension).
func (d deprecationRow) Readers() int {
	if d.Migration == nil {
		return 0
	}
	return len(d.Migration.Reading) + len(d.Migration.Extended)
}

type deprecationsView struct {
	Rows                 []deprecationRow
	Total                int
	Expired, Soon        int
	Blocking             int
	State, Subject, Team string
	States               []option
}

// deprecationsPage is the migration dashboard: every deprecated field
// and version, soonest expiry first, with its countdown and the consumers
// that migrated, still read it, or hold an extension (until when).
// Filters: ?state=deprecated|expired, ?subject=, ?reader=.
func (u *ui) deprecationsPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	gov := u.svc.Governance()
	all, err := gov.AllDeprecations(ctx)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	migs, err := gov.AllDeprecationMigrations(ctx)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	type key struct{ subject, path string }
	byKey := make(map[key]*registry.DeprecationMigration, len(migs))
	for i := range migs {
		byKey[key{migs[i].Subject, migs[i].Path}] = &migs[i]
	}
	q := r.URL.Query()
	v := deprecationsView{State: q.Get("state"), Subject: q.Get("subject"), Team: q.Get("reader")}
	now := u.opts.Clock()
	states := map[string]int{}
	for _, d := range all {
		if !d.DeprecatedAt.IsZero() && d.DeprecatedAt.After(now) {
			continue
		}
		row := deprecationRow{DeprecationStatus: d}
		if d.Kind == governance.ItemField {
			row.Migration = byKey[key{d.Subject, d.Path}]
		}
		states[string(d.State)]++
		v.Total++
		if d.State == governance.StateExpired {
			v.Expired++
		} else if d.DaysLeft <= 30 {
			v.Soon++
		}
		if row.Readers() > 0 {
			v.Blocking++
		}
		if (v.State != "" && string(d.State) != v.State) || (v.Subject != "" && d.Subject != v.Subject) || (v.Team != "" && !reads(row.Migration, v.Team)) {
			continue
		}
		v.Rows = append(v.Rows, row)
	}
	v.States = options(states, v.State)
	sort.SliceStable(v.Rows, func(i, j int) bool {
		a, b := v.Rows[i], v.Rows[j]
		if !a.ExpiresAt.Equal(b.ExpiresAt) {
			return a.ExpiresAt.Before(b.ExpiresAt)
		}
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		return a.Key() < b.Key()
	})
	u.render(w, r, http.StatusOK, "deprecations", "Deprecations", "deprecations", v)
}

// reads reports whether consumer still reads the migration's field.
func reads(m *registry.DeprecationMigration, consumer string) bool {
	if m == nil {
		return false
	}
	return slices.ContainsFunc(m.Reading, func(c registry.ReadingConsumer) bool { return c.Consumer == consumer }) ||
		slices.ContainsFunc(m.Extended, func(c registry.ExtendedConsumer) bool { return c.Consumer == consumer })
}

type deprecationView struct {
	Subject     string
	D           governance.DeprecationStatus
	Migration   *registry.DeprecationMigration
	Extensions  []extensionRow
	Candidates  []string
	CanWrite    bool
	WriteDenied string
	AuthOn      bool
	Approver    string
	DefaultDays int
	Return      string
}

// extensionRow is an extension with whether it still runs.
type extensionRow struct {
	governance.Extension
	Running  bool
	DaysLeft int
}

// deprecationPage is one deprecation: countdown, readers in their three
// groups, extensions (revoke), and the form that grants one.
func (u *ui) deprecationPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	subject := r.PathValue("subject")
	it, err := governance.ParseItem(r.PathValue("item"))
	if err != nil {
		u.fail(w, r, srerr.New(srerr.ErrInvalidGovernance, "Invalid item %q: %v", r.PathValue("item"), err))
		return
	}
	gov := u.svc.Governance()
	d, err := gov.Deprecation(ctx, subject, it)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	v := deprecationView{Subject: subject, D: d, AuthOn: u.opts.Auth != nil, DefaultDays: 30, Return: r.URL.Path}
	if it.Kind == governance.ItemField {
		ms, err := gov.DeprecationMigrations(ctx, subject, it.Path)
		if err != nil {
			u.fail(w, r, err)
			return
		}
		if len(ms) > 0 {
			v.Migration = &ms[0]
			for _, c := range ms[0].Reading {
				v.Candidates = append(v.Candidates, c.Consumer)
			}
		}
	}
	now := u.opts.Clock()
	for _, x := range d.Extensions {
		left := governance.Deprecation{ExpiresAt: x.Until}.DaysLeft(now)
		v.Extensions = append(v.Extensions, extensionRow{Extension: x, Running: x.Until.After(now), DaysLeft: left})
	}
	sort.Slice(v.Extensions, func(i, j int) bool { return v.Extensions[i].Consumer < v.Extensions[j].Consumer })
	v.CanWrite, v.WriteDenied = u.mayWrite(r, subject)
	if p := identityOf(r).principal; p != nil {
		v.Approver = p.Name
	}
	title := subject + ": " + it.String()
	u.render(w, r, http.StatusOK, "deprecation", strings.TrimSpace(title), "deprecations", v)
}

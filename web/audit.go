package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/charter-dev/charter/action/rules"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// auditPageSize is how many entries a page of the audit log shows.
const auditPageSize = 100

type auditView struct {
	Subject, Action, Actor string
	Since, Until           string
	Entries                []governance.AuditEntry
	Next                   string
	First                  string
}

// auditPage is the audit log, oldest first, filtered by subject, action
// prefix, actor and dates (?since=&until=, YYYY-MM-DD, UTC), paged by
// entry ID (?after=), as GET /governance/audit.
func (u *ui) auditPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := auditView{Subject: q.Get("subject"), Action: q.Get("action"), Actor: q.Get("actor"), Since: q.Get("since"), Until: q.Get("until")}
	aq := registry.AuditQuery{Subject: v.Subject, ActionPrefix: v.Action, Actor: v.Actor, Limit: auditPageSize + 1}
	for _, d := range []struct {
		name, value string
		dst         *time.Time
	}{{"since", v.Since, &aq.Since}, {"until", v.Until, &aq.Until}} {
		if d.value == "" {
			continue
		}
		t, err := time.Parse(time.DateOnly, d.value)
		if err != nil {
			u.fail(w, r, srerr.New(srerr.ErrBadRequest, "Invalid %s %q: want a date such as 2026-01-05", d.name, d.value))
			return
		}
		if d.name == "until" {
			t = t.Add(24 * time.Hour) // through that day
		}
		*d.dst = t
	}
	if a := q.Get("after"); a != "" {
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil || n < 0 {
			u.fail(w, r, srerr.New(srerr.ErrBadRequest, "Invalid after %q: want an entry ID", a))
			return
		}
		aq.AfterID = n
	}
	es, err := u.svc.Governance().Audit(r.Context(), aq)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	if len(es) > auditPageSize {
		es = es[:auditPageSize]
		next := url.Values{}
		for k, s := range map[string]string{"subject": v.Subject, "action": v.Action, "actor": v.Actor, "since": v.Since, "until": v.Until} {
			if s != "" {
				next.Set(k, s)
			}
		}
		v.First = Prefix + "/audit?" + next.Encode()
		next.Set("after", strconv.FormatInt(es[len(es)-1].ID, 10))
		v.Next = Prefix + "/audit?" + next.Encode()
	}
	v.Entries = es
	u.render(w, r, http.StatusOK, "audit", "Audit log", "audit", v)
}

type rulesView struct {
	Rules      []rule.Rule
	Categories []option
	Category   string
	Q          string
}

// rulesPage is the rule catalogue (`charter rules`): every rule with its
// format, category, default severity and purpose; ?category= and ?q=
// filter it.
func (u *ui) rulesPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := rulesView{Category: q.Get("category"), Q: strings.TrimSpace(q.Get("q"))}
	cats := map[string]int{}
	needle := strings.ToLower(v.Q)
	for _, rl := range rules.All() {
		cats[rl.Category]++
		if v.Category != "" && rl.Category != v.Category {
			continue
		}
		if needle != "" && !strings.Contains(strings.ToLower(rl.ID+" "+rl.Purpose), needle) {
			continue
		}
		v.Rules = append(v.Rules, rl)
	}
	v.Categories = options(cats, v.Category)
	u.render(w, r, http.StatusOK, "rules", "Rules", "rules", v)
}

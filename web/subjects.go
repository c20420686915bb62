package web

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
)

// pageSize is how many subjects a page of the subject list shows.
const pageSize = 50

// subjectFilter is the subject list's query: ?q=&team=&format=&tag=&deprecated=1&reader=&mine=1&page=.
type subjectFilter struct {
	Q          string
	Team       string
	Format     string
	Tag        string
	Deprecated bool
	Reader     string
	Mine       bool
	Page       int
}

// maxPage bounds ?page= so that offsets cannot overflow.
const maxPage = 1 << 20

func parseSubjectFilter(q url.Values) subjectFilter {
	f := subjectFilter{Q: strings.TrimSpace(q.Get("q")), Team: q.Get("team"), Format: strings.ToUpper(q.Get("format")), Tag: q.Get("tag"),
		Deprecated: q.Get("deprecated") == "1", Reader: q.Get("reader"), Mine: q.Get("mine") == "1"}
	f.Page, _ = strconv.Atoi(q.Get("page"))
	f.Page = min(max(f.Page, 1), maxPage) // past the end redirects to the last page
	return f
}

// query is the filter as a query string, page p.
func (f subjectFilter) query(p int) string {
	v := url.Values{}
	for k, s := range map[string]string{"q": f.Q, "team": f.Team, "format": f.Format, "tag": f.Tag, "reader": f.Reader} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if f.Deprecated {
		v.Set("deprecated", "1")
	}
	if f.Mine {
		v.Set("mine", "1")
	}
	if p > 1 {
		v.Set("page", strconv.Itoa(p))
	}
	if len(v) == 0 {
		return Prefix + "/subjects"
	}
	return Prefix + "/subjects?" + v.Encode()
}

// option is one choice of a filter's select, with how many subjects have
// it.
type option struct {
	Value    string
	Count    int
	Selected bool
}

type subjectsView struct {
	Filter     subjectFilter
	Total      int
	Matching   int
	From, To   int
	Rows       []registry.SubjectSummary
	Teams      []option
	Formats    []option
	Tags       []option
	Readers    []option
	Deprecated int
	MyTeams    []string
	Prev, Next string
	Pages      int
}

// subjectsPage is the subject list: search and filters, counts, paging.
func (u *ui) subjectsPage(w http.ResponseWriter, r *http.Request) {
	all, err := u.svc.SubjectSummaries(r.Context())
	if err != nil {
		u.fail(w, r, err)
		return
	}
	f := parseSubjectFilter(r.URL.Query())
	v := subjectsView{Filter: f, Total: len(all)}
	id := identityOf(r)
	if id.principal != nil {
		v.MyTeams = id.principal.Teams
	}
	teams, formats, tags, readers := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	q := strings.ToLower(f.Q)
	for i := range all {
		s := &all[i]
		formats[string(s.Type)]++
		if s.Owner != nil {
			teams[s.Owner.Team]++
		}
		for _, t := range s.Tags {
			tags[t]++
		}
		for _, c := range s.Consumers {
			readers[c]++
		}
		if s.Deprecations > 0 {
			v.Deprecated++
		}
		if !f.matches(s, q, v.MyTeams) {
			continue
		}
		v.Matching++
		if v.Matching > (f.Page-1)*pageSize && v.Matching <= f.Page*pageSize {
			v.Rows = append(v.Rows, *s)
		}
	}
	v.Teams, v.Formats, v.Tags, v.Readers = options(teams, f.Team), options(formats, f.Format), options(tags, f.Tag), options(readers, f.Reader)
	v.Pages = (v.Matching + pageSize - 1) / pageSize
	if f.Page > max(v.Pages, 1) {
		http.Redirect(w, r, f.query(max(v.Pages, 1)), http.StatusSeeOther)
		return
	}
	if len(v.Rows) > 0 {
		v.From = (f.Page-1)*pageSize + 1
		v.To = v.From + len(v.Rows) - 1
	}
	if f.Page > 1 {
		v.Prev = f.query(f.Page - 1)
	}
	if f.Page < v.Pages {
		v.Next = f.query(f.Page + 1)
	}
	u.render(w, r, http.StatusOK, "subjects", "Subjects", "subjects", v)
}

func (f subjectFilter) matches(s *registry.SubjectSummary, q string, myTeams []string) bool {
	switch {
	case q != "" && !strings.Contains(strings.ToLower(s.Subject), q):
		return false
	case f.Team != "" && (s.Owner == nil || s.Owner.Team != f.Team):
		return false
	case f.Format != "" && string(s.Type) != f.Format:
		return false
	case f.Tag != "" && !slices.Contains(s.Tags, f.Tag):
		return false
	case f.Deprecated && s.Deprecations == 0:
		return false
	case f.Reader != "" && !slices.Contains(s.Consumers, f.Reader):
		return false
	case f.Mine && !slices.ContainsFunc(s.Consumers, func(c string) bool { return slices.Contains(myTeams, c) }):
		return false
	}
	return true
}

func options(counts map[string]int, selected string) []option {
	out := make([]option, 0, len(counts))
	for k, n := range counts {
		out = append(out, option{Value: k, Count: n, Selected: k == selected})
	}
	slices.SortFunc(out, func(a, b option) int { return strings.Compare(a.Value, b.Value) })
	return out
}

// formatName is how the UI names a schema type.
func formatName(t compat.SchemaType) string {
	switch t {
	case compat.Avro:
		return "Avro"
	case compat.Protobuf:
		return "Protobuf"
	case compat.JSON:
		return "JSON Schema"
	}
	return string(t)
}

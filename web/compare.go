package web

import (
	"net/http"
	"strconv"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// note is a finding or a change placed on a line of one side.
type note struct {
	Kind    string // finding or change
	RuleID  string
	Path    string
	Message string
	Detail  string
}

// sideLine is a line of one side of the comparison with its notes.
type sideLine struct {
	codeLine
	Notes []note
}

type compareView struct {
	Subject  string
	Versions []int
	From, To int
	Cmp      registry.Comparison
	Left     []sideLine
	Right    []sideLine
	// General are the findings and changes no line carries.
	General  []note
	Findings int
}

// comparePage shows two versions side by side (?from=&to=, default the
// two latest), each compatibility finding and change on the line of the
// field it concerns: the newer side's, else (a removed field) the older.
func (u *ui) comparePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	subject := r.PathValue("subject")
	vs, err := u.svc.SubjectVersions(ctx, subject, registry.SubjectVersionsQuery{})
	if err != nil {
		u.fail(w, r, err)
		return
	}
	v := compareView{Subject: subject}
	for _, x := range vs {
		v.Versions = append(v.Versions, x.Version)
	}
	v.To = v.Versions[len(v.Versions)-1]
	v.From = v.To
	if len(v.Versions) > 1 {
		v.From = v.Versions[len(v.Versions)-2]
	}
	for _, p := range []struct {
		name string
		dst  *int
	}{{"from", &v.From}, {"to", &v.To}} {
		if s := r.URL.Query().Get(p.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				u.fail(w, r, srerr.New(srerr.ErrInvalidVersion, "Invalid version %q", s))
				return
			}
			*p.dst = n
		}
	}
	cmp, err := u.svc.Governance().Compare(ctx, subject, v.From, v.To)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	v.Cmp = cmp
	fromText := schemaText(cmp.From.Schema.Type, cmp.From.Schema.Text)
	toText := schemaText(cmp.To.Schema.Type, cmp.To.Schema.Text)
	v.Left = sides(highlight(cmp.From.Schema.Type, cmp.From.Schema.Text, fromText, cmp.FromFields))
	v.Right = sides(highlight(cmp.To.Schema.Type, cmp.To.Schema.Text, toText, cmp.ToFields))
	place := func(n note) {
		for _, side := range [][]sideLine{v.Right, v.Left} {
			for i := range side {
				if n.Path != "" && side[i].Field == n.Path {
					side[i].Notes = append(side[i].Notes, n)
					return
				}
			}
		}
		v.General = append(v.General, n)
	}
	for _, f := range cmp.Findings {
		detail := string(f.Direction)
		if f.Direction == compat.DirBackward {
			detail = "BACKWARD: version " + strconv.Itoa(cmp.To.Version) + " reading data written with version " + strconv.Itoa(cmp.From.Version)
		} else if f.Direction == compat.DirForward {
			detail = "FORWARD: version " + strconv.Itoa(cmp.From.Version) + " reading data written with version " + strconv.Itoa(cmp.To.Version)
		}
		place(note{Kind: "finding", RuleID: f.RuleID, Path: f.Path, Message: f.Message, Detail: detail})
	}
	for _, c := range cmp.Changes {
		if c.Bump == governance.BumpNone && c.Kind == governance.KindSchemaAdded {
			continue
		}
		place(note{Kind: "change", RuleID: c.Kind, Path: c.Path, Message: c.Text, Detail: string(c.Bump)})
	}
	v.Findings = len(cmp.Findings)
	u.render(w, r, http.StatusOK, "compare", subject+": version "+strconv.Itoa(cmp.From.Version)+" and "+strconv.Itoa(cmp.To.Version), "subjects", v)
}

func sides(lines []codeLine) []sideLine {
	out := make([]sideLine, len(lines))
	for i, l := range lines {
		out[i] = sideLine{codeLine: l}
	}
	return out
}

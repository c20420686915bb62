package web

import (
	"net/http"
	"strconv"
	"strings"

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
	Level    string
	Levels   []option
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
	v.Level = r.URL.Query().Get("level")
	for _, l := range compat.Levels {
		v.Levels = append(v.Levels, option{Value: string(l), Selected: string(l) == v.Level})
	}
	cmp, err := u.svc.Governance().Compare(ctx, subject, v.From, v.To, compat.Level(v.Level))
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
		path := fieldPath(n.Path)
		for _, side := range [][]sideLine{v.Right, v.Left} {
			for i := range side {
				if path != "" && side[i].Field == path {
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

// fieldPath turns the JSON pointer of a JSON Schema finding
// ("#/properties/customer/properties/email", "#/required/qty") into the
// field path the fields use (".customer.email", ".qty"); other paths are
// returned as they are.
func fieldPath(p string) string {
	if !strings.HasPrefix(p, "#/") {
		return p
	}
	segs := strings.Split(strings.TrimPrefix(p, "#/"), "/")
	var b strings.Builder
	for i := 0; i < len(segs); i++ {
		switch segs[i] {
		case "properties", "required":
			if i+1 < len(segs) {
				b.WriteString("." + strings.NewReplacer("~1", "/", "~0", "~").Replace(segs[i+1]))
				i++
			}
		case "items":
			b.WriteString("[]")
		}
	}
	return b.String()
}

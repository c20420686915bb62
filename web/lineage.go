package web

import (
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

type lineageView struct {
	Subject   string
	Field     string
	Change    string
	Changes   []option
	Fields    []lineage.Node
	Producers []lineage.Edge
	Consumers []lineage.Edge
	SVG       template.HTML
	Impact    []lineage.Impact
	ImpactErr string
	PIITags   []string
}

// lineagePage is the lineage of a subject (who produces it, who reads
// which field), or of one of its fields (?field=.carrier_code) with "who
// breaks if this field changes" (?change=remove|rename|retype|deprecate),
// drawn server-side as SVG with a table of the same edges.
func (u *ui) lineagePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	subject := r.PathValue("subject")
	q := r.URL.Query()
	v := lineageView{Subject: subject, Field: q.Get("field"), Change: q.Get("change")}
	if v.Change == "" {
		v.Change = string(lineage.ChangeRemove)
	}
	g, err := u.svc.Lineage().LineageGraph(ctx, subject, time.Time{})
	if err != nil {
		u.fail(w, r, err)
		return
	}
	pol, err := u.svc.Governance().EffectivePolicy(ctx, subject)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	v.PIITags = piiTagsOf(pol)
	deps, err := u.svc.Governance().Deprecations(ctx, subject, false)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	deprecated := map[string]bool{}
	for _, d := range deps {
		if d.Kind == governance.ItemField {
			deprecated[d.Path] = true
		}
	}
	for _, n := range g.Nodes {
		if n.Kind == lineage.KindField && n.Subject == subject && (v.Field == "" || governance.Covers(v.Field, n.Path)) {
			n.Deprecated = n.Deprecated || deprecated[n.Path]
			v.Fields = append(v.Fields, n)
		}
	}
	for _, e := range g.Edges {
		if e.To != lineage.SubjectID(subject) {
			continue
		}
		switch e.Kind {
		case lineage.EdgeProduces:
			v.Producers = append(v.Producers, e)
		case lineage.EdgeConsumes:
			if v.Field != "" {
				var fs []string
				for _, f := range e.Fields {
					if governance.Covers(v.Field, f) || governance.Covers(f, v.Field) {
						fs = append(fs, f)
					}
				}
				if len(fs) == 0 {
					continue
				}
				e.Fields = fs
			}
			v.Consumers = append(v.Consumers, e)
		}
	}
	if v.Field != "" {
		for _, c := range []lineage.FieldChange{lineage.ChangeRemove, lineage.ChangeRename, lineage.ChangeRetype, lineage.ChangeDeprecate} {
			v.Changes = append(v.Changes, option{Value: string(c), Selected: string(c) == v.Change})
		}
		imp, err := u.svc.Lineage().Impact(ctx, lineage.ImpactQuery{Subject: subject, Path: v.Field, Change: lineage.FieldChange(v.Change)})
		if err != nil {
			_, _, msg := srerr.Code(err)
			v.ImpactErr = msg
		}
		v.Impact = imp
	}
	v.SVG = lineageSVG(subject, v.Field, v.Fields, v.Producers, v.Consumers, v.PIITags)
	title := "Lineage of " + subject
	if v.Field != "" {
		title = "Lineage of " + subject + " " + governance.Display(v.Field)
	}
	u.render(w, r, http.StatusOK, "lineage", title, "subjects", v)
}

// serviceName is the name of a service node ID.
func serviceName(id string) string { return strings.TrimPrefix(id, "service:") }

// lineageSVG draws producers (left) → the subject and its fields (centre)
// ← consumers (right), each consumer joined to the fields it reads.
func lineageSVG(subject, field string, fields []lineage.Node, producers, consumers []lineage.Edge, piiTags []string) template.HTML {
	const (
		width, rowH, boxH, top = 960, 30, 24, 40
		leftX, colW            = 10, 230
		midX, midW             = 340, 280
		rightX                 = 720
	)
	rows := max(len(fields)+1, len(producers), len(consumers), 1)
	height := top + rows*rowH + 20
	var b strings.Builder
	title := "Lineage of " + subject
	if field != "" {
		title += " field " + governance.Display(field)
	}
	fmt.Fprintf(&b, `<svg class="graph" viewBox="0 0 %d %d" role="img" aria-labelledby="graph-title graph-desc" xmlns="http://www.w3.org/2000/svg">`, width, height)
	fmt.Fprintf(&b, `<title id="graph-title">%s</title>`, esc(title))
	fmt.Fprintf(&b, `<desc id="graph-desc">%d producers, %d fields, %d consumers; the table below lists the same edges.</desc>`, len(producers), len(fields), len(consumers))
	fmt.Fprintf(&b, `<text class="col-head" x="%d" y="20">Producers</text><text class="col-head" x="%d" y="20">Subject and fields</text><text class="col-head" x="%d" y="20">Consumers</text>`, leftX, midX, rightX)
	subjectY := top
	fieldY := map[string]int{}
	for i, f := range fields {
		fieldY[f.Path] = top + (i+1)*rowH
	}
	// Edges first, so that boxes cover their ends.
	for i := range producers {
		y := top + i*rowH + boxH/2
		fmt.Fprintf(&b, `<path class="edge edge-produces" d="M%d %d C%d %d %d %d %d %d"/>`, leftX+colW, y, leftX+colW+50, y, midX-50, subjectY+boxH/2, midX, subjectY+boxH/2)
	}
	for i, c := range consumers {
		y := top + i*rowH + boxH/2
		targets := []int{}
		for _, f := range c.Fields {
			for _, fn := range fields {
				if governance.Covers(f, fn.Path) || f == fn.Path {
					targets = append(targets, fieldY[fn.Path]+boxH/2)
				}
			}
		}
		if len(targets) == 0 {
			targets = []int{subjectY + boxH/2}
		}
		slices.Sort(targets)
		targets = slices.Compact(targets)
		for _, ty := range targets {
			fmt.Fprintf(&b, `<path class="edge edge-reads" d="M%d %d C%d %d %d %d %d %d"/>`, midX+midW, ty, midX+midW+50, ty, rightX-50, y, rightX, y)
		}
	}
	box := func(class string, x, y, w int, label, tip string) {
		fmt.Fprintf(&b, `<g class="%s"><title>%s</title><rect x="%d" y="%d" width="%d" height="%d" rx="4"/><text x="%d" y="%d">%s</text></g>`,
			class, esc(tip), x, y, w, boxH, x+8, y+boxH/2+5, esc(truncate(label, w/8)))
	}
	for i, p := range producers {
		box("node node-service", leftX, top+i*rowH, colW, serviceName(p.From), serviceName(p.From)+" produces "+subject)
	}
	box("node node-subject", midX, subjectY, midW, subject, "subject "+subject)
	for _, f := range fields {
		class := "node node-field"
		label := governance.Display(f.Path) + "  " + f.Type
		var marks []string
		if slices.ContainsFunc(f.Tags, func(t string) bool { return containsFold(piiTags, t) }) {
			class += " node-pii"
			marks = append(marks, "PII")
		}
		if f.Deprecated {
			class += " node-deprecated"
			marks = append(marks, "deprecated")
		}
		if len(marks) > 0 {
			label += " [" + strings.Join(marks, ", ") + "]"
		}
		box(class, midX, fieldY[f.Path], midW, label, "field "+governance.Display(f.Path)+" ("+f.Type+")"+strings.Join(append([]string{""}, f.Tags...), " "))
	}
	for i, c := range consumers {
		box("node node-service", rightX, top+i*rowH, colW, serviceName(c.From), serviceName(c.From)+" reads "+strings.Join(c.Fields, ", ")+" ("+string(c.Source)+")")
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func esc(s string) string { return template.HTMLEscapeString(s) }

// truncate shortens s to n runes with an ellipsis.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 2 {
		return s
	}
	return string(r[:n-1]) + "…"
}

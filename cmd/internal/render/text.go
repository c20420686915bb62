package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat/rule"
)

// styles are the text format's styles; all plain without colour.
type styles struct {
	subject, dim, rule, hint lipgloss.Style
	sev                      map[rule.Severity]lipgloss.Style
	pass, fail               lipgloss.Style
}

func newStyles(w io.Writer, color bool) styles {
	r := lipgloss.NewRenderer(w)
	if color {
		r.SetColorProfile(termenv.ANSI)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	return styles{
		subject: r.NewStyle().Bold(true),
		dim:     r.NewStyle().Faint(true),
		rule:    r.NewStyle().Foreground(lipgloss.Color("6")),
		hint:    r.NewStyle().Foreground(lipgloss.Color("2")),
		sev: map[rule.Severity]lipgloss.Style{
			rule.Error:   r.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
			rule.Warning: r.NewStyle().Foreground(lipgloss.Color("3")).Bold(true),
			rule.Notice:  r.NewStyle().Foreground(lipgloss.Color("4")),
		},
		pass: r.NewStyle().Foreground(lipgloss.Color("2")).Bold(true),
		fail: r.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
	}
}

// pad right-pads s to width display cells (before styling, so that
// escape codes do not count).
func pad(s string, width int) string {
	if n := lipgloss.Width(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// checkText writes findings grouped by subject, one aligned header line
// per finding and its message and fix below, then a summary line:
//
//	orders-value · AVRO · BACKWARD · schemas/orders.avsc
//	  error    schemas/orders.avsc:6   AVRO_TYPE_MISMATCH   .id (backward)
//	           the writer's string cannot be read as the reader's long
//	           fix: keep the type or use a promotion the spec allows
func checkText(w io.Writer, r *project.Result, o Options) error {
	st := newStyles(w, o.Color)
	info := map[string]project.SubjectResult{}
	for _, s := range r.Subjects {
		info[s.Subject] = s
	}
	// Column widths over the whole report, so that groups line up too.
	locW, ruleW := 0, 0
	for _, f := range r.Findings {
		locW = max(locW, lipgloss.Width(location(f, "")))
		ruleW = max(ruleW, lipgloss.Width(f.RuleID))
	}
	const sevW = 7 // "warning"
	indent := strings.Repeat(" ", 2+sevW+2)
	var b strings.Builder
	for _, g := range groups(r.Findings) {
		subj := g[0].Subject
		head := subj
		if head == "" {
			head = "(no subject)"
		}
		b.WriteString(st.subject.Render(head))
		if s, ok := info[subj]; ok && subj != "" {
			var meta []string
			for _, m := range []string{string(s.Format), string(s.Level), s.File, string(s.Status)} {
				if m != "" {
					meta = append(meta, m)
				}
			}
			b.WriteString(st.dim.Render(" · " + strings.Join(meta, " · ")))
		}
		b.WriteString("\n")
		for _, f := range g {
			b.WriteString("  ")
			b.WriteString(st.sev[f.Severity].Render(pad(f.Severity.String(), sevW)))
			b.WriteString("  ")
			loc := location(f, "")
			line := pad(loc, locW)
			if locW > 0 {
				line += "  "
			}
			b.WriteString(line)
			tail := f.Path
			if d := detail(f); d != "" {
				tail = strings.TrimSpace(tail + " (" + d + ")")
			}
			if tail == "" {
				b.WriteString(strings.TrimRight(st.rule.Render(f.RuleID), " "))
			} else {
				b.WriteString(st.rule.Render(pad(f.RuleID, ruleW)))
				b.WriteString("  " + tail)
			}
			b.WriteString("\n")
			b.WriteString(indent + indented(f.Message, indent) + "\n")
			if f.Hint != "" {
				b.WriteString(indent + st.hint.Render("fix:") + " " + indented(f.Hint, indent) + "\n")
			}
			if e := evidenceText(f); e != "" {
				b.WriteString(indent + st.dim.Render(e) + "\n")
			}
		}
		b.WriteString("\n")
	}
	if lines := evidenceLines(r); len(lines) > 0 {
		for _, l := range lines {
			b.WriteString(st.dim.Render(l) + "\n")
		}
		b.WriteString("\n")
	}
	c := countOf(r)
	verdict := st.pass.Render("✓ passed")
	if Failed(r, o) {
		verdict = st.fail.Render("✗ failed")
	}
	fmt.Fprintf(&b, "%s: %s in %s, against %s\n", verdict, c, statusLine(r), r.Against)
	_, err := io.WriteString(w, b.String())
	return err
}

// indented indents the continuation lines of a multi-line text.
func indented(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}

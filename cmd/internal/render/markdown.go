package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat/rule"
)

var sevIcon = map[rule.Severity]string{
	rule.Error:   "❌ error",
	rule.Warning: "⚠️ warning",
	rule.Notice:  "ℹ️ notice",
}

// checkMarkdown writes a GitHub-flavoured Markdown summary: a heading with
// the verdict, the counts, a table of findings and a collapsed table of
// subjects. It suits $GITHUB_STEP_SUMMARY and pull-request comments.
func checkMarkdown(w io.Writer, r *project.Result, o Options) error {
	var b strings.Builder
	c := countOf(r)
	if Failed(r, o) {
		fmt.Fprintf(&b, "### ❌ %s failed\n\n", o.title())
	} else {
		fmt.Fprintf(&b, "### ✅ %s passed\n\n", o.title())
	}
	fmt.Fprintf(&b, "%s in %s, against %s.\n\n", c, statusLine(r), code(r.Against))
	if len(r.Findings) == 0 {
		b.WriteString("No findings.\n\n")
	} else {
		b.WriteString("| Severity | Subject | Rule | Location | Finding |\n")
		b.WriteString("| --- | --- | --- | --- | --- |\n")
		for _, f := range r.Findings {
			loc := code(location(f, o.PathPrefix))
			if f.Path != "" {
				loc = strings.TrimSpace(loc + " " + code(f.Path))
			}
			msg := cell(f.Message)
			if d := detail(f); d != "" {
				msg += " (" + cell(d) + ")"
			}
			if f.Hint != "" {
				msg += "<br>**Fix:** " + cell(f.Hint)
			}
			if line := evidenceText(f); line != "" {
				if e := f.Evidence; len(e.Event) > 0 {
					what := "is refused"
					if e.Class != "refused" {
						what = "loses data"
					}
					msg += fmt.Sprintf("<br>**Counterexample:** %s %s at %s: %s", code(eventText(e.Event)), what, code(e.Path), cell(e.Reader))
				} else {
					msg += "<br>" + cell(line)
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", sevIcon[f.Severity], code(f.Subject), code(f.RuleID), loc, msg)
		}
		b.WriteString("\n")
	}
	if lines := evidenceLines(r); len(lines) > 0 {
		b.WriteString("**Evidence** (generated events read across each change):\n\n")
		for _, s := range r.Subjects {
			if s.Evidence != nil {
				fmt.Fprintf(&b, "- %s: %s\n", code(s.Subject), cell(evidenceSummary(*s.Evidence)))
			}
		}
		b.WriteString("\n")
	}
	if len(r.Subjects) > 0 {
		fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n", statusLine(r))
		b.WriteString("| Subject | Format | Level | Status | File | Errors | Warnings | Notices |\n")
		b.WriteString("| --- | --- | --- | --- | --- | ---: | ---: | ---: |\n")
		for _, s := range r.Subjects {
			file := ""
			if s.File != "" {
				file = code(o.PathPrefix + s.File)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %d | %d |\n",
				code(s.Subject), s.Format, s.Level, s.Status, file, s.Errors, s.Warnings, s.Notices)
		}
		b.WriteString("\n</details>\n\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// code renders s as a code span inside a table cell ("" stays "").
func code(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// cell escapes text for a table cell: pipes, HTML and line breaks.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "&", "&amp;", "\r", "", "\n", "<br>").Replace(s)
}

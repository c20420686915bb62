package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat/rule"
)

// checkGitHub writes one workflow command per finding
// (docs.github.com, "Workflow commands for GitHub Actions": error,
// warning and notice messages), then a plain summary line:
//
//	::error file=schemas/orders.avsc,line=6,title=AVRO_TYPE_MISMATCH (orders-value)::.id: the writer's string … (backward)%0Afix: …
func checkGitHub(w io.Writer, r *project.Result, o Options) error {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(githubCommand(f, o.PathPrefix))
		b.WriteString("\n")
	}
	for _, l := range evidenceLines(r) {
		b.WriteString(l + "\n")
	}
	c := countOf(r)
	verdict := "passed"
	if Failed(r, o) {
		verdict = "failed"
	}
	fmt.Fprintf(&b, "%s %s: %s in %s, against %s\n", o.title(), verdict, c, statusLine(r), r.Against)
	_, err := io.WriteString(w, b.String())
	return err
}

func githubCommand(f rule.Finding, prefix string) string {
	cmd := "notice"
	switch f.Severity {
	case rule.Error:
		cmd = "error"
	case rule.Warning:
		cmd = "warning"
	}
	var props []string
	if f.File != "" {
		props = append(props, "file="+escapeProperty(prefix+f.File))
		if f.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", f.Line))
		}
	}
	title := f.RuleID
	if f.Subject != "" {
		title += " (" + f.Subject + ")"
	}
	props = append(props, "title="+escapeProperty(title))
	msg := f.Message
	if f.Path != "" {
		msg = f.Path + ": " + msg
	}
	if d := detail(f); d != "" {
		msg += " (" + d + ")"
	}
	if f.Hint != "" {
		msg += "\nfix: " + f.Hint
	}
	if e := evidenceText(f); e != "" {
		msg += "\n" + e
	}
	return "::" + cmd + " " + strings.Join(props, ",") + "::" + escapeData(msg)
}

// escapeData escapes a workflow command's message (as @actions/core's
// escapeData does).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value (as
// @actions/core's escapeProperty does).
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

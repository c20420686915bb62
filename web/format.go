package web

import (
	"fmt"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/governance"
)

// funcs are the template functions.
func (u *ui) funcs() template.FuncMap {
	return template.FuncMap{
		"time":       timeTag,
		"date":       dateTag,
		"plural":     rule.Plural,
		"count":      count,
		"join":       strings.Join,
		"display":    governance.Display,
		"subjectURL": func(s string) string { return subjectURL(s) },
		"itemURL":    func(s, key string) string { return subjectURL(s, "deprecations", url.PathEscape(key)) },
		"lineageURL": lineageURL,
		"compareURL": compareURL,
		"teamURL":    func(t string) string { return Prefix + "/teams/" + url.PathEscape(t) },
		"auditURL":   func(s string) string { return Prefix + "/audit?subject=" + url.QueryEscape(s) },
		"fieldKey":   func(p string) string { return governance.FieldItem(p).Key() },
		"num":        thousands,
		"lower":      strings.ToLower,
		"countdown": func(days int, state governance.State, expires time.Time) string {
			return countdown(days, state, expires, u.opts.Clock())
		},
		"stateClass":  func(s governance.State) string { return "state-" + string(s) },
		"severityTag": func(s rule.Severity) string { return s.String() },
		"format":      formatName,
		"serviceName": serviceName,
		"deref":       func(t *time.Time) time.Time { return *t },
		"codeBlock": func(id, label string, lines []codeLine) codeBlock {
			return codeBlock{ID: id, Label: label, Lines: lines}
		},
	}
}

// timeTag renders t as a <time> element: UTC in the text and the title;
// app.js rewrites the text in the viewer's time zone and keeps UTC on
// hover.
func timeTag(t time.Time) template.HTML {
	if t.IsZero() {
		return "—"
	}
	t = t.UTC()
	utc := t.Format("2006-01-02 15:04") + " UTC"
	return template.HTML(fmt.Sprintf(`<time datetime="%s" title="%s">%s</time>`,
		template.HTMLEscapeString(t.Format(time.RFC3339)), utc, utc))
}

// dateTag is timeTag for a day: the date only.
func dateTag(t time.Time) template.HTML {
	if t.IsZero() {
		return "—"
	}
	t = t.UTC()
	return template.HTML(fmt.Sprintf(`<time datetime="%s" title="%s" data-date>%s</time>`,
		t.Format(time.RFC3339), t.Format("2006-01-02 15:04")+" UTC", t.Format("2006-01-02")))
}

// countdown words days left: "1 day left", "12 days left"; once expired,
// how long ago as of now: "expired today", "expired 65 days ago".
func countdown(days int, state governance.State, expires, now time.Time) string {
	if state == governance.StateExpired || days <= 0 {
		ago := int(now.Sub(expires).Hours() / 24)
		if expires.IsZero() || ago < 1 {
			return "expired today"
		}
		return "expired " + rule.Plural(ago, "day") + " ago"
	}
	return rule.Plural(days, "day") + " left"
}

// count is rule.Plural with thousands separators: "10,000 subjects".
func count(n int, noun string) string {
	p := rule.Plural(n, noun)
	_, rest, _ := strings.Cut(p, " ")
	return thousands(n) + " " + rest
}

// thousands writes n with thin separators: 10,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

func lineageURL(subject, field string) string {
	u := subjectURL(subject, "lineage")
	if field != "" {
		u += "?field=" + url.QueryEscape(field)
	}
	return u
}

func compareURL(subject string, from, to int) string {
	return fmt.Sprintf("%s?from=%d&to=%d", subjectURL(subject, "compare"), from, to)
}

// codeBlock is the "code" partial's data.
type codeBlock struct {
	ID, Label string
	Lines     []codeLine
}

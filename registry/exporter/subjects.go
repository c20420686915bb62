package exporter

import (
	"strings"

	"github.com/charter-dev/charter/registry/qualified"
)

// AllSubjects is the Subjects of an exporter that names none (Confluent's
// default): every subject of the source's default context.
var AllSubjects = []string{"*"}

// wildcardContext is Confluent's pattern for every context.
const wildcardContext = ":*:"

// splitContext splits a qualified subject ":.ctx:name" into ".ctx" and
// "name"; an unqualified one is in the default context ("").
func splitContext(subject string) (ctx, name string) {
	if !strings.HasPrefix(subject, ":.") {
		return "", subject
	}
	i := strings.Index(subject[1:], ":")
	if i < 0 {
		return "", subject
	}
	ctx, name = subject[1:i+1], subject[i+2:]
	if ctx == "." {
		ctx = ""
	}
	return ctx, name
}

// qualify returns name in context ctx ("" or ".": the default one), as
// the registry stores it (qualified.In).
func qualify(ctx, name string) string { return qualified.In(ctx, name) }

// resolveReference returns the source subject a reference of a version
// of referrer names, as the registry resolves it (qualified.In): a
// qualified one as is, normalised (":.:plain", as the pre-context upgrade
// writes a reference to the default context, is "plain"), an unqualified
// one in the referrer's context (Confluent resolves references within a
// context).
func resolveReference(referrer, subject string) string {
	ctx, _ := splitContext(referrer)
	return qualified.In(ctx, subject)
}

// Matches reports whether subject (qualified outside the default
// context) is one of the exporter's subjects: a pattern matches a subject
// of its context (the default one unless it starts ":.ctx:"), '*'
// standing for any run of characters; ":*:" alone matches every subject
// of every context.
func (e Exporter) Matches(subject string) bool {
	patterns := e.Subjects
	if len(patterns) == 0 {
		patterns = AllSubjects
	}
	sctx, sname := splitContext(subject)
	for _, p := range patterns {
		if p == wildcardContext || p == wildcardContext+"*" {
			return true
		}
		pctx, pname := splitContext(p)
		if pctx == sctx && glob(pname, sname) {
			return true
		}
	}
	return false
}

// glob reports whether s matches pattern, where '*' matches any run of
// characters (none included) and every other character itself.
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return strings.HasSuffix(s, last)
}

// DestinationContext returns the destination context of the subjects of
// the source context srcCtx ("" the default one): ContextNone keeps
// srcCtx, ContextCustom puts it under Context, ContextAuto under
// ".{clusterID}" (the source registry's cluster ID). "" is the
// destination's default context.
func (e Exporter) DestinationContext(srcCtx, clusterID string) string {
	var base string
	switch e.ContextType {
	case ContextNone:
		return srcCtx
	case ContextCustom:
		base = normalizeContext(e.Context)
	default:
		base = normalizeContext(clusterID)
	}
	if base == "" {
		return srcCtx
	}
	return base + srcCtx
}

// normalizeContext returns a context name with its leading dot ("prod"
// is ".prod"); "" and "." are the default context, "".
func normalizeContext(c string) string {
	c = strings.TrimSpace(c)
	if c == "" || c == "." {
		return ""
	}
	if !strings.HasPrefix(c, ".") {
		c = "." + c
	}
	return c
}

// DestinationSubject returns the destination subject of source subject
// src: its name renamed by SubjectRenameFormat (each "${subject}"
// replaced by the name; "" keeps it) in DestinationContext.
func (e Exporter) DestinationSubject(src, clusterID string) string {
	sctx, name := splitContext(src)
	if e.SubjectRenameFormat != "" {
		name = strings.ReplaceAll(e.SubjectRenameFormat, "${subject}", name)
	}
	return qualify(e.DestinationContext(sctx, clusterID), name)
}

// IsOwnCopy reports whether subject is in the context e copies into or
// one under it (".mirror", ".mirror.x" for a CUSTOM context ".mirror"):
// such a subject is never exported, so that an exporter whose
// destination is its own registry with ":*:" does not copy its copies
// again, each time one context deeper.
func (e Exporter) IsOwnCopy(subject, clusterID string) bool {
	dc := e.DestinationContext("", clusterID)
	if dc == "" {
		return false
	}
	sctx, _ := splitContext(subject)
	return sctx == dc || strings.HasPrefix(sctx, dc+".")
}

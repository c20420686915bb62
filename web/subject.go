package web

import (
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// versionRow is one version of the subject page's table.
type versionRow struct {
	Version      int
	SchemaID     int64
	SemVer       string
	Bump         governance.Bump
	RegisteredAt time.Time
	By           string
	Changes      []governance.Change
}

// fieldRow is one field of the latest version with its marks.
type fieldRow struct {
	compat.Field
	AllTags     []string
	Deprecation *governance.DeprecationStatus
	Readers     []string
	PII         bool
}

type subjectView struct {
	Subject      string
	Format       string
	Latest       registry.SubjectSchema
	Level        compat.Level
	Mode         registry.Mode
	Owner        *governance.Owner
	Versions     []versionRow
	Producers    []lineage.Producer
	Consumers    []lineage.Consumer
	Deprecations []governance.DeprecationStatus
	Fields       []fieldRow
	Lines        []codeLine
	CanWrite     bool
	WriteDenied  string
	AuthOn       bool
	Approver     string
	PrevVersion  int
	DefaultTTL   int
}

// subjectPage is one subject: versions with semantic version and date,
// level and mode, owner, producers and consumers, the changelog, and the
// latest schema with its fields' PII and deprecation marks.
func (u *ui) subjectPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	subject := r.PathValue("subject")
	gov := u.svc.Governance()
	latest, fields, err := u.svc.VersionFields(ctx, subject, registry.Latest)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	v := subjectView{Subject: subject, Latest: latest, Format: formatName(latest.Schema.Type), AuthOn: u.opts.Auth != nil}
	cfg, err := u.svc.Config(ctx, subject, true)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	v.Level = cfg.Compatibility
	if v.Mode, err = u.svc.Mode(ctx, subject, true); err != nil {
		u.fail(w, r, err)
		return
	}
	if o, err := gov.Owner(ctx, subject); err == nil {
		v.Owner = &o
	} else if !errors.Is(err, srerr.ErrGovernanceNotFound) {
		u.fail(w, r, err)
		return
	}
	cl, err := gov.Changelog(ctx, subject)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	for i := len(cl.Entries) - 1; i >= 0; i-- {
		e := cl.Entries[i]
		v.Versions = append(v.Versions, versionRow{Version: e.Version, SchemaID: e.SchemaID, SemVer: e.SemVer, Bump: e.Bump, RegisteredAt: e.RegisteredAt, By: e.By, Changes: e.Changes})
	}
	if len(cl.Entries) > 1 {
		v.PrevVersion = cl.Entries[len(cl.Entries)-2].Version
	}
	decl, err := u.svc.Lineage().LineageDeclarations(ctx, subject, time.Time{})
	if err != nil {
		u.fail(w, r, err)
		return
	}
	v.Producers, v.Consumers = decl.Producers, decl.Consumers
	if v.Deprecations, err = gov.Deprecations(ctx, subject, false); err != nil {
		u.fail(w, r, err)
		return
	}
	tags, err := gov.Tags(ctx, subject)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	pol, err := gov.EffectivePolicy(ctx, subject)
	if err != nil {
		u.fail(w, r, err)
		return
	}
	v.DefaultTTL = pol.TTLDays()
	piiTags := piiTagsOf(pol)
	tagsOf := map[string][]string{}
	for _, ft := range tags.Fields {
		tagsOf[ft.Path] = ft.Tags
	}
	depOf := map[string]*governance.DeprecationStatus{}
	for i := range v.Deprecations {
		if d := &v.Deprecations[i]; d.Kind == governance.ItemField {
			depOf[d.Path] = d
		}
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.Path] {
			continue
		}
		seen[f.Path] = true
		row := fieldRow{Field: f, AllTags: tagsOf[f.Path], Deprecation: depOf[f.Path]}
		for _, c := range v.Consumers {
			if slices.ContainsFunc(c.Fields, func(read string) bool { return governance.Covers(f.Path, read) }) {
				row.Readers = append(row.Readers, c.Service)
			}
		}
		row.PII = slices.ContainsFunc(row.AllTags, func(t string) bool { return containsFold(piiTags, t) })
		v.Fields = append(v.Fields, row)
	}
	text := schemaText(latest.Schema.Type, latest.Schema.Text)
	v.Lines = highlight(latest.Schema.Type, latest.Schema.Text, text, fields)
	byPath := map[string]fieldRow{}
	for _, f := range v.Fields {
		byPath[f.Path] = f
	}
	for i := range v.Lines {
		f, ok := byPath[v.Lines[i].Field]
		if !ok {
			continue
		}
		for _, t := range f.AllTags {
			class := "tag"
			if containsFold(piiTags, t) {
				class = "pii"
			}
			v.Lines[i].Marks = append(v.Lines[i].Marks, mark{Class: class, Label: t})
		}
		if d := f.Deprecation; d != nil {
			v.Lines[i].Marks = append(v.Lines[i].Marks, mark{Class: "deprecated", Label: "deprecated, " + countdown(d.DaysLeft, d.State, d.ExpiresAt, u.opts.Clock())})
		} else if f.Deprecated {
			v.Lines[i].Marks = append(v.Lines[i].Marks, mark{Class: "deprecated", Label: "deprecated in the schema"})
		}
	}
	v.CanWrite, v.WriteDenied = u.mayWrite(r, subject)
	if p := identityOf(r).principal; p != nil {
		v.Approver = p.Name
	}
	u.render(w, r, http.StatusOK, "subject", subject, "subjects", v)
}

// piiTagsOf are the tags that mark personal data under pol.
func piiTagsOf(pol governance.PolicyConfig) []string {
	if pol.PII != nil && len(pol.PII.PIITags) > 0 {
		return pol.PII.PIITags
	}
	return []string{"PII", "SENSITIVE"}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if equalFold(x, s) {
			return true
		}
	}
	return false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

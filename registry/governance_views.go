package registry

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/pii"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// --- Tags ------------------------------------------------------------------

// Tags returns the governance tags of subject and the tags of its latest
// version's fields.
func (gov *Governance) Tags(ctx context.Context, subject string) (governance.TagsView, error) {
	s := gov.s
	var out governance.TagsView
	err := s.gview(ctx, "get tags", func(tx Tx, g GovernanceTx) error {
		var err error
		out, err = s.tagsView(ctx, tx, g, subject)
		return err
	})
	return out, err
}

func (s *Service) tagsView(ctx context.Context, tx Tx, g GovernanceTx, subject string) (governance.TagsView, error) {
	out := governance.TagsView{Subject: subject, Tags: map[string][]string{}, Fields: []governance.FieldTags{}}
	if _, err := getRecord(ctx, g, kindTags, subject, "", &out.Tags); err != nil {
		return out, err
	}
	v, st, parsed, ok, err := s.latestParsed(ctx, tx, subject)
	if err != nil || !ok {
		return out, err
	}
	out.Version = v.Version
	md, _ := pii.ParseMetadata(st.Metadata)
	metaTags := pii.NewTagResolver(pii.Metadata{Tags: md.Tags})
	govTags := pii.NewTagResolver(pii.Metadata{Tags: out.Tags})
	seen := map[string]bool{}
	for _, f := range compat.Fields(parsed) {
		if seen[f.Path] {
			continue
		}
		seen[f.Path] = true
		bare := f
		bare.Tags = nil
		ft := governance.FieldTags{Path: f.Path, FullName: f.FullName, Inline: f.Tags, Metadata: metaTags.Tags(bare), Governance: govTags.Tags(bare)}
		all := append(append(append([]string(nil), ft.Inline...), ft.Metadata...), ft.Governance...)
		slices.Sort(all)
		ft.Tags = slices.Compact(all)
		if ft.Tags == nil {
			ft.Tags = []string{}
		}
		out.Fields = append(out.Fields, ft)
	}
	return out, nil
}

// SetTags replaces the governance tags of subject (PUT
// /governance/subjects/{s}/tags): path glob → tags. They count in PII
// evaluation as if the versions' metadata.tags held them. Errors: 42283 an
// empty glob or tag, one with control characters or longer than
// governance.MaxTagLength, more than governance.MaxTagGlobs globs or more
// than governance.MaxTagsPerGlob tags for one glob.
func (gov *Governance) SetTags(ctx context.Context, subject string, tags map[string][]string) (governance.TagsView, error) {
	s := gov.s
	if err := ValidateSubject(subject); err != nil {
		return governance.TagsView{}, err
	}
	clean, err := cleanTags(tags)
	if err != nil {
		return governance.TagsView{}, err
	}
	var out governance.TagsView
	err = s.gupdate(ctx, "set tags", func(tx Tx, g GovernanceTx) error {
		var before map[string][]string
		had, err := getRecord(ctx, g, kindTags, subject, "", &before)
		if err != nil {
			return err
		}
		if err := putRecord(ctx, g, kindTags, subject, "", clean); err != nil {
			return err
		}
		if err := s.audit(ctx, g, governance.ActionTagsSet, subject, "", nilIf(!had, before), clean); err != nil {
			return err
		}
		out, err = s.tagsView(ctx, tx, g, subject)
		return err
	})
	return out, err
}

// cleanTags trims and checks the globs and tags of a PUT …/tags request,
// drops repeated tags and sorts them, in time linear in the request.
func cleanTags(tags map[string][]string) (map[string][]string, error) {
	if len(tags) > governance.MaxTagGlobs {
		return nil, errInvalidGovernance("Invalid tags: %d path globs, more than %d", len(tags), governance.MaxTagGlobs)
	}
	clean := map[string][]string{}
	for _, glob := range slices.Sorted(maps.Keys(tags)) {
		g := strings.TrimSpace(glob)
		if err := checkTagText("path glob", g); err != nil {
			return nil, err
		}
		if n := len(tags[glob]); n > governance.MaxTagsPerGlob {
			return nil, errInvalidGovernance("Invalid tags: glob %q has %d tags, more than %d", clipText(g), n, governance.MaxTagsPerGlob)
		}
		seen := map[string]bool{}
		var ts []string
		for _, t := range tags[glob] {
			t = strings.TrimSpace(t)
			if err := checkTagText(fmt.Sprintf("tag of glob %q", clipText(g)), t); err != nil {
				return nil, err
			}
			if !seen[t] {
				seen[t] = true
				ts = append(ts, t)
			}
		}
		if len(ts) > 0 {
			slices.Sort(ts)
			clean[g] = append(clean[g], ts...)
		}
	}
	for g, ts := range clean {
		// Two globs that differ only in surrounding space merge.
		slices.Sort(ts)
		clean[g] = slices.Compact(ts)
	}
	return clean, nil
}

// checkTagText refuses an empty glob or tag, one longer than
// governance.MaxTagLength or one with control characters.
func checkTagText(what, v string) error {
	switch {
	case v == "":
		return errInvalidGovernance("Invalid tags: a %s is empty", what)
	case len(v) > governance.MaxTagLength:
		return errInvalidGovernance("Invalid tags: %s %q is longer than %d bytes", what, clipText(v), governance.MaxTagLength)
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		return errInvalidGovernance("Invalid tags: %s %q has a control character", what, clipText(v))
	}
	return nil
}

// clipText shortens a value quoted in an error message.
func clipText(v string) string {
	if r := []rune(v); len(r) > 40 {
		return string(r[:37]) + "..."
	}
	return v
}

// DeleteTags removes the governance tags of subject and returns them.
// Errors: 40480 none.
func (gov *Governance) DeleteTags(ctx context.Context, subject string) (map[string][]string, error) {
	s := gov.s
	var out map[string][]string
	err := s.gupdate(ctx, "delete tags", func(_ Tx, g GovernanceTx) error {
		ok, err := getRecord(ctx, g, kindTags, subject, "", &out)
		if err != nil {
			return err
		}
		if !ok {
			return srerr.New(srerr.ErrGovernanceNotFound, "Subject '%s' has no governance tags", subject)
		}
		if err := g.DeleteGovernanceRecord(ctx, kindTags, subject, ""); err != nil {
			return fmt.Errorf("delete tags: %w", err)
		}
		return s.audit(ctx, g, governance.ActionTagsDelete, subject, "", out, nil)
	})
	return out, err
}

// --- Changelog -------------------------------------------------------------

// Changelog returns the changelog of subject, oldest version first (GET
// /governance/subjects/{s}/changelog). Versions registered before
// governance records existed are classified now, at the subject's current
// level. Errors: 40401 the subject has no live version.
func (gov *Governance) Changelog(ctx context.Context, subject string) (governance.Changelog, error) {
	s := gov.s
	out := governance.Changelog{Subject: subject}
	err := s.gview(ctx, "get changelog", func(tx Tx, g GovernanceTx) error {
		subject, err := resolveAlias(ctx, tx, subject)
		if err != nil {
			return err
		}
		out.Subject = subject
		recs, err := s.versionRecords(ctx, tx, g, subject)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return errSubjectNotFound(subject)
		}
		deps, err := listRecords[governance.Deprecation](ctx, g, kindDeprecation, subject, false)
		if err != nil {
			return err
		}
		for _, d := range deps {
			i := len(recs) - 1
			for j, r := range recs {
				if r.Version <= d.SinceVersion {
					i = j
				}
			}
			item := fmt.Sprintf("version %d", d.Version)
			if d.Kind == governance.ItemField {
				item = "field `" + governance.Display(d.Path) + "`"
			}
			if d.Source == governance.SourceAPI {
				text := fmt.Sprintf("%s deprecated, TTL %s", item, rule.Plural(d.TTLDays, "day"))
				if d.Kind == governance.ItemField {
					text = governance.DeprecationSentence(d.Path, d.TTLDays, d.Replacement, d.Reason)
				} else if d.Replacement != "" {
					text += ", use " + d.Replacement
				}
				text += fmt.Sprintf("; declared on %s, expires on %s", d.DeprecatedAt.Format("2006-01-02"), d.ExpiresAt.Format("2006-01-02"))
				recs[i].Changes = append(recs[i].Changes, governance.Change{Kind: governance.KindDeprecationDeclared, Path: d.Path, Text: text, Bump: governance.BumpNone})
			}
			for _, x := range d.Extensions {
				recs[i].Changes = append(recs[i].Changes, governance.Change{Kind: governance.KindExtensionGranted, Path: d.Path, Bump: governance.BumpNone,
					Text: fmt.Sprintf("%s extended for %s until %s (approved by %s: %s)", item, x.Consumer, x.Until.Format("2006-01-02"), x.Approver, x.Reason)})
			}
		}
		out.Entries = recs
		return nil
	})
	return out, err
}

// versionRecords returns a record per live version of subject, oldest
// first: the stored one, or one computed now (classified at the subject's
// current level) for versions registered without governance.
func (s *Service) versionRecords(ctx context.Context, tx Tx, g GovernanceTx, subject string) ([]governance.VersionRecord, error) {
	vs, err := subjectVersions(ctx, tx, subject)
	if err != nil {
		return nil, err
	}
	lv := live(vs)
	out := make([]governance.VersionRecord, 0, len(lv))
	var (
		prev    *governance.Version
		prevSV  governance.SemVer
		cfg     *Config
		pol     *governance.PolicyConfig
		deps    []governance.Deprecation
		havePrv bool
	)
	for _, v := range lv {
		var rec governance.VersionRecord
		ok, err := getRecord(ctx, g, kindVersion, subject, versionKey(v.Version), &rec)
		if err != nil {
			return nil, err
		}
		st, err := storedSchema(ctx, tx, v.Key())
		if err != nil {
			return nil, err
		}
		p, err := s.parseStored(ctx, tx, st)
		if err != nil {
			return nil, err
		}
		cur := governance.Version{Version: v.Version, Schema: p, Metadata: st.Metadata, RuleSet: st.RuleSet}
		if !ok {
			rec = governance.VersionRecord{Subject: subject, Version: v.Version, SchemaID: v.SchemaID}
			if !havePrv {
				rec.SemVer, rec.Bump = governance.InitialSemVer.String(), governance.BumpNone
				rec.Changes = []governance.Change{{Kind: governance.KindSchemaAdded, Text: "first version", Bump: governance.BumpNone}}
			} else {
				if cfg == nil {
					c, err := effectiveConfig(ctx, tx, subject)
					if err != nil {
						return nil, err
					}
					pc, err := effectivePolicy(ctx, g, subject)
					if err != nil {
						return nil, err
					}
					if deps, err = listRecords[governance.Deprecation](ctx, g, kindDeprecation, subject, false); err != nil {
						return nil, err
					}
					cfg, pol = &c, &pc
				}
				f, _ := s.format(p.Type())
				if f, err = withPolicyProfile(f, *pol); err != nil {
					return nil, err
				}
				c := governance.Classify(governance.ClassifyInput{Format: f, Level: cfg.Compatibility, Previous: *prev, Current: cur,
					TTLDays: pol.TTLDays(), Deprecations: deps})
				rec.Bump, rec.Changes = c.Bump, c.Changes
				rec.SemVer = prevSV.Next(c.Bump).String()
			}
		}
		if sv, err := governance.ParseSemVer(rec.SemVer); err == nil {
			prevSV = sv
		}
		prev, havePrv = &cur, true
		out = append(out, rec)
	}
	return out, nil
}

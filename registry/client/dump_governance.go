package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/charter-dev/charter/registry/srerr"
)

// DumpGovernance is the governance data of a dump (format v2): the global
// policy, each subject's records, and, when asked for, the audit log.
//
// Import writes it back through the governance API, which stamps every
// record with the import's clock and actor: owners' updatedAt/updatedBy,
// deprecations' deprecatedAt/by (their expiresAt is deprecatedAt plus the
// dumped ttlDays, so countdowns start again), extensions'
// grantedAt/grantedBy, dismissals' at. An extension whose end has passed
// by then is skipped with a warning, as are deprecations declared by a
// schema's own mark (source "schema": the registry derives them when a
// version is registered, which IMPORT mode does not do). Removed fields
// and the audit log are read-only: they are in the dump for the record,
// and Import does not write them.
type DumpGovernance struct {
	// Policy is the global policy (GET /governance/policy), nil when
	// none is stored.
	Policy *PolicyConfig `json:"policy,omitempty"`
	// Subjects are the subjects with governance records, by name: the
	// dump's subjects, the owned ones and the deprecated ones. (A policy,
	// tag set or dismissal of a subject that has none of these is not
	// found: the API lists no such subjects.)
	Subjects []DumpSubjectGovernance `json:"subjects"`
	// Audit is the audit log, oldest first (ExportOptions.Audit).
	Audit []AuditEntry `json:"audit,omitempty"`
}

// DumpSubjectGovernance is one subject's governance records; empty
// lists are omitted.
type DumpSubjectGovernance struct {
	Subject string `json:"subject"`
	// Owner also shows in the metadata properties of the subject's
	// versions (owner, owner.contact …) when read by subject and version.
	Owner  *Owner        `json:"owner,omitempty"`
	Policy *PolicyConfig `json:"policy,omitempty"`
	// Tags are the governance tags, path glob → tags.
	Tags         map[string][]string `json:"tags,omitempty"`
	Deprecations []Deprecation       `json:"deprecations,omitempty"`
	Dismissals   []Dismissal         `json:"dismissals,omitempty"`
	// Removed are the reserved removed fields (read-only).
	Removed []RemovedField `json:"removed,omitempty"`
}

func (g *DumpGovernance) count() int {
	if g == nil {
		return 0
	}
	n := 0
	if g.Policy != nil {
		n++
	}
	for _, s := range g.Subjects {
		if s.Owner != nil {
			n++
		}
		if s.Policy != nil {
			n++
		}
		if len(s.Tags) > 0 {
			n++
		}
		n += len(s.Dismissals) + len(s.Deprecations)
		for _, d := range s.Deprecations {
			n += len(d.Extensions)
		}
	}
	return n
}

func (g *DumpGovernance) validate() error {
	if g == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, s := range g.Subjects {
		if s.Subject == "" {
			return errors.New("read dump: a governance subject has no name")
		}
		if seen[s.Subject] {
			return fmt.Errorf("read dump: governance of subject %q is listed twice", s.Subject)
		}
		seen[s.Subject] = true
		for _, d := range s.Deprecations {
			switch {
			case d.Kind == "field" && d.Path != "":
			case d.Kind == "version" && d.Version > 0:
			default:
				return fmt.Errorf("read dump: subject %q: deprecation of kind %q (path %q, version %d): want a field with a path or a version > 0", s.Subject, d.Kind, d.Path, d.Version)
			}
		}
	}
	return nil
}

func (s DumpSubjectGovernance) empty() bool {
	return s.Owner == nil && s.Policy == nil && len(s.Tags) == 0 && len(s.Deprecations) == 0 &&
		len(s.Dismissals) == 0 && len(s.Removed) == 0
}

// policyOrNil returns nil for a policy that sets nothing.
func policyOrNil(p PolicyConfig) *PolicyConfig {
	if len(p.Rules) == 0 && p.DeprecationTTLDays == 0 && p.Envelope == nil && p.PII == nil {
		return nil
	}
	return &p
}

// deprecationItem is the URL item of d ("field:.a", "version:3").
func deprecationItem(d Deprecation) string {
	if d.Kind == "version" {
		return "version:" + itoa(d.Version)
	}
	return "field:" + d.Path
}

// exportGovernance reads the governance data of the subjects, the owned
// and the deprecated ones.
func (c *Client) exportGovernance(ctx context.Context, subjects []string, opts ExportOptions) (*DumpGovernance, error) {
	g := &DumpGovernance{Subjects: []DumpSubjectGovernance{}}
	p, err := c.Policy(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("get global policy: %w", err)
	}
	g.Policy = policyOrNil(p)
	names := map[string]bool{}
	for _, s := range subjects {
		names[s] = true
	}
	owners, err := c.Owners(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("list owners: %w", err)
	}
	for _, o := range owners {
		names[o.Subject] = true
	}
	deps, err := c.AllDeprecations(ctx)
	if err != nil {
		return nil, fmt.Errorf("list deprecations: %w", err)
	}
	for _, d := range deps {
		names[d.Subject] = true
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		s, err := c.subjectGovernance(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("governance of subject %q: %w", name, err)
		}
		if !s.empty() {
			g.Subjects = append(g.Subjects, s)
		}
	}
	if opts.Audit {
		const page = 1000
		var after int64
		for {
			es, err := c.Audit(ctx, AuditQuery{After: after, Limit: page})
			if err != nil {
				return nil, fmt.Errorf("read audit log: %w", err)
			}
			g.Audit = append(g.Audit, es...)
			if len(es) < page {
				break
			}
			after = es[len(es)-1].ID
		}
	}
	return g, nil
}

// notFound reports the errors that mean "no such record" for an export.
func notFound(err error) bool {
	return IsNotFound(err) || errors.Is(err, srerr.ErrGovernanceNotFound)
}

func (c *Client) subjectGovernance(ctx context.Context, name string) (DumpSubjectGovernance, error) {
	s := DumpSubjectGovernance{Subject: name}
	o, err := c.Owner(ctx, name)
	switch {
	case err == nil:
		s.Owner = &o
	case !notFound(err):
		return s, fmt.Errorf("get owner: %w", err)
	}
	p, err := c.Policy(ctx, name)
	if err != nil && !notFound(err) {
		return s, fmt.Errorf("get policy: %w", err)
	}
	s.Policy = policyOrNil(p)
	tv, err := c.Tags(ctx, name)
	if err != nil && !notFound(err) {
		return s, fmt.Errorf("get tags: %w", err)
	}
	if len(tv.Tags) > 0 {
		s.Tags = tv.Tags
	}
	ds, err := c.Deprecations(ctx, name, false)
	if err != nil && !notFound(err) {
		return s, fmt.Errorf("list deprecations: %w", err)
	}
	for _, d := range ds {
		dep := d.Deprecation
		slices.SortFunc(dep.Extensions, func(a, b Extension) int { return strings.Compare(a.Consumer, b.Consumer) })
		s.Deprecations = append(s.Deprecations, dep)
	}
	slices.SortFunc(s.Deprecations, func(a, b Deprecation) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Path, b.Path), cmp.Compare(a.Version, b.Version))
	})
	if s.Dismissals, err = c.Dismissals(ctx, name); err != nil && !notFound(err) {
		return s, fmt.Errorf("list dismissals: %w", err)
	}
	slices.SortFunc(s.Dismissals, func(a, b Dismissal) int {
		return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.PatternID, b.PatternID))
	})
	if s.Removed, err = c.RemovedFields(ctx, name); err != nil && !notFound(err) {
		return s, fmt.Errorf("list removed fields: %w", err)
	}
	slices.SortFunc(s.Removed, func(a, b RemovedField) int { return strings.Compare(a.Path, b.Path) })
	if len(s.Dismissals) == 0 {
		s.Dismissals = nil
	}
	if len(s.Removed) == 0 {
		s.Removed = nil
	}
	return s, nil
}

// skippable reports the errors that skip one governance record with a
// warning instead of failing the import: what the registry refuses as
// invalid now (an extension whose end has passed, a field the latest
// version no longer has) or cannot find (a deprecated version that is
// soft-deleted).
func skippable(err error) bool {
	return errors.Is(err, srerr.ErrInvalidGovernance) || errors.Is(err, srerr.ErrSubjectNotFound) ||
		errors.Is(err, srerr.ErrVersionNotFound)
}

// importGovernance writes g back through the governance API and returns
// how many records it wrote.
func (c *Client) importGovernance(ctx context.Context, g *DumpGovernance, warn func(string)) (int, error) {
	if g == nil {
		return 0, nil
	}
	if warn == nil {
		warn = func(string) {}
	}
	n := 0
	if g.Policy != nil {
		if _, err := c.SetPolicy(ctx, "", *g.Policy); err != nil {
			return n, fmt.Errorf("set global policy: %w", err)
		}
		n++
	}
	for _, s := range g.Subjects {
		if s.Policy != nil {
			if _, err := c.SetPolicy(ctx, s.Subject, *s.Policy); err != nil {
				return n, fmt.Errorf("set policy of subject %q: %w", s.Subject, err)
			}
			n++
		}
		if s.Owner != nil {
			if _, err := c.SetOwner(ctx, s.Subject, s.Owner.Team, s.Owner.Contact, s.Owner.Description); err != nil {
				return n, fmt.Errorf("set owner of subject %q: %w", s.Subject, err)
			}
			n++
		}
		if len(s.Tags) > 0 {
			if _, err := c.SetTags(ctx, s.Subject, s.Tags); err != nil {
				return n, fmt.Errorf("set tags of subject %q: %w", s.Subject, err)
			}
			n++
		}
		for _, d := range s.Dismissals {
			// Proposed: a dismissal may be about a field of a version the
			// dump no longer holds.
			in := map[string]any{"field": d.Field, "patternId": d.PatternID, "reason": d.Reason, "by": d.By, "proposed": true}
			if err := c.do(ctx, "POST", subjectPath(s.Subject, "dismissals"), nil, in, nil); err != nil {
				return n, fmt.Errorf("dismiss %s of subject %q: %w", d.Field, s.Subject, err)
			}
			n++
		}
		for _, d := range s.Deprecations {
			item := deprecationItem(d)
			if d.Source == "schema" {
				warn(fmt.Sprintf("subject %q: %s is deprecated by the schema's own mark; an import does not derive such deprecations, so it is not restored", s.Subject, item))
				continue
			}
			req := DeprecateRequest{Reason: d.Reason, Replacement: d.Replacement, TTLDays: d.TTLDays}
			if d.Kind == "version" {
				req.Version = d.Version
			} else {
				req.Path = d.Path
			}
			if _, err := c.Deprecate(ctx, s.Subject, req); err != nil {
				if skippable(err) {
					warn(fmt.Sprintf("subject %q: deprecation of %s not restored: %v", s.Subject, item, err))
					continue
				}
				return n, fmt.Errorf("deprecate %s of subject %q: %w", item, s.Subject, err)
			}
			n++
			for _, x := range d.Extensions {
				req := ExtensionRequest{Consumer: x.Consumer, Until: x.Until, Reason: x.Reason, Approver: x.Approver}
				if _, err := c.GrantExtension(ctx, s.Subject, item, req); err != nil {
					if skippable(err) {
						warn(fmt.Sprintf("subject %q: extension of %s for %s not restored: %v", s.Subject, item, x.Consumer, err))
						continue
					}
					return n, fmt.Errorf("extend %s of subject %q for %s: %w", item, s.Subject, x.Consumer, err)
				}
				n++
			}
		}
		if len(s.Removed) > 0 {
			warn(fmt.Sprintf("subject %q: %d removed field(s) are in the dump for the record only; the registry records removals when versions are registered outside IMPORT mode", s.Subject, len(s.Removed)))
		}
	}
	if len(g.Audit) > 0 {
		warn(fmt.Sprintf("the dump's audit log (%d entries) is read-only and is not imported", len(g.Audit)))
	}
	return n, nil
}

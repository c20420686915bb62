package registry

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/charter-dev/charter/action/gate"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/pii"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// Read views for the web UI (package web): each is one read transaction
// over what the REST API's calls read one subject at a time, so that a
// page listing every subject or every deprecation costs one call.

// Now returns the time of the Service's clock (WithClock), in UTC: the
// moment TTLs, extensions and countdowns are judged at.
func (s *Service) Now() time.Time { return s.now() }

// SubjectSummary is one live subject as the subject list shows it.
type SubjectSummary struct {
	Subject string `json:"subject"`
	// Version, SchemaID and Type are the latest live version's.
	Version  int               `json:"version"`
	SchemaID int64             `json:"schemaId"`
	Type     compat.SchemaType `json:"schemaType"`
	// Versions counts the live versions.
	Versions int               `json:"versions"`
	Owner    *governance.Owner `json:"owner,omitempty"`
	// Deprecations counts the subject's deprecations (fields and
	// versions) made by now; Expired those whose TTL is over.
	Deprecations int `json:"deprecations"`
	Expired      int `json:"expired"`
	// Tags are the tags of the latest version's fields (inline, metadata
	// and governance tags), sorted.
	Tags []string `json:"tags,omitempty"`
	// Consumers and Producers are the services the lineage names now,
	// sorted.
	Consumers []string `json:"consumers,omitempty"`
	Producers []string `json:"producers,omitempty"`
}

// SubjectSummaries returns every live subject, sorted, with its latest
// version, owner, deprecation counts, field tags and lineage, read in one
// transaction at the registry's clock.
func (s *Service) SubjectSummaries(ctx context.Context) ([]SubjectSummary, error) {
	out := []SubjectSummary{}
	err := s.gview(ctx, "list subject summaries", func(tx Tx, g GovernanceTx) error {
		now := s.now()
		vs, err := tx.Versions(ctx, VersionQuery{})
		if err != nil {
			return err
		}
		owners, err := listRecords[governance.Owner](ctx, g, kindOwner, "", true)
		if err != nil {
			return err
		}
		ownerOf := make(map[string]governance.Owner, len(owners))
		for _, o := range owners {
			ownerOf[o.Subject] = o
		}
		deps, err := listRecords[governance.Deprecation](ctx, g, kindDeprecation, "", true)
		if err != nil {
			return err
		}
		tagRecs, err := g.GovernanceRecords(ctx, RecordQuery{Kind: kindTags, AllSubjects: true})
		if err != nil {
			return err
		}
		govTags := map[string]map[string][]string{}
		for _, r := range tagRecs {
			var m map[string][]string
			if ok, err := getRecord(ctx, g, kindTags, r.Subject, "", &m); err != nil || !ok {
				return err
			}
			govTags[r.Subject] = m
		}
		chs, err := lineageChanges(ctx, g, "", 0)
		if err != nil {
			return err
		}
		decl := lineage.Replay(chs, now)
		consumers, producers := map[string][]string{}, map[string][]string{}
		for _, c := range decl.Consumers {
			consumers[c.Subject] = append(consumers[c.Subject], c.Service)
		}
		for _, p := range decl.Producers {
			producers[p.Subject] = append(producers[p.Subject], p.Service)
		}
		for i := 0; i < len(vs); {
			j := i
			for j < len(vs) && vs[j].Subject == vs[i].Subject {
				j++
			}
			lv := live(vs[i:j])
			i = j
			if len(lv) == 0 {
				continue
			}
			latest := lv[len(lv)-1]
			sum := SubjectSummary{Subject: latest.Subject, Version: latest.Version, SchemaID: latest.SchemaID, Versions: len(lv),
				Consumers: sortedUnique(consumers[latest.Subject]), Producers: sortedUnique(producers[latest.Subject])}
			if o, ok := ownerOf[latest.Subject]; ok {
				sum.Owner = &o
			}
			facts, err := s.schemaFacts(ctx, tx, latest.Key())
			if err != nil {
				return err
			}
			sum.Type, sum.Tags = facts.typ, facts.tags
			if gov := govTags[latest.Subject]; len(gov) > 0 {
				if fs, err := s.schemaFields(ctx, tx, latest.Key()); err == nil {
					sum.Tags = sortedUnique(append(slices.Clone(facts.tags), fieldTagUnion(fs, nil, gov)...))
				}
			}
			out = append(out, sum)
		}
		idx := make(map[string]int, len(out))
		for i, o := range out {
			idx[o.Subject] = i
		}
		for _, d := range deps {
			i, ok := idx[d.Subject]
			if !ok || (!d.DeprecatedAt.IsZero() && d.DeprecatedAt.After(now)) {
				continue
			}
			out[i].Deprecations++
			if d.StateAt(now) == governance.StateExpired {
				out[i].Expired++
			}
		}
		return nil
	})
	return out, err
}

// schemaFact is what the subject list needs of a stored schema: its type
// and the tags of its fields (inline and metadata.tags). Schemas never
// change under their ID, so the facts are kept until the ID is forgotten.
type schemaFact struct {
	typ  compat.SchemaType
	tags []string
}

// factCaches holds each Service's schema facts.
var factCaches sync.Map // *Service → *factCache

type factCache struct {
	mu sync.RWMutex
	m  map[SchemaKey]schemaFact
}

// maxFacts bounds a Service's schema facts; past it the cache starts
// again.
const maxFacts = 200_000

func (s *Service) facts() *factCache {
	if c, ok := factCaches.Load(s); ok {
		return c.(*factCache)
	}
	c, loaded := factCaches.LoadOrStore(s, &factCache{m: map[SchemaKey]schemaFact{}})
	fc := c.(*factCache)
	if !loaded {
		s.OnSchemaForgotten(func(id SchemaKey) { fc.mu.Lock(); delete(fc.m, id); fc.mu.Unlock() })
		s.OnCachesDropped(func() { fc.mu.Lock(); clear(fc.m); fc.mu.Unlock() })
	}
	return fc
}

// schemaFacts returns the facts of schema id, from the cache when it can.
func (s *Service) schemaFacts(ctx context.Context, tx Tx, id SchemaKey) (schemaFact, error) {
	fc := s.facts()
	fc.mu.RLock()
	f, ok := fc.m[id]
	fc.mu.RUnlock()
	if ok {
		return f, nil
	}
	st, err := storedSchema(ctx, tx, id)
	if err != nil {
		return schemaFact{}, err
	}
	f.typ = st.Type
	if p, err := s.parseStored(ctx, tx, st); err == nil {
		f.tags = fieldTagUnion(compat.Fields(p), st.Metadata, nil)
	}
	fc.mu.Lock()
	if len(fc.m) >= maxFacts {
		clear(fc.m)
	}
	fc.m[id] = f
	fc.mu.Unlock()
	return f, nil
}

// schemaFields returns the fields of schema id.
func (s *Service) schemaFields(ctx context.Context, tx Tx, id SchemaKey) ([]compat.Field, error) {
	st, err := storedSchema(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	p, err := s.parseStored(ctx, tx, st)
	if err != nil {
		return nil, err
	}
	return compat.Fields(p), nil
}

// fieldTagUnion is the sorted union of the tags of fields: inline, from
// the version's metadata.tags and from the subject's governance tags.
func fieldTagUnion(fields []compat.Field, metadata []byte, gov map[string][]string) []string {
	md, _ := pii.ParseMetadata(metadata)
	metaTags := pii.NewTagResolver(pii.Metadata{Tags: md.Tags})
	govTags := pii.NewTagResolver(pii.Metadata{Tags: gov})
	var all []string
	for _, f := range fields {
		all = append(all, f.Tags...)
		bare := f
		bare.Tags = nil
		if len(md.Tags) > 0 {
			all = append(all, metaTags.Tags(bare)...)
		}
		if len(gov) > 0 {
			all = append(all, govTags.Tags(bare)...)
		}
	}
	return sortedUnique(all)
}

func sortedUnique(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}

// AllDeprecationMigrations returns the migration status of every
// deprecated field of every live subject (GET …/{s}/migrations for each
// subject), by subject and path, at the registry's clock.
func (gov *Governance) AllDeprecationMigrations(ctx context.Context) ([]DeprecationMigration, error) {
	s := gov.s
	out := []DeprecationMigration{}
	err := s.gview(ctx, "deprecation migration status", func(tx Tx, g GovernanceTx) error {
		now := s.now()
		deps, err := listRecords[governance.Deprecation](ctx, g, kindDeprecation, "", true)
		if err != nil {
			return err
		}
		chs, err := lineageChanges(ctx, g, "", 0)
		if err != nil {
			return err
		}
		bySubject := map[string][]lineage.Change{}
		for _, c := range chs {
			if c.Consumer != nil {
				bySubject[c.Consumer.Subject] = append(bySubject[c.Consumer.Subject], c)
			}
		}
		st := governance.SubjectState{Deprecations: deps}
		asOf(&st, now)
		for _, d := range st.Deprecations {
			if d.Kind != governance.ItemField {
				continue
			}
			out = append(out, migrationOf(d.Subject, d, bySubject[d.Subject], now))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Subject != out[j].Subject {
			return out[i].Subject < out[j].Subject
		}
		return out[i].Path < out[j].Path
	})
	return out, nil
}

// VersionFields returns version n of subject (Latest for the latest) with
// the fields of its parsed schema (compat.Fields: path, type, tags,
// deprecated, line). Errors: as Version.
func (s *Service) VersionFields(ctx context.Context, subject string, n int) (SubjectSchema, []compat.Field, error) {
	ss, err := s.Version(ctx, subject, n, false)
	if err != nil {
		return ss, nil, err
	}
	var fields []compat.Field
	err = s.view(ctx, "version fields", func(tx Tx) error {
		p, err := s.parseStored(ctx, tx, ss.Schema)
		if err != nil {
			return err
		}
		fields = compat.Fields(p)
		return nil
	})
	return ss, fields, err
}

// ParsedVersion returns version n of subject (Latest for the latest) with
// its schema parsed with its references, as the compatibility checks read
// it (the registry's evidence reads events with it, compat/evidence).
// Errors: as Version.
func (s *Service) ParsedVersion(ctx context.Context, subject string, n int) (SubjectSchema, compat.Schema, error) {
	ss, err := s.Version(ctx, subject, n, false)
	if err != nil {
		return ss, nil, err
	}
	var p compat.Schema
	err = s.view(ctx, "parse version", func(tx Tx) error {
		var err error
		p, err = s.parseStored(ctx, tx, ss.Schema)
		return err
	})
	return ss, p, err
}

// ParseRequest parses req's schema with its references resolved, as a
// registration reads it (not normalized). Errors: 42201 an invalid schema
// or reference, and the other errors of a registration's request checks
// (an empty or too large schema, invalid metadata).
func (s *Service) ParseRequest(ctx context.Context, req RegisterRequest) (compat.Schema, error) {
	f, err := s.checkRequest(&req)
	if err != nil {
		return nil, err
	}
	var p compat.Schema
	err = s.view(ctx, "parse schema", func(tx Tx) error {
		deps, err := s.resolveReferences(ctx, tx, "", req.References)
		if err != nil {
			return err
		}
		if p, err = f.Parse(req.Schema, deps); err != nil {
			return srerr.New(srerr.ErrInvalidSchema, "Invalid schema: %v", err)
		}
		return nil
	})
	return p, err
}

// Comparison is two versions of a subject side by side: the changes from
// From to To as the changelog words them, and the compatibility findings
// of To against From at the subject's level (non-transitive: the one
// version), each with its rule ID and path.
type Comparison struct {
	Subject    string              `json:"subject"`
	Level      compat.Level        `json:"level"`
	From       SubjectSchema       `json:"-"`
	To         SubjectSchema       `json:"-"`
	FromFields []compat.Field      `json:"fromFields"`
	ToFields   []compat.Field      `json:"toFields"`
	Bump       governance.Bump     `json:"bump"`
	Changes    []governance.Change `json:"changes"`
	Findings   []compat.Finding    `json:"findings"`

	// FromParsed and ToParsed are the two schemas as parsed (with their
	// references), for reading events across the change
	// (compat/evidence).
	FromParsed, ToParsed compat.Schema `json:"-"`
}

// Compare compares version to of subject with version from (either may be
// Latest) at level ("" for the subject's effective level). Errors: 40401
// the subject has no live version; 40402 either version is unknown;
// 42203 an unknown level.
func (gov *Governance) Compare(ctx context.Context, subject string, from, to int, level compat.Level) (Comparison, error) {
	if level != "" {
		lv, err := compat.ParseLevel(string(level))
		if err != nil {
			return Comparison{}, srerr.New(srerr.ErrInvalidCompatibility, "Invalid compatibility level %q", level)
		}
		level = lv
	}
	s := gov.s
	out := Comparison{Subject: subject}
	err := s.gview(ctx, "compare versions", func(tx Tx, g GovernanceTx) error {
		subject, err := resolveAlias(ctx, tx, subject)
		if err != nil {
			return err
		}
		out.Subject = subject
		vs, err := subjectVersions(ctx, tx, subject)
		if err != nil {
			return err
		}
		lv := live(vs)
		if len(lv) == 0 {
			return errSubjectNotFound(subject)
		}
		var sides [2]governance.Version
		var fields [2][]compat.Field
		var stored [2]Schema
		var found [2]SubjectVersion
		for i, n := range []int{from, to} {
			v, ok := findVersion(lv, n, false)
			if !ok {
				return errVersionNotFound(subject, n)
			}
			st, err := storedSchema(ctx, tx, v.Key())
			if err != nil {
				return err
			}
			p, err := s.parseStored(ctx, tx, st)
			if err != nil {
				return err
			}
			found[i], stored[i] = v, st
			sides[i] = governance.Version{Version: v.Version, Schema: p, Metadata: st.Metadata, RuleSet: st.RuleSet}
			fields[i] = compat.Fields(p)
		}
		out.From = SubjectSchema{Subject: subject, Version: found[0].Version, Schema: stored[0]}
		out.To = SubjectSchema{Subject: subject, Version: found[1].Version, Schema: stored[1]}
		out.FromFields, out.ToFields = fields[0], fields[1]
		out.FromParsed, out.ToParsed = sides[0].Schema, sides[1].Schema
		cfg, err := effectiveConfig(ctx, tx, subject)
		if err != nil {
			return err
		}
		pol, err := effectivePolicy(ctx, g, subject)
		if err != nil {
			return err
		}
		deps, err := listRecords[governance.Deprecation](ctx, g, kindDeprecation, subject, false)
		if err != nil {
			return err
		}
		out.Level = cfg.Compatibility
		if level != "" {
			out.Level = level
		}
		f, err := s.format(stored[1].Type)
		if err != nil {
			return err
		}
		if f, err = withPolicyProfile(f, pol); err != nil {
			return err
		}
		c := governance.Classify(governance.ClassifyInput{Format: f, Level: out.Level, Previous: sides[0], Current: sides[1],
			TTLDays: pol.TTLDays(), Deprecations: deps})
		out.Bump, out.Changes = c.Bump, c.Changes
		level := compat.Level(strings.TrimSuffix(string(out.Level), "_TRANSITIVE"))
		if stored[0].Type != stored[1].Type {
			// Judged as registration judges it (action/gate): only NONE
			// allows another schema type.
			if level != compat.None {
				out.Findings = []compat.Finding{{Violation: compat.Violation{RuleID: gate.RuleSchemaTypeChanged, Path: ".",
					Message: fmt.Sprintf("version %d is a %s schema and version %d is %s; only compatibility NONE allows changing the schema type",
						found[0].Version, stored[0].Type, found[1].Version, stored[1].Type)},
					Direction: compat.DirBackward, Version: found[0].Version}}
			}
			return nil
		}
		res, _, err := s.checkCompatibility(ctx, tx, f, sides[1].Schema, level, []SubjectVersion{found[0]})
		if err != nil {
			return err
		}
		out.Findings = res.Findings
		return nil
	})
	return out, err
}

// PIISuspects returns, for subject ("" for every live subject), the
// fields of the latest version that look like personal data and carry no
// PII tag (PII_UNTAGGED over every field, not only new ones), leaving out
// reviewed dismissals: the untagged suspects of the PII map. By subject
// and path.
func (gov *Governance) PIISuspects(ctx context.Context, subject string) ([]rule.Finding, error) {
	s := gov.s
	out := []rule.Finding{}
	err := s.gview(ctx, "PII suspects", func(tx Tx, g GovernanceTx) error {
		var subjects []string
		if subject != "" {
			subjects = []string{subject}
		} else {
			vs, err := tx.Versions(ctx, VersionQuery{})
			if err != nil {
				return err
			}
			for _, v := range live(vs) {
				if len(subjects) == 0 || subjects[len(subjects)-1] != v.Subject {
					subjects = append(subjects, v.Subject)
				}
			}
		}
		now := s.now()
		for _, subj := range subjects {
			v, st, p, ok, err := s.latestParsed(ctx, tx, subj)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			state := governance.SubjectState{Subject: subj}
			if state.Dismissals, err = listRecords[governance.Dismissal](ctx, g, kindDismissal, subj, false); err != nil {
				return err
			}
			if _, err := getRecord(ctx, g, kindTags, subj, "", &state.Tags); err != nil {
				return err
			}
			asOf(&state, now)
			if state.Policy, err = effectivePolicy(ctx, g, subj); err != nil {
				return err
			}
			for _, f := range governance.PIISuspects(state, governance.Version{Version: v.Version, Schema: p, Metadata: st.Metadata, RuleSet: st.RuleSet}) {
				f.Subject = subj
				out = append(out, f)
			}
		}
		return nil
	})
	return out, err
}

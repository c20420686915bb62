package registry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// Lineage (Charter issue 5): producers and consumers of subjects, kept as
// an append-only history of lineage.Change records in the governance
// records of the store (kind "lineage", key the zero-padded revision),
// each written in the transaction of its audit entry. The Service
// implements lineage.Store over it; graphs are rebuilt with
// lineage.Replay and the registry's own versions.

const (
	kindLineage    = "lineage"     // key %020d revision: lineage.Change
	kindLineageRev = "lineage.rev" // subject "", key "": last revision (int64)
)

// Audit actions of lineage changes: "lineage." + the change kind
// ("lineage.set_consumer", …).
const auditLineagePrefix = "lineage."

var _ lineage.Store = (*Lineage)(nil)

// AppendLineage implements lineage.Store: it validates ch, assigns the
// next revision and stores it with an audit entry, in one transaction.
// ch.At and ch.Actor default to the Service clock and the context's actor.
// Errors: lineage.ErrBadChange (wrapped) as 42283; 40401 when the subject
// has no live version.
func (lin *Lineage) AppendLineage(ctx context.Context, ch lineage.Change) (lineage.Change, error) {
	s := lin.s
	var out lineage.Change
	err := s.gupdate(ctx, "append lineage", func(tx Tx, g GovernanceTx) error {
		var err error
		out, err = s.appendLineage(ctx, tx, g, ch)
		return err
	})
	return out, err
}

// appendLineage is AppendLineage inside a transaction.
func (s *Service) appendLineage(ctx context.Context, tx Tx, g GovernanceTx, ch lineage.Change) (lineage.Change, error) {
	if ch.At.IsZero() {
		ch.At = s.now()
	}
	if ch.Actor == "" {
		ch.Actor = ActorFrom(ctx)
	}
	if err := ch.Validate(); err != nil {
		return lineage.Change{}, errInvalidGovernance("Invalid lineage change: %v", err)
	}
	subject := changeSubject(ch)
	if ch.Kind == lineage.ChangeSetConsumer || ch.Kind == lineage.ChangeSetProducer {
		vs, err := subjectVersions(ctx, tx, subject)
		if err != nil {
			return lineage.Change{}, err
		}
		if len(live(vs)) == 0 {
			return lineage.Change{}, errSubjectNotFound(subject)
		}
		if ch.Producer != nil {
			if err := producedVersions(subject, ch.Producer.Versions, vs); err != nil {
				return lineage.Change{}, err
			}
		}
	}
	var rev int64
	if _, err := getRecord(ctx, g, kindLineageRev, "", "", &rev); err != nil {
		return lineage.Change{}, err
	}
	rev++
	ch.Revision = rev
	if err := putRecord(ctx, g, kindLineageRev, "", "", rev); err != nil {
		return lineage.Change{}, err
	}
	if err := putRecord(ctx, g, kindLineage, subject, fmt.Sprintf("%020d", rev), ch); err != nil {
		return lineage.Change{}, err
	}
	var after any = ch.Consumer
	if ch.Producer != nil {
		after = ch.Producer
	}
	if err := s.audit(ctx, g, auditLineagePrefix+string(ch.Kind), subject, changeService(ch), nil, after); err != nil {
		return lineage.Change{}, err
	}
	return ch, nil
}

func changeSubject(ch lineage.Change) string {
	if ch.Producer != nil {
		return ch.Producer.Subject
	}
	if ch.Consumer != nil {
		return ch.Consumer.Subject
	}
	return ""
}

func changeService(ch lineage.Change) string {
	if ch.Producer != nil {
		return ch.Producer.Service
	}
	if ch.Consumer != nil {
		return ch.Consumer.Service
	}
	return ""
}

// LineageChanges implements lineage.Store: the changes of subject ("" for
// every subject) with a revision greater than after, oldest first.
func (lin *Lineage) LineageChanges(ctx context.Context, subject string, after int64) ([]lineage.Change, error) {
	s := lin.s
	var out []lineage.Change
	err := s.gview(ctx, "list lineage changes", func(_ Tx, g GovernanceTx) error {
		var err error
		out, err = lineageChanges(ctx, g, subject, after)
		return err
	})
	return out, err
}

func lineageChanges(ctx context.Context, g GovernanceTx, subject string, after int64) ([]lineage.Change, error) {
	all, err := listRecords[lineage.Change](ctx, g, kindLineage, subject, subject == "")
	if err != nil {
		return nil, err
	}
	out := make([]lineage.Change, 0, len(all))
	for _, c := range all {
		if c.Revision > after {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Revision < out[j].Revision })
	return out, nil
}

// SetProducer declares (or replaces) that p.Service produces p.Subject
// (PUT /lineage/subjects/{s}/producers/{service}). Errors: 40401 unknown
// subject; 42283 no service, or a version the subject does not have.
func (lin *Lineage) SetProducer(ctx context.Context, p lineage.Producer) (lineage.Change, error) {
	s := lin.s
	return s.Lineage().AppendLineage(ctx, lineage.Change{Kind: lineage.ChangeSetProducer, Producer: &p})
}

// producedVersions returns 42283 unless every version a producer writes
// with is a version of subject (soft-deleted ones included: a producer may
// still write with them).
func producedVersions(subject string, versions []int, vs []SubjectVersion) error {
	have := make(map[int]bool, len(vs))
	for _, v := range vs {
		have[v.Version] = true
	}
	for i, v := range versions {
		if err := lineage.ValidVersion(v); err != nil {
			return errInvalidGovernance("Invalid producer of subject '%s': versions[%d]: %v", subject, i, err)
		}
		if !have[v] {
			return errInvalidGovernance("Invalid producer of subject '%s': versions[%d]: the subject has no version %d", subject, i, v)
		}
	}
	return nil
}

// DeclareConsumer declares (or replaces) what c.Service reads of
// c.Subject by hand (source "declared"; PUT
// /lineage/subjects/{s}/consumers/{service}). Since defaults to now, or
// to the consumer's earlier Since when it was already declared. Errors:
// 40401 unknown subject; 42283 no service, a field path not starting
// with '.', or a range that selects no version (lineage.VersionRange.Validate).
func (lin *Lineage) DeclareConsumer(ctx context.Context, c lineage.Consumer) (lineage.Change, error) {
	s := lin.s
	if err := c.Range.Validate(); err != nil {
		return lineage.Change{}, errInvalidGovernance("Invalid consumer %q of subject '%s': %v", c.Service, c.Subject, err)
	}
	for _, f := range c.Fields {
		if !strings.HasPrefix(f, ".") {
			return lineage.Change{}, errInvalidGovernance("Invalid field path %q: field paths start with '.' (\".order.id\")", f)
		}
	}
	if c.Source == "" {
		c.Source = lineage.SourceDeclared
	}
	var out lineage.Change
	err := s.gupdate(ctx, "declare consumer", func(tx Tx, g GovernanceTx) error {
		if c.Since.IsZero() {
			since, err := consumerSince(ctx, g, c.Subject, c.Service)
			if err != nil {
				return err
			}
			c.Since = since
		}
		if c.Since.IsZero() {
			c.Since = s.now()
		}
		var err error
		out, err = s.appendLineage(ctx, tx, g, lineage.Change{Kind: lineage.ChangeSetConsumer, Consumer: &c})
		return err
	})
	return out, err
}

// consumerSince returns when service started consuming subject, zero when
// it does not consume it now.
func consumerSince(ctx context.Context, g GovernanceTx, subject, service string) (time.Time, error) {
	chs, err := lineageChanges(ctx, g, subject, 0)
	if err != nil {
		return time.Time{}, err
	}
	for _, c := range lineage.Replay(chs, time.Time{}).Consumers {
		if c.Service == service {
			return c.Since, nil
		}
	}
	return time.Time{}, nil
}

// RemoveProducer forgets a producer; RemoveConsumer a consumer. Errors:
// 40480 when it is not declared.
func (lin *Lineage) RemoveProducer(ctx context.Context, subject, service string) (lineage.Change, error) {
	s := lin.s
	return s.removeLineage(ctx, lineage.Change{Kind: lineage.ChangeRemoveProducer, Producer: &lineage.Producer{Service: service, Subject: subject}})
}

// RemoveConsumer forgets a consumer of subject (and what it reads). A
// contract the consumer published stays stored but no longer counts
// until it is published again. Errors: 40480 when it is not declared.
func (lin *Lineage) RemoveConsumer(ctx context.Context, subject, service string) (lineage.Change, error) {
	s := lin.s
	return s.removeLineage(ctx, lineage.Change{Kind: lineage.ChangeRemoveConsumer, Consumer: &lineage.Consumer{Service: service, Subject: subject}})
}

func (s *Service) removeLineage(ctx context.Context, ch lineage.Change) (lineage.Change, error) {
	var out lineage.Change
	err := s.gupdate(ctx, "remove lineage", func(tx Tx, g GovernanceTx) error {
		subject, service := changeSubject(ch), changeService(ch)
		chs, err := lineageChanges(ctx, g, subject, 0)
		if err != nil {
			return err
		}
		d := lineage.Replay(chs, time.Time{})
		found := false
		if ch.Producer != nil {
			for _, p := range d.Producers {
				found = found || p.Service == service
			}
		} else {
			for _, c := range d.Consumers {
				found = found || c.Service == service
			}
		}
		if !found {
			what := "consumer"
			if ch.Producer != nil {
				what = "producer"
			}
			return srerr.New(srerr.ErrGovernanceNotFound, "Service '%s' is not a declared %s of subject '%s'", service, what, subject)
		}
		out, err = s.appendLineage(ctx, tx, g, ch)
		return err
	})
	return out, err
}

// LineageDeclarations returns the producers and consumers in force at
// time at (zero: now) for subject ("" for every subject), with the fields
// and registration time of every live version of the subjects they name
// registered by then (to the nanosecond; a version without a registration
// record counts as always there). Consumers and producers of subjects that
// have no such version are left out.
func (lin *Lineage) LineageDeclarations(ctx context.Context, subject string, at time.Time) (lineage.Declarations, error) {
	s := lin.s
	var d lineage.Declarations
	err := s.gview(ctx, "read lineage", func(tx Tx, g GovernanceTx) error {
		var err error
		d, err = s.declarations(ctx, tx, g, subject, at)
		return err
	})
	return d, err
}

func (s *Service) declarations(ctx context.Context, tx Tx, g GovernanceTx, subject string, at time.Time) (lineage.Declarations, error) {
	chs, err := lineageChanges(ctx, g, subject, 0)
	if err != nil {
		return lineage.Declarations{}, err
	}
	d := lineage.Replay(chs, at)
	subjects := map[string]bool{}
	if subject != "" {
		subjects[subject] = true
	}
	for _, p := range d.Producers {
		subjects[p.Subject] = true
	}
	for _, c := range d.Consumers {
		subjects[c.Subject] = true
	}
	have := map[string]bool{}
	for _, sub := range sortedKeys(subjects) {
		vs, err := subjectVersions(ctx, tx, sub)
		if err != nil {
			return lineage.Declarations{}, err
		}
		registered, err := registrationTimes(ctx, g, sub)
		if err != nil {
			return lineage.Declarations{}, err
		}
		for _, v := range live(vs) {
			when := registered[v.Version]
			if !at.IsZero() && when.After(at) {
				continue
			}
			st, err := storedSchema(ctx, tx, v.Key())
			if err != nil {
				return lineage.Declarations{}, err
			}
			p, err := s.parseStored(ctx, tx, st)
			if err != nil {
				return lineage.Declarations{}, fmt.Errorf("parse %s version %d: %w", sub, v.Version, err)
			}
			d.Versions = append(d.Versions, lineage.SchemaVersion{Subject: sub, Version: v.Version, Fields: compat.Fields(p), Registered: when})
			have[sub] = true
		}
		if have[sub] {
			// The latest version's fields carry every tag source
			// (inline, metadata globs, governance tags).
			tv, err := s.tagsView(ctx, tx, g, sub)
			if err != nil {
				return lineage.Declarations{}, err
			}
			tags := map[string][]string{}
			for _, f := range tv.Fields {
				tags[f.Path] = f.Tags
			}
			last := &d.Versions[len(d.Versions)-1]
			fields := make([]compat.Field, len(last.Fields))
			copy(fields, last.Fields)
			for i := range fields {
				if ts := tags[fields[i].Path]; len(ts) > 0 {
					fields[i].Tags = append(append([]string(nil), fields[i].Tags...), ts...)
				}
			}
			last.Fields = fields
		}
	}
	ps := d.Producers[:0]
	for _, p := range d.Producers {
		if have[p.Subject] {
			ps = append(ps, p)
		}
	}
	d.Producers = ps
	cs := d.Consumers[:0]
	for _, c := range d.Consumers {
		if have[c.Subject] {
			cs = append(cs, c)
		}
	}
	d.Consumers = cs
	return d, nil
}

// registrationTimes returns when each version of subject was registered,
// from its governance version records (a version without one is absent).
func registrationTimes(ctx context.Context, g GovernanceTx, subject string) (map[int]time.Time, error) {
	recs, err := listRecords[governance.VersionRecord](ctx, g, kindVersion, subject, false)
	if err != nil {
		return nil, fmt.Errorf("registration times of %q: %w", subject, err)
	}
	out := make(map[int]time.Time, len(recs))
	for _, r := range recs {
		out[r.Version] = r.RegisteredAt
	}
	return out, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// LineageGraph builds the lineage graph of subject ("" for every subject)
// as of at (zero: now): only versions registered by then. Errors: 40401
// when subject is named and has no live version now (before its first
// version, the graph is empty).
func (lin *Lineage) LineageGraph(ctx context.Context, subject string, at time.Time) (*lineage.Graph, error) {
	s := lin.s
	d, err := s.Lineage().LineageDeclarations(ctx, subject, at)
	if err != nil {
		return nil, err
	}
	if subject != "" && len(d.Versions) == 0 {
		var vs []SubjectVersion
		err := s.view(ctx, "read versions", func(tx Tx) error {
			var err error
			vs, err = subjectVersions(ctx, tx, subject)
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(live(vs)) == 0 {
			return nil, errSubjectNotFound(subject)
		}
	}
	g, err := lineage.Build(d)
	if err != nil {
		return nil, fmt.Errorf("build lineage graph: %w", err)
	}
	return g, nil
}

// Impact answers "who is affected if field q.Path of q.Subject is removed,
// renamed, retyped or deprecated?" from the lineage now (GET
// /lineage/subjects/{s}/impact?path=…&change=…). Errors: 40401 unknown
// subject; 42283 a path no version has and nobody reads, or an unknown
// change.
func (lin *Lineage) Impact(ctx context.Context, q lineage.ImpactQuery) ([]lineage.Impact, error) {
	s := lin.s
	switch q.Change {
	case "":
		q.Change = lineage.ChangeRemove
	case lineage.ChangeRemove, lineage.ChangeRename, lineage.ChangeRetype, lineage.ChangeDeprecate:
	default:
		return nil, errInvalidGovernance("Invalid change %q: want remove, rename, retype or deprecate", q.Change)
	}
	g, err := s.Lineage().LineageGraph(ctx, q.Subject, time.Time{})
	if err != nil {
		return nil, err
	}
	out, err := g.Impact(q)
	if errors.Is(err, lineage.ErrUnknownField) {
		return nil, errInvalidGovernance("Subject '%s' has no field %s and no consumer reads it", q.Subject, q.Path)
	}
	if errors.Is(err, lineage.ErrUnknownSubject) {
		return nil, errSubjectNotFound(q.Subject)
	}
	return out, err
}

// Exposure answers "who consumes fields tagged tag (default PII), and since
// when?" over every subject, or one (GET /lineage/pii).
func (lin *Lineage) Exposure(ctx context.Context, subject, tag string) ([]lineage.Exposure, error) {
	s := lin.s
	if tag == "" {
		tag = "PII"
	}
	g, err := s.Lineage().LineageGraph(ctx, subject, time.Time{})
	if err != nil {
		return nil, err
	}
	out := g.Exposure(tag)
	if err := s.annotateEncryption(ctx, out); err != nil { // encryption_coverage.go
		return nil, err
	}
	return out, nil
}

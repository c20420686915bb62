package registry

import (
	"container/list"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/charter-dev/charter/action/gate"
	"github.com/charter-dev/charter/compat"
)

// DefaultSummaryBytes is the estimated byte budget of the compatibility
// summaries (compat.Summary) the Service keeps, one per subject and
// format checked at a transitive level, least recently used evicted
// first (64 MiB; a 1,000-version growing record's takes about 5 MB).
const DefaultSummaryBytes = 64 << 20

// summaryCache keeps a compat.Summary per subject and schema type, for the
// transitive levels: the earlier versions in a compact form, so that a
// check against all of them neither parses nor holds them. A summary
// records schemas by ID, which are immutable, so it never goes stale; a
// forgotten ID (whose content IMPORT may replace) drops every summary.
type summaryCache struct {
	mu     sync.Mutex
	budget int
	used   int
	lru    *list.List // of *summaryEntry, most recent first
	m      map[summaryKey]*list.Element
}

type summaryKey struct {
	subject string
	typ     compat.SchemaType
}

type summaryEntry struct {
	key  summaryKey
	sum  compat.Summary
	size int
}

func newSummaryCache(budget int) *summaryCache {
	return &summaryCache{budget: budget, lru: list.New(), m: make(map[summaryKey]*list.Element)}
}

// get returns the summary of subject in f's type, a new one when none is
// kept.
func (c *summaryCache) get(subject string, f compat.Summarizer, typ compat.SchemaType) compat.Summary {
	k := summaryKey{subject, typ}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*summaryEntry).sum
	}
	e := &summaryEntry{key: k, sum: f.NewSummary()}
	c.m[k] = c.lru.PushFront(e)
	return e.sum
}

// resize counts sum's current size and evicts past the budget (never sum
// itself: the caller uses it).
func (c *summaryCache) resize(subject string, typ compat.SchemaType, sum compat.Summary) {
	size := sum.Bytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[summaryKey{subject, typ}]
	if !ok || el.Value.(*summaryEntry).sum != sum {
		return
	}
	e := el.Value.(*summaryEntry)
	c.used += size - e.size
	e.size = size
	for c.used > c.budget && c.lru.Len() > 1 {
		back := c.lru.Back()
		if back == el {
			break
		}
		old := c.lru.Remove(back).(*summaryEntry)
		delete(c.m, old.key)
		c.used -= old.size
	}
}

func (c *summaryCache) clear() {
	if c == nil {
		return
	}
	c.mu.Lock()
	clear(c.m)
	c.lru.Init()
	c.used = 0
	c.mu.Unlock()
}

// compatibility checks next at level against versions (live, oldest
// first) and returns the result with the stored schemas it loaded, by
// version, for Confluent's messages: checkCompatibility's result, exactly.
// At a transitive level, when f is a compat.Summarizer, the versions its
// subject's Summary represents are compared through it (adding those it
// does not know yet) and only the others in full.
func (s *Service) compatibility(ctx context.Context, tx Tx, subject string, f compat.Format, next compat.Schema, level compat.Level, versions []SubjectVersion) (compat.Result, map[int]Schema, error) {
	if level == "" {
		level = compat.DefaultLevel
	}
	sz, ok := f.(compat.Summarizer)
	if !ok || !level.Transitive() || len(versions) < 2 || s.summaries == nil || s.summaries.budget <= 0 {
		return s.checkCompatibility(ctx, tx, f, next, level, versions)
	}
	sum := s.summaries.get(subject, sz, f.Type())
	var (
		keyed []compat.Keyed
		rest  []SubjectVersion
	)
	for _, v := range versions {
		summarized, known := sum.Known(v.SchemaID)
		if !known {
			p, err := s.parseTransient(ctx, tx, v.Key())
			if err != nil {
				return compat.Result{}, nil, err
			}
			// A schema of another type is recorded as not summarized.
			summarized = p != nil && sum.Add(v.SchemaID, p)
		}
		if summarized {
			keyed = append(keyed, compat.Keyed{Version: v.Version, Key: v.SchemaID})
		} else {
			rest = append(rest, v)
		}
	}
	s.summaries.resize(subject, f.Type(), sum)
	res, ok, err := sum.Check(ctx, level, next, keyed)
	if err != nil {
		return compat.Result{}, nil, fmt.Errorf("check compatibility: %w", err)
	}
	if !ok {
		return s.checkCompatibility(ctx, tx, f, next, level, versions)
	}
	var olds map[int]Schema
	if len(rest) > 0 {
		full, o, err := s.checkCompatibility(ctx, tx, f, next, level, rest)
		if err != nil {
			return compat.Result{}, nil, err
		}
		olds = o
		res.Findings = mergeFindings(res.Findings, full.Findings)
	}
	if olds == nil {
		olds = map[int]Schema{}
	}
	if err := loadFailedVersions(ctx, tx, res, versions, olds); err != nil {
		return compat.Result{}, nil, err
	}
	return res, olds, nil
}

// mergeFindings merges the findings of the summarized versions (newest
// first) with checkCompatibility's of the others (newest first, then
// the versions of another schema type), in the order one comparison of
// them all gives: by version, newest first, then the other types'.
func mergeFindings(summarized, full []compat.Finding) []compat.Finding {
	var same, foreign []compat.Finding
	for _, f := range full {
		if f.RuleID == gate.RuleSchemaTypeChanged {
			foreign = append(foreign, f)
		} else {
			same = append(same, f)
		}
	}
	out := append(append(make([]compat.Finding, 0, len(summarized)+len(full)), summarized...), same...)
	// Each version's findings come from one side, in order: a stable
	// sort by version keeps them.
	slices.SortStableFunc(out, func(a, b compat.Finding) int { return b.Version - a.Version })
	return append(out, foreign...)
}

// parseTransient returns schema id parsed, from the parsed cache when it
// is there, without adding it: building a summary reads every version of
// a subject once, which would otherwise push the recent schemas out of
// the cache. A stored schema of an unknown type is nil.
func (s *Service) parseTransient(ctx context.Context, tx Tx, id SchemaKey) (compat.Schema, error) {
	if p, ok := s.parsed.get(id); ok {
		return p, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parse schema %d: %w", id.ID, err)
	}
	st, err := tx.SchemaByID(ctx, id.Context, id.ID)
	if err != nil {
		return nil, fmt.Errorf("load schema %d: %w", id.ID, err)
	}
	f, ok := s.formats[st.Type]
	if !ok {
		return nil, nil
	}
	deps, err := s.resolveReferences(ctx, tx, st.Context, st.References)
	if err != nil {
		return nil, fmt.Errorf("resolve references of schema %d: %w", st.ID, err)
	}
	p, err := f.Parse(st.Text, deps)
	if err != nil {
		// Compared in full, where it is 42201 as before.
		return nil, nil
	}
	return p, nil
}

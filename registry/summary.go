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
	// gen counts the clears: a summary built outside the write
	// transaction (warm) is kept only when no clear came after its
	// read transaction could have begun.
	gen uint64
	// building are the warms under way, by subject and type: a
	// registration that finds one waits for it instead of building too.
	building map[summaryKey]chan struct{}
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
	return &summaryCache{budget: budget, lru: list.New(), m: make(map[summaryKey]*list.Element),
		building: make(map[summaryKey]chan struct{})}
}

// getAt is get, but only while the cache has not been cleared since
// generation gen (nil after a clear).
func (c *summaryCache) getAt(subject string, f compat.Summarizer, typ compat.SchemaType, gen uint64) compat.Summary {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return nil
	}
	k := summaryKey{subject, typ}
	if el, ok := c.m[k]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*summaryEntry).sum
	}
	e := &summaryEntry{key: k, sum: f.NewSummary()}
	c.m[k] = c.lru.PushFront(e)
	return e.sum
}

// startWarm returns the warm of k under way (lead false: wait for done),
// or records a new one that the caller leads (lead true: call endWarm),
// with the generation its read transaction is checked against.
func (c *summaryCache) startWarm(k summaryKey) (done chan struct{}, gen uint64, lead bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.building[k]; ok {
		return ch, 0, false
	}
	ch := make(chan struct{})
	c.building[k] = ch
	return ch, c.gen, true
}

func (c *summaryCache) endWarm(k summaryKey, done chan struct{}) {
	c.mu.Lock()
	delete(c.building, k)
	c.mu.Unlock()
	close(done)
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
	c.gen++
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
	if warmOutside(ctx) {
		unknown := 0
		for _, v := range versions {
			if _, known := sum.Known(v.SchemaID); !known {
				unknown++
			}
		}
		if unknown > coldVersions {
			// A registration in the write transaction: the summary is
			// built (warm) outside it, and the registration run again.
			return compat.Result{}, nil, &coldSummary{subject: subject, format: f, sz: sz}
		}
	}
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

// coldVersions is how many versions a summary may lack for a
// registration to extend it in the write transaction; past it (after a
// restart, an eviction or a clear), the registration leaves the
// transaction and builds it outside (warmSummary).
const coldVersions = 8

type warmOutsideKey struct{}

// withWarmOutside marks ctx as a registration's first attempt: a
// transitive check that finds its summary cold returns *coldSummary
// instead of building it in the write transaction.
func withWarmOutside(ctx context.Context) context.Context {
	return context.WithValue(ctx, warmOutsideKey{}, true)
}

func warmOutside(ctx context.Context) bool {
	v, _ := ctx.Value(warmOutsideKey{}).(bool)
	return v
}

// coldSummary is the error of a registration's first attempt whose
// subject's summary lacks more than coldVersions versions.
type coldSummary struct {
	subject string
	format  compat.Format
	sz      compat.Summarizer
}

func (e *coldSummary) Error() string {
	return fmt.Sprintf("compatibility summary of %s not built", e.subject)
}

// summaryWarmHook, when set (tests), is called by warmSummary in its
// read transaction once the summary is built.
var summaryWarmHook func(subject string)

// warmSummary adds the live versions of c's subject to its summary in a
// read transaction (s.view), outside the write transaction that every
// registration of the store shares: parsing a long subject after a
// restart then blocks no other subject's writes. Registrations finding
// the same subject cold wait for one warm instead of each building.
// Nothing it adds can be wrong later: a summary records schemas by ID,
// which are immutable, and a clear (a forgotten ID, a failed commit)
// coming after the read transaction could have begun discards what it
// built (getAt). The registration's judgement in the write transaction
// still adds the versions the summary does not know, so a version
// registered or deleted meanwhile is compared as before. An error
// (ctx's, a store's) only leaves the work to that judgement.
func (s *Service) warmSummary(ctx context.Context, c *coldSummary) {
	k := summaryKey{c.subject, c.format.Type()}
	done, gen, lead := s.summaries.startWarm(k)
	if !lead {
		select {
		case <-done:
		case <-ctx.Done():
		}
		return
	}
	defer s.summaries.endWarm(k, done)
	err := s.view(ctx, "build compatibility summary", func(tx Tx) error {
		sum := s.summaries.getAt(c.subject, c.sz, k.typ, gen)
		if sum == nil {
			return nil
		}
		versions, err := subjectVersions(ctx, tx, c.subject)
		if err != nil {
			return err
		}
		for _, v := range live(versions) {
			if _, known := sum.Known(v.SchemaID); known {
				continue
			}
			p, err := s.parseTransient(ctx, tx, v.Key())
			if err != nil {
				return err
			}
			if p != nil {
				sum.Add(v.SchemaID, p)
			}
		}
		s.summaries.resize(c.subject, k.typ, sum)
		if summaryWarmHook != nil {
			summaryWarmHook(c.subject)
		}
		return nil
	})
	if err != nil {
		s.log.DebugContext(ctx, "compatibility summary not built outside the write transaction", "subject", c.subject, "err", err)
	}
}

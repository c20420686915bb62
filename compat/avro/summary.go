package avro

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/charter-dev/charter/compat"
)

// NewSummary returns an empty [compat.Summary] of Avro schemas.
//
// It represents a schema whose root is a record and whose type graph has
// no cycle (no recursive named type): as the record's name, full name and
// aliases, and its fields in order, each as its name, aliases, whether
// it has a default, and its type. A field equal to the field of the same
// name in the schema added just before (same aliases, default or not,
// and a type of the same structure: every attribute the resolution
// rules read, compared node by node) is that field, shared: a subject
// whose record grows by a field per version holds each field once, plus
// a pointer per field per version.
//
// Check gives CheckRead's findings for each earlier schema without
// comparing it in full. The argument: on a record root, CheckRead's
// result is the root names' violation, if any, then for each reader
// field in order the violations of that field alone (missing without a
// default, or its type read against the writer field's type, under the
// field's path). When the writer's graph has no cycle (reader and
// writer in BACKWARD; the reader in FORWARD: a cycle of pairs needs both
// sides to cycle), the checker never meets a pair already under way, so
// its memo only saves work and each field's part is a pure function of
// the two types' structure, the same for two structurally equal types.
// The part of a reader field is then computed once per distinct writer
// field (per run of versions sharing it) instead of once per version,
// and a version's result is the concatenation of its fields' parts,
// capped at maxViolations as CheckRead caps it. Schemas outside that
// shape (another root, a recursive type) are not summarized (Add
// answers false) and are compared in full.
func (Format) NewSummary() compat.Summary {
	return &summary{index: make(map[int64]int), runs: make(map[string][]*sfield)}
}

var _ compat.Summarizer = Format{}

// summary is the Avro compat.Summary (see Format.NewSummary).
type summary struct {
	mu      sync.RWMutex
	entries []*sentry
	index   map[int64]int        // key → entry; -1: not summarized
	runs    map[string][]*sfield // field name → its runs, by entry
	bytes   int
}

// sentry is one summarized schema.
type sentry struct {
	head   *node // the root's kind, name, full name and aliases only
	fields []*sfield
}

// sfield is a field shared by the consecutive entries from..to.
type sfield struct {
	name       string
	aliases    []string
	hasDefault bool
	typ        *node
	from, to   int
}

// Estimated heap bytes of the summary's parts (the field types' nodes
// are counted once per distinct field, at sfieldBytes).
const (
	sentryBytes  = 96
	sfieldBytes  = 256
	pointerBytes = 8
)

func (s *summary) Bytes() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.bytes
}

func (s *summary) Known(key int64) (bool, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	i, ok := s.index[key]
	return ok && i >= 0, ok
}

func (s *summary) Add(key int64, sc compat.Schema) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i, ok := s.index[key]; ok {
		return i >= 0
	}
	as, ok := sc.(*Schema)
	if !ok || as == nil || as.root == nil || as.root.kind != kRecord || cyclic(as.root) {
		s.index[key] = -1
		s.bytes += pointerBytes * 2
		return false
	}
	root := as.root
	k := len(s.entries)
	e := &sentry{head: &node{kind: kRecord, name: strings.Clone(root.name), space: strings.Clone(root.space),
		full: strings.Clone(root.full), aliases: cloneAll(root.aliases)},
		fields: make([]*sfield, len(root.fields))}
	var prev *sentry
	if k > 0 {
		prev = s.entries[k-1]
		if sameHead(prev.head, e.head) {
			e.head = prev.head
		}
	}
	s.bytes += sentryBytes + pointerBytes*len(root.fields)
	eq := equality{}
	cp := copier{}
	for i, f := range root.fields {
		rs := s.runs[f.name]
		if n := len(rs); n > 0 {
			last := rs[n-1]
			if last.to == k-1 && last.hasDefault == (f.def != nil) && slices.Equal(last.aliases, f.aliases) && eq.same(last.typ, f.typ) {
				last.to = k
				e.fields[i] = last
				continue
			}
		}
		sf := &sfield{name: strings.Clone(f.name), aliases: cloneAll(f.aliases), hasDefault: f.def != nil, typ: cp.node(f.typ), from: k, to: k}
		s.runs[sf.name] = append(rs, sf) // sf.name: a key of its own, not a slice of the text
		e.fields[i] = sf
		s.bytes += sfieldBytes + len(f.name)
	}
	s.entries = append(s.entries, e)
	s.index[key] = k
	return true
}

// present is the default of a field the summary copies: the checker
// only asks whether a field has one.
var present = &jval{}

// copier copies type graphs for the summary: the attributes the checker
// reads, with strings of their own, so that a summary pins neither its
// schemas' texts (the parser's strings are slices of them) nor their
// docs, properties and defaults. Shared nodes stay shared.
type copier map[*node]*node

func (cp copier) node(n *node) *node {
	if n == nil {
		return nil
	}
	if c, ok := cp[n]; ok {
		return c
	}
	c := &node{kind: n.kind, isError: n.isError, name: strings.Clone(n.name), space: strings.Clone(n.space),
		full: strings.Clone(n.full), aliases: cloneAll(n.aliases), symbols: cloneAll(n.symbols),
		symbolIndex: cloneIndex(n.symbolIndex), size: n.size, logical: strings.Clone(n.logical),
		precision: n.precision, scale: n.scale, fieldIndex: cloneIndex(n.fieldIndex), byType: cloneIndex(n.byType)}
	cp[n] = c
	if n.enumDefault != nil {
		d := strings.Clone(*n.enumDefault)
		c.enumDefault = &d
	}
	c.items = cp.node(n.items)
	if n.branches != nil {
		c.branches = make([]*node, len(n.branches))
		for i, b := range n.branches {
			c.branches[i] = cp.node(b)
		}
	}
	if n.byName != nil {
		c.byName = make(map[string][]int, len(n.byName))
		for k, v := range n.byName {
			c.byName[strings.Clone(k)] = slices.Clone(v)
		}
	}
	if n.fields != nil {
		c.fields = make([]*field, len(n.fields))
		for i, f := range n.fields {
			cf := &field{name: strings.Clone(f.name), aliases: cloneAll(f.aliases), typ: cp.node(f.typ)}
			if f.def != nil {
				cf.def = present
			}
			c.fields[i] = cf
		}
	}
	return c
}

func cloneAll(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.Clone(s)
	}
	return out
}

func cloneIndex(m map[string]int) map[string]int {
	if m == nil {
		return nil
	}
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[strings.Clone(k)] = v
	}
	return out
}

func sameHead(a, b *node) bool {
	return a.name == b.name && a.space == b.space && a.full == b.full && slices.Equal(a.aliases, b.aliases)
}

// cyclic reports whether root's type graph has a cycle (a recursive
// named type).
func cyclic(root *node) bool {
	const (
		open = 1
		done = 2
	)
	state := map[*node]uint8{}
	var visit func(n *node) bool
	visit = func(n *node) bool {
		switch state[n] {
		case open:
			return true
		case done:
			return false
		}
		state[n] = open
		if n.items != nil && visit(n.items) {
			return true
		}
		for _, b := range n.branches {
			if visit(b) {
				return true
			}
		}
		for _, f := range n.fields {
			if visit(f.typ) {
				return true
			}
		}
		state[n] = done
		return false
	}
	return visit(root)
}

// equality compares two acyclic type graphs, from different parses,
// attribute by attribute: everything the resolution rules (checker) read,
// and no less (doc, order, custom properties and defaults' values are
// not read). Results are memoized by pair, so shared subgraphs are
// compared once.
type equality map[[2]*node]bool

func (eq equality) same(a, b *node) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	key := [2]*node{a, b}
	if r, ok := eq[key]; ok {
		return r
	}
	r := eq.compare(a, b)
	eq[key] = r
	return r
}

func (eq equality) compare(a, b *node) bool {
	if a.kind != b.kind || a.name != b.name || a.space != b.space || a.full != b.full ||
		!slices.Equal(a.aliases, b.aliases) || !slices.Equal(a.symbols, b.symbols) ||
		(a.enumDefault == nil) != (b.enumDefault == nil) || (a.enumDefault != nil && *a.enumDefault != *b.enumDefault) ||
		a.size != b.size || a.logical != b.logical || a.precision != b.precision || a.scale != b.scale ||
		len(a.branches) != len(b.branches) || len(a.fields) != len(b.fields) {
		return false
	}
	if (a.items == nil) != (b.items == nil) || (a.items != nil && !eq.same(a.items, b.items)) {
		return false
	}
	for i := range a.branches {
		if !eq.same(a.branches[i], b.branches[i]) {
			return false
		}
	}
	for i, fa := range a.fields {
		fb := b.fields[i]
		if fa.name != fb.name || (fa.def == nil) != (fb.def == nil) || !slices.Equal(fa.aliases, fb.aliases) || !eq.same(fa.typ, fb.typ) {
			return false
		}
	}
	return true
}

// part is the violations one reader field contributes to one entry's
// result, at the field's position.
type part struct {
	pos int
	vs  []compat.Violation
}

func (s *summary) Check(ctx context.Context, level compat.Level, next compat.Schema, previous []compat.Keyed) (compat.Result, bool, error) {
	res := compat.Result{Level: level}
	ns, ok := next.(*Schema)
	if !ok || ns == nil || ns.root == nil || ns.root.kind != kRecord {
		return res, false, nil
	}
	if level == compat.None || len(previous) == 0 {
		return res, true, nil
	}
	if !level.Transitive() {
		previous = previous[len(previous)-1:]
	}
	if err := ctx.Err(); err != nil {
		return res, true, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := len(s.entries)
	in := make([]bool, n)   // entries compared with
	cnt := make([]int, n+1) // cnt[k]: entries compared with before k
	for _, p := range previous {
		k, ok := s.index[p.Key]
		if !ok || k < 0 {
			return res, false, nil
		}
		in[k] = true
	}
	for k := range n {
		cnt[k+1] = cnt[k]
		if in[k] {
			cnt[k+1]++
		}
	}
	used := func(from, to int) bool { return cnt[to+1]-cnt[from] > 0 }
	root := ns.root

	var back, fwd map[int][]part // by entry
	var headBack, headFwd map[*node][]compat.Violation
	if level.Backward() {
		// The new schema reads each entry: the root names, then for
		// each new field, in order, the entries' field it reads.
		back = map[int][]part{}
		headBack = map[*node][]compat.Violation{}
		for i, rf := range root.fields {
			if i%256 == 255 {
				if err := ctx.Err(); err != nil {
					return compat.Result{Level: level}, true, err
				}
			}
			var missing []compat.Violation // rf read from no writer field
			memo := map[*sfield][]compat.Violation{}
			s.pieces(rf, func(from, to int, wf *sfield) {
				if !used(from, to) {
					return
				}
				var vs []compat.Violation
				if wf == nil {
					if rf.def != nil {
						return
					}
					if missing == nil {
						missing = fieldViolations(rf.name, false, rf.typ, nil)
					}
					vs = missing
				} else {
					var seen bool
					if vs, seen = memo[wf]; !seen {
						vs = fieldViolations(rf.name, rf.def != nil, rf.typ, wf.typ)
						memo[wf] = vs
					}
				}
				if len(vs) == 0 {
					return
				}
				for k := from; k <= to; k++ {
					if in[k] {
						back[k] = append(back[k], part{i, vs})
					}
				}
			})
		}
	}
	if level.Forward() {
		// Each entry reads the new schema: its root names, then each of
		// its fields, in its order, against the new field it reads.
		fwd = map[int][]part{}
		headFwd = map[*node][]compat.Violation{}
		memo := map[*sfield][]compat.Violation{}
		affected := map[int]bool{}
		count := 0
		for _, rs := range s.runs {
			for _, sf := range rs {
				if !used(sf.from, sf.to) {
					continue
				}
				if count++; count%256 == 0 {
					if err := ctx.Err(); err != nil {
						return compat.Result{Level: level}, true, err
					}
				}
				var wtyp *node
				if wf := writerField(root, sf.name, sf.aliases); wf != nil {
					wtyp = wf.typ
				}
				vs := fieldViolations(sf.name, sf.hasDefault, sf.typ, wtyp)
				if len(vs) == 0 {
					continue
				}
				memo[sf] = vs
				for k := sf.from; k <= sf.to; k++ {
					if in[k] {
						affected[k] = true
					}
				}
			}
		}
		for k := range affected {
			for i, sf := range s.entries[k].fields {
				if vs := memo[sf]; len(vs) > 0 {
					fwd[k] = append(fwd[k], part{i, vs})
				}
			}
		}
	}
	// Newest first, as CheckContext: BACKWARD then FORWARD per version.
	for i := len(previous) - 1; i >= 0; i-- {
		p := previous[i]
		k := s.index[p.Key]
		e := s.entries[k]
		if level.Backward() {
			hv, ok := headBack[e.head]
			if !ok {
				hv = rootNames(root, e.head)
				headBack[e.head] = hv
			}
			res.Findings = appendFindings(res.Findings, hv, back[k], compat.DirBackward, p.Version)
		}
		if level.Forward() {
			hv, ok := headFwd[e.head]
			if !ok {
				hv = rootNames(e.head, root)
				headFwd[e.head] = hv
			}
			res.Findings = appendFindings(res.Findings, hv, fwd[k], compat.DirForward, p.Version)
		}
	}
	return res, true, nil
}

// appendFindings appends one comparison's violations (the root's, then
// the fields' parts), capped at maxViolations as checkRead caps them.
func appendFindings(out []compat.Finding, head []compat.Violation, parts []part, dir compat.Direction, version int) []compat.Finding {
	n := 0
	add := func(v compat.Violation) bool {
		if n >= maxViolations {
			return false
		}
		if v.Path == "" {
			v.Path = "."
		}
		out = append(out, compat.Finding{Violation: v, Direction: dir, Version: version})
		n++
		return true
	}
	for _, v := range head {
		if !add(v) {
			return out
		}
	}
	for _, p := range parts {
		for _, v := range p.vs {
			if !add(v) {
				return out
			}
		}
	}
	return out
}

// rootNames is the violation of the root records' names (the reader r,
// the writer w), as record reports it first.
func rootNames(r, w *node) []compat.Violation {
	c := checker{}
	c.names(r, w)
	return c.out
}

// fieldViolations is a reader field's part of a record check at the
// root (path ".name…"): see checker.readField.
func fieldViolations(name string, hasDefault bool, rtyp, wtyp *node) []compat.Violation {
	c := checker{}
	c.readField(name, hasDefault, rtyp, wtyp)
	return c.out
}

// pieces calls fn for consecutive ranges of entries covering them all,
// with the field that reader field rf reads in each (nil: none), as
// writerField finds it: the field of rf's name, else of its first alias
// that the entry has.
func (s *summary) pieces(rf *field, fn func(from, to int, wf *sfield)) {
	n := len(s.entries)
	if n == 0 {
		return
	}
	names := append([]string{rf.name}, rf.aliases...)
	lists := make([][]*sfield, len(names))
	for i, nm := range names {
		lists[i] = s.runs[nm]
	}
	if len(names) == 1 {
		at := 0
		for _, sf := range lists[0] {
			if sf.from > at {
				fn(at, sf.from-1, nil)
			}
			fn(sf.from, sf.to, sf)
			at = sf.to + 1
		}
		if at < n {
			fn(at, n-1, nil)
		}
		return
	}
	// Several names: split at every run boundary of any of them.
	cur := make([]int, len(names)) // next run of each list
	for at := 0; at < n; {
		end := n - 1
		var pick *sfield
		for i, l := range lists {
			for cur[i] < len(l) && l[cur[i]].to < at {
				cur[i]++
			}
			if cur[i] == len(l) {
				continue
			}
			sf := l[cur[i]]
			if sf.from <= at {
				if pick == nil {
					pick = sf
				}
				end = min(end, sf.to)
			} else {
				end = min(end, sf.from-1)
			}
		}
		fn(at, end, pick)
		at = end + 1
	}
}

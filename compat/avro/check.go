package avro

import (
	"fmt"
	"strings"

	"github.com/charter-dev/charter/compat"
)

// maxViolations bounds one CheckRead result. A type reused along many paths
// reports its violations once per path; a pathological schema could
// otherwise produce an exponential number of them.
const maxViolations = 10000

// checkRead applies the specification's "Schema Resolution" section to a
// reader and a writer node graph and returns every violation, in schema
// order.
//
// Paths name where a violation occurs: ".a.b" for record fields (the
// reader's field name), "[]" for array items, "{}" for map values and
// "<T>" for a union branch, T being the branch's type name (full name for
// records, enums and fixeds; "int", "array", "map"… otherwise). The branch
// named is the writer's when the writer is a union, else the reader branch
// chosen. The root is ".".
func checkRead(reader, writer *node) []compat.Violation {
	c := checker{}
	c.check(reader, writer, false)
	for i := range c.out {
		if c.out[i].Path == "" {
			c.out[i].Path = "."
		}
	}
	return c.out
}

type pair struct{ r, w *node }

type memo struct {
	done bool
	rel  []compat.Violation // paths relative to the pair's own path
}

type checker struct {
	out   []compat.Violation
	memo  map[pair]*memo
	stack []pathSeg // the current path, root first
}

// The current path is kept as a stack of segments and only turned into
// text when a violation is reported.
type segKind uint8

const (
	segField segKind = iota
	segItems
	segValues
	segBranch
)

type pathSeg struct {
	kind segKind
	name string
}

func (c *checker) push(kind segKind, name string) { c.stack = append(c.stack, pathSeg{kind, name}) }
func (c *checker) pop()                           { c.stack = c.stack[:len(c.stack)-1] }

// path renders the current path.
func (c *checker) path() string {
	n := 0
	for _, s := range c.stack {
		n += len(s.name) + 2
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range c.stack {
		switch s.kind {
		case segField:
			b.WriteByte('.')
			b.WriteString(s.name)
		case segItems:
			b.WriteString("[]")
		case segValues:
			b.WriteString("{}")
		case segBranch:
			b.WriteByte('<')
			b.WriteString(s.name)
			b.WriteByte('>')
		}
	}
	return b.String()
}

func (c *checker) report(rule string, format string, args ...any) {
	if len(c.out) >= maxViolations {
		return
	}
	c.out = append(c.out, compat.Violation{RuleID: rule, Path: c.path(), Message: fmt.Sprintf(format, args...)})
}

// check resolves writer w against reader r at the current path. labeled
// says that the path already ends in the union branch segment for this
// position.
func (c *checker) check(r, w *node, labeled bool) {
	if len(c.out) >= maxViolations {
		return
	}
	// Writer union: every branch the writer may have written must be
	// readable ("if writer's is a union" and "if both are unions").
	if w.kind == kUnion {
		for _, wb := range w.branches {
			c.push(segBranch, wb.typeName())
			c.check(r, wb, true)
			c.pop()
		}
		return
	}
	// Reader union, writer not: the reader's matching branch is resolved
	// against the writer.
	if r.kind == kUnion {
		i := selectBranch(r, w)
		if i < 0 {
			c.report(RuleMissingUnionBranch,
				"the reader union %s has no branch that can read the writer's %s; add a %s branch to the reader union",
				unionString(r), describe(w), w.typeName())
			return
		}
		rb := r.branches[i]
		if labeled {
			c.check(rb, w, false)
			return
		}
		c.push(segBranch, rb.typeName())
		c.check(rb, w, false)
		c.pop()
		return
	}
	if r.kind != w.kind {
		if promotable(w.kind, r.kind) {
			c.logical(r, w)
			return
		}
		c.report(RuleTypeMismatch,
			"the writer's %s cannot be read as the reader's %s; keep the type or use a promotion the spec allows (int→long→float→double, string↔bytes)",
			describe(w), describe(r))
		return
	}
	switch r.kind {
	case kRecord:
		c.record(r, w)
	case kEnum:
		c.names(r, w)
		c.enum(r, w)
	case kFixed:
		c.names(r, w)
		if r.size != w.size {
			c.report(RuleFixedSizeMismatch,
				"fixed %q is %d bytes in the reader but %d in the writer; a fixed must keep its size",
				r.full, r.size, w.size)
		}
		c.logical(r, w)
	case kArray:
		c.push(segItems, "")
		c.check(r.items, w.items, false)
		c.pop()
	case kMap:
		c.push(segValues, "")
		c.check(r.items, w.items, false)
		c.pop()
	default:
		c.logical(r, w)
	}
}

// promotable reports whether the specification lets a writer value of type
// w be read as type r.
func promotable(w, r kind) bool {
	switch w {
	case kInt:
		return r == kLong || r == kFloat || r == kDouble
	case kLong:
		return r == kFloat || r == kDouble
	case kFloat:
		return r == kDouble
	case kString:
		return r == kBytes
	case kBytes:
		return r == kString
	}
	return false
}

// namesMatch implements the name part of "match" for named types: equal
// simple names, or a reader alias equal to the writer's full name (the
// specification's "Aliases": the writer's type is renamed by the reader's
// aliases, then names are compared).
func namesMatch(r, w *node) bool {
	if r.name == w.name {
		return true
	}
	for _, a := range r.aliases {
		if a == w.full {
			return true
		}
	}
	return false
}

func (c *checker) names(r, w *node) {
	if namesMatch(r, w) {
		return
	}
	c.report(RuleNameMismatch,
		"the writer's %s %q is named %q in the reader; keep the name or add %q to the reader's aliases",
		w.kind, w.full, r.full, w.full)
}

// selectBranch returns the reader union branch that reads writer type w, or
// -1. A branch of the same type and full name wins (the writer's own type,
// as Java's resolver picks it); otherwise the first branch that matches, as
// the specification says.
//
// A wide union (one with an index) is searched through it: the branch of
// w's type name, else the first of the branches that w's simple name or
// full name (as an alias) names, since only those match a named type.
func selectBranch(r, w *node) int {
	if r.byType != nil {
		if i, ok := r.byType[w.typeName()]; ok && r.branches[i].kind == w.kind {
			return i
		}
		if w.kind.named() {
			best := -1
			for _, key := range []string{w.name, w.full} {
				for _, i := range r.byName[key] {
					if (best < 0 || i < best) && shallowMatch(r.branches[i], w) {
						best = i
					}
				}
			}
			return best
		}
	}
	for i, b := range r.branches {
		if b.kind == w.kind && (!w.kind.named() || b.full == w.full) {
			return i
		}
	}
	for i, b := range r.branches {
		if shallowMatch(b, w) {
			return i
		}
	}
	return -1
}

// shallowMatch is the specification's "match" without recursion.
func shallowMatch(r, w *node) bool {
	if r.kind != w.kind {
		return promotable(w.kind, r.kind)
	}
	switch r.kind {
	case kRecord, kEnum:
		return namesMatch(r, w)
	case kFixed:
		return namesMatch(r, w) && r.size == w.size
	}
	return true
}

func (c *checker) record(r, w *node) {
	key := pair{r, w}
	if c.memo == nil {
		c.memo = make(map[pair]*memo)
	}
	if m, ok := c.memo[key]; ok {
		if !m.done {
			// A cycle: the pair is being checked further up this path and
			// reports its violations there.
			return
		}
		if len(m.rel) > 0 {
			prefix := c.path()
			for _, v := range m.rel {
				if len(c.out) >= maxViolations {
					return
				}
				v.Path = prefix + v.Path
				c.out = append(c.out, v)
			}
		}
		return
	}
	m := &memo{}
	c.memo[key] = m
	start := len(c.out)

	c.names(r, w)
	for _, rf := range r.fields {
		var wtyp *node
		if wf := writerField(w, rf.name, rf.aliases); wf != nil {
			wtyp = wf.typ
		}
		c.readField(rf.name, rf.def != nil, rf.typ, wtyp)
	}

	m.done = true
	if len(c.out) > start {
		prefixLen := len(c.path())
		m.rel = make([]compat.Violation, 0, len(c.out)-start)
		for _, v := range c.out[start:] {
			v.Path = v.Path[prefixLen:]
			m.rel = append(m.rel, v)
		}
	}
}

// readField resolves the writer's field of type wtyp (nil: the writer
// has none) into the reader field name of type rtyp, at the current path:
// the part of a record's check that one reader field makes (the Summary
// calls it field by field).
func (c *checker) readField(name string, hasDefault bool, rtyp, wtyp *node) {
	if wtyp == nil && hasDefault {
		return
	}
	c.push(segField, name)
	if wtyp == nil {
		c.report(RuleReaderFieldMissingDefault,
			"field %q is in the reader without a default and missing from the writer, so the reader cannot fill it; give %q a default (or keep it in the writer)",
			name, name)
	} else {
		c.check(rtyp, wtyp, false)
	}
	c.pop()
}

// writerField finds the writer field a reader field (name, aliases)
// reads: same name, else a writer field named by one of the reader
// field's aliases.
func writerField(w *node, name string, aliases []string) *field {
	if i, ok := w.fieldIndex[name]; ok {
		return w.fields[i]
	}
	for _, a := range aliases {
		if i, ok := w.fieldIndex[a]; ok {
			return w.fields[i]
		}
	}
	return nil
}

func (c *checker) enum(r, w *node) {
	if r.enumDefault != nil {
		return
	}
	var missing []string
	for _, s := range w.symbols {
		if _, ok := r.symbolIndex[s]; !ok {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return
	}
	c.report(RuleMissingEnumSymbols,
		"the reader enum %q lacks the writer's symbols %s and has no default; add them to the reader or give the reader enum a default",
		r.full, quoteList(missing))
}

// logical compares logical types once the underlying types match. Adding
// or dropping a logical type is allowed; changing one valid logical type
// into another is not, and decimals must keep scale and not narrow
// precision (see the rules' Source).
func (c *checker) logical(r, w *node) {
	rl, wl := r.logical, w.logical
	if rl == "" || wl == "" {
		return
	}
	if rl == "decimal" && wl == "decimal" {
		if r.scale != w.scale {
			c.report(RuleDecimalScaleMismatch,
				"the decimal scale is %d in the writer but %d in the reader, so every stored value would be read as a different number; keep scale %d",
				w.scale, r.scale, w.scale)
		}
		if r.precision < w.precision {
			c.report(RuleDecimalPrecisionNarrowed,
				"the decimal precision narrows from %d in the writer to %d in the reader, so larger stored values do not fit; keep or widen the precision",
				w.precision, r.precision)
		}
		return
	}
	if rl != wl {
		c.report(RuleLogicalTypeMismatch,
			"the writer's %s is read as %s, so the same stored %s would mean something else; keep the logical type %s",
			wl, rl, w.kind, wl)
	}
}

// describe names a type for messages: `record "ex.A"`, `int`,
// `long (timestamp-millis)`.
func describe(n *node) string {
	switch {
	case n.kind.named():
		return fmt.Sprintf("%s %q", n.kind, n.full)
	case n.kind == kArray:
		return "array of " + n.items.typeName()
	case n.kind == kMap:
		return "map of " + n.items.typeName()
	case n.logical != "":
		return fmt.Sprintf("%s (%s)", n.kind, n.logical)
	}
	return n.kind.String()
}

func unionString(u *node) string {
	names := make([]string, len(u.branches))
	for i, b := range u.branches {
		names[i] = b.typeName()
	}
	return "[" + strings.Join(names, ", ") + "]"
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

package jsonschema

import (
	"fmt"
	"math/big"
	"net/url"
	"strings"
)

// DefaultMaxComparisons is the work budget of one comparison when
// Format.MaxComparisons is 0: the number of subschema pairs compared plus
// the number of pairs a combination's matching probes. A schema under the
// registry's 1 MiB limit compared with a similar one needs far fewer
// unless it nests anyOf/oneOf so that every alternative must be tried
// against every other at every level (work that grows with the product of
// the two schemas' sizes); such a pair answers JSON_SCHEMA_TOO_COMPLEX
// in about a second instead of running away.
const DefaultMaxComparisons = 2_000_000

// MaxListedChanges bounds the list Diff returns: a difference inside a
// definition that many paths reach is listed once per path, as Confluent
// lists it, and such a list can be exponentially long.
const MaxListedChanges = 100_000

// ErrTooComplex is returned by Diff (wrapped) when two schemas need more
// comparisons than the work budget allows, or more than MaxListedChanges
// changes to list.
var ErrTooComplex = fmt.Errorf("schema too complex to compare")

type tooComplexError struct {
	limit int // the work budget that was spent
}

func (e *tooComplexError) Error() string {
	return fmt.Sprintf("%v: comparing it with the other version needs more than %s subschema comparisons "+
		"(nested anyOf/oneOf alternatives are compared pairwise at every level)", ErrTooComplex, groupDigits(fmt.Sprint(e.limit)))
}

func (e *tooComplexError) Unwrap() error { return ErrTooComplex }

// unsettledError is ErrTooComplex when the passes over recursive
// definitions did not settle.
type unsettledError struct {
	passes int
}

func (e *unsettledError) Error() string {
	return fmt.Sprintf("%v: the comparison of its recursive definitions did not settle in %d passes", ErrTooComplex, e.passes)
}

func (e *unsettledError) Unwrap() error { return ErrTooComplex }

// result is what comparing one pair of parts found: the differences at the
// pair itself and the results of the sub-pairs, in the order Confluent's
// differ finds them. A result is built once per pair and shared by every
// path that reaches the pair, so the results form a DAG whose size is
// bounded by the number of pairs compared, while the list of differences
// it stands for (one per path) can be exponentially longer.
type result struct {
	entries []entry
	bad     bool  // an incompatible change is in entries or below
	o, u    *node // the pair compared
}

// entry is a difference found at the pair (sub == nil), or the result of
// a sub-pair at path, relative to the pair.
type entry struct {
	c    change
	path string
	sub  *result
}

func (r *result) isBad() bool { return r != nil && r.bad }

// heap returns a heap copy of r, or nil when r holds no differences, so
// that equal pairs hold no memory.
func (r *result) heap() *result {
	if len(r.entries) == 0 {
		return nil
	}
	c := *r
	return &c
}

// expand lists r's changes at every path that reaches them, as Confluent's
// differ does, under prefix; it fails once the list is longer than limit.
func expand(r *result, prefix string, out []change, limit int) ([]change, error) {
	if r == nil {
		return out, nil
	}
	for _, e := range r.entries {
		if e.sub == nil {
			if len(out) >= limit {
				return out, fmt.Errorf("%w: more than %s changes to list (a definition is reached by many paths)", ErrTooComplex, groupDigits(fmt.Sprint(limit)))
			}
			c := e.c
			c.path = join(prefix, c.path)
			out = append(out, c)
			continue
		}
		var err error
		if out, err = expand(e.sub, join(prefix, e.path), out, limit); err != nil {
			return out, err
		}
	}
	return out, nil
}

// finding is an incompatible change reported once, at the first path that
// reaches it, with the number of paths that reach it and a few of the
// others.
type finding struct {
	c      change // path is the first path
	at     *result
	paths  *big.Int
	others []string // other paths (at most maxOtherPaths), when paths > 1
	shared *result  // the nearest result on the first path that is shared
}

// maxOtherPaths is how many other paths a finding's message names.
const maxOtherPaths = 2

// ref is a reference to a result from a parent result at a path relative
// to the parent.
type ref struct {
	parent *result
	path   string
}

// incompatible lists each incompatible change of the DAG once, at the
// first path (in Confluent's order) that reaches it, with the number of
// paths that reach it: a difference inside a shared definition is one
// finding, not one per use site.
func incompatible(root *result, compatible map[string]bool) []finding {
	if !root.isBad() {
		return nil
	}
	var out []finding
	seen := map[*result]bool{}
	refs := map[*result][]ref{}
	var post []*result // postorder, for counting paths
	var walk func(r *result, path string)
	walk = func(r *result, path string) {
		seen[r] = true
		for _, e := range r.entries {
			switch {
			case e.sub == nil:
				if !compatible[e.c.typ] {
					c := e.c
					c.path = join(path, c.path)
					out = append(out, finding{c: c, at: r})
				}
			case e.sub.bad:
				refs[e.sub] = append(refs[e.sub], ref{r, e.path})
				if !seen[e.sub] {
					walk(e.sub, join(path, e.path))
				}
			}
		}
		post = append(post, r)
	}
	walk(root, "")

	// Paths to each result: every reference from a result adds the
	// paths to that result (reverse postorder is a topological order).
	paths := make(map[*result]*big.Int, len(post))
	paths[root] = big.NewInt(1)
	for i := len(post) - 1; i >= 0; i-- {
		r := post[i]
		n := paths[r]
		for _, e := range r.entries {
			if e.sub.isBad() {
				if p, ok := paths[e.sub]; ok {
					p.Add(p, n)
				} else {
					paths[e.sub] = new(big.Int).Set(n)
				}
			}
		}
	}
	examples := map[*result][]string{}
	for i := range out {
		f := &out[i]
		f.paths = paths[f.at]
		if f.paths.Cmp(big.NewInt(1)) <= 0 {
			continue
		}
		// Only memoised pairs are reached by several paths, and only a
		// reference target makes a pair memoised.
		f.shared = f.at
		for f.shared != root && displayLoc(f.shared.o) == "" && displayLoc(f.shared.u) == "" {
			f.shared = refs[f.shared][0].parent
		}
		ps, ok := examples[f.at]
		if !ok && len(examples) < maxExampled {
			ps = pathsTo(f.at, root, refs, maxOtherPaths+1)
			examples[f.at] = ps
		}
		if len(ps) > 1 {
			local := strings.TrimPrefix(f.c.path, ps[0])
			for _, p := range ps[1:] {
				f.others = append(f.others, p+local)
			}
		}
	}
	return out
}

// maxExampled bounds how many shared results get example paths.
const maxExampled = 64

// pathsTo returns the first limit paths from root to target in the order
// Confluent's differ would list them: a depth-first walk from root that
// enters only the results target can be reached through. Every result
// entered leads to target, so the walk stops after about limit times the
// depth of target.
func pathsTo(target, root *result, refs map[*result][]ref, limit int) []string {
	via := map[*result]bool{target: true}
	stack := []*result{target}
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, rf := range refs[r] {
			if !via[rf.parent] {
				via[rf.parent] = true
				stack = append(stack, rf.parent)
			}
		}
	}
	var out []string
	var walk func(r *result, path string)
	walk = func(r *result, path string) {
		if r == target {
			out = append(out, path)
			return
		}
		for _, e := range r.entries {
			if len(out) >= limit {
				return
			}
			if e.sub != nil && via[e.sub] {
				walk(e.sub, join(path, e.path))
			}
		}
	}
	walk(root, "")
	return out
}

// sharedNote tells, for a finding that several paths reach, where the
// shared subschemas are and how many paths reach them.
func (f finding) sharedNote() string {
	if f.paths == nil || f.paths.Cmp(big.NewInt(1)) <= 0 {
		return ""
	}
	where := "shared subschema"
	var ol, ul string
	if f.shared != nil {
		ol, ul = displayLoc(f.shared.o), displayLoc(f.shared.u)
	}
	switch {
	case ol != "" && ol == ul:
		where = "subschema " + ol
	case ol != "" && ul != "":
		where = fmt.Sprintf("subschemas %s (writer) and %s (reader)", ol, ul)
	case ol != "":
		where = "subschema " + ol + " (writer)"
	case ul != "":
		where = "subschema " + ul + " (reader)"
	}
	more := new(big.Int).Sub(f.paths, big.NewInt(1))
	others := make([]string, len(f.others))
	for i, p := range f.others {
		others[i] = "#/" + p
	}
	if more.Cmp(big.NewInt(int64(len(f.others)))) == 0 {
		return fmt.Sprintf(" (also at %s, through the same %s)", strings.Join(others, " and "), where)
	}
	return fmt.Sprintf(" (also at %s more paths through the same %s, such as %s)", groupDigits(more.String()), where, strings.Join(others, " and "))
}

// displayLoc renders a part's location as a JSON pointer into the schema
// ("#/$defs/address") or into a reference ("address.json#/…").
func displayLoc(n *node) string {
	if n == nil || !n.shared || n.loc == "" {
		return ""
	}
	doc, frag, _ := strings.Cut(n.loc, "#")
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	if frag == "" {
		frag = "/"
	}
	switch {
	case doc == rootURL:
		doc = ""
	case strings.HasPrefix(doc, rootURL+"/"):
		doc = strings.TrimPrefix(doc, rootURL+"/")
	}
	return doc + "#" + frag
}

// groupDigits writes a decimal number with thousands separators.
func groupDigits(s string) string {
	if len(s) <= 3 {
		return s
	}
	var sb strings.Builder
	lead := len(s) % 3
	if lead > 0 {
		sb.WriteString(s[:lead])
	}
	for i := lead; i < len(s); i += 3 {
		if sb.Len() > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(s[i : i+3])
	}
	return sb.String()
}

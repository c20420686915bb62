package jsonschema

import (
	"context"
	"fmt"
	"math/big"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/charter-dev/charter/compat/rule"
)

// change is one difference found by diff. path is relative to the pair of
// schemas being compared ("" is their root), with JSON pointer tokens joined
// by "/". from and to describe the writer's (original's) and the reader's
// (update's) side for the message.
type change struct {
	typ      string
	path     string
	from, to string
}

func (c change) pointer() string { return "#/" + c.path }

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "/" + b
}

// pair is a memo key: two parts and whether only the verdict is wanted.
type pair struct {
	o, u    *node
	verdict bool
}

// differ compares two part graphs the way Confluent's SchemaDiff does, with
// each pair of parts compared once: the pairs that involve the target of a
// reference (the only parts a comparison can reach by several paths) are
// memoised, and their result is shared by every path that reaches them. A
// memoised pair met again while it is being compared is a recursive cycle,
// assumed compatible unless an earlier pass found it incompatible; passes
// repeat until that assumption no longer changes the result (Confluent's
// fixpoint over its "incompatible seed"). Every comparison and every probe
// of a combination's matching spends one unit of a work budget; when it is
// spent the differ stops and the caller reports the schemas as too complex.
type differ struct {
	compatible map[string]bool
	memo       map[pair]*result
	inProgress map[pair]bool
	seed       map[pair]*result
	optimistic bool
	work       *workBudget
	// listAll keeps compatible changes (Diff lists them; CheckRead
	// reports only incompatible ones and drops them).
	listAll bool
	// verdict is set while a pair is compared only for its verdict (a
	// matching probe, an anyOf alternative tried, a "not"): the
	// comparison stops at the first incompatible change. A compatible
	// result is complete either way.
	verdict bool
}

// workBudget counts comparisons across the passes of one diff. It also
// ends the diff when ctx ends (checked every ctxEvery units).
type workBudget struct {
	spent, limit int
	over         bool
	ctx          context.Context
	ctxErr       error
}

// ctxEvery is how many units of work pass between two looks at ctx.
const ctxEvery = 1024

// tick spends one unit and reports whether the budget still holds.
func (w *workBudget) tick() bool {
	if w.over {
		return false
	}
	w.spent++
	if w.spent > w.limit {
		w.over = true
	}
	if w.spent%ctxEvery == 0 && w.ctx != nil {
		if err := w.ctx.Err(); err != nil {
			w.over, w.ctxErr = true, err
		}
	}
	return !w.over
}

// diff compares original with update under a budget of limit comparisons.
// It returns the root result and the comparisons spent, or an error
// wrapping ErrTooComplex when the budget ran out.
//
// With listAll the result keeps compatible changes too; without, only the
// incompatible ones (the verdict is the same).
func diff(compatible map[string]bool, original, update *node, limit int, listAll bool) (*result, int, error) {
	return diffContext(context.Background(), compatible, original, update, limit, listAll)
}

// diffContext is diff that stops with ctx's error when ctx ends.
func diffContext(ctx context.Context, compatible map[string]bool, original, update *node, limit int, listAll bool) (*result, int, error) {
	w := &workBudget{limit: limit, ctx: ctx}
	var seed map[pair]*result
	for pass := 0; ; pass++ {
		d := &differ{compatible: compatible, memo: map[pair]*result{}, inProgress: map[pair]bool{}, seed: seed, work: w, listAll: listAll}
		out := d.compare(original, update)
		if w.ctxErr != nil {
			return nil, w.spent, w.ctxErr
		}
		if w.over {
			return nil, w.spent, &tooComplexError{limit: limit}
		}
		next := map[pair]*result{}
		for k, v := range d.memo {
			if v.isBad() {
				next[k] = v
			}
		}
		if !d.optimistic || sameKeys(next, seed) {
			return out, w.spent, nil
		}
		if pass >= maxPasses {
			// The incompatible pairs found so far have not settled: the
			// last pass may still miss some, so its verdict is not one.
			return nil, w.spent, &unsettledError{passes: maxPasses}
		}
		seed = next
	}
}

// maxPasses bounds the passes of diff over recursive definitions: each
// pass starts from the incompatible pairs the last one found, until they
// no longer change (real schemas settle in two or three).
var maxPasses = 64

func sameKeys(a, b map[pair]*result) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// ok reports whether every change in r is compatible under the policy.
func (d *differ) ok(r *result) bool { return !r.isBad() }

// done reports whether a comparison for its verdict can stop: r already
// holds an incompatible change.
func (d *differ) done(r *result) bool { return d.verdict && r.bad }

// probe compares a pair for its verdict only; the result is complete when
// it is compatible.
func (d *differ) probe(o, u *node) *result {
	saved := d.verdict
	d.verdict = true
	r := d.compare(o, u)
	d.verdict = saved
	return r
}

// add records a difference found at r's pair.
func (d *differ) add(r *result, c change) {
	switch {
	case !d.compatible[c.typ]:
		r.bad = true
	case !d.listAll:
		return
	}
	r.entries = append(r.entries, entry{c: c})
}

// wants reports whether a change of type typ would be kept, so that the
// text describing it is worth building.
func (d *differ) wants(typ string) bool { return d.listAll || !d.compatible[typ] }

// addAll records differences found at r's pair.
func (d *differ) addAll(r *result, cs []change) {
	for _, c := range cs {
		d.add(r, c)
	}
}

// nest records the result of a sub-pair at path (relative to r's pair).
func (d *differ) nest(r *result, path string, sub *result) {
	if sub == nil || len(sub.entries) == 0 {
		return
	}
	r.entries = append(r.entries, entry{path: path, sub: sub})
	if sub.bad {
		r.bad = true
	}
}

// single returns a result holding one difference.
func (d *differ) single(o, u *node, c change) *result {
	r := &result{o: o, u: u}
	d.add(r, c)
	return r
}

// compare returns the differences between two parts, relative to them;
// nil when there are none.
func (d *differ) compare(o, u *node) *result {
	switch {
	case o == nil && u == nil:
		return nil
	case o == nil:
		return d.single(o, u, change{typ: "SCHEMA_ADDED", to: describe(u)})
	case u == nil:
		return d.single(o, u, change{typ: "SCHEMA_REMOVED", from: describe(o)})
	}
	if !d.work.tick() {
		return nil
	}
	o, u = deref(o), deref(u)
	if !o.shared && !u.shared {
		// Neither part is a reference target: this pair is reached by
		// one path only and cannot be part of a cycle.
		return d.compareTypes(o, u)
	}
	key := pair{o, u, d.verdict}
	if r, ok := d.memo[key]; ok {
		return r
	}
	if d.inProgress[key] {
		if r, ok := d.seed[key]; ok {
			return r
		}
		d.optimistic = true
		return nil
	}
	d.inProgress[key] = true
	r := d.compareTypes(o, u)
	delete(d.inProgress, key)
	d.memo[key] = r
	return r
}

func (d *differ) compareTypes(o, u *node) *result {
	// The result is built on the stack and copied to the heap only when
	// it holds differences.
	res := result{o: o, u: u}
	r := &res
	add := func(typ, path, from, to string) {
		d.add(r, change{typ: typ, path: path, from: from, to: to})
	}
	if o.kind != kCombined && u.kind == kCombined {
		if len(u.subs) == 1 {
			if sub := d.probe(o, u.subs[0]); d.ok(sub) {
				return sub
			}
		} else if u.crit == critAny || u.crit == critOne {
			for _, s := range u.subs {
				if sub := d.probe(o, s); d.ok(sub) {
					d.nest(r, "", sub)
					add("SUM_TYPE_EXTENDED", "", describe(o), describe(u))
					return r.heap()
				}
			}
		}
	} else if o.kind == kCombined && u.kind != kCombined {
		if len(o.subs) == 1 {
			if sub := d.probe(o.subs[0], u); d.ok(sub) {
				return sub
			}
		} else if o.crit == critAll {
			for _, s := range o.subs {
				if sub := d.probe(s, u); d.ok(sub) {
					d.nest(r, "", sub)
					add("PRODUCT_TYPE_NARROWED", "", describe(o), describe(u))
					return r.heap()
				}
			}
		}
	}

	if (o.kind == kConst && u.kind == kEnum) || (o.kind == kEnum && u.kind == kConst) {
		// Charter: a const accepts exactly what a one-value enum accepts
		// (Validation §6.1.3), so they are compared as enums; Confluent
		// reports TYPE_CHANGED for any switch between the two.
		kw := "enum"
		if u.kind == kConst {
			kw = "const"
		}
		d.addAll(r, rebaseEnum(kw, compareEnum(asEnum(o), asEnum(u))))
		return r.heap()
	}
	if o.kind != u.kind {
		if o.kind == kFalse || u.kind == kEmpty {
			return nil
		}
		if o.connectType == "bytes" && u.connectType == "bytes" {
			// Confluent treats two schemas marked connect.type "bytes"
			// as equivalent (a fix of Connect's decimal encoding).
			return nil
		}
		add("TYPE_CHANGED", "", describe(o), describe(u))
		return r.heap()
	}

	if !sameString(o.id, u.id) && d.wants("ID_CHANGED") {
		add("ID_CHANGED", "", deref0(o.id), deref0(u.id))
	}
	if !sameString(o.title, u.title) && d.wants("TITLE_CHANGED") {
		add("TITLE_CHANGED", "", deref0(o.title), deref0(u.title))
	}
	if !sameString(o.description, u.description) && d.wants("DESCRIPTION_CHANGED") {
		add("DESCRIPTION_CHANGED", "", deref0(o.description), deref0(u.description))
	}
	if ((o.def == nil) != (u.def == nil) || (o.def != nil && !jsonEqual(o.def, u.def))) && d.wants("DEFAULT_CHANGED") {
		add("DEFAULT_CHANGED", "", valueText(o.def), valueText(u.def))
	}

	switch o.kind {
	case kString:
		d.addAll(r, compareString(o, u))
	case kNumber:
		d.addAll(r, compareNumber(o, u))
	case kConst:
		if !jsonEqual(o.constVal, u.constVal) {
			add("ENUM_ARRAY_CHANGED", "const", compact(o.constVal), compact(u.constVal))
		}
	case kEnum:
		d.addAll(r, compareEnum(o, u))
	case kCombined:
		d.compareCombined(r, o, u)
	case kNot:
		// A reader's "not" accepts more when its subschema accepts less:
		// compare the subschemas the other way round.
		if sub := d.probe(u.not, o.not); d.ok(sub) {
			add("NOT_TYPE_NARROWED", "not", describe(o.not), describe(u.not))
		} else {
			add("NOT_TYPE_EXTENDED", "not", describe(o.not), describe(u.not))
		}
	case kObject:
		d.compareObject(r, o, u)
	case kArray:
		d.compareArray(r, o, u)
	}
	return r.heap()
}

func sameString(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func deref0(s *string) string {
	if s == nil {
		return "(none)"
	}
	return fmt.Sprintf("%q", *s)
}

func valueText(v *jval) string {
	if v == nil {
		return "(none)"
	}
	return compact(v)
}

// intChange compares an optional integer keyword: added, removed,
// increased or decreased.
func intChange(kw string, o, u *big.Int, added, removed, increased, decreased string) []change {
	switch {
	case o == nil && u == nil:
		return nil
	case o == nil:
		return []change{{typ: added, path: kw, from: "(none)", to: u.String()}}
	case u == nil:
		return []change{{typ: removed, path: kw, from: o.String(), to: "(none)"}}
	}
	switch o.Cmp(u) {
	case -1:
		return []change{{typ: increased, path: kw, from: o.String(), to: u.String()}}
	case 1:
		return []change{{typ: decreased, path: kw, from: o.String(), to: u.String()}}
	}
	return nil
}

func ratChange(kw string, o, u *big.Rat, added, removed, increased, decreased string) []change {
	switch {
	case o == nil && u == nil:
		return nil
	case o == nil:
		return []change{{typ: added, path: kw, from: "(none)", to: ratText(u)}}
	case u == nil:
		return []change{{typ: removed, path: kw, from: ratText(o), to: "(none)"}}
	}
	switch o.Cmp(u) {
	case -1:
		return []change{{typ: increased, path: kw, from: ratText(o), to: ratText(u)}}
	case 1:
		return []change{{typ: decreased, path: kw, from: ratText(o), to: ratText(u)}}
	}
	return nil
}

func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	s := r.FloatString(12)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func compareString(o, u *node) []change {
	var out []change
	out = append(out, intChange("maxLength", o.maxLength, u.maxLength,
		"MAX_LENGTH_ADDED", "MAX_LENGTH_REMOVED", "MAX_LENGTH_INCREASED", "MAX_LENGTH_DECREASED")...)
	out = append(out, intChange("minLength", o.minLength, u.minLength,
		"MIN_LENGTH_ADDED", "MIN_LENGTH_REMOVED", "MIN_LENGTH_INCREASED", "MIN_LENGTH_DECREASED")...)
	switch {
	case o.pattern == nil && u.pattern != nil:
		out = append(out, change{typ: "PATTERN_ADDED", path: "pattern", from: "(none)", to: *u.pattern})
	case o.pattern != nil && u.pattern == nil:
		out = append(out, change{typ: "PATTERN_REMOVED", path: "pattern", from: *o.pattern, to: "(none)"})
	case o.pattern != nil && *o.pattern != *u.pattern && !samePattern(*o.pattern, *u.pattern):
		out = append(out, change{typ: "PATTERN_CHANGED", path: "pattern", from: *o.pattern, to: *u.pattern})
	}
	return out
}

// samePattern reports whether two pattern texts are one regular
// expression written twice ("^a$" and "(?:^a$)"): their simplified
// syntax trees print the same. Charter accepts such a rewrite, which
// Confluent (comparing text) refuses; any other change of text is
// PATTERN_CHANGED, wider or not (issue 17's differential harness pins
// that).
func samePattern(a, b string) bool {
	ra, err := syntax.Parse(a, syntax.Perl)
	if err != nil {
		return false
	}
	rb, err := syntax.Parse(b, syntax.Perl)
	if err != nil {
		return false
	}
	return ra.Simplify().String() == rb.Simplify().String()
}

func compareNumber(o, u *node) []change {
	var out []change
	out = append(out, ratChange("maximum", o.maximum, u.maximum,
		"MAXIMUM_ADDED", "MAXIMUM_REMOVED", "MAXIMUM_INCREASED", "MAXIMUM_DECREASED")...)
	out = append(out, ratChange("minimum", o.minimum, u.minimum,
		"MINIMUM_ADDED", "MINIMUM_REMOVED", "MINIMUM_INCREASED", "MINIMUM_DECREASED")...)
	out = append(out, ratChange("exclusiveMaximum", o.exclMax, u.exclMax,
		"EXCLUSIVE_MAXIMUM_ADDED", "EXCLUSIVE_MAXIMUM_REMOVED", "EXCLUSIVE_MAXIMUM_INCREASED", "EXCLUSIVE_MAXIMUM_DECREASED")...)
	out = append(out, ratChange("exclusiveMinimum", o.exclMin, u.exclMin,
		"EXCLUSIVE_MINIMUM_ADDED", "EXCLUSIVE_MINIMUM_REMOVED", "EXCLUSIVE_MINIMUM_INCREASED", "EXCLUSIVE_MINIMUM_DECREASED")...)
	out = dropSubsumedBounds(out, o, u)
	om, um := o.multipleOf, u.multipleOf
	switch {
	case om == nil && um == nil:
	case om == nil:
		out = append(out, change{typ: "MULTIPLE_OF_ADDED", path: "multipleOf", from: "(none)", to: ratText(um)})
	case um == nil:
		out = append(out, change{typ: "MULTIPLE_OF_REMOVED", path: "multipleOf", from: ratText(om), to: "(none)"})
	case om.Cmp(um) == 0:
	case om.Sign() != 0 && isMultiple(um, om):
		out = append(out, change{typ: "MULTIPLE_OF_EXPANDED", path: "multipleOf", from: ratText(om), to: ratText(um)})
	case um.Sign() != 0 && isMultiple(om, um):
		out = append(out, change{typ: "MULTIPLE_OF_REDUCED", path: "multipleOf", from: ratText(om), to: ratText(um)})
	default:
		out = append(out, change{typ: "MULTIPLE_OF_CHANGED", path: "multipleOf", from: ratText(om), to: ratText(um)})
	}
	if o.integer != u.integer {
		if o.integer {
			out = append(out, change{typ: "TYPE_EXTENDED", from: "integer", to: "number"})
		} else {
			out = append(out, change{typ: "TYPE_NARROWED", from: "number", to: "integer"})
		}
	}
	return out
}

// bound is an effective numeric limit: a value and whether it is
// exclusive.
type bound struct {
	v    *big.Rat
	excl bool
}

// lowerBound returns the tighter of minimum and exclusiveMinimum.
func lowerBound(n *node) *bound {
	switch {
	case n.minimum == nil && n.exclMin == nil:
		return nil
	case n.exclMin == nil:
		return &bound{n.minimum, false}
	case n.minimum == nil || n.exclMin.Cmp(n.minimum) >= 0:
		return &bound{n.exclMin, true}
	}
	return &bound{n.minimum, false}
}

// upperBound returns the tighter of maximum and exclusiveMaximum.
func upperBound(n *node) *bound {
	switch {
	case n.maximum == nil && n.exclMax == nil:
		return nil
	case n.exclMax == nil:
		return &bound{n.maximum, false}
	case n.maximum == nil || n.exclMax.Cmp(n.maximum) <= 0:
		return &bound{n.exclMax, true}
	}
	return &bound{n.maximum, false}
}

// admits reports whether the reader's limit r lets through every value the
// writer's limit w does; sign is -1 for lower limits, +1 for upper ones.
func admits(r, w *bound, sign int) bool {
	switch {
	case r == nil:
		return true
	case w == nil:
		return false
	}
	c := r.v.Cmp(w.v) * sign
	return c > 0 || (c == 0 && (!r.excl || w.excl))
}

// dropSubsumedBounds removes the incompatible limit changes Confluent
// reports keyword by keyword when the reader's effective limit still admits
// every writer value, e.g. exclusiveMinimum 10 replaced by minimum 10
// (Charter; Confluent reports MINIMUM_ADDED).
func dropSubsumedBounds(cs []change, o, u *node) []change {
	lowerOK := admits(lowerBound(u), lowerBound(o), -1)
	upperOK := admits(upperBound(u), upperBound(o), +1)
	out := cs[:0]
	for _, c := range cs {
		switch c.typ {
		case "MINIMUM_ADDED", "MINIMUM_INCREASED", "EXCLUSIVE_MINIMUM_ADDED", "EXCLUSIVE_MINIMUM_INCREASED":
			if lowerOK {
				continue
			}
		case "MAXIMUM_ADDED", "MAXIMUM_DECREASED", "EXCLUSIVE_MAXIMUM_ADDED", "EXCLUSIVE_MAXIMUM_DECREASED":
			if upperOK {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// isMultiple reports whether a is an integer multiple of b (b ≠ 0).
func isMultiple(a, b *big.Rat) bool {
	return new(big.Rat).Quo(a, b).IsInt()
}

func compareEnum(o, u *node) []change {
	// Values are compared by their normalized text, which is equal
	// exactly when jsonEqual holds: keys sorted, numbers by value.
	containsAll := func(a, b []*jval) bool {
		in := make(map[string]bool, len(a))
		for _, v := range a {
			in[valueKey(v)] = true
		}
		for _, v := range b {
			if !in[valueKey(v)] {
				return false
			}
		}
		return true
	}
	uHasO, oHasU := containsAll(u.values, o.values), containsAll(o.values, u.values)
	typ := "ENUM_ARRAY_CHANGED"
	switch {
	case uHasO && oHasU:
		return nil
	case uHasO:
		typ = "ENUM_ARRAY_EXTENDED"
	case oHasU:
		typ = "ENUM_ARRAY_NARROWED"
	}
	return []change{{typ: typ, path: "enum", from: valuesText(o.values), to: valuesText(u.values)}}
}

// asEnum views a const part as a one-value enum.
func asEnum(n *node) *node {
	if n.kind == kConst {
		return &node{kind: kEnum, values: []*jval{n.constVal}}
	}
	return n
}

// rebaseEnum moves enum changes to the keyword the reader uses.
func rebaseEnum(kw string, cs []change) []change {
	for i := range cs {
		cs[i].path = kw
	}
	return cs
}

func valuesText(vs []*jval) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = compact(v)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// compareCombined compares two allOf/anyOf/oneOf parts: the criterion, the
// number of distinct subschemas, and a maximum matching of original to
// update subschemas over the compatible pairs. Pairs are compared lazily,
// as the matching asks for them, each at most once.
func (d *differ) compareCombined(r *result, o, u *node) {
	crit := compareCriteria(o, u)
	if crit != "" {
		d.add(r, change{typ: crit, from: o.crit, to: u.crit})
		if crit == "COMBINED_TYPE_CHANGED" {
			return
		}
	}
	os, oids := distinct(o)
	us, uids := distinct(u)
	switch {
	case len(os) < len(us):
		if u.crit == critAll {
			d.add(r, change{typ: "PRODUCT_TYPE_EXTENDED", from: fmt.Sprint(len(os)), to: fmt.Sprint(len(us))})
		} else {
			d.add(r, change{typ: "SUM_TYPE_EXTENDED", from: fmt.Sprint(len(os)), to: fmt.Sprint(len(us))})
		}
	case len(os) > len(us):
		if o.crit == critAny || o.crit == critOne {
			d.add(r, change{typ: "SUM_TYPE_NARROWED", from: fmt.Sprint(len(os)), to: fmt.Sprint(len(us))})
		} else {
			d.add(r, change{typ: "PRODUCT_TYPE_NARROWED", from: fmt.Sprint(len(os)), to: fmt.Sprint(len(us))})
		}
	}
	if d.done(r) {
		return
	}
	edges := newEdgeCache(len(os), len(us))
	probe := func(i, j int) bool {
		if !d.work.tick() {
			return false
		}
		if ok, known := edges.get(i, j); known {
			return ok
		}
		sub := d.probe(os[i], us[j])
		ok := d.ok(sub) && !d.work.over
		edges.set(i, j, ok, sub)
		return ok
	}
	// Rows that stay unmatched stay so (Kuhn); once more than the
	// surplus of rows are, the verdict is known.
	giveUp := len(os) - min(len(os), len(us))
	if !d.verdict {
		giveUp = len(os)
	}
	match := maxMatching(newPreference(os, oids, us, uids), probe, giveUp)
	matched := 0
	for i, j := range match {
		if j >= 0 {
			matched++
			d.nest(r, fmt.Sprintf("%s/%d", o.crit, i), edges.ok[i*edges.nr+j])
		}
	}
	if matched < min(len(os), len(us)) {
		d.add(r, change{typ: "COMBINED_TYPE_SUBSCHEMAS_CHANGED", from: describe(o), to: describe(u)})
	}
}

// compareCriteria names the change of combination criterion: none, a
// widening (to anyOf, or from a single subschema), or an incompatible one.
func compareCriteria(o, u *node) string {
	oc, uc := o.crit, u.crit
	single := func(n *node) bool { return len(n.subs) == 1 }
	switch {
	case oc == uc:
		return ""
	case uc == critAny,
		single(o) && single(u),
		single(o) && uc == critOne,
		single(u) && oc == critAll:
		return "COMBINED_TYPE_EXTENDED"
	}
	return "COMBINED_TYPE_CHANGED"
}

// distinct returns a combination's subschemas without those equal to an
// earlier one, and their identities.
func distinct(n *node) ([]*node, []string) {
	out := make([]*node, 0, len(n.subs))
	ids := make([]string, 0, len(n.subs))
	seen := make(map[string]bool, len(n.subs))
	for i, s := range n.subs {
		if !seen[n.subIDs[i]] {
			seen[n.subIDs[i]] = true
			out = append(out, s)
			ids = append(ids, n.subIDs[i])
		}
	}
	return out, ids
}

// edgeCache remembers which pairs of two combinations' subschemas were
// compared and whether they are compatible: a dense table of states when
// it is small, a map otherwise (bounded by the work budget, since every
// entry is a comparison); ok holds the results of compatible pairs that
// have differences.
type edgeCache struct {
	nr     int
	dense  []uint8 // 0 unknown, 1 compatible, 2 not
	sparse map[int]uint8
	ok     map[int]*result
}

// denseEdges is the largest table of pair states kept as a slice (one
// byte per pair).
const denseEdges = 1 << 22

func newEdgeCache(nl, nr int) *edgeCache {
	c := &edgeCache{nr: nr, ok: map[int]*result{}}
	if nl*nr <= denseEdges {
		c.dense = make([]uint8, nl*nr)
	} else {
		c.sparse = map[int]uint8{}
	}
	return c
}

func (c *edgeCache) get(i, j int) (ok, known bool) {
	var st uint8
	if c.dense != nil {
		st = c.dense[i*c.nr+j]
	} else {
		st = c.sparse[i*c.nr+j]
	}
	return st == 1, st != 0
}

func (c *edgeCache) set(i, j int, ok bool, r *result) {
	st := uint8(2)
	if ok {
		st = 1
		if r != nil {
			c.ok[i*c.nr+j] = r
		}
	}
	if c.dense != nil {
		c.dense[i*c.nr+j] = st
	} else {
		c.sparse[i*c.nr+j] = st
	}
}

// preference is the order in which each original subschema tries the
// update's: first the one with the same text, then those of the same
// shape (kind, and property names for objects), then the others in
// order. Unchanged or lightly changed alternatives thus find their
// partner at once however they are reordered; only which of several
// maximum matchings is found depends on it, not its size.
type preference struct {
	nl, nr     int
	same       []int         // same[i]: the right vertex with i's text, or -1
	rowShape   []int         // shape id of each left vertex
	colShape   []int         // shape id of each right vertex
	colByShape map[int][]int // right vertices by shape id, in order
}

func newPreference(os []*node, oids []string, us []*node, uids []string) *preference {
	p := &preference{nl: len(os), nr: len(us), same: make([]int, len(os)), rowShape: make([]int, len(os)),
		colShape: make([]int, len(us)), colByShape: map[int][]int{}}
	byID := make(map[string]int, len(uids))
	for j, id := range uids {
		byID[id] = j
	}
	shapes := map[string]int{}
	shapeID := func(n *node) int {
		k := shape(n)
		id, ok := shapes[k]
		if !ok {
			id = len(shapes)
			shapes[k] = id
		}
		return id
	}
	for j, n := range us {
		p.colShape[j] = shapeID(n)
		p.colByShape[p.colShape[j]] = append(p.colByShape[p.colShape[j]], j)
	}
	for i, n := range os {
		p.same[i] = -1
		if j, ok := byID[oids[i]]; ok {
			p.same[i] = j
		}
		p.rowShape[i] = shapeID(n)
	}
	return p
}

// each calls f with the right vertices in i's order until f returns true.
func (p *preference) each(i int, f func(j int) bool) bool {
	same := p.same[i]
	if same >= 0 && f(same) {
		return true
	}
	for _, j := range p.colByShape[p.rowShape[i]] {
		if j != same && f(j) {
			return true
		}
	}
	for j := 0; j < p.nr; j++ {
		if j != same && p.colShape[j] != p.rowShape[i] && f(j) {
			return true
		}
	}
	return false
}

// shape is a cheap summary of a part that a compatible partner usually
// shares: its kind, and its property names for an object.
func shape(n *node) string {
	n = deref(n)
	switch n.kind {
	case kObject:
		names := make([]string, len(n.props))
		for i, p := range n.props {
			names[i] = p.name
		}
		slices.Sort(names)
		return "object:" + strings.Join(names, "\x00")
	case kCombined:
		return "combined:" + n.crit + ":" + n.key
	}
	return kindNames[n.kind]
}

// maxMatching returns, for each left vertex, its matched right vertex or
// -1: a maximum bipartite matching by augmenting paths (Kuhn), which asks
// edge(i, j) for an edge only when it needs it. Left vertices are tried in
// order, right vertices in the preference's order.
//
// The search stops once more than giveUp left vertices stay unmatched (a
// left vertex no augmenting path reaches is never matched later).
func maxMatching(p *preference, edge func(i, j int) bool, giveUp int) []int {
	matchL := make([]int, p.nl)
	matchR := make([]int, p.nr)
	for i := range matchL {
		matchL[i] = -1
	}
	for j := range matchR {
		matchR[j] = -1
	}
	// seen[j] == stamp marks the right vertices visited by the current
	// search, so no per-search allocation is needed.
	seen := make([]int, p.nr)
	stamp := 0
	var try func(i int) bool
	try = func(i int) bool {
		return p.each(i, func(j int) bool {
			if seen[j] == stamp || !edge(i, j) {
				return false
			}
			seen[j] = stamp
			if matchR[j] < 0 || try(matchR[j]) {
				matchL[i], matchR[j] = j, i
				return true
			}
			return false
		})
	}
	unmatched := 0
	for i := 0; i < p.nl && unmatched <= giveUp; i++ {
		stamp++
		if !try(i) {
			unmatched++
		}
	}
	return matchL
}

func (d *differ) compareObject(r *result, o, u *node) {
	add := func(typ, path, from, to string) {
		d.add(r, change{typ: typ, path: path, from: from, to: to})
	}

	// required, for properties both declare
	for _, p := range o.props {
		up := u.prop(p.name)
		if up == nil {
			continue
		}
		path := "required/" + escapeToken(p.name)
		oReq, uReq := o.isRequired(p.name), u.isRequired(p.name)
		switch {
		case oReq && !uReq:
			add("REQUIRED_ATTRIBUTE_REMOVED", path, p.name, p.name)
		case !oReq && uReq && up.def != nil:
			add("REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED", path, p.name, p.name)
		case !oReq && uReq:
			add("REQUIRED_ATTRIBUTE_ADDED", path, p.name, p.name)
		}
	}

	// properties: the original's, then those only the update declares
	for k, no := 0, len(o.props); k < no+len(u.props); k++ {
		var name string
		if k < no {
			name = o.props[k].name
		} else if name = u.props[k-no].name; o.prop(name) != nil {
			continue
		}
		if d.done(r) {
			return
		}
		path := "properties/" + escapeToken(name)
		op, up := o.prop(name), u.prop(name)
		switch {
		case up == nil:
			// Only the update's content model matters: a property may go
			// when the update still accepts it.
			if isOpenObject(u) {
				add("PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL", path, name, name)
			} else if partial := partialObject(u, name); partial != nil {
				sub := d.compare(op, partial)
				d.nest(r, path, sub)
				if d.ok(sub) {
					add("PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", path, name, name)
				} else {
					add("PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", path, name, name)
				}
			} else if op.kind == kFalse {
				add("PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL", path, name, name)
			} else {
				add("PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", path, name, name)
			}
		case op == nil:
			// Only the original's content model matters: a property may
			// come when the original could not have carried it freely.
			if isOpenObject(o) {
				switch {
				case up.kind == kEmpty:
					add("PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL", path, name, name)
				case u.isRequired(name) && up.def != nil:
					add("REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL", path, name, name)
				case u.isRequired(name):
					add("REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", path, name, name)
				default:
					add("OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", path, name, name)
				}
				continue
			}
			if partial := partialObject(o, name); partial != nil {
				sub := d.compare(partial, up)
				d.nest(r, path, sub)
				if d.ok(sub) {
					add("PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", path, name, name)
				} else {
					add("PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", path, name, name)
				}
			}
			switch {
			case u.isRequired(name) && up.def != nil:
				add("REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL", path, name, name)
			case u.isRequired(name):
				add("REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", path, name, name)
			default:
				add("OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", path, name, name)
			}
		default:
			d.nest(r, path, d.compare(op, up))
		}
	}

	// dependencies: property names
	for _, name := range unionDepNames(o.propDeps, u.propDeps) {
		path := "dependencies/" + escapeToken(name)
		od, oHas := o.propDepIdx[name]
		ud, uHas := u.propDepIdx[name]
		from, to := strings.Join(od, ","), strings.Join(ud, ",")
		switch {
		case !uHas:
			add("DEPENDENCY_ARRAY_REMOVED", path, from, "(none)")
		case !oHas:
			add("DEPENDENCY_ARRAY_ADDED", path, "(none)", to)
		default:
			uo, ou := subset(od, ud), subset(ud, od)
			switch {
			case uo && ou:
			case uo:
				add("DEPENDENCY_ARRAY_EXTENDED", path, from, to)
			case ou:
				add("DEPENDENCY_ARRAY_NARROWED", path, from, to)
			default:
				add("DEPENDENCY_ARRAY_CHANGED", path, from, to)
			}
		}
	}
	// dependencies: schemas
	for _, name := range unionNames(o.schemaDeps, u.schemaDeps) {
		if d.done(r) {
			return
		}
		path := "dependencies/" + escapeToken(name)
		os, us := o.schemaDepIdx[name], u.schemaDepIdx[name]
		switch {
		case us == nil:
			add("DEPENDENCY_SCHEMA_REMOVED", path, describe(os), "(none)")
		case os == nil:
			add("DEPENDENCY_SCHEMA_ADDED", path, "(none)", describe(us))
		default:
			d.nest(r, path, d.compare(os, us))
		}
	}

	if d.done(r) {
		return
	}
	// additionalProperties
	switch {
	case o.addlPermit != u.addlPermit:
		if u.addlPermit {
			add("ADDITIONAL_PROPERTIES_ADDED", "additionalProperties", "false", addlText(u))
		} else {
			add("ADDITIONAL_PROPERTIES_REMOVED", "additionalProperties", addlText(o), "false")
		}
	case o.addlSchema == nil && u.addlSchema != nil:
		add("ADDITIONAL_PROPERTIES_NARROWED", "additionalProperties", addlText(o), addlText(u))
	case o.addlSchema != nil && u.addlSchema == nil:
		add("ADDITIONAL_PROPERTIES_EXTENDED", "additionalProperties", addlText(o), addlText(u))
	case o.addlSchema != nil:
		d.nest(r, "additionalProperties", d.compare(o.addlSchema, u.addlSchema))
	}

	// unevaluatedProperties
	d.compareUnevaluated(r, "unevaluatedProperties", o.uneval, u.uneval,
		"UNEVALUATED_PROPERTIES_ADDED", "UNEVALUATED_PROPERTIES_REMOVED",
		"UNEVALUATED_PROPERTIES_EXTENDED", "UNEVALUATED_PROPERTIES_NARROWED")

	d.addAll(r, intChange("maxProperties", o.maxProps, u.maxProps,
		"MAX_PROPERTIES_ADDED", "MAX_PROPERTIES_REMOVED", "MAX_PROPERTIES_INCREASED", "MAX_PROPERTIES_DECREASED"))
	d.addAll(r, intChange("minProperties", o.minProps, u.minProps,
		"MIN_PROPERTIES_ADDED", "MIN_PROPERTIES_REMOVED", "MIN_PROPERTIES_INCREASED", "MIN_PROPERTIES_DECREASED"))
}

func addlText(n *node) string {
	switch {
	case !n.addlPermit:
		return "false"
	case n.addlSchema != nil:
		return describe(n.addlSchema)
	}
	return "true"
}

// compareUnevaluated compares unevaluatedProperties or unevaluatedItems.
func (d *differ) compareUnevaluated(r *result, kw string, o, u *node, added, removed, extended, narrowed string) {
	c := func(typ string) {
		d.add(r, change{typ: typ, path: kw, from: unevalText(o), to: unevalText(u)})
	}
	switch {
	case o == nil && u == nil:
	case o == nil:
		if u.kind == kFalse {
			c(removed)
		} else {
			c(narrowed)
		}
	case u == nil:
		if o.kind == kFalse {
			c(added)
		} else {
			c(extended)
		}
	case o.kind == kFalse && u.kind != kFalse:
		c(added)
	case o.kind != kFalse && u.kind == kFalse:
		c(removed)
	case o.kind == kEmpty && u.kind != kEmpty:
		c(narrowed)
	case o.kind != kEmpty && u.kind == kEmpty:
		c(extended)
	default:
		d.nest(r, kw, d.compare(o, u))
	}
}

func unevalText(n *node) string {
	if n == nil {
		return "(none)"
	}
	return describe(n)
}

// isOpenObject reports Confluent's "open content model": any additional
// property is allowed (additionalProperties absent or true, no
// patternProperties, unevaluatedProperties absent or true).
func isOpenObject(n *node) bool {
	if !n.addlPermit || n.addlSchema != nil || len(n.patterns) > 0 {
		return false
	}
	return n.uneval == nil || n.uneval.kind == kEmpty
}

// partialObject returns the schema a "partially open" content model gives
// an undeclared property: the first matching patternProperties schema, the
// additionalProperties schema, or the unevaluatedProperties schema.
func partialObject(n *node, name string) *node {
	for _, p := range n.patterns {
		if p.re != nil && p.re.MatchString(name) {
			return p.n
		}
	}
	if n.addlSchema != nil {
		return n.addlSchema
	}
	if n.addlPermit && n.uneval != nil && n.uneval.kind != kFalse && n.uneval.kind != kEmpty {
		return n.uneval
	}
	return nil
}

func (d *differ) compareArray(r *result, o, u *node) {
	add := func(typ, path, from, to string) {
		d.add(r, change{typ: typ, path: path, from: from, to: to})
	}
	d.nest(r, "items", d.compare(o.allItems, u.allItems))

	n := min(len(o.tuple), len(u.tuple))
	for i := 0; i < n; i++ {
		if d.done(r) {
			return
		}
		d.nest(r, fmt.Sprintf("items/%d", i), d.compare(o.tuple[i], u.tuple[i]))
	}
	for i := n; i < len(o.tuple); i++ {
		if d.done(r) {
			return
		}
		path := fmt.Sprintf("items/%d", i)
		switch partial := partialArray(u); {
		case isOpenArray(u):
			add("ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL", path, describe(o.tuple[i]), "(none)")
		case partial != nil:
			sub := d.compare(o.tuple[i], partial)
			d.nest(r, path, sub)
			if d.ok(sub) {
				add("ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", path, describe(o.tuple[i]), describe(partial))
			} else {
				add("ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", path, describe(o.tuple[i]), describe(partial))
			}
		case o.tuple[i].kind == kFalse:
			add("ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL", path, "false", "(none)")
		default:
			add("ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL", path, describe(o.tuple[i]), "(none)")
		}
	}
	for i := n; i < len(u.tuple); i++ {
		if d.done(r) {
			return
		}
		path := fmt.Sprintf("items/%d", i)
		switch partial := partialArray(o); {
		case isOpenArray(o):
			if u.tuple[i].kind == kEmpty {
				add("ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL", path, "(none)", describe(u.tuple[i]))
			} else {
				add("ITEM_ADDED_TO_OPEN_CONTENT_MODEL", path, "(none)", describe(u.tuple[i]))
			}
		case partial != nil:
			sub := d.compare(partial, u.tuple[i])
			d.nest(r, path, sub)
			if d.ok(sub) {
				add("ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", path, describe(partial), describe(u.tuple[i]))
			} else {
				add("ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", path, describe(partial), describe(u.tuple[i]))
			}
		default:
			add("ITEM_ADDED_TO_CLOSED_CONTENT_MODEL", path, "(none)", describe(u.tuple[i]))
		}
	}

	switch {
	case o.addlItemsPermit != u.addlItemsPermit:
		if o.addlItemsPermit {
			add("ADDITIONAL_ITEMS_REMOVED", "additionalItems", addlItemsText(o), "false")
		} else {
			add("ADDITIONAL_ITEMS_ADDED", "additionalItems", "false", addlItemsText(u))
		}
	case o.addlItemsSchema == nil && u.addlItemsSchema != nil:
		add("ADDITIONAL_ITEMS_NARROWED", "additionalItems", addlItemsText(o), addlItemsText(u))
	case o.addlItemsSchema != nil && u.addlItemsSchema == nil:
		add("ADDITIONAL_ITEMS_EXTENDED", "additionalItems", addlItemsText(o), addlItemsText(u))
	case o.addlItemsSchema != nil:
		d.nest(r, "additionalItems", d.compare(o.addlItemsSchema, u.addlItemsSchema))
	}

	d.compareUnevaluated(r, "unevaluatedItems", o.unevalItems, u.unevalItems,
		"UNEVALUATED_ITEMS_ADDED", "UNEVALUATED_ITEMS_REMOVED",
		"UNEVALUATED_ITEMS_EXTENDED", "UNEVALUATED_ITEMS_NARROWED")

	d.addAll(r, intChange("maxItems", o.maxItems, u.maxItems,
		"MAX_ITEMS_ADDED", "MAX_ITEMS_REMOVED", "MAX_ITEMS_INCREASED", "MAX_ITEMS_DECREASED"))
	d.addAll(r, intChange("minItems", o.minItems, u.minItems,
		"MIN_ITEMS_ADDED", "MIN_ITEMS_REMOVED", "MIN_ITEMS_INCREASED", "MIN_ITEMS_DECREASED"))
	if o.unique != u.unique {
		if o.unique {
			add("UNIQUE_ITEMS_REMOVED", "uniqueItems", "true", "false")
		} else {
			add("UNIQUE_ITEMS_ADDED", "uniqueItems", "false", "true")
		}
	}
	d.addAll(r, intChange("maxContains", o.maxContains, u.maxContains,
		"MAX_CONTAINS_ADDED", "MAX_CONTAINS_REMOVED", "MAX_CONTAINS_INCREASED", "MAX_CONTAINS_DECREASED"))
	d.addAll(r, intChange("minContains", o.minContains, u.minContains,
		"MIN_CONTAINS_ADDED", "MIN_CONTAINS_REMOVED", "MIN_CONTAINS_INCREASED", "MIN_CONTAINS_DECREASED"))
}

func addlItemsText(n *node) string {
	switch {
	case !n.addlItemsPermit:
		return "false"
	case n.addlItemsSchema != nil:
		return describe(n.addlItemsSchema)
	}
	return "true"
}

// isOpenArray reports whether any items may follow the tuple.
func isOpenArray(n *node) bool {
	if !n.addlItemsPermit || n.addlItemsSchema != nil {
		return false
	}
	return n.unevalItems == nil || n.unevalItems.kind == kEmpty
}

// partialArray returns the schema items after the tuple must match.
func partialArray(n *node) *node {
	if n.addlItemsSchema != nil {
		return n.addlItemsSchema
	}
	if n.addlItemsPermit && n.unevalItems != nil && n.unevalItems.kind != kFalse && n.unevalItems.kind != kEmpty {
		return n.unevalItems
	}
	return nil
}

// unionNames lists the names of a, then those only in b.
func unionNames(a, b []namedNode) []string {
	var out []string
	seen := map[string]bool{}
	for _, list := range [][]namedNode{a, b} {
		for _, p := range list {
			if !seen[p.name] {
				seen[p.name] = true
				out = append(out, p.name)
			}
		}
	}
	return out
}

func unionDepNames(a, b []namedStrings) []string {
	var out []string
	seen := map[string]bool{}
	for _, list := range [][]namedStrings{a, b} {
		for _, p := range list {
			if !seen[p.name] {
				seen[p.name] = true
				out = append(out, p.name)
			}
		}
	}
	return out
}

// subset reports whether every name of a is in b.
func subset(a, b []string) bool {
	in := make(map[string]bool, len(b))
	for _, y := range b {
		in[y] = true
	}
	for _, x := range a {
		if !in[x] {
			return false
		}
	}
	return true
}

// describe names a part for messages: its type, or its keyword.
func describe(n *node) string { return describeDepth(n, 0) }

func describeDepth(n *node, depth int) string {
	if n == nil {
		return "(none)"
	}
	n = deref(n)
	list := func(subs []*node, sep string) string {
		var ps []string
		for _, s := range subs {
			ps = append(ps, describeDepth(s, depth+1))
		}
		return strings.Join(ps, sep)
	}
	switch n.kind {
	case kNumber:
		if n.integer {
			return "integer"
		}
		return "number"
	case kCombined:
		switch {
		case depth > 1 || len(n.subs) > 4:
			return fmt.Sprintf("%s of %s", n.crit, rule.Plural(len(n.subs), "subschema"))
		case n.typeArray:
			return "[" + list(n.subs, ", ") + "]"
		case n.key == "|parts":
			// A schema object mixing keyword families (e.g. type and
			// enum): name the parts.
			return list(n.subs, " with ")
		}
		return n.crit + " [" + list(n.subs, ", ") + "]"
	case kEnum:
		return "enum " + valuesText(n.values)
	case kConst:
		return "const " + compact(n.constVal)
	}
	return kindNames[n.kind]
}

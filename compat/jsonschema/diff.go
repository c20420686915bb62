package jsonschema

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
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

func rebase(prefix string, cs []change) []change {
	if prefix == "" {
		return cs
	}
	out := make([]change, len(cs))
	for i, c := range cs {
		c.path = join(prefix, c.path)
		out[i] = c
	}
	return out
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "/" + b
}

type pair struct{ o, u *node }

// differ compares two part graphs the way Confluent's SchemaDiff does:
// every pair of parts is compared once (memo); a pair met again while it is
// being compared is a recursive cycle, assumed compatible unless an earlier
// pass found it incompatible; passes repeat until that assumption no longer
// changes the result (Confluent's fixpoint over its "incompatible seed").
type differ struct {
	compatible map[string]bool
	memo       map[pair][]change
	inProgress map[pair]bool
	seed       map[pair][]change
	optimistic bool
}

// diff lists the differences from original to update.
func diff(compatible map[string]bool, original, update *node) []change {
	var seed map[pair][]change
	for pass := 0; ; pass++ {
		d := &differ{compatible: compatible, memo: map[pair][]change{}, inProgress: map[pair]bool{}, seed: seed}
		out := d.compare(original, update)
		next := map[pair][]change{}
		for k, v := range d.memo {
			if !d.ok(v) {
				next[k] = v
			}
		}
		if !d.optimistic || sameKeys(next, seed) || pass > 64 {
			return out
		}
		seed = next
	}
}

func sameKeys(a, b map[pair][]change) bool {
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

// ok reports whether every change is compatible under the policy.
func (d *differ) ok(cs []change) bool {
	for _, c := range cs {
		if !d.compatible[c.typ] {
			return false
		}
	}
	return true
}

// compare returns the differences between two parts, relative to them.
func (d *differ) compare(o, u *node) []change {
	switch {
	case o == nil && u == nil:
		return nil
	case o == nil:
		return []change{{typ: "SCHEMA_ADDED", to: describe(u)}}
	case u == nil:
		return []change{{typ: "SCHEMA_REMOVED", from: describe(o)}}
	}
	o, u = deref(o), deref(u)
	key := pair{o, u}
	if cs, ok := d.memo[key]; ok {
		return cs
	}
	if d.inProgress[key] {
		if cs, ok := d.seed[key]; ok {
			return cs
		}
		d.optimistic = true
		return nil
	}
	d.inProgress[key] = true
	cs := d.compareTypes(o, u)
	delete(d.inProgress, key)
	d.memo[key] = cs
	return cs
}

func (d *differ) compareTypes(o, u *node) []change {
	var out []change
	add := func(typ, path, from, to string) {
		out = append(out, change{typ: typ, path: path, from: from, to: to})
	}
	if o.kind != kCombined && u.kind == kCombined {
		if len(u.subs) == 1 {
			if sub := d.compare(o, u.subs[0]); d.ok(sub) {
				return sub
			}
		} else if u.crit == critAny || u.crit == critOne {
			for _, s := range u.subs {
				if sub := d.compare(o, s); d.ok(sub) {
					out = append(out, sub...)
					add("SUM_TYPE_EXTENDED", "", describe(o), describe(u))
					return out
				}
			}
		}
	} else if o.kind == kCombined && u.kind != kCombined {
		if len(o.subs) == 1 {
			if sub := d.compare(o.subs[0], u); d.ok(sub) {
				return sub
			}
		} else if o.crit == critAll {
			for _, s := range o.subs {
				if sub := d.compare(s, u); d.ok(sub) {
					out = append(out, sub...)
					add("PRODUCT_TYPE_NARROWED", "", describe(o), describe(u))
					return out
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
		return rebaseEnum(kw, compareEnum(asEnum(o), asEnum(u)))
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
		return out
	}

	if !sameString(o.id, u.id) {
		add("ID_CHANGED", "", deref0(o.id), deref0(u.id))
	}
	if !sameString(o.title, u.title) {
		add("TITLE_CHANGED", "", deref0(o.title), deref0(u.title))
	}
	if !sameString(o.description, u.description) {
		add("DESCRIPTION_CHANGED", "", deref0(o.description), deref0(u.description))
	}
	if (o.def == nil) != (u.def == nil) || (o.def != nil && !jsonEqual(o.def, u.def)) {
		add("DEFAULT_CHANGED", "", valueText(o.def), valueText(u.def))
	}

	switch o.kind {
	case kString:
		out = append(out, compareString(o, u)...)
	case kNumber:
		out = append(out, compareNumber(o, u)...)
	case kConst:
		if !jsonEqual(o.constVal, u.constVal) {
			add("ENUM_ARRAY_CHANGED", "const", compact(o.constVal), compact(u.constVal))
		}
	case kEnum:
		out = append(out, compareEnum(o, u)...)
	case kCombined:
		out = append(out, d.compareCombined(o, u)...)
	case kNot:
		// A reader's "not" accepts more when its subschema accepts less:
		// compare the subschemas the other way round.
		if sub := d.compare(u.not, o.not); d.ok(sub) {
			add("NOT_TYPE_NARROWED", "not", describe(o.not), describe(u.not))
		} else {
			add("NOT_TYPE_EXTENDED", "not", describe(o.not), describe(u.not))
		}
	case kObject:
		out = append(out, d.compareObject(o, u)...)
	case kArray:
		out = append(out, d.compareArray(o, u)...)
	}
	return out
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
	case o.pattern != nil && *o.pattern != *u.pattern:
		out = append(out, change{typ: "PATTERN_CHANGED", path: "pattern", from: *o.pattern, to: *u.pattern})
	}
	return out
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
	has := func(list []*jval, v *jval) bool {
		for _, e := range list {
			if jsonEqual(e, v) {
				return true
			}
		}
		return false
	}
	containsAll := func(a, b []*jval) bool {
		for _, v := range b {
			if !has(a, v) {
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
// update subschemas over the compatible pairs.
func (d *differ) compareCombined(o, u *node) []change {
	var out []change
	crit := compareCriteria(o, u)
	if crit != "" {
		out = append(out, change{typ: crit, from: o.crit, to: u.crit})
		if crit == "COMBINED_TYPE_CHANGED" {
			return out
		}
	}
	os, us := distinct(o), distinct(u)
	switch {
	case len(os) < len(us):
		if u.crit == critAll {
			out = append(out, change{typ: "PRODUCT_TYPE_EXTENDED", from: fmt.Sprint(len(os)), to: fmt.Sprint(len(us))})
		} else {
			out = append(out, change{typ: "SUM_TYPE_EXTENDED", from: fmt.Sprint(len(os)), to: fmt.Sprint(len(us))})
		}
	case len(os) > len(us):
		if o.crit == critAny || o.crit == critOne {
			out = append(out, change{typ: "SUM_TYPE_NARROWED", from: fmt.Sprint(len(os)), to: fmt.Sprint(len(us))})
		} else {
			out = append(out, change{typ: "PRODUCT_TYPE_NARROWED", from: fmt.Sprint(len(os)), to: fmt.Sprint(len(us))})
		}
	}
	// edges[i][j] holds the differences of a compatible (os[i], us[j]).
	edges := make([]map[int][]change, len(os))
	for i, a := range os {
		prefix := fmt.Sprintf("%s/%d", o.crit, i)
		for j, b := range us {
			if sub := d.compare(a, b); d.ok(sub) {
				if edges[i] == nil {
					edges[i] = map[int][]change{}
				}
				edges[i][j] = rebase(prefix, sub)
			}
		}
	}
	match := maxMatching(len(os), len(us), edges)
	matched := 0
	for i, j := range match {
		if j >= 0 {
			matched++
			out = append(out, edges[i][j]...)
		}
	}
	if matched < min(len(os), len(us)) {
		out = append(out, change{typ: "COMBINED_TYPE_SUBSCHEMAS_CHANGED", from: describe(o), to: describe(u)})
	}
	return out
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
// earlier one.
func distinct(n *node) []*node {
	out := make([]*node, 0, len(n.subs))
	for i, s := range n.subs {
		if !slices.Contains(n.subIDs[:i], n.subIDs[i]) {
			out = append(out, s)
		}
	}
	return out
}

// maxMatching returns, for each left vertex, its matched right vertex or
// -1: a maximum bipartite matching (augmenting paths).
func maxMatching(nl, nr int, edges []map[int][]change) []int {
	matchL := make([]int, nl)
	matchR := make([]int, nr)
	for i := range matchL {
		matchL[i] = -1
	}
	for j := range matchR {
		matchR[j] = -1
	}
	var try func(i int, seen []bool) bool
	try = func(i int, seen []bool) bool {
		for j := 0; j < nr; j++ {
			if _, ok := edges[i][j]; !ok || seen[j] {
				continue
			}
			seen[j] = true
			if matchR[j] < 0 || try(matchR[j], seen) {
				matchL[i], matchR[j] = j, i
				return true
			}
		}
		return false
	}
	for i := 0; i < nl; i++ {
		try(i, make([]bool, nr))
	}
	return matchL
}

func (d *differ) compareObject(o, u *node) []change {
	var out []change
	add := func(typ, path, from, to string) {
		out = append(out, change{typ: typ, path: path, from: from, to: to})
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
	names := make([]string, 0, len(o.props)+len(u.props))
	for _, p := range o.props {
		names = append(names, p.name)
	}
	for _, p := range u.props {
		if o.prop(p.name) == nil {
			names = append(names, p.name)
		}
	}
	for _, name := range names {
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
				out = append(out, rebase(path, sub)...)
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
				out = append(out, rebase(path, sub)...)
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
			out = append(out, rebase(path, d.compare(op, up))...)
		}
	}

	// dependencies: property names
	for _, name := range unionDepNames(o.propDeps, u.propDeps) {
		path := "dependencies/" + escapeToken(name)
		od, oHas := depNames(o.propDeps, name)
		ud, uHas := depNames(u.propDeps, name)
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
		path := "dependencies/" + escapeToken(name)
		os, us := named(o.schemaDeps, name), named(u.schemaDeps, name)
		switch {
		case us == nil:
			add("DEPENDENCY_SCHEMA_REMOVED", path, describe(os), "(none)")
		case os == nil:
			add("DEPENDENCY_SCHEMA_ADDED", path, "(none)", describe(us))
		default:
			out = append(out, rebase(path, d.compare(os, us))...)
		}
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
		out = append(out, rebase("additionalProperties", d.compare(o.addlSchema, u.addlSchema))...)
	}

	// unevaluatedProperties
	out = append(out, d.compareUnevaluated("unevaluatedProperties", o.uneval, u.uneval,
		"UNEVALUATED_PROPERTIES_ADDED", "UNEVALUATED_PROPERTIES_REMOVED",
		"UNEVALUATED_PROPERTIES_EXTENDED", "UNEVALUATED_PROPERTIES_NARROWED")...)

	out = append(out, intChange("maxProperties", o.maxProps, u.maxProps,
		"MAX_PROPERTIES_ADDED", "MAX_PROPERTIES_REMOVED", "MAX_PROPERTIES_INCREASED", "MAX_PROPERTIES_DECREASED")...)
	out = append(out, intChange("minProperties", o.minProps, u.minProps,
		"MIN_PROPERTIES_ADDED", "MIN_PROPERTIES_REMOVED", "MIN_PROPERTIES_INCREASED", "MIN_PROPERTIES_DECREASED")...)
	return out
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
func (d *differ) compareUnevaluated(kw string, o, u *node, added, removed, extended, narrowed string) []change {
	c := func(typ string) []change {
		return []change{{typ: typ, path: kw, from: unevalText(o), to: unevalText(u)}}
	}
	switch {
	case o == nil && u == nil:
		return nil
	case o == nil:
		if u.kind == kFalse {
			return c(removed)
		}
		return c(narrowed)
	case u == nil:
		if o.kind == kFalse {
			return c(added)
		}
		return c(extended)
	case o.kind == kFalse && u.kind != kFalse:
		return c(added)
	case o.kind != kFalse && u.kind == kFalse:
		return c(removed)
	case o.kind == kEmpty && u.kind != kEmpty:
		return c(narrowed)
	case o.kind != kEmpty && u.kind == kEmpty:
		return c(extended)
	}
	return rebase(kw, d.compare(o, u))
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

func (d *differ) compareArray(o, u *node) []change {
	var out []change
	add := func(typ, path, from, to string) {
		out = append(out, change{typ: typ, path: path, from: from, to: to})
	}
	out = append(out, rebase("items", d.compare(o.allItems, u.allItems))...)

	n := min(len(o.tuple), len(u.tuple))
	for i := 0; i < n; i++ {
		out = append(out, rebase(fmt.Sprintf("items/%d", i), d.compare(o.tuple[i], u.tuple[i]))...)
	}
	for i := n; i < len(o.tuple); i++ {
		path := fmt.Sprintf("items/%d", i)
		switch partial := partialArray(u); {
		case isOpenArray(u):
			add("ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL", path, describe(o.tuple[i]), "(none)")
		case partial != nil:
			sub := d.compare(o.tuple[i], partial)
			out = append(out, rebase(path, sub)...)
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
			out = append(out, rebase(path, sub)...)
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
		out = append(out, rebase("additionalItems", d.compare(o.addlItemsSchema, u.addlItemsSchema))...)
	}

	out = append(out, d.compareUnevaluated("unevaluatedItems", o.unevalItems, u.unevalItems,
		"UNEVALUATED_ITEMS_ADDED", "UNEVALUATED_ITEMS_REMOVED",
		"UNEVALUATED_ITEMS_EXTENDED", "UNEVALUATED_ITEMS_NARROWED")...)

	out = append(out, intChange("maxItems", o.maxItems, u.maxItems,
		"MAX_ITEMS_ADDED", "MAX_ITEMS_REMOVED", "MAX_ITEMS_INCREASED", "MAX_ITEMS_DECREASED")...)
	out = append(out, intChange("minItems", o.minItems, u.minItems,
		"MIN_ITEMS_ADDED", "MIN_ITEMS_REMOVED", "MIN_ITEMS_INCREASED", "MIN_ITEMS_DECREASED")...)
	if o.unique != u.unique {
		if o.unique {
			add("UNIQUE_ITEMS_REMOVED", "uniqueItems", "true", "false")
		} else {
			add("UNIQUE_ITEMS_ADDED", "uniqueItems", "false", "true")
		}
	}
	out = append(out, intChange("maxContains", o.maxContains, u.maxContains,
		"MAX_CONTAINS_ADDED", "MAX_CONTAINS_REMOVED", "MAX_CONTAINS_INCREASED", "MAX_CONTAINS_DECREASED")...)
	out = append(out, intChange("minContains", o.minContains, u.minContains,
		"MIN_CONTAINS_ADDED", "MIN_CONTAINS_REMOVED", "MIN_CONTAINS_INCREASED", "MIN_CONTAINS_DECREASED")...)
	return out
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

func named(list []namedNode, name string) *node {
	for _, p := range list {
		if p.name == name {
			return p.n
		}
	}
	return nil
}

func depNames(list []namedStrings, name string) ([]string, bool) {
	for _, p := range list {
		if p.name == name {
			return p.names, true
		}
	}
	return nil, false
}

// subset reports whether every name of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			if x == y {
				found = true
				break
			}
		}
		if !found {
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
			return fmt.Sprintf("%s of %d subschemas", n.crit, len(n.subs))
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

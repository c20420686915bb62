package evidence

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	hamba "github.com/hamba/avro/v2"

	"github.com/charter-dev/charter/compat/avro"
)

// avroEngine generates Avro events with the writer schema and reads them
// with hamba's resolution of the reader against the writer.
//
// When hamba resolves the two whole schemas, every event is read with that
// resolution. When it does not (a union branch or an enum symbol the
// reader lacks, say, or a writer union hamba cannot resolve such as
// ["int","long"] read as "long"), each event is encoded with the writer
// pruned to the union branches and enum symbols the event uses, and that
// pruned writer is resolved: the specification resolves datum by datum,
// so an event that only uses what the reader reads is read, and one that
// uses a missing branch or symbol is refused with hamba's error.
type avroEngine struct {
	// ctx bounds hamba's resolutions, which do not look at it (see
	// resolveCtx).
	ctx            context.Context
	reader, writer *avro.Schema
	full           hamba.Schema // resolution of the whole pair, nil when hamba refuses it
	fullErr        error
	fullAPI        hamba.API
	writerAPI      hamba.API
	pruned         map[string]*prunedPair
	// readerSymbols are the symbols of the reader's enums by simple
	// name (and alias): a pruned writer keeps those, so that events
	// differ in their pruned writer only by the symbols the reader may
	// lack, and few pruned writers are parsed.
	readerSymbols map[string]map[string]bool
	// readerDefaults marks the reader's enums (by simple name and
	// alias) that have a default.
	readerDefaults map[string]bool
	// enumList and unionList are the writer's enums and unions, in the
	// order a walk meets them (prune's key).
	enumList  []*hamba.EnumSchema
	unionList []*hamba.UnionSchema
	// recursive is a writer that uses a record inside itself, read
	// with the writer unrolled to each event.
	recursive     bool
	unrolledCache map[string]*prunedPair
	// targets are the writer's enum symbols the reader lacks, and
	// branchTargets its union branches the reader lacks (avroGen).
	targets       map[*hamba.EnumSchema][]int
	branchTargets map[*hamba.UnionSchema][]int
}

// collectEnums records, by simple name and alias, the symbols of the
// enums of s (out) and which of those have a default (defaults).
func collectEnums(s hamba.Schema, out map[string]map[string]bool, defaults map[string]bool) {
	walkAvro(s, func(s hamba.Schema) {
		t, ok := s.(*hamba.EnumSchema)
		if !ok {
			return
		}
		for _, n := range append([]string{t.Name()}, t.Aliases()...) {
			n = simpleName(n)
			if out[n] == nil {
				out[n] = map[string]bool{}
			}
			if t.HasDefault() {
				defaults[n] = true
			}
			for _, sym := range t.Symbols() {
				out[n][sym] = true
			}
		}
	})
}

// walkAvro calls visit on s and each schema inside it, references
// resolved, before the schemas inside it and once per named type.
func walkAvro(s hamba.Schema, visit func(hamba.Schema)) {
	walkAvroSeen(s, map[string]bool{}, visit)
}

func walkAvroSeen(s hamba.Schema, seen map[string]bool, visit func(hamba.Schema)) {
	s = deref(s)
	if n, ok := s.(hamba.NamedSchema); ok {
		if seen[n.FullName()] {
			return
		}
		seen[n.FullName()] = true
	}
	visit(s)
	switch t := s.(type) {
	case *hamba.RecordSchema:
		for _, f := range t.Fields() {
			walkAvroSeen(f.Type(), seen, visit)
		}
	case *hamba.ArraySchema:
		walkAvroSeen(t.Items(), seen, visit)
	case *hamba.MapSchema:
		walkAvroSeen(t.Values(), seen, visit)
	case *hamba.UnionSchema:
		for _, b := range t.Types() {
			walkAvroSeen(b, seen, visit)
		}
	}
}

type prunedPair struct {
	writer   hamba.Schema
	api      hamba.API // encodes with writer
	resolved hamba.Schema
	rapi     hamba.API
	err      error
	// compat caches refusedPath's checks of this writer's subtrees
	// (hamba keys its cache by fingerprints, which name a named type
	// a subtree refers to without its definition: one cache per
	// writer, never shared between two).
	compat *hamba.SchemaCompatibility
}

func newAvroEngine(ctx context.Context, r, w *avro.Schema) (*avroEngine, error) {
	e := &avroEngine{ctx: ctx, reader: r, writer: w, writerAPI: w.API(), pruned: map[string]*prunedPair{}, readerSymbols: map[string]map[string]bool{},
		unrolledCache: map[string]*prunedPair{}}
	e.readerDefaults = map[string]bool{}
	collectEnums(r.Hamba(), e.readerSymbols, e.readerDefaults)
	collectPruned(w.Hamba(), &e.enumList, &e.unionList)
	e.targets = map[*hamba.EnumSchema][]int{}
	e.branchTargets = map[*hamba.UnionSchema][]int{}
	readerNames := map[string]bool{}
	collectNames(r.Hamba(), readerNames)
	for _, u := range e.unionList {
		for j, i := range unionOrder(u) {
			if n, ok := deref(u.Types()[i]).(hamba.NamedSchema); ok && !readerNames[n.FullName()] && !readerNames[n.Name()] {
				e.branchTargets[u] = append(e.branchTargets[u], j)
			}
		}
	}
	for _, en := range e.enumList {
		known, ok := e.readerSymbols[en.Name()]
		if !ok {
			continue
		}
		for i, sym := range en.Symbols() {
			if !known[sym] {
				e.targets[en] = append(e.targets[en], i)
			}
		}
	}
	// hamba's Resolve recurses without end on a recursive writer record
	// (its resolve has no guard for a type already on the path, and the
	// stack overflow is fatal): such a writer is unrolled per event
	// (avro_recursive.go) and never resolved whole.
	if e.recursive = recursive(w.Hamba(), nil, false); e.recursive {
		if recursive(w.Hamba(), nil, true) {
			return nil, fmt.Errorf("%w: an Avro writer that holds its own record in an array or a map (hamba cannot resolve it)", ErrUnsupported)
		}
		return e, nil
	}
	// hamba's resolution cannot be stopped: a pair whose resolution
	// may outlast the time bound is not started at all (its goroutine
	// would run on after the answer).
	if err := e.checkResolveCost(); err != nil {
		return nil, err
	}
	if e.enumLacksSymbol() {
		// The whole pair cannot resolve: skip hamba's attempt, which
		// costs the square of the enum's symbols, and prune per event.
		e.fullErr = errEnumLacksSymbol
		return e, nil
	}
	e.full, e.fullErr = resolveCtx(ctx, hamba.NewSchemaCompatibility(), r.Hamba(), w.Hamba())
	if e.fullErr == nil {
		e.fullAPI = avro.FreshAPI()
	}
	return e, nil
}

func (e *avroEngine) roots() int { return 1 }

// recursive reports whether s uses a named type inside itself; with
// repeated, only through an array or a map.
func recursive(s hamba.Schema, path []string, repeated bool) bool {
	return recursion(s, path, repeated, -1)
}

// recursion: repAt is the length the path had at the innermost array or
// map entered, -1 for none.
func recursion(s hamba.Schema, path []string, repeated bool, repAt int) bool {
	if ref, ok := s.(*hamba.RefSchema); ok {
		name := ref.Schema().(hamba.NamedSchema).FullName()
		for i, p := range path {
			if p == name {
				// A repetition entered after the ancestor is on
				// the recursion.
				return !repeated || repAt > i
			}
		}
		s = ref.Schema()
	}
	if n, ok := s.(hamba.NamedSchema); ok {
		path = append(path, n.FullName())
	}
	switch t := s.(type) {
	case *hamba.RecordSchema:
		for _, f := range t.Fields() {
			if recursion(f.Type(), path, repeated, repAt) {
				return true
			}
		}
	case *hamba.ArraySchema:
		return recursion(t.Items(), path, repeated, len(path))
	case *hamba.MapSchema:
		return recursion(t.Values(), path, repeated, len(path))
	case *hamba.UnionSchema:
		for _, b := range t.Types() {
			if recursion(b, path, repeated, repAt) {
				return true
			}
		}
	}
	return false
}

// avroGen generates one Avro value and records which union branches and
// enum symbols it used.
type avroGen struct {
	ch *chooser
	// targets are, per writer enum, the symbols the reader's enum of
	// that name lacks: a quarter of the events take one of them (see
	// chooser.prefer), so that a change to one symbol of thousands is
	// read with the default N.
	targets map[*hamba.EnumSchema][]int
	// branchTargets are, per writer union, the positions (in
	// unionOrder) of the named branches no type of the reader is named
	// as (nor aliased to), taken first in the same way.
	branchTargets map[*hamba.UnionSchema][]int
	unions        map[*hamba.UnionSchema]map[int]bool
	enums         map[*hamba.EnumSchema]map[string]bool
}

func (e *avroEngine) event(_ int, ch *chooser) (*observed, bool) {
	g := &avroGen{ch: ch, targets: e.targets, branchTargets: e.branchTargets, unions: map[*hamba.UnionSchema]map[int]bool{}, enums: map[*hamba.EnumSchema]map[string]bool{}}
	v, ok := g.value(e.writer.Hamba(), "", 0)
	if !ok {
		return nil, false
	}
	wschema, wapi := e.writer.Hamba(), e.writerAPI
	resolved, rapi, rerr := e.full, e.fullAPI, e.fullErr
	var compat *hamba.SchemaCompatibility
	wv := v // the value as written with wschema
	if e.recursive {
		p, uv, err := e.unrolled(g, v)
		if err != nil {
			return nil, false
		}
		wschema, wapi, wv = p.writer, p.api, uv
		resolved, rapi, rerr, compat = p.resolved, p.rapi, p.err, p.compat
	} else if e.fullErr != nil {
		// Enums first: events differ mostly in their symbols, and
		// an enum-pruned writer keeps every symbol the reader knows,
		// so few of them cover the events. When that does not
		// resolve, the event is refused for certain if it holds a
		// symbol that a reader enum without default lacks; else the
		// unions are pruned too.
		p := e.prune(g, false)
		if p.writer == nil || p.err != nil && !e.surelyRefused(g) {
			p = e.prune(g, true)
		}
		if p.writer == nil {
			return nil, false
		}
		wschema, wapi = p.writer, p.api
		resolved, rapi, rerr, compat = p.resolved, p.rapi, p.err, p.compat
	}
	if errors.Is(rerr, errAbandoned) {
		return nil, false // the time bound ended: run marks the result partial
	}
	data, err := wapi.Marshal(wschema, wv)
	if err != nil {
		return nil, false // the generator made a value the writer refuses
	}
	obs := &observed{event: func() json.RawMessage { return avroJSON(v) }}
	if rerr != nil {
		obs.add(Refused, "."+strings.TrimPrefix(refusedPath(compat, e.reader.Hamba(), wschema, wv), "."), "refused",
			"the reader's schema does not resolve the writer's for this event: "+rerr.Error(), "")
		return obs, true
	}
	var out any
	if err := rapi.Unmarshal(resolved, data, &out); err != nil {
		obs.add(Refused, ".", "refused", "the reader failed to decode the event: "+err.Error(), "")
		return obs, true
	}
	obs.read = func() json.RawMessage { return avroJSON(out) }
	cmp := avroCompare{obs: obs}
	cmp.compare(wschema, e.reader.Hamba(), wv, out, "")
	return obs, true
}

// refusedPath names where an event the reader refuses breaks: the first
// field path at which the pruned writer and the reader fail to resolve,
// "" (the root) when that cannot be narrowed. c is the writer's cache of
// checks, nil for none.
func refusedPath(c *hamba.SchemaCompatibility, r, w hamba.Schema, v any) string {
	if c == nil {
		c = hamba.NewSchemaCompatibility()
	}
	var walk func(r, w hamba.Schema, v any, path string) string
	walk = func(r, w hamba.Schema, v any, path string) string {
		r, w = deref(r), deref(w)
		if c.Compatible(r, w) == nil {
			return ""
		}
		switch {
		case w.Type() == hamba.Union:
			if b, inner := unionBranch(w.(*hamba.UnionSchema), v); b != nil {
				if p := walk(r, b, inner, path); p != "" {
					return p
				}
			}
		case r.Type() == hamba.Union:
			for _, rb := range r.(*hamba.UnionSchema).Types() {
				if deref(rb).Type() == w.Type() {
					if p := walk(rb, w, v, path); p != "" {
						return p
					}
				}
			}
		case r.Type() == hamba.Record && w.Type() == hamba.Record:
			m, _ := v.(map[string]any)
			for _, rf := range r.(*hamba.RecordSchema).Fields() {
				wf := writerField(w.(*hamba.RecordSchema), rf)
				if wf == nil {
					if !rf.HasDefault() {
						return path + "." + rf.Name()
					}
					continue
				}
				if p := walk(rf.Type(), wf.Type(), m[wf.Name()], path+"."+rf.Name()); p != "" {
					return p
				}
			}
		case r.Type() == hamba.Array && w.Type() == hamba.Array:
			items, _ := v.([]any)
			for _, it := range items {
				if p := walk(r.(*hamba.ArraySchema).Items(), w.(*hamba.ArraySchema).Items(), it, path+"[]"); p != "" {
					return p
				}
			}
			if len(items) == 0 {
				return path + "[]"
			}
		case r.Type() == hamba.Map && w.Type() == hamba.Map:
			m, _ := v.(map[string]any)
			for _, k := range sortedKeys(m) {
				if p := walk(r.(*hamba.MapSchema).Values(), w.(*hamba.MapSchema).Values(), m[k], path+"{}"); p != "" {
					return p
				}
			}
			if len(m) == 0 {
				return path + "{}"
			}
		}
		if path == "" {
			return "."
		}
		return path
	}
	return walk(r, w, v, "")
}

func deref(s hamba.Schema) hamba.Schema {
	if s.Type() == hamba.Ref {
		return s.(*hamba.RefSchema).Schema()
	}
	return s
}

// unionBranch returns the branch of u that a generic value v (nil, or a
// one-key map naming the branch) takes, and the value inside.
func unionBranch(u *hamba.UnionSchema, v any) (hamba.Schema, any) {
	if v == nil {
		for _, t := range u.Types() {
			if t.Type() == hamba.Null {
				return t, nil
			}
		}
		return nil, nil
	}
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for name, inner := range m {
			for _, t := range u.Types() {
				if typeName(t) == name {
					return t, inner
				}
			}
		}
	}
	// hamba decodes some unions (nullable ones, resolved ones) to the
	// value without the branch name: take the branch of its Go type.
	for _, t := range u.Types() {
		if holds(deref(t), v) {
			return t, v
		}
	}
	return nil, nil
}

// holds reports whether generic value v is of the Go type hamba decodes
// schema s to.
func holds(s hamba.Schema, v any) bool {
	switch v.(type) {
	case string:
		return s.Type() == hamba.String || s.Type() == hamba.Enum
	case int:
		return s.Type() == hamba.Int
	case int64:
		return s.Type() == hamba.Long
	case float32:
		return s.Type() == hamba.Float
	case float64:
		return s.Type() == hamba.Double
	case bool:
		return s.Type() == hamba.Boolean
	case []byte:
		return s.Type() == hamba.Bytes
	case []any:
		return s.Type() == hamba.Array
	case map[string]any:
		return s.Type() == hamba.Record || s.Type() == hamba.Map
	case time.Time, time.Duration, *big.Rat:
		return s.Type() == hamba.Int || s.Type() == hamba.Long || s.Type() == hamba.Bytes || s.Type() == hamba.Fixed
	}
	_, fixed := fixedBytes(v)
	return fixed && s.Type() == hamba.Fixed
}

// typeName is hamba's name of a union branch in a generic value: the full
// name of a named type, else the type with its logical type
// ("long.timestamp-millis").
func typeName(s hamba.Schema) string {
	s = deref(s)
	if n, ok := s.(hamba.NamedSchema); ok {
		return n.FullName()
	}
	name := string(s.Type())
	if l, ok := s.(hamba.LogicalTypeSchema); ok && l.Logical() != nil {
		name += "." + string(l.Logical().Type())
	}
	return name
}

// writerField is the writer field a reader field reads: the one of its
// name, else one its aliases name.
func writerField(w *hamba.RecordSchema, rf *hamba.Field) *hamba.Field {
	for _, wf := range w.Fields() {
		if wf.Name() == rf.Name() {
			return wf
		}
	}
	for _, a := range rf.Aliases() {
		for _, wf := range w.Fields() {
			if wf.Name() == a {
				return wf
			}
		}
	}
	return nil
}

const maxDepth = 6

// Boundary values of the generated numbers and strings, option 0 first.
var (
	avroInts    = []int{0, 1, -1, math.MaxInt32, math.MinInt32}
	avroLongs   = []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1<<53 + 1}
	avroFloats  = []float32{0, 1.5, -1, math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.NaN())}
	avroDoubles = []float64{0, 1.5, -1, math.MaxFloat64, 5e-324, 0.1}
	genStrings  = []string{"", "a", "ünïcødé ✓ 日本語 🚀", strings.Repeat("long-", 60)}
	genBytes    = [][]byte{{}, []byte("a"), {0xff, 0xfe, 0x00, 0xc3}, bytes.Repeat([]byte{0x5a, 0xa5}, 100)}
	repeatLens  = []int{0, 1, 2, 17}
	mapKeys     = []string{"k", "ключ", "", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11", "k12", "k13", "k14", "k15", "k16"}
	epoch       = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	genTimes    = []time.Time{epoch, time.Date(2024, 2, 29, 12, 34, 56, 789000000, time.UTC), time.Date(1969, 12, 31, 23, 59, 59, 999000000, time.UTC), time.Date(2262, 4, 11, 0, 0, 0, 0, time.UTC)}
)

func (g *avroGen) pick(key string, n, depth int) int {
	if depth > maxDepth || g.ch.low() {
		return 0
	}
	return g.ch.pick(key, n)
}

// value generates a value of s at path key (with indices, the choice
// key); ok is false when no finite value could be made.
func (g *avroGen) value(s hamba.Schema, key string, depth int) (any, bool) {
	if depth > 4*maxDepth {
		return nil, false
	}
	s = deref(s)
	var logical string
	if l, ok := s.(hamba.LogicalTypeSchema); ok && l.Logical() != nil {
		logical = string(l.Logical().Type())
	}
	switch s.Type() {
	case hamba.Null:
		return nil, true
	case hamba.Boolean:
		return g.pick(key, 2, depth) == 1, true
	case hamba.Int:
		switch logical {
		case "date":
			return genTimes[g.pick(key, 3, depth)].Truncate(24 * time.Hour), true
		case "time-millis":
			return []time.Duration{0, time.Millisecond, 86399999 * time.Millisecond}[g.pick(key, 3, depth)], true
		}
		return avroInts[g.pick(key, len(avroInts), depth)], true
	case hamba.Long:
		switch logical {
		case "timestamp-millis", "local-timestamp-millis":
			return genTimes[g.pick(key, len(genTimes), depth)], true
		case "timestamp-micros", "local-timestamp-micros":
			return genTimes[g.pick(key, len(genTimes)-1, depth)], true
		case "time-micros":
			return []time.Duration{0, time.Microsecond, 86399999999 * time.Microsecond}[g.pick(key, 3, depth)], true
		}
		return avroLongs[g.pick(key, len(avroLongs), depth)], true
	case hamba.Float:
		return avroFloats[g.pick(key, len(avroFloats), depth)], true
	case hamba.Double:
		return avroDoubles[g.pick(key, len(avroDoubles), depth)], true
	case hamba.String:
		if logical == "uuid" {
			return []string{"00000000-0000-0000-0000-000000000000", "123e4567-e89b-12d3-a456-426614174000"}[g.pick(key, 2, depth)], true
		}
		return genStrings[g.pick(key, len(genStrings), depth)], true
	case hamba.Bytes:
		if logical == "decimal" {
			d := s.(*hamba.PrimitiveSchema).Logical().(*hamba.DecimalLogicalSchema)
			return decimalValue(d.Precision(), d.Scale(), g.pick(key, 4, depth)), true
		}
		return genBytes[g.pick(key, len(genBytes), depth)], true
	case hamba.Fixed:
		f := s.(*hamba.FixedSchema)
		if logical == "decimal" {
			d := f.Logical().(*hamba.DecimalLogicalSchema)
			p := min(d.Precision(), int(math.Floor(math.Log10(2)*float64(8*f.Size()-1))))
			return decimalValue(p, d.Scale(), g.pick(key, 4, depth)), true
		}
		if logical == "duration" {
			return hamba.LogicalDuration{Months: uint32(g.pick(key, 2, depth)), Days: 1, Milliseconds: 2}, true
		}
		b := make([]byte, f.Size())
		if g.pick(key, 2, depth) == 1 {
			for i := range b {
				b[i] = 0xff
			}
		}
		return fixedArray(b), true
	case hamba.Enum:
		en := s.(*hamba.EnumSchema)
		o := 0
		if depth <= maxDepth && !g.ch.low() {
			o = g.ch.prefer(key, len(en.Symbols()), g.targets[en])
		}
		sym := en.Symbols()[o]
		if g.enums[en] == nil {
			g.enums[en] = map[string]bool{}
		}
		g.enums[en][sym] = true
		return sym, true
	case hamba.Array:
		n := repeatLens[g.pick(key+"#", len(repeatLens), depth)]
		out := make([]any, 0, n)
		for i := range n {
			v, ok := g.value(s.(*hamba.ArraySchema).Items(), key+"["+strconv.Itoa(i)+"]", depth+1)
			if !ok {
				return nil, false
			}
			out = append(out, v)
		}
		return out, true
	case hamba.Map:
		n := repeatLens[g.pick(key+"#", len(repeatLens), depth)]
		out := make(map[string]any, n)
		for i := range n {
			v, ok := g.value(s.(*hamba.MapSchema).Values(), key+"{"+strconv.Itoa(i)+"}", depth+1)
			if !ok {
				return nil, false
			}
			out[mapKeys[i]] = v
		}
		return out, true
	case hamba.Union:
		u := s.(*hamba.UnionSchema)
		order := unionOrder(u)
		j := 0
		if depth <= maxDepth && !g.ch.low() {
			j = g.ch.prefer(key+"|", len(order), g.branchTargets[u])
		}
		i := order[j]
		if g.unions[u] == nil {
			g.unions[u] = map[int]bool{}
		}
		g.unions[u][i] = true
		b := u.Types()[i]
		if b.Type() == hamba.Null {
			return nil, true
		}
		v, ok := g.value(b, key+"<"+typeName(b)+">", depth+1)
		if !ok {
			return nil, false
		}
		return map[string]any{typeName(b): v}, true
	case hamba.Record:
		r := s.(*hamba.RecordSchema)
		out := make(map[string]any, len(r.Fields()))
		for _, f := range r.Fields() {
			v, ok := g.value(f.Type(), key+"."+f.Name(), depth+1)
			if !ok {
				return nil, false
			}
			out[f.Name()] = v
		}
		return out, true
	}
	return nil, false
}

// unionOrder lists a union's branches with null first (option 0 is the
// smallest value), the others in their order.
func unionOrder(u *hamba.UnionSchema) []int {
	out := make([]int, 0, len(u.Types()))
	for i, t := range u.Types() {
		if t.Type() == hamba.Null {
			out = append([]int{i}, out...)
		} else {
			out = append(out, i)
		}
	}
	return out
}

func decimalValue(precision, scale, option int) *big.Rat {
	switch option {
	case 1:
		return big.NewRat(1, 1)
	case 2:
		return new(big.Rat).SetFrac(big.NewInt(-1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	case 3:
		// The largest value the precision holds: 10^p - 1 units of 10^-s.
		num := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(precision)), nil), big.NewInt(1))
		return new(big.Rat).SetFrac(num, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
	}
	return new(big.Rat)
}

// fixedArray makes the [n]byte array hamba's generic codec wants for a
// fixed of size n.
func fixedArray(b []byte) any {
	v := reflect.New(reflect.ArrayOf(len(b), reflect.TypeFor[byte]())).Elem()
	reflect.Copy(v, reflect.ValueOf(b))
	return v.Interface()
}

// fixedBytes returns the bytes of a [n]byte array.
func fixedBytes(v any) ([]byte, bool) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Kind() != reflect.Array || rv.Type().Elem().Kind() != reflect.Uint8 {
		return nil, false
	}
	b := make([]byte, rv.Len())
	reflect.Copy(reflect.ValueOf(b), rv)
	return b, true
}

// surelyRefused reports whether g's event holds an enum symbol that the
// reader's enum of that name lacks and has no default for: the
// specification refuses such a datum, whatever else it holds.
func (e *avroEngine) surelyRefused(g *avroGen) bool {
	for en, used := range g.enums {
		known, ok := e.readerSymbols[en.Name()]
		if !ok || e.readerDefaults[en.Name()] {
			continue
		}
		for sym := range used {
			if !known[sym] {
				return true
			}
		}
	}
	return false
}

// prune returns the writer restricted to the enum symbols (and, with
// unions, the union branches) of g's event, resolved against the reader
// (cached per restriction). The restriction is keyed by what it keeps of
// each enum and union of the writer, and built, on a miss only, as hamba
// schemas that share every subtree of the writer it leaves as it is (no
// JSON written and parsed again).
func (e *avroEngine) prune(g *avroGen, unions bool) *prunedPair {
	key := e.pruneKey(g, unions)
	if pp, ok := e.pruned[key]; ok {
		return pp
	}
	pp := &prunedPair{}
	e.pruned[key] = pp
	b := &pruneBuilder{g: g, known: e.readerSymbols, unions: unions, built: map[hamba.NamedSchema]hamba.NamedSchema{}}
	ws, _, err := b.schema(e.writer.Hamba())
	if err != nil {
		return pp
	}
	pp.writer, pp.api = ws, avro.FreshAPI()
	pp.compat = hamba.NewSchemaCompatibility()
	pp.resolved, pp.err = resolveCtx(e.ctx, pp.compat, e.reader.Hamba(), ws)
	pp.rapi = avro.FreshAPI()
	return pp
}

var errEnumLacksSymbol = errors.New("evidence: a reader enum without default lacks a writer symbol")

// enumLacksSymbol reports, in time linear in the symbols, whether an enum
// of the writer has a symbol that the reader's enum of that name lacks
// and has no default for: the whole pair then does not resolve.
func (e *avroEngine) enumLacksSymbol() bool {
	for _, en := range e.enumList {
		known, ok := e.readerSymbols[en.Name()]
		if !ok || e.readerDefaults[en.Name()] {
			continue
		}
		for _, sym := range en.Symbols() {
			if !known[sym] {
				return true
			}
		}
	}
	return false
}

// errAbandoned is a resolution the context ended before it finished.
var errAbandoned = errors.New("evidence: the time bound ended a schema resolution")

// resolveCtx is c.Resolve(r, w) bounded by ctx: hamba's resolution does
// not take a context, so it runs aside and is abandoned (errAbandoned)
// when ctx ends first; its goroutine then finishes on its own and its
// result is dropped. So that this leftover work stays small, a
// resolution whose estimated cost (resolveCost) does not fit in a
// quarter of the time ctx has left is not started (errAbandoned), and a
// pair too costly from the start is not read at all (checkResolveCost).
func resolveCtx(ctx context.Context, c *hamba.SchemaCompatibility, r, w hamba.Schema) (hamba.Schema, error) {
	if ctx == nil || ctx.Done() == nil {
		resolutionsStarted.Add(1)
		return c.Resolve(r, w)
	}
	if ctx.Err() != nil {
		return nil, errAbandoned
	}
	if cost := resolveCost(r, w); !fitsTime(ctx, cost) {
		// Never started: an abandoned resolution would run on.
		return nil, fmt.Errorf("%w (%d enum symbol comparisons)", errAbandoned, cost)
	}
	resolutionsStarted.Add(1)
	type result struct {
		s   hamba.Schema
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := c.Resolve(r, w)
		done <- result{s, err}
	}()
	select {
	case res := <-done:
		return res.s, res.err
	case <-ctx.Done():
		return nil, errAbandoned
	}
}

// resolutionsStarted counts the hamba resolutions started (the tests
// check that none starts past the bound).
var resolutionsStarted atomic.Int64

// resolveNsPerCost is a generous estimate of hamba's time per enum
// symbol comparison (measured about 7 ns: it searches the reader's
// symbols linearly for each writer symbol).
const resolveNsPerCost = 10

// fitsTime reports whether a resolution of the given cost (resolveCost)
// fits comfortably (a quarter) in the time ctx has left; always true
// without a deadline, where nothing is abandoned.
func fitsTime(ctx context.Context, cost int64) bool {
	dl, ok := ctx.Deadline()
	if !ok {
		return true
	}
	left := time.Until(dl)
	return cost <= int64(left/4)/resolveNsPerCost
}

// resolveCost estimates the work of hamba's resolution of w by r: the
// part that grows with the square of the schemas, the symbol comparisons
// of each writer enum with the reader's enums of its name or aliases.
func resolveCost(r, w hamba.Schema) int64 {
	cost, _, _ := resolveCostOf(r, w)
	return cost
}

// resolveCostOf is resolveCost with the costliest enum of the writer and
// the larger of its symbol counts, writer's or reader's.
func resolveCostOf(r, w hamba.Schema) (cost int64, worst *hamba.EnumSchema, symbols int64) {
	readerSyms := map[string]int64{}
	walkEnums(r, func(en *hamba.EnumSchema) {
		for _, n := range append([]string{en.Name()}, en.Aliases()...) {
			readerSyms[simpleName(n)] += int64(len(en.Symbols()))
		}
	})
	var most int64
	walkEnums(w, func(en *hamba.EnumSchema) {
		var rs int64
		for _, n := range append([]string{en.Name()}, en.Aliases()...) {
			rs = max(rs, readerSyms[simpleName(n)])
		}
		c := int64(len(en.Symbols())) * rs
		cost += c
		if worst == nil || c > most {
			worst, most, symbols = en, c, max(int64(len(en.Symbols())), rs)
		}
	})
	return cost, worst, symbols
}

func simpleName(n string) string {
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		return n[i+1:]
	}
	return n
}

// walkEnums calls f on each enum of s, once per named type.
func walkEnums(s hamba.Schema, f func(*hamba.EnumSchema)) {
	walkAvro(s, func(s hamba.Schema) {
		if en, ok := s.(*hamba.EnumSchema); ok {
			f(en)
		}
	})
}

// tooLargeError is a pair whose schema resolution may outlast the time
// bound and cannot be stopped: it is not read (Result.NotRead says why).
type tooLargeError struct{ reason string }

func (e *tooLargeError) Error() string { return e.reason }

// checkResolveCost refuses, before any resolution starts, a pair whose
// largest enum costs more than the time left allows.
func (e *avroEngine) checkResolveCost() error {
	cost, worst, symbols := resolveCostOf(e.reader.Hamba(), e.writer.Hamba())
	if fitsTime(e.ctx, cost) {
		return nil
	}
	return &tooLargeError{fmt.Sprintf("enum %s has %d symbols: too large to resolve within the evidence time bound", worst.FullName(), symbols)}
}

// pruneKey names the restriction prune makes for g's event: per enum of
// the writer the symbols kept, per union (with unions) the branches kept.
func (e *avroEngine) pruneKey(g *avroGen, unions bool) string {
	buf := make([]byte, 0, 2+2*(len(e.enumList)+len(e.unionList)))
	buf = append(buf, "e"...)
	if unions {
		buf[0] = 'u'
	}
	for _, en := range e.enumList {
		buf = appendMask(buf, enumKept(en, g.enums[en], e.readerSymbols[en.Name()]), len(en.Symbols()))
	}
	if unions {
		for _, u := range e.unionList {
			buf = appendMask(buf, unionKept(u, g.unions[u]), len(u.Types()))
		}
	}
	return string(buf)
}

// enumKept reports which symbols of en a restriction keeps: those the
// event used or the reader knows, every symbol when the event used none.
func enumKept(en *hamba.EnumSchema, used, known map[string]bool) func(int) bool {
	if len(used) == 0 {
		return func(int) bool { return true }
	}
	syms := en.Symbols()
	return func(i int) bool { return used[syms[i]] || known[syms[i]] }
}

// unionKept reports which branches of u a restriction keeps: those the
// event used, every branch when it used none.
func unionKept(_ *hamba.UnionSchema, used map[int]bool) func(int) bool {
	if len(used) == 0 {
		return func(int) bool { return true }
	}
	return func(i int) bool { return used[i] }
}

func appendMask(buf []byte, kept func(int) bool, n int) []byte {
	var b byte
	for i := range n {
		if kept(i) {
			b |= 1 << (i % 8)
		}
		if i%8 == 7 || i == n-1 {
			buf = append(buf, b)
			b = 0
		}
	}
	return append(buf, ';')
}

// collectNames gathers the full and simple names, and aliases, of the
// named types of s.
func collectNames(s hamba.Schema, out map[string]bool) {
	walkAvro(s, func(s hamba.Schema) {
		n, ok := s.(hamba.NamedSchema)
		if !ok {
			return
		}
		out[n.FullName()], out[n.Name()] = true, true
		for _, a := range n.Aliases() {
			out[a], out[simpleName(a)] = true, true
		}
	})
}

// collectPruned lists the enums and unions of a writer in the order a
// walk meets them, each named type once.
func collectPruned(s hamba.Schema, enums *[]*hamba.EnumSchema, unions *[]*hamba.UnionSchema) {
	walkAvro(s, func(s hamba.Schema) {
		switch t := s.(type) {
		case *hamba.EnumSchema:
			*enums = append(*enums, t)
		case *hamba.UnionSchema:
			*unions = append(*unions, t)
		}
	})
}

// pruneBuilder builds a writer restricted to an event's enum symbols and
// union branches (see prune). A subtree it does not restrict is the
// writer's own; one it does is built anew without the writer's defaults
// (reading ignores them, and a union default may name a branch the
// restriction drops), aliases, docs and properties, which resolution
// does not read either.
type pruneBuilder struct {
	g      *avroGen
	known  map[string]map[string]bool
	unions bool
	// built maps each named type of the writer met so far to its
	// restriction (itself when unchanged): later occurrences refer to
	// it.
	built map[hamba.NamedSchema]hamba.NamedSchema
}

// schema returns s restricted, and whether that changed it.
func (b *pruneBuilder) schema(s hamba.Schema) (hamba.Schema, bool, error) {
	if ref, ok := s.(*hamba.RefSchema); ok {
		if r, ok := b.built[ref.Schema()]; ok {
			if r == ref.Schema() {
				return s, false, nil
			}
			return hamba.NewRefSchema(r), true, nil
		}
		// The definition was in a union branch the restriction
		// dropped: this occurrence defines it.
		return b.schema(ref.Schema())
	}
	if n, ok := s.(hamba.NamedSchema); ok {
		if r, ok := b.built[n]; ok {
			if r == n {
				return s, false, nil
			}
			return hamba.NewRefSchema(r), true, nil
		}
	}
	switch t := s.(type) {
	case *hamba.EnumSchema:
		kept := enumKept(t, b.g.enums[t], b.known[t.Name()])
		var syms []string
		for i, sym := range t.Symbols() {
			if kept(i) {
				syms = append(syms, sym)
			}
		}
		if len(syms) == len(t.Symbols()) {
			b.built[t] = t
			return t, false, nil
		}
		en, err := hamba.NewEnumSchema(t.Name(), t.Namespace(), syms)
		if err != nil {
			return nil, false, err
		}
		b.built[t] = en
		return en, true, nil
	case *hamba.FixedSchema:
		b.built[t] = t
		return t, false, nil
	case *hamba.ArraySchema:
		items, changed, err := b.schema(t.Items())
		if err != nil || !changed {
			return t, false, err
		}
		return hamba.NewArraySchema(items), true, nil
	case *hamba.MapSchema:
		values, changed, err := b.schema(t.Values())
		if err != nil || !changed {
			return t, false, err
		}
		return hamba.NewMapSchema(values), true, nil
	case *hamba.RecordSchema:
		// Not recursive (prune is never used for a recursive writer):
		// the record is registered once its fields are built.
		types := make([]hamba.Schema, len(t.Fields()))
		changed := false
		for i, f := range t.Fields() {
			ft, c, err := b.schema(f.Type())
			if err != nil {
				return nil, false, err
			}
			types[i], changed = ft, changed || c
		}
		if !changed {
			b.built[t] = t
			return t, false, nil
		}
		fields := make([]*hamba.Field, len(types))
		for i, f := range t.Fields() {
			nf, err := hamba.NewField(f.Name(), types[i])
			if err != nil {
				return nil, false, err
			}
			fields[i] = nf
		}
		r, err := hamba.NewRecordSchema(t.Name(), t.Namespace(), fields)
		if err != nil {
			return nil, false, err
		}
		b.built[t] = r
		return r, true, nil
	case *hamba.UnionSchema:
		kept := func(int) bool { return true }
		if b.unions {
			kept = unionKept(t, b.g.unions[t])
		}
		var branches []hamba.Schema
		changed := false
		for i, br := range t.Types() {
			if !kept(i) {
				changed = true
				continue
			}
			bs, c, err := b.schema(br)
			if err != nil {
				return nil, false, err
			}
			branches, changed = append(branches, bs), changed || c
		}
		if !changed {
			return t, false, nil
		}
		u, err := hamba.NewUnionSchema(branches)
		if err != nil {
			return nil, false, err
		}
		return u, true, nil
	}
	return s, false, nil
}

// pruner writes a hamba schema back as JSON with its unions restricted to
// the branches an event used and its enums to the symbols it used (every
// branch or symbol when the event used none), and without the writer's
// defaults, which reading ignores.
type pruner struct {
	g     *avroGen
	named map[string]bool
	sig   *strings.Builder
	known map[string]map[string]bool
	// unions prunes unions too (else only enums).
	unions bool
}

func (p *pruner) schema(s hamba.Schema) any {
	s = deref(s)
	out := map[string]any{}
	if l, ok := s.(hamba.LogicalTypeSchema); ok && l.Logical() != nil {
		out["logicalType"] = string(l.Logical().Type())
		if d, ok := l.Logical().(*hamba.DecimalLogicalSchema); ok {
			out["precision"], out["scale"] = d.Precision(), d.Scale()
		}
	}
	if n, ok := s.(hamba.NamedSchema); ok {
		if p.named[n.FullName()] {
			return n.FullName()
		}
		p.named[n.FullName()] = true
		out["name"] = n.FullName()
	}
	out["type"] = string(s.Type())
	switch t := s.(type) {
	case *hamba.PrimitiveSchema:
		if len(out) == 1 {
			return string(t.Type())
		}
	case *hamba.FixedSchema:
		out["size"] = t.Size()
	case *hamba.EnumSchema:
		syms := t.Symbols()
		if used := p.g.enums[t]; len(used) > 0 {
			syms = nil
			known := p.known[t.Name()]
			for _, sym := range t.Symbols() {
				if used[sym] || known[sym] {
					syms = append(syms, sym)
				}
			}
		}
		fmt.Fprintf(p.sig, "e%s%v;", t.FullName(), syms)
		out["symbols"] = syms
	case *hamba.ArraySchema:
		out["items"] = p.schema(t.Items())
	case *hamba.MapSchema:
		out["values"] = p.schema(t.Values())
	case *hamba.RecordSchema:
		fields := make([]any, 0, len(t.Fields()))
		for _, f := range t.Fields() {
			fields = append(fields, map[string]any{"name": f.Name(), "type": p.schema(f.Type())})
		}
		out["fields"] = fields
	case *hamba.UnionSchema:
		used := p.g.unions[t]
		if !p.unions {
			used = nil
		}
		var branches []any
		var kept []int
		for i, b := range t.Types() {
			if len(used) == 0 || used[i] {
				branches = append(branches, p.schema(b))
				kept = append(kept, i)
			}
		}
		fmt.Fprintf(p.sig, "u%v;", kept)
		return branches
	}
	return out
}

// avroCompare compares a value as written with the value the reader
// decoded, walking the writer's and the reader's schemas together.
type avroCompare struct{ obs *observed }

func (c avroCompare) compare(w, r hamba.Schema, wv, rv any, path string) {
	w, r = deref(w), deref(r)
	if w.Type() == hamba.Union {
		b, inner := unionBranch(w.(*hamba.UnionSchema), wv)
		if b == nil {
			return
		}
		bp := path
		if len(w.(*hamba.UnionSchema).Types()) > 2 || !w.(*hamba.UnionSchema).Nullable() {
			bp += "<" + typeName(b) + ">"
		}
		c.compare(b, r, inner, rv, bp)
		return
	}
	if r.Type() == hamba.Union {
		b, inner := unionBranch(r.(*hamba.UnionSchema), rv)
		if b == nil {
			c.obs.add(Lossy, at(path), "changed", fmt.Sprintf("the reader's union holds %s, no branch of it", short(rv)), "")
			return
		}
		c.compare(w, b, wv, inner, path)
		return
	}
	switch w.Type() {
	case hamba.Null:
		return
	case hamba.Record:
		wr := w.(*hamba.RecordSchema)
		rr, ok := r.(*hamba.RecordSchema)
		wm, _ := wv.(map[string]any)
		rm, _ := rv.(map[string]any)
		if !ok {
			c.obs.add(Lossy, at(path), "changed", "the reader read a record as "+string(r.Type()), "")
			return
		}
		for _, rf := range rr.Fields() {
			wf := writerField(wr, rf)
			if wf == nil {
				c.obs.add(Defaulted, at(path+"."+rf.Name()), "default", "the reader filled the field with its default", "")
				continue
			}
			c.compare(wf.Type(), rf.Type(), wm[wf.Name()], rm[rf.Name()], path+"."+rf.Name())
		}
	case hamba.Enum:
		ws, _ := wv.(string)
		rs, _ := rv.(string)
		if ws == rs {
			return
		}
		if en, ok := r.(*hamba.EnumSchema); ok && en.HasDefault() && rs == en.Default() {
			c.obs.add(Defaulted, at(path), "default", fmt.Sprintf("the reader read symbol %s as its enum default %s", ws, rs), "")
			return
		}
		c.obs.add(Lossy, at(path), "changed", fmt.Sprintf("the reader read symbol %s as %s", ws, rs), "")
	case hamba.Array:
		wa, _ := wv.([]any)
		ra, _ := rv.([]any)
		if len(wa) != len(ra) {
			c.obs.add(Lossy, at(path), "truncated", fmt.Sprintf("the reader read %d items of %d", len(ra), len(wa)), "")
			return
		}
		rs, ok := r.(*hamba.ArraySchema)
		if !ok {
			return
		}
		for i := range wa {
			c.compare(w.(*hamba.ArraySchema).Items(), rs.Items(), wa[i], ra[i], path+"[]")
		}
	case hamba.Map:
		wm, _ := wv.(map[string]any)
		rm, _ := rv.(map[string]any)
		rs, ok := r.(*hamba.MapSchema)
		if !ok || len(wm) != len(rm) {
			c.obs.add(Lossy, at(path), "truncated", fmt.Sprintf("the reader read %d entries of %d", len(rm), len(wm)), "")
			return
		}
		for _, k := range sortedKeys(wm) {
			c.compare(w.(*hamba.MapSchema).Values(), rs.Values(), wm[k], rm[k], path+"{}")
		}
	default:
		c.scalar(w, r, wv, rv, path)
	}
}

func (c avroCompare) scalar(w, r hamba.Schema, wv, rv any, path string) {
	if r.Type() == hamba.String {
		if s, ok := rv.(string); ok && !utf8.ValidString(s) {
			c.obs.add(Lossy, at(path), "invalid-utf8",
				"the reader's string is not UTF-8 (the writer's bytes were not text); Java and Python readers replace such bytes with U+FFFD", "")
			return
		}
	}
	if equalScalar(wv, rv) {
		return
	}
	c.obs.add(Lossy, at(path), "changed", fmt.Sprintf("the reader read %s as %s", short(wv), short(rv)), "")
}

// equalScalar compares a written scalar with the one read, across the
// promotions and logical types.
func equalScalar(wv, rv any) bool {
	if wn, ok := number(wv); ok {
		rn, ok := number(rv)
		if !ok {
			return true // a representation the reader chose (a logical type added or dropped)
		}
		if wn.IsInt() && rn.IsInt() {
			return wn.Cmp(rn) == 0
		}
		wf, rf := wn.f, rn.f
		if wn.IsInt() {
			wf = new(big.Float).SetInt(wn.i)
		}
		if rn.IsInt() {
			rf = new(big.Float).SetInt(rn.i)
		}
		if wf == nil || rf == nil {
			return wn.nan && rn.nan
		}
		return wf.Cmp(rf) == 0
	}
	switch w := wv.(type) {
	case string:
		switch r := rv.(type) {
		case string:
			return w == r
		case []byte:
			return w == string(r)
		}
		return true
	case []byte:
		switch r := rv.(type) {
		case string:
			return string(w) == r
		case []byte:
			return bytes.Equal(w, r)
		}
		return true
	case time.Time:
		if r, ok := rv.(time.Time); ok {
			return w.Equal(r)
		}
		return true
	case time.Duration:
		if r, ok := rv.(time.Duration); ok {
			return w == r
		}
		return true
	case *big.Rat:
		if r, ok := rv.(*big.Rat); ok {
			return w.Cmp(r) == 0
		}
		return true
	case bool:
		r, ok := rv.(bool)
		return !ok || w == r
	}
	return fmt.Sprint(wv) == fmt.Sprint(rv)
}

type num struct {
	i   *big.Int
	f   *big.Float
	nan bool
}

func (n num) IsInt() bool          { return n.i != nil }
func (n num) Cmp(o num) int        { return n.i.Cmp(o.i) }
func intNum(v int64) (num, bool)   { return num{i: big.NewInt(v)}, true }
func uintNum(v uint64) (num, bool) { return num{i: new(big.Int).SetUint64(v)}, true }
func floatNum(v float64) (num, bool) {
	if math.IsNaN(v) {
		return num{nan: true}, true
	}
	if math.IsInf(v, 0) {
		return num{f: new(big.Float).SetInf(v < 0)}, true
	}
	return num{f: big.NewFloat(v)}, true
}

func number(v any) (num, bool) {
	switch x := v.(type) {
	case int:
		return intNum(int64(x))
	case int32:
		return intNum(int64(x))
	case int64:
		return intNum(x)
	case uint32:
		return uintNum(uint64(x))
	case uint64:
		return uintNum(x)
	case float32:
		return floatNum(float64(x))
	case float64:
		return floatNum(x)
	}
	return num{}, false
}

func at(path string) string {
	if path == "" {
		return "."
	}
	return path
}

func short(v any) string {
	b, err := json.Marshal(jsonable(v))
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// avroJSON renders a generic value as JSON in the Avro JSON encoding's
// shape (a union value as {"branch": value}, bytes as a string of code
// points 0-255), with decimals as their decimal text and times in RFC
// 3339.
func avroJSON(v any) json.RawMessage {
	b, err := json.Marshal(jsonable(v))
	if err != nil {
		return json.RawMessage(fmt.Sprintf("%q", fmt.Sprint(v)))
	}
	return b
}

func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonable(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonable(e)
		}
		return out
	case []byte:
		return latin1(x)
	case *big.Rat:
		return json.Number(x.FloatString(ratScale(x)))
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case time.Duration:
		return x.String()
	case float32:
		return jsonFloat(float64(x), 32)
	case float64:
		return jsonFloat(x, 64)
	case hamba.LogicalDuration:
		return map[string]any{"months": x.Months, "days": x.Days, "milliseconds": x.Milliseconds}
	}
	if b, ok := fixedBytes(v); ok {
		return latin1(b)
	}
	return v
}

func jsonFloat(f float64, bits int) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Sprint(f)
	}
	return json.Number(fmt.Sprint(map[int]any{32: float32(f), 64: f}[bits]))
}

func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// ratScale is the number of decimals that print r exactly (at most 40).
func ratScale(r *big.Rat) int {
	d := new(big.Int).Set(r.Denom())
	twos, fives := 0, 0
	two, five, zero := big.NewInt(2), big.NewInt(5), big.NewInt(0)
	for m := new(big.Int); ; twos++ {
		q, rem := new(big.Int).QuoRem(d, two, m)
		if rem.Cmp(zero) != 0 {
			break
		}
		d = q
	}
	for m := new(big.Int); ; fives++ {
		q, rem := new(big.Int).QuoRem(d, five, m)
		if rem.Cmp(zero) != 0 {
			break
		}
		d = q
	}
	if d.Cmp(big.NewInt(1)) != 0 {
		return 40
	}
	return min(max(twos, fives), 40)
}

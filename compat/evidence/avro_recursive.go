package evidence

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	hamba "github.com/hamba/avro/v2"

	"github.com/charter-dev/charter/compat/avro"
)

// A recursive writer (a record that holds itself, through a union, an
// array or a map) cannot be resolved by hamba as it is: its Resolve
// follows the writer's recursion without end. Each event is finite,
// though, so it is written with the writer unrolled to the event: every
// record occurrence after the first becomes a copy in a namespace of its
// own ("_evidence3.acme.Node"), its unions keep the branches the event
// uses there and its enums the symbols the event (or the reader) uses.
// Resolution matches records by their simple name, so the reader reads
// the copies as the writer's type; a reader alias naming the writer's
// full name does not match a copy (such pairs read as refused past the
// first level).
//
// A recursion through an array or a map cannot be unrolled this way: an
// empty repetition still needs an items schema, which would be the
// recursive record again. Such writers are not read (ErrUnsupported).

// unroller writes the unrolled writer schema of one event and the event's
// value with its union branch names renamed to the copies.
type unroller struct {
	g      *avroGen
	known  map[string]map[string]bool
	named  map[string]bool // named types defined so far, by full name
	copies int
	depth  int
}

var errUnrollDepth = errors.New("evidence: the event nests deeper than the unrolling bound")

// unrolled returns the unrolled writer of the event v of g and v renamed
// to it.
func (e *avroEngine) unrolled(g *avroGen, v any) (*prunedPair, any, error) {
	u := &unroller{g: g, known: e.readerSymbols, named: map[string]bool{}}
	sch, vals, err := u.emit(e.writer.Hamba(), []any{v})
	if err != nil {
		return nil, nil, err
	}
	raw, err := json.Marshal(sch)
	if err != nil {
		return nil, nil, err
	}
	if pp, ok := e.unrolledCache[string(raw)]; ok {
		return pp, vals[0], nil
	}
	ws, err := hamba.ParseBytesWithCache(raw, "", &hamba.SchemaCache{})
	if err != nil {
		return nil, nil, err
	}
	pp := &prunedPair{writer: ws, api: avro.FreshAPI(), rapi: avro.FreshAPI(), compat: hamba.NewSchemaCompatibility()}
	pp.resolved, pp.err = resolveCtx(e.ctx, pp.compat, e.reader.Hamba(), ws)
	e.unrolledCache[string(raw)] = pp
	return pp, vals[0], nil
}

// emit writes schema s for the values vals that the event holds at one
// position, and returns them renamed.
func (u *unroller) emit(s hamba.Schema, vals []any) (any, []any, error) {
	u.depth++
	defer func() { u.depth-- }()
	if u.depth > 4*maxDepth+8 {
		return nil, nil, errUnrollDepth
	}
	s = deref(s)
	switch t := s.(type) {
	case *hamba.RecordSchema:
		name := t.FullName()
		if u.named[name] {
			u.copies++
			name = fmt.Sprintf("_evidence%d.%s", u.copies, name)
		}
		u.named[name] = true
		fields := make([]any, 0, len(t.Fields()))
		out := make([]map[string]any, len(vals))
		for i := range vals {
			out[i] = map[string]any{}
		}
		for _, f := range t.Fields() {
			fv := make([]any, len(vals))
			for i, v := range vals {
				m, _ := v.(map[string]any)
				fv[i] = m[f.Name()]
			}
			fs, nv, err := u.emit(f.Type(), fv)
			if err != nil {
				return nil, nil, err
			}
			fields = append(fields, map[string]any{"name": f.Name(), "type": fs})
			for i := range vals {
				out[i][f.Name()] = nv[i]
			}
		}
		renamed := make([]any, len(vals))
		for i := range vals {
			renamed[i] = out[i]
		}
		return map[string]any{"type": "record", "name": name, "fields": fields}, renamed, nil
	case *hamba.ArraySchema:
		var flat []any
		for _, v := range vals {
			items, _ := v.([]any)
			flat = append(flat, items...)
		}
		is, nv, err := u.emit(t.Items(), flat)
		if err != nil {
			return nil, nil, err
		}
		out := make([]any, len(vals))
		k := 0
		for i, v := range vals {
			items, _ := v.([]any)
			out[i] = append([]any{}, nv[k:k+len(items)]...)
			k += len(items)
		}
		return map[string]any{"type": "array", "items": is}, out, nil
	case *hamba.MapSchema:
		var flat []any
		var keys [][]string
		for _, v := range vals {
			m, _ := v.(map[string]any)
			ks := sortedKeys(m)
			keys = append(keys, ks)
			for _, k := range ks {
				flat = append(flat, m[k])
			}
		}
		vs, nv, err := u.emit(t.Values(), flat)
		if err != nil {
			return nil, nil, err
		}
		out := make([]any, len(vals))
		k := 0
		for i := range vals {
			m := make(map[string]any, len(keys[i]))
			for _, key := range keys[i] {
				m[key] = nv[k]
				k++
			}
			out[i] = m
		}
		return map[string]any{"type": "map", "values": vs}, out, nil
	case *hamba.UnionSchema:
		byBranch := map[int][]int{} // branch → indices of vals
		for i, v := range vals {
			b, _ := unionBranch(t, v)
			for j, tb := range t.Types() {
				if tb == b {
					byBranch[j] = append(byBranch[j], i)
				}
			}
		}
		if len(byBranch) == 0 {
			// No value here: null, else a branch that is no record.
			pick := unionOrder(t)[0]
			if t.Types()[pick].Type() != hamba.Null {
				for j, tb := range t.Types() {
					if deref(tb).Type() != hamba.Record {
						pick = j
						break
					}
				}
			}
			byBranch[pick] = nil
		}
		var branches []any
		out := make([]any, len(vals))
		for j, tb := range t.Types() {
			idx, used := byBranch[j]
			if !used {
				continue
			}
			if tb.Type() == hamba.Null {
				branches = append(branches, "null")
				continue
			}
			inner := make([]any, len(idx))
			for k, i := range idx {
				_, inner[k] = unionBranch(t, vals[i])
			}
			bs, nv, err := u.emit(tb, inner)
			if err != nil {
				return nil, nil, err
			}
			branches = append(branches, bs)
			key := typeName(tb)
			if bm, ok := bs.(map[string]any); ok {
				if n, ok := bm["name"].(string); ok {
					key = n
				}
			}
			for k, i := range idx {
				out[i] = map[string]any{key: nv[k]}
			}
		}
		return branches, out, nil
	case *hamba.EnumSchema, *hamba.FixedSchema:
		name := t.(hamba.NamedSchema).FullName()
		if u.named[name] {
			return name, vals, nil
		}
		p := &pruner{g: u.g, named: u.named, sig: new(strings.Builder), known: u.known}
		return p.schema(t), vals, nil
	}
	p := &pruner{g: u.g, named: u.named, sig: new(strings.Builder), known: u.known}
	return p.schema(s), vals, nil
}

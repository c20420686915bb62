package upcast

import (
	"fmt"
	"math/big"
	"slices"
	"time"

	hamba "github.com/hamba/avro/v2"

	"github.com/charter-dev/charter/compat/avro"
)

// Compiled reader/writer resolution.
//
// Where a leading run of implicit steps is done while decoding (the
// writer's bytes read straight into the shape of a newer reader schema),
// the decoder is compiled for the (writer, reader) pair, with the rules
// hamba's SchemaCompatibility.Resolve applies: writer fields matched to
// reader fields by name or by a reader alias, writer-only fields
// skipped, reader-only fields set to their defaults (decoded once by
// hamba itself, copied per event when mutable), the promotions int →
// long, float, double; long → float, double; float → double; string ↔
// bytes, enum symbols mapped by name (unknown ones to the reader's
// default), a union branch read as the first reader branch compatible
// with it. TestAvroResolverMatchesHamba and FuzzAvroResolver check the
// result against hamba's own resolution. Pairs outside the compiled
// subset (promotions to logical types, unions decoded as {"name":
// value}, fixed, recursive records) are resolved by hamba.

// compileAvroResolver compiles the decoder of records written with writer
// into reader's shape; ok is false when the pair is incompatible or
// outside the compiled subset.
func compileAvroResolver(writer, reader hamba.Schema) (rd *avroRecordDecoder, ok bool) {
	ws, wok := deref(writer).(*hamba.RecordSchema)
	rs, rok := deref(reader).(*hamba.RecordSchema)
	if !wok || !rok {
		return nil, false
	}
	sc := hamba.NewSchemaCompatibility()
	if sc.Compatible(rs, ws) != nil {
		return nil, false
	}
	c := avroDecCompiler{open: map[*hamba.RecordSchema]bool{}, compat: sc}
	return c.resolveRecord(ws, rs)
}

// resolve compiles the decoder of a value written as w into r's shape.
func (c *avroDecCompiler) resolve(w, r hamba.Schema) (avroDecoder, bool) {
	w, r = deref(w), deref(r)
	if w.Type() != r.Type() {
		switch {
		case r.Type() == hamba.Union:
			// A bare writer value is read as the first reader branch that
			// can read it: bare, not through the union.
			for _, rb := range r.(*hamba.UnionSchema).Types() {
				if c.compat.Compatible(rb, w) == nil {
					return c.resolve(w, rb)
				}
			}
			return nil, false
		case w.Type() == hamba.Union:
			// Every writer branch read as the (non-union) reader type.
			return c.resolveUnion(w.(*hamba.UnionSchema), func(hamba.Schema) hamba.Schema { return r })
		}
		return promotion(w.Type(), r)
	}
	switch w.Type() {
	case hamba.Null, hamba.Boolean, hamba.Int, hamba.Long, hamba.Float, hamba.Double, hamba.String, hamba.Bytes:
		return c.compile(r) // the same bytes, read with the reader's logical type
	case hamba.Enum:
		return enumResolver(w.(*hamba.EnumSchema), r.(*hamba.EnumSchema))
	case hamba.Array:
		wi := w.(*hamba.ArraySchema).Items()
		if zeroWidth(wi) {
			return nil, false
		}
		item, ok := c.resolve(wi, r.(*hamba.ArraySchema).Items())
		if !ok {
			return nil, false
		}
		return arrayDecoder(item), true
	case hamba.Map:
		vals, ok := c.resolve(w.(*hamba.MapSchema).Values(), r.(*hamba.MapSchema).Values())
		if !ok {
			return nil, false
		}
		return mapDecoder(vals), true
	case hamba.Record:
		rd, ok := c.resolveRecord(w.(*hamba.RecordSchema), r.(*hamba.RecordSchema))
		if !ok {
			return nil, false
		}
		return rd.value, true
	case hamba.Union:
		ru := r.(*hamba.UnionSchema)
		return c.resolveUnion(w.(*hamba.UnionSchema), func(wb hamba.Schema) hamba.Schema {
			for _, rb := range ru.Types() {
				if c.compat.Compatible(rb, wb) == nil {
					return rb
				}
			}
			return nil
		})
	}
	return nil, false
}

// resolveUnion reads a writer union whose branch wb is read as readerOf(wb).
// hamba decodes the value bare when every reader branch so chosen has a
// name in its type registry; otherwise the pair is left to hamba.
func (c *avroDecCompiler) resolveUnion(wu *hamba.UnionSchema, readerOf func(hamba.Schema) hamba.Schema) (avroDecoder, bool) {
	branches := make([]avroDecoder, len(wu.Types()))
	names := map[string]bool{}
	for i, wb := range wu.Types() {
		rb := readerOf(wb)
		if rb == nil || !hambaUnionNames[typeName(rb)] || names[typeName(rb)] {
			// Two writer branches read as the same reader branch: hamba's
			// resolved union would repeat a type, which it refuses.
			return nil, false
		}
		names[typeName(rb)] = true
		if deref(wb).Type() == hamba.Null {
			branches[i] = func(*avroDecodeState) any { return nil }
			continue
		}
		bd, ok := c.resolve(wb, rb)
		if !ok {
			return nil, false
		}
		branches[i] = bd
	}
	return unionDecoder(branches), true
}

// promotion reads a writer primitive as a wider reader type (without a
// logical type: those are left to hamba).
func promotion(w hamba.Type, r hamba.Schema) (avroDecoder, bool) {
	if logical(r) != "" {
		return nil, false
	}
	switch {
	case w == hamba.Int && r.Type() == hamba.Long:
		return func(d *avroDecodeState) any { return int64(d.r.ReadInt()) }, true
	case w == hamba.Int && r.Type() == hamba.Float:
		return func(d *avroDecodeState) any { return float32(d.r.ReadInt()) }, true
	case w == hamba.Int && r.Type() == hamba.Double:
		return func(d *avroDecodeState) any { return float64(d.r.ReadInt()) }, true
	case w == hamba.Long && r.Type() == hamba.Float:
		return func(d *avroDecodeState) any { return float32(d.r.ReadLong()) }, true
	case w == hamba.Long && r.Type() == hamba.Double:
		return func(d *avroDecodeState) any { return float64(d.r.ReadLong()) }, true
	case w == hamba.Float && r.Type() == hamba.Double:
		return func(d *avroDecodeState) any { return float64(d.r.ReadFloat()) }, true
	case w == hamba.String && r.Type() == hamba.Bytes:
		return func(d *avroDecodeState) any { b := d.r.ReadBytes(); return b[:len(b):len(b)] }, true
	case w == hamba.Bytes && r.Type() == hamba.String:
		return func(d *avroDecodeState) any { return d.r.ReadString() }, true
	}
	return nil, false
}

// enumResolver maps writer symbols to reader symbols by name; a symbol
// the reader lacks becomes the reader's default (or fails the event).
func enumResolver(w, r *hamba.EnumSchema) (avroDecoder, bool) {
	syms := make([]any, len(w.Symbols())) // nil: no reader symbol
	for i, sym := range w.Symbols() {
		switch {
		case slices.Contains(r.Symbols(), sym):
			syms[i] = sym
		case r.HasDefault():
			syms[i] = r.Default()
		}
	}
	return func(d *avroDecodeState) any {
		i := d.r.ReadInt()
		if i < 0 || int(i) >= len(syms) || syms[i] == nil {
			d.r.ReportError("decode enum symbol", "unknown enum symbol")
			return nil
		}
		return syms[i]
	}, true
}

// resolveRecord matches writer fields to reader fields as hamba does.
func (c *avroDecCompiler) resolveRecord(w, r *hamba.RecordSchema) (*avroRecordDecoder, bool) {
	if c.open[r] || c.open[w] {
		return nil, false
	}
	c.open[r], c.open[w] = true, true
	defer delete(c.open, r)
	defer delete(c.open, w)
	rd := &avroRecordDecoder{}
	seen := map[string]bool{}
	for _, wf := range w.Fields() {
		var rf *hamba.Field
		for _, f := range r.Fields() {
			if f.Name() == wf.Name() || slices.Contains(f.Aliases(), wf.Name()) {
				rf = f
				break
			}
		}
		if rf == nil {
			skip, ok := c.skipper(wf.Type())
			if !ok {
				return nil, false
			}
			rd.skips = append(rd.skips, len(rd.fields))
			rd.names = append(rd.names, wf.Name())
			rd.fields = append(rd.fields, skip)
			continue
		}
		fd, ok := c.resolve(wf.Type(), rf.Type())
		if !ok {
			return nil, false
		}
		rd.names = append(rd.names, rf.Name())
		rd.fields = append(rd.fields, fd)
		seen[rf.Name()] = true
	}
	for _, rf := range r.Fields() {
		if seen[rf.Name()] {
			continue
		}
		if !rf.HasDefault() {
			return nil, false
		}
		v, ok := decodedDefault(r, rf)
		if !ok {
			return nil, false
		}
		rd.defaults = append(rd.defaults, avroDefault{name: rf.Name(), value: v, mutable: mutable(v)})
	}
	return rd, true
}

// decodedDefault returns the default of reader field rf as hamba decodes
// it when resolving a writer that lacks the field: hamba itself resolves
// a one-field record against an empty one and decodes nothing.
func decodedDefault(r *hamba.RecordSchema, rf *hamba.Field) (any, bool) {
	one, err := hamba.NewRecordSchema(r.Name(), r.Namespace(), []*hamba.Field{rf})
	if err != nil {
		return nil, false
	}
	empty, err := hamba.NewRecordSchema(r.Name(), r.Namespace(), nil)
	if err != nil {
		return nil, false
	}
	rs, err := hamba.NewSchemaCompatibility().Resolve(one, empty)
	if err != nil {
		return nil, false
	}
	// One decode at compile time: a config without a cache (the resolved
	// schema's cache key would leave out defaults nested in rf's type).
	m, err := newHambaDecoder(rs, avro.UncachedAPI).decode(nil)
	if err != nil {
		return nil, false
	}
	v, ok := m[rf.Name()]
	return v, ok
}

// mutable reports whether a decoded value can be changed in place (so a
// default must be copied for each event).
func mutable(v any) bool {
	switch v.(type) {
	case nil, bool, int, int64, float32, float64, string, time.Time, time.Duration:
		return false
	}
	return true
}

// copyDecoded copies the mutable parts of a decoded value (maps, slices,
// bytes, decimals).
func copyDecoded(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = copyDecoded(x)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, x := range t {
			s[i] = copyDecoded(x)
		}
		return s
	case []byte:
		return append([]byte(nil), t...)
	case *big.Rat:
		return new(big.Rat).Set(t)
	}
	return v
}

// skipper compiles a reader of a writer value that the reader drops.
func (c *avroDecCompiler) skipper(s hamba.Schema) (avroDecoder, bool) {
	s = deref(s)
	skip := func(f func(r *hamba.Reader)) (avroDecoder, bool) {
		return func(d *avroDecodeState) any { f(d.r); return nil }, true
	}
	switch s.Type() {
	case hamba.Null:
		return func(*avroDecodeState) any { return nil }, true
	case hamba.Boolean:
		return skip((*hamba.Reader).SkipBool)
	case hamba.Int, hamba.Enum:
		return skip((*hamba.Reader).SkipInt)
	case hamba.Long:
		return skip((*hamba.Reader).SkipLong)
	case hamba.Float:
		return skip((*hamba.Reader).SkipFloat)
	case hamba.Double:
		return skip((*hamba.Reader).SkipDouble)
	case hamba.String:
		return skip((*hamba.Reader).SkipString)
	case hamba.Bytes:
		return skip((*hamba.Reader).SkipBytes)
	case hamba.Fixed:
		n := s.(*hamba.FixedSchema).Size()
		return skip(func(r *hamba.Reader) { r.SkipNBytes(n) })
	case hamba.Array, hamba.Map:
		isMap := s.Type() == hamba.Map
		var inner hamba.Schema
		if isMap {
			inner = s.(*hamba.MapSchema).Values()
		} else {
			inner = s.(*hamba.ArraySchema).Items()
		}
		item, ok := c.skipper(inner)
		if !ok || (!isMap && zeroWidth(inner)) {
			return nil, false
		}
		return func(d *avroDecodeState) any {
			for {
				n, size := d.r.ReadBlockHeader()
				if d.r.Error != nil || n == 0 {
					return nil
				}
				if n < 0 || n > int64(d.size) || size < 0 || size > int64(d.size) {
					d.r.ReportError("skip block", fmt.Sprintf("block of %d items (%d bytes) in a payload of %d bytes", n, size, d.size))
					return nil
				}
				if size > 0 {
					d.r.SkipNBytes(int(size))
					continue
				}
				for range n {
					if isMap {
						d.r.SkipString()
					}
					item(d)
					if d.r.Error != nil {
						return nil
					}
				}
			}
		}, true
	case hamba.Record:
		rs := s.(*hamba.RecordSchema)
		if c.open[rs] {
			return nil, false
		}
		c.open[rs] = true
		defer delete(c.open, rs)
		var fields []avroDecoder
		for _, f := range rs.Fields() {
			fd, ok := c.skipper(f.Type())
			if !ok {
				return nil, false
			}
			fields = append(fields, fd)
		}
		return func(d *avroDecodeState) any {
			for _, f := range fields {
				if f(d); d.r.Error != nil {
					return nil
				}
			}
			return nil
		}, true
	case hamba.Union:
		var branches []avroDecoder
		for _, b := range s.(*hamba.UnionSchema).Types() {
			bd, ok := c.skipper(b)
			if !ok {
				return nil, false
			}
			branches = append(branches, bd)
		}
		return unionDecoder(branches), true
	}
	return nil, false
}

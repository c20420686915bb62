package upcast

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"sync"
	"time"

	hamba "github.com/hamba/avro/v2"

	"github.com/charter-dev/charter/compat/avro"
)

// The compiled Avro decoder.
//
// hamba decodes into `any` through reflection-driven decoders: per field
// it allocates a slot, a receiver for the concrete type and a boxed copy,
// and it looks the decoder up in a cache on every call. A record decoder
// compiled once per schema does the same work with hamba's Reader
// primitives: one map per record, one box per non-constant scalar, and
// enum symbols boxed once. It produces exactly what hamba's generic
// decoding produces (same Go types and values, see avroCodec), which
// TestAvroDecoderMatchesHamba and FuzzAvroDecoder check against hamba
// itself; schemas outside the subset it handles are decoded by hamba.
//
// Two differences, both on bad input: a payload that ends early is an
// error (hamba.Unmarshal returns nil for a read that ends exactly at the
// end of the buffer, leaving a partial value), and an array or map block
// that claims more items than the payload has bytes is rejected before
// any allocation.
//
// Handled: null, boolean, int, long, float, double, string, bytes
// (decimal included), the logical types date, time-millis, time-micros,
// timestamp-millis and timestamp-micros, enums, arrays, maps, records
// (not recursive ones), and unions whose branches all have a name in
// hamba's default type registry (primitives and those logical types), as
// hamba then decodes them bare. Left to hamba: fixed (decoded to a Go
// array type), local timestamps, unions with named, array or map
// branches (hamba wraps every branch's value as {"name": value}),
// recursive records, and arrays or maps of items that take no bytes.

// avroDecoder decodes one value of its schema from r.
type avroDecoder func(d *avroDecodeState) any

// avroDecodeState is one decode's state.
type avroDecodeState struct {
	r *hamba.Reader
	// size is the payload's length: no array or map block can hold more
	// items than that, as each takes at least one byte.
	size int
	// boxes holds decoded strings and longs for their interfaces.
	boxes boxSlabs
}

// avroRecordDecoder decodes a record into map[string]any: its fields in
// the order they were written, then (when resolving) the reader's
// defaults for fields the writer lacks.
type avroRecordDecoder struct {
	names  []string
	fields []avroDecoder
	// skips lists the fields that are read but not kept (writer fields
	// the reader does not have), ascending.
	skips    []int
	defaults []avroDefault
}

// avroDefault is a reader field's default in decoded form; a mutable one
// (a map, slice, bytes or decimal) is copied for each event.
type avroDefault struct {
	name    string
	value   any
	mutable bool
}

// decodeStates reuses decode states: the decoders are called through
// function values, so a state on the stack would escape anyway. The
// compiled decoders read only primitives, which no hamba cache is
// involved in; the Readers still use a config whose cache is off
// (avro.UncachedAPI), not hamba's shared DefaultConfig, so that no schema
// read through them could take another's cached decoder.
var decodeStates = sync.Pool{New: func() any {
	return &avroDecodeState{r: hamba.NewReader(nil, 0, hamba.WithReaderConfig(avro.UncachedAPI))}
}}

// decode decodes payload; a payload that ends early or holds a bad
// length, union index or enum index is an error.
func (rd *avroRecordDecoder) decode(payload []byte) (map[string]any, error) {
	d := decodeStates.Get().(*avroDecodeState)
	d.r.Reset(payload)
	d.r.Error = nil
	d.size = len(payload)
	m := rd.record(d)
	err := d.r.Error
	d.r.Reset(nil)
	decodeStates.Put(d)
	if err != nil {
		return nil, decodeError(err)
	}
	return m, nil
}

func (rd *avroRecordDecoder) record(d *avroDecodeState) map[string]any {
	m := make(map[string]any, len(rd.fields)-len(rd.skips)+len(rd.defaults))
	skips := rd.skips
	for i, f := range rd.fields {
		v := f(d)
		if d.r.Error != nil {
			return nil
		}
		if len(skips) > 0 && skips[0] == i {
			skips = skips[1:]
			continue
		}
		m[rd.names[i]] = v
	}
	for _, df := range rd.defaults {
		if df.mutable {
			m[df.name] = copyDecoded(df.value)
		} else {
			m[df.name] = df.value
		}
	}
	return m
}

// value is record as an avroDecoder (a nested record).
func (rd *avroRecordDecoder) value(d *avroDecodeState) any {
	if m := rd.record(d); m != nil {
		return m
	}
	return nil // an error; a nil map in an `any` would not be nil
}

// decodeError words a Reader error; running out of bytes is a truncated
// payload whatever hamba calls it.
func decodeError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the payload ends before the value does (truncated)")
	}
	return err
}

// compileAvroDecoder compiles the decoder of a top-level record schema;
// ok is false when the schema is outside the compiled subset.
func compileAvroDecoder(s hamba.Schema) (rd *avroRecordDecoder, ok bool) {
	rs, isRec := deref(s).(*hamba.RecordSchema)
	if !isRec {
		return nil, false
	}
	c := avroDecCompiler{open: map[*hamba.RecordSchema]bool{}}
	return c.record(rs)
}

type avroDecCompiler struct {
	open   map[*hamba.RecordSchema]bool // records being compiled: recursion
	compat *hamba.SchemaCompatibility   // when resolving
}

func (c *avroDecCompiler) record(rs *hamba.RecordSchema) (*avroRecordDecoder, bool) {
	if c.open[rs] {
		return nil, false
	}
	c.open[rs] = true
	defer delete(c.open, rs)
	rd := &avroRecordDecoder{}
	for _, f := range rs.Fields() {
		fd, ok := c.compile(f.Type())
		if !ok {
			return nil, false
		}
		rd.names = append(rd.names, f.Name())
		rd.fields = append(rd.fields, fd)
	}
	return rd, true
}

// zeroWidth reports whether values of s may take no bytes at all.
func zeroWidth(s hamba.Schema) bool {
	switch t := deref(s).(type) {
	case *hamba.NullSchema:
		return true
	case *hamba.RecordSchema:
		for _, f := range t.Fields() {
			if !zeroWidth(f.Type()) {
				return false
			}
		}
		return true
	}
	return false
}

func (c *avroDecCompiler) compile(s hamba.Schema) (avroDecoder, bool) {
	s = deref(s)
	lt := logical(s)
	switch s.Type() {
	case hamba.Null:
		return func(*avroDecodeState) any { return nil }, true
	case hamba.Boolean:
		return func(d *avroDecodeState) any { return d.r.ReadBool() }, true
	case hamba.Int:
		switch lt {
		case "":
			return func(d *avroDecodeState) any { return int(d.r.ReadInt()) }, true
		case hamba.Date:
			return func(d *avroDecodeState) any {
				return time.Unix(int64(d.r.ReadInt())*int64(24*time.Hour/time.Second), 0).UTC()
			}, true
		case hamba.TimeMillis:
			return func(d *avroDecodeState) any { return time.Duration(d.r.ReadInt()) * time.Millisecond }, true
		}
	case hamba.Long:
		switch lt {
		case "":
			return func(d *avroDecodeState) any { return d.boxes.long(d.r.ReadLong()) }, true
		case hamba.TimeMicros:
			return func(d *avroDecodeState) any { return time.Duration(d.r.ReadLong()) * time.Microsecond }, true
		case hamba.TimestampMillis:
			return func(d *avroDecodeState) any {
				i := d.r.ReadLong()
				sec := i / 1e3
				return time.Unix(sec, (i-sec*1e3)*1e6).UTC()
			}, true
		case hamba.TimestampMicros:
			return func(d *avroDecodeState) any {
				i := d.r.ReadLong()
				sec := i / 1e6
				return time.Unix(sec, (i-sec*1e6)*1e3).UTC()
			}, true
		}
	case hamba.Float:
		return func(d *avroDecodeState) any { return d.r.ReadFloat() }, true
	case hamba.Double:
		return func(d *avroDecodeState) any { return d.r.ReadDouble() }, true
	case hamba.String:
		return func(d *avroDecodeState) any { return d.boxes.str(d.r.ReadString()) }, true
	case hamba.Bytes:
		if lt == hamba.Decimal {
			dec, ok := s.(hamba.LogicalTypeSchema).Logical().(*hamba.DecimalLogicalSchema)
			if !ok {
				return nil, false
			}
			denom := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec.Scale())), nil)
			return func(d *avroDecodeState) any {
				b := d.r.ReadBytes()
				if d.r.Error != nil {
					return nil
				}
				num := new(big.Int).SetBytes(b)
				if len(b) > 0 && b[0]&0x80 != 0 {
					num.Sub(num, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
				}
				return new(big.Rat).SetFrac(num, denom)
			}, true
		}
		if lt != "" {
			return nil, false
		}
		return func(d *avroDecodeState) any {
			b := d.r.ReadBytes()
			// Capped: hamba hands out slices of a shared slab, and an
			// append to one must not write into the next value.
			return b[:len(b):len(b)]
		}, true
	case hamba.Enum:
		es := s.(*hamba.EnumSchema)
		syms := make([]any, len(es.Symbols()))
		for i, sym := range es.Symbols() {
			syms[i] = sym // boxed once
		}
		return func(d *avroDecodeState) any {
			i := d.r.ReadInt()
			if i < 0 || int(i) >= len(syms) {
				d.r.ReportError("decode enum symbol", "unknown enum symbol")
				return nil
			}
			return syms[i]
		}, true
	case hamba.Array:
		items := s.(*hamba.ArraySchema).Items()
		if zeroWidth(items) {
			return nil, false
		}
		item, ok := c.compile(items)
		if !ok {
			return nil, false
		}
		return arrayDecoder(item), true
	case hamba.Map:
		vals, ok := c.compile(s.(*hamba.MapSchema).Values())
		if !ok {
			return nil, false
		}
		return mapDecoder(vals), true
	case hamba.Record:
		rd, ok := c.record(s.(*hamba.RecordSchema))
		if !ok {
			return nil, false
		}
		return rd.value, true
	case hamba.Union:
		return c.union(s.(*hamba.UnionSchema))
	}
	return nil, false
}

// hambaUnionNames are the union branch names hamba's default type
// registry resolves to a Go type: branches of a union made only of these
// decode bare, as their Go value.
var hambaUnionNames = map[string]bool{
	"null": true, "boolean": true, "int": true, "long": true, "float": true, "double": true,
	"string": true, "bytes": true, "int.date": true, "int.time-millis": true,
	"long.timestamp-millis": true, "long.timestamp-micros": true, "long.time-micros": true,
	"bytes.decimal": true, "string.uuid": true,
}

func (c *avroDecCompiler) union(u *hamba.UnionSchema) (avroDecoder, bool) {
	branches := make([]avroDecoder, len(u.Types()))
	for i, b := range u.Types() {
		if !hambaUnionNames[typeName(b)] {
			return nil, false
		}
		bd, ok := c.compile(b)
		if !ok {
			return nil, false
		}
		branches[i] = bd
	}
	return unionDecoder(branches), true
}

func arrayDecoder(item avroDecoder) avroDecoder {
	return func(d *avroDecodeState) any {
		arr := make([]any, 0)
		for {
			n := d.block("array")
			if n == 0 {
				return arr
			}
			if len(arr) == 0 {
				arr = make([]any, 0, n)
			}
			for range n {
				v := item(d)
				if d.r.Error != nil {
					return nil
				}
				arr = append(arr, v)
			}
		}
	}
}

func mapDecoder(vals avroDecoder) avroDecoder {
	return func(d *avroDecodeState) any {
		m := make(map[string]any)
		for {
			n := d.block("map")
			if n == 0 {
				return m
			}
			for range n {
				k := d.r.ReadString()
				v := vals(d)
				if d.r.Error != nil {
					return nil
				}
				m[k] = v
			}
		}
	}
}

func unionDecoder(branches []avroDecoder) avroDecoder {
	return func(d *avroDecodeState) any {
		i := d.r.ReadLong()
		if d.r.Error != nil {
			return nil
		}
		if i < 0 || i >= int64(len(branches)) {
			d.r.ReportError("decode union type", "unknown union type")
			return nil
		}
		return branches[i](d)
	}
}

// block reads an array or map block header and returns its item count
// (0 at the end), refusing counts the payload cannot hold.
func (d *avroDecodeState) block(what string) int {
	n, _ := d.r.ReadBlockHeader()
	if d.r.Error != nil {
		return 0
	}
	if n < 0 || n > int64(d.size) {
		d.r.ReportError("decode "+what, fmt.Sprintf("block of %d items in a payload of %d bytes", n, d.size))
		return 0
	}
	return int(n)
}

package upcast

import (
	"math/big"
	"time"

	hamba "github.com/hamba/avro/v2"
)

// avroCheck reports whether v is already exactly in hamba's decoded form
// for its schema: every record field present, no other field, every
// value of the Go type hamba decodes it to. It is compiled once per
// version, so the check per event is a walk over the value with no
// schema inspection. true means avroConformer would return v unchanged
// and without error; false sends v to the conformer, which coerces what
// it can (JSON numbers, missing nullable fields, bare union records) and
// otherwise says what is wrong and where.
type avroCheck func(v any) bool

func never(any) bool { return false }

// compileAvroCheck compiles the check of s. Kinds the conformer may have
// to coerce or verify in detail (fixed, unknown logical types, recursive
// records) compile to a check that always says no.
func compileAvroCheck(s hamba.Schema) avroCheck {
	c := avroCheckCompiler{open: map[*hamba.RecordSchema]bool{}}
	return c.compile(s)
}

type avroCheckCompiler struct {
	open map[*hamba.RecordSchema]bool
}

func isType[T any](v any) bool {
	_, ok := v.(T)
	return ok
}

func (c *avroCheckCompiler) compile(s hamba.Schema) avroCheck {
	s = deref(s)
	lt := logical(s)
	switch s.Type() {
	case hamba.Null:
		return func(v any) bool { return v == nil }
	case hamba.Boolean:
		return isType[bool]
	case hamba.Int:
		switch lt {
		case "":
			return isType[int]
		case hamba.Date:
			return isType[time.Time]
		case hamba.TimeMillis:
			return isType[time.Duration]
		}
	case hamba.Long:
		switch lt {
		case "":
			return isType[int64]
		case hamba.TimestampMillis, hamba.TimestampMicros, hamba.LocalTimestampMillis, hamba.LocalTimestampMicros:
			return isType[time.Time]
		case hamba.TimeMicros:
			return isType[time.Duration]
		}
	case hamba.Float:
		return isType[float32]
	case hamba.Double:
		return isType[float64]
	case hamba.String:
		return isType[string]
	case hamba.Bytes:
		switch lt {
		case "":
			return isType[[]byte]
		case hamba.Decimal:
			return func(v any) bool { r, ok := v.(*big.Rat); return ok && r != nil }
		}
	case hamba.Enum:
		syms := map[string]bool{}
		for _, sym := range s.(*hamba.EnumSchema).Symbols() {
			syms[sym] = true
		}
		return func(v any) bool { str, ok := v.(string); return ok && syms[str] }
	case hamba.Array:
		item := c.compile(s.(*hamba.ArraySchema).Items())
		return func(v any) bool {
			arr, ok := v.([]any)
			if !ok {
				return false
			}
			for _, x := range arr {
				if !item(x) {
					return false
				}
			}
			return true
		}
	case hamba.Map:
		val := c.compile(s.(*hamba.MapSchema).Values())
		return func(v any) bool {
			m, ok := v.(map[string]any)
			if !ok {
				return false
			}
			for _, x := range m {
				if !val(x) {
					return false
				}
			}
			return true
		}
	case hamba.Record:
		return c.record(s.(*hamba.RecordSchema))
	case hamba.Union:
		return c.union(s.(*hamba.UnionSchema))
	}
	return never
}

func (c *avroCheckCompiler) record(rs *hamba.RecordSchema) avroCheck {
	if c.open[rs] {
		return never
	}
	c.open[rs] = true
	defer delete(c.open, rs)
	names := make([]string, len(rs.Fields()))
	checks := make([]avroCheck, len(rs.Fields()))
	for i, f := range rs.Fields() {
		names[i], checks[i] = f.Name(), c.compile(f.Type())
	}
	return func(v any) bool {
		m, ok := v.(map[string]any)
		if !ok || len(m) != len(names) {
			return false
		}
		for i, name := range names {
			x, ok := m[name]
			if !ok || !checks[i](x) {
				return false
			}
		}
		return true
	}
}

// union accepts null for a nullable union, a one-entry map naming a
// branch around a value of that branch (hamba encodes a wrapped value of
// any branch), and a bare value of a branch hamba decodes bare. A bare
// record, map, enum, fixed or array is left to the conformer, which
// wraps it.
func (c *avroCheckCompiler) union(u *hamba.UnionSchema) avroCheck {
	nullable := hasNull(u)
	byName := map[string]avroCheck{}
	var bare []avroCheck
	for _, b := range u.Types() {
		ch := c.compile(b)
		byName[typeName(b)] = ch
		if b.Type() != hamba.Null && !wrapsInUnion(b) {
			bare = append(bare, ch)
		}
	}
	return func(v any) bool {
		if v == nil {
			return nullable
		}
		if m, ok := v.(map[string]any); ok && len(m) == 1 {
			for name, inner := range m {
				if ch := byName[name]; ch != nil {
					return ch(inner)
				}
			}
		}
		for _, ch := range bare {
			if ch(v) {
				return true
			}
		}
		return false
	}
}

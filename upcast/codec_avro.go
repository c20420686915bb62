package upcast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"sync"
	"time"

	hamba "github.com/hamba/avro/v2"

	"github.com/charter-dev/charter/compat/avro"
)

// avroCodec handles Avro data with github.com/hamba/avro/v2. Decoded values
// are what hamba decodes into `any` (the form Confluent's Go serde hands to
// migration rules): records as map[string]any, int as int, long as int64,
// float as float32, double as float64, bytes as []byte, fixed as a byte
// array, enums as strings, arrays as []any, maps as map[string]any,
// decimals as *big.Rat, dates and timestamps as time.Time; a union value
// is the bare value for primitive branches and a one-entry map
// {"full.Name": value} for records, maps and other named branches.
type avroCodec struct{}

func (avroCodec) resolution() string { return "AVRO resolution" }

// avroState is a version's prepared form: its hamba schema, the hamba
// config frozen for that schema alone (avro.Schema.API: hamba keys its
// codec cache by a fingerprint that ignores defaults, so a shared config
// would hand one version another's encoder), its compiled decoder (nil
// when the schema is outside the compiled subset) and its compiled output
// check.
type avroState struct {
	schema hamba.Schema
	api    hamba.API
	dec    *avroRecordDecoder
	check  avroCheck
}

func (avroCodec) prepare(v *version, _ *options) error {
	s, ok := v.schema.(*avro.Schema)
	if !ok {
		return fmt.Errorf("%s: not an Avro schema from compat/avro", v)
	}
	hs := s.Hamba()
	st := &avroState{schema: hs, api: s.API(), check: compileAvroCheck(hs)}
	if rd, ok := compileAvroDecoder(hs); ok {
		st.dec = rd
	}
	v.state = st
	return nil
}

func avroStateOf(v *version) *avroState { return v.state.(*avroState) }

func hambaOf(v *version) hamba.Schema { return avroStateOf(v).schema }

// decoder decodes with a compiled decoder: the writer's own, or one
// compiled for the (writer, reader) pair; hamba decodes what is outside
// the compiled subset.
func (avroCodec) decoder(writer, reader *version) (decodeFunc, error) {
	if reader == writer {
		if rd := avroStateOf(writer).dec; rd != nil {
			return rd.decode, nil
		}
	} else if rd, ok := compileAvroResolver(hambaOf(writer), hambaOf(reader)); ok {
		return rd.decode, nil
	}
	if reader == writer {
		return newHambaDecoder(hambaOf(writer), avroStateOf(writer).api).decode, nil
	}
	rs, err := hamba.NewSchemaCompatibility().Resolve(hambaOf(reader), hambaOf(writer))
	if err != nil {
		return nil, fmt.Errorf("resolve %s as reader of %s: %w", reader, writer, err)
	}
	// The resolved schema is a schema of its own: hamba's cache key for it
	// (the reader's fingerprint, the writer's and the top-level defaults)
	// misses nested defaults, so it gets a config of its own too.
	return newHambaDecoder(rs, avro.FreshAPI()).decode, nil
}

// hambaDecoder decodes with hamba's generic decoding, through Readers of a
// config that decodes only its schema (see avroState). Unlike
// hamba.Unmarshal, a payload that ends early is an error, not a partial
// value.
type hambaDecoder struct {
	schema  hamba.Schema
	readers sync.Pool // *hamba.Reader of the config
}

func newHambaDecoder(schema hamba.Schema, api hamba.API) *hambaDecoder {
	d := &hambaDecoder{schema: schema}
	d.readers.New = func() any { return hamba.NewReader(nil, 0, hamba.WithReaderConfig(api)) }
	return d
}

func (d *hambaDecoder) decode(payload []byte) (map[string]any, error) {
	r := d.readers.Get().(*hamba.Reader)
	r.Reset(payload)
	r.Error = nil
	var out any
	r.ReadVal(d.schema, &out)
	err := r.Error
	r.Reset(nil)
	d.readers.Put(r)
	if err != nil {
		return nil, decodeError(err)
	}
	m, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the schema's top level is %s; upcast needs a record", d.schema.Type())
	}
	return m, nil
}

func (c avroCodec) converter(from, to *version) (convertFunc, error) {
	dec, err := c.decoder(from, to)
	if err != nil {
		return nil, err
	}
	fromSchema, api := hambaOf(from), avroStateOf(from).api
	return func(v map[string]any) (map[string]any, error) {
		b, err := api.Marshal(fromSchema, v)
		if err != nil {
			return nil, fmt.Errorf("encode as %s: %w", from, err)
		}
		return dec(b)
	}, nil
}

// conform returns v as it is when the version's compiled check finds it
// already in hamba's form (the common case: values decoded by hamba or
// built by steps with the right Go types), and otherwise conforms it.
func (avroCodec) conform(v map[string]any, ver *version, lenient bool) (map[string]any, error) {
	st := avroStateOf(ver)
	if st.check(v) {
		return v, nil
	}
	c := avroConformer{lenient: lenient}
	out, err := c.record(v, hambaOf(ver))
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (avroCodec) encode(v map[string]any, ver *version) ([]byte, error) {
	st := avroStateOf(ver)
	return st.api.Marshal(st.schema, v)
}

// fromJSON reads JSON whose shape follows the schema: numbers for numeric
// types and decimals (or decimal strings), strings for enums, strings or
// byte arrays for bytes, and union values either bare or wrapped as in
// Avro's JSON encoding ({"string": "x"}).
func (avroCodec) fromJSON(raw []byte, ver *version) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("read JSON value: %w", err)
	}
	c := avroConformer{fromJSON: true}
	return c.record(m, hambaOf(ver))
}

// avroConformer checks a decoded value against a schema, coercing numbers
// of other Go types (JSON, JSONata) to hamba's form and filling missing
// fields from their defaults (or null for nullable fields).
type avroConformer struct {
	lenient  bool // drop unknown record fields instead of failing
	fromJSON bool // accept JSON forms of bytes, fixed and wrapped unions
}

func deref(s hamba.Schema) hamba.Schema {
	if r, ok := s.(*hamba.RefSchema); ok {
		return r.Schema()
	}
	return s
}

func (c avroConformer) record(m map[string]any, s hamba.Schema) (map[string]any, error) {
	rs, ok := deref(s).(*hamba.RecordSchema)
	if !ok {
		return nil, perr("the schema's top level is %s; upcast needs a record", s.Type())
	}
	if m == nil {
		return nil, perr("got null, want record %s", rs.FullName())
	}
	seen := 0
	for _, f := range rs.Fields() {
		name := f.Name()
		fv, ok := m[name]
		if !ok {
			switch {
			case f.HasDefault():
				fv = deepCopy(f.Default())
			case nullable(f.Type()):
				m[name] = nil
				seen++
				continue
			default:
				return nil, at(perr("missing, and the field has no default"), "."+name)
			}
		} else {
			seen++
		}
		out, changed, err := c.value(fv, f.Type())
		if err != nil {
			return nil, at(err, "."+name)
		}
		if changed || !ok {
			m[name] = out
		}
	}
	if seen != len(m) {
		for k := range m {
			if !hasField(rs, k) {
				if !c.lenient {
					return nil, at(perr("not a field of record %s", rs.FullName()), "."+k)
				}
				delete(m, k)
			}
		}
	}
	return m, nil
}

func hasField(rs *hamba.RecordSchema, name string) bool {
	for _, f := range rs.Fields() {
		if f.Name() == name {
			return true
		}
	}
	return false
}

func nullable(s hamba.Schema) bool {
	switch t := deref(s).(type) {
	case *hamba.NullSchema:
		return true
	case *hamba.UnionSchema:
		return hasNull(t)
	}
	return false
}

// hasNull reports whether u has a null branch (hamba's Nullable is true
// only for two-branch unions).
func hasNull(u *hamba.UnionSchema) bool {
	for _, b := range u.Types() {
		if b.Type() == hamba.Null {
			return true
		}
	}
	return false
}

func logical(s hamba.Schema) hamba.LogicalType {
	if ls, ok := s.(hamba.LogicalTypeSchema); ok && ls.Logical() != nil {
		return ls.Logical().Type()
	}
	return ""
}

// value conforms one value to schema s. changed is false when v is
// returned as it was (maps and slices are conformed in place), so that a
// value already in hamba's form costs no allocation and no map write.
func (c avroConformer) value(v any, s hamba.Schema) (out any, changed bool, err error) {
	s = deref(s)
	// Already in hamba's decoded form: keep the interface value as it is.
	if canonical(v, s) {
		return v, false, nil
	}
	if u, ok := s.(*hamba.UnionSchema); ok {
		if v == nil && hasNull(u) {
			return v, false, nil
		}
		for _, b := range u.Types() {
			if canonical(v, deref(b)) {
				return v, false, nil
			}
		}
	}
	out, err = c.convert(v, s)
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// canonical reports whether v is already what hamba decodes for the
// primitive schema s (logical types excluded).
func canonical(v any, s hamba.Schema) bool {
	if logical(s) != "" {
		return false
	}
	switch v.(type) {
	case int:
		return s.Type() == hamba.Int
	case int64:
		return s.Type() == hamba.Long
	case float64:
		return s.Type() == hamba.Double
	case string:
		return s.Type() == hamba.String
	case bool:
		return s.Type() == hamba.Boolean
	}
	return false
}

// convert is value's slow path: every accepted form, coerced.
func (c avroConformer) convert(v any, s hamba.Schema) (any, error) {
	switch s.Type() {
	case hamba.Null:
		if v != nil {
			return nil, perr("got %s, want null", kind(v))
		}
		return nil, nil
	case hamba.Boolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case hamba.Int:
		switch logical(s) {
		case hamba.Date:
			if t, ok := v.(time.Time); ok {
				return t, nil
			}
			if str, ok := v.(string); ok && c.fromJSON {
				t, err := time.Parse(time.DateOnly, str)
				if err != nil {
					return nil, perr("date %q: %v", str, err)
				}
				return t, nil
			}
		case hamba.TimeMillis:
			if d, ok := v.(time.Duration); ok {
				return d, nil
			}
		}
		if n, ok := integer(v, math.MinInt32, math.MaxInt32); ok {
			return int(n), nil
		}
	case hamba.Long:
		switch logical(s) {
		case hamba.TimestampMillis, hamba.TimestampMicros, hamba.LocalTimestampMillis, hamba.LocalTimestampMicros:
			if t, ok := v.(time.Time); ok {
				return t, nil
			}
			if str, ok := v.(string); ok && c.fromJSON {
				t, err := time.Parse(time.RFC3339Nano, str)
				if err != nil {
					return nil, perr("timestamp %q: %v", str, err)
				}
				return t, nil
			}
		case hamba.TimeMicros:
			if d, ok := v.(time.Duration); ok {
				return d, nil
			}
		}
		if n, ok := integer(v, math.MinInt64, math.MaxInt64); ok {
			return n, nil
		}
	case hamba.Float:
		if f, ok := float(v); ok {
			return float32(f), nil
		}
	case hamba.Double:
		if f, ok := float(v); ok {
			return f, nil
		}
	case hamba.String:
		if str, ok := v.(string); ok {
			return str, nil
		}
	case hamba.Bytes:
		if logical(s) == hamba.Decimal {
			return decimal(v)
		}
		switch b := v.(type) {
		case []byte:
			return b, nil
		case string:
			if c.fromJSON {
				return []byte(b), nil
			}
		}
	case hamba.Fixed:
		return c.fixed(v, s.(*hamba.FixedSchema))
	case hamba.Enum:
		es := s.(*hamba.EnumSchema)
		if str, ok := v.(string); ok {
			for _, sym := range es.Symbols() {
				if sym == str {
					return str, nil
				}
			}
			return nil, perr("%q is not a symbol of enum %s", str, es.FullName())
		}
	case hamba.Array:
		items := s.(*hamba.ArraySchema).Items()
		arr, ok := v.([]any)
		if !ok {
			if arr, ok = anySlice(v); !ok {
				break
			}
		}
		for i, x := range arr {
			out, changed, err := c.value(x, items)
			if err != nil {
				return nil, at(err, "["+strconv.Itoa(i)+"]")
			}
			if changed {
				arr[i] = out
			}
		}
		return arr, nil
	case hamba.Map:
		vals := s.(*hamba.MapSchema).Values()
		if m, ok := v.(map[string]any); ok {
			for k, x := range m {
				out, changed, err := c.value(x, vals)
				if err != nil {
					return nil, at(err, "{"+k+"}")
				}
				if changed {
					m[k] = out
				}
			}
			return m, nil
		}
	case hamba.Record:
		if m, ok := v.(map[string]any); ok {
			return c.record(m, s)
		}
	case hamba.Union:
		return c.union(v, s.(*hamba.UnionSchema))
	}
	return nil, perr("got %s, want %s", kind(v), typeName(s))
}

// union picks the branch of a union value: a one-entry map naming a
// branch, else the first branch the value conforms to.
func (c avroConformer) union(v any, u *hamba.UnionSchema) (any, error) {
	if v == nil {
		if hasNull(u) {
			return nil, nil
		}
		return nil, perr("got null, want one of %s", unionNames(u))
	}
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for name, inner := range m {
			if b, _ := u.Types().Get(name); b != nil {
				out, changed, err := c.value(inner, b)
				if err != nil {
					return nil, at(err, "<"+name+">")
				}
				if changed {
					m[name] = out // hamba encodes a wrapped value of any branch
				}
				return m, nil
			}
		}
	}
	var first error
	for _, b := range u.Types() {
		if b.Type() == hamba.Null {
			continue
		}
		cand := v
		if _, isMap := v.(map[string]any); isMap {
			cand = deepCopy(v) // a branch failing halfway must not leave defaults behind
		}
		out, _, err := c.value(cand, b)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		if wrapsInUnion(b) {
			return map[string]any{typeName(b): out}, nil
		}
		return out, nil
	}
	return nil, perr("%s matches no branch of %s (first branch: %v)", kind(v), unionNames(u), first)
}

// wrapsInUnion reports whether a bare value of branch b must be wrapped
// as {"name": value} for hamba to encode it: records and maps (which are
// maps themselves), and the types its union encoder cannot tell by Go type.
func wrapsInUnion(b hamba.Schema) bool {
	switch deref(b).Type() {
	case hamba.Record, hamba.Map, hamba.Enum, hamba.Fixed, hamba.Array:
		return true
	}
	return false
}

func unionNames(u *hamba.UnionSchema) string {
	names := "["
	for i, b := range u.Types() {
		if i > 0 {
			names += ", "
		}
		names += typeName(b)
	}
	return names + "]"
}

// typeName is hamba's union branch name: full name for named types, the
// type (and logical type) otherwise.
func typeName(s hamba.Schema) string {
	s = deref(s)
	if n, ok := s.(hamba.NamedSchema); ok {
		return n.FullName()
	}
	if lt := logical(s); lt != "" {
		return string(s.Type()) + "." + string(lt)
	}
	return string(s.Type())
}

func (c avroConformer) fixed(v any, fs *hamba.FixedSchema) (any, error) {
	if logical(fs) == hamba.Decimal {
		return decimal(v)
	}
	if logical(fs) == hamba.Duration {
		if d, ok := v.(hamba.LogicalDuration); ok {
			return d, nil
		}
	}
	var b []byte
	switch t := v.(type) {
	case []byte:
		b = t
	case string:
		if !c.fromJSON {
			return nil, perr("got string, want fixed %s", fs.FullName())
		}
		b = []byte(t)
	default:
		rv := reflect.ValueOf(v)
		if rv.Kind() == reflect.Array && rv.Type().Elem().Kind() == reflect.Uint8 {
			if rv.Len() != fs.Size() {
				return nil, perr("got %d bytes, want fixed %s of %d", rv.Len(), fs.FullName(), fs.Size())
			}
			return v, nil
		}
		return nil, perr("got %s, want fixed %s", kind(v), fs.FullName())
	}
	if len(b) != fs.Size() {
		return nil, perr("got %d bytes, want fixed %s of %d", len(b), fs.FullName(), fs.Size())
	}
	arr := reflect.New(reflect.ArrayOf(fs.Size(), reflect.TypeFor[byte]())).Elem()
	reflect.Copy(arr, reflect.ValueOf(b))
	return arr.Interface(), nil
}

// decimal reads a decimal from *big.Rat, big.Rat, a Go number, a JSON
// number or a decimal string.
func decimal(v any) (any, error) {
	switch t := v.(type) {
	case *big.Rat:
		if t != nil {
			return t, nil
		}
	case big.Rat:
		return &t, nil
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(t)); ok {
			return r, nil
		}
	case string:
		if r, ok := new(big.Rat).SetString(t); ok {
			return r, nil
		}
		return nil, perr("%q is not a decimal number", t)
	case float64:
		if r, ok := new(big.Rat).SetString(strconv.FormatFloat(t, 'f', -1, 64)); ok {
			return r, nil
		}
	default:
		if n, ok := integer(v, math.MinInt64, math.MaxInt64); ok {
			return new(big.Rat).SetInt64(n), nil
		}
	}
	return nil, perr("got %s, want a decimal", kind(v))
}

// integer returns v as an int64 within [lo, hi] when it is an integral
// number of any Go type (float64 from JSON or JSONata included).
func integer(v any, lo, hi int64) (int64, bool) {
	var n int64
	switch t := v.(type) {
	case int:
		n = int64(t)
	case int8:
		n = int64(t)
	case int16:
		n = int64(t)
	case int32:
		n = int64(t)
	case int64:
		n = t
	case uint8:
		n = int64(t)
	case uint16:
		n = int64(t)
	case uint32:
		n = int64(t)
	case uint64:
		if t > math.MaxInt64 {
			return 0, false
		}
		n = int64(t)
	case float64:
		if t != math.Trunc(t) || t < -9.223372036854775e18 || t >= 9.223372036854775e18 {
			return 0, false
		}
		n = int64(t)
	case float32:
		f := float64(t)
		if f != math.Trunc(f) || f < -9.223372036854775e18 || f >= 9.223372036854775e18 {
			return 0, false
		}
		n = int64(f)
	case json.Number:
		i, err := strconv.ParseInt(string(t), 10, 64)
		if err != nil {
			return 0, false
		}
		n = i
	default:
		return 0, false
	}
	return n, n >= lo && n <= hi
}

// float returns v as a float64 when it is a number of any Go type.
func float(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case float32:
		return float64(t), true
	case json.Number:
		f, err := t.Float64()
		return f, err == nil
	}
	if n, ok := integer(v, math.MinInt64, math.MaxInt64); ok {
		return float64(n), true
	}
	return 0, false
}

// anySlice converts a typed slice ([]string, []map[string]any …) that a
// step may return into []any.
func anySlice(v any) ([]any, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice || rv.Type().Elem().Kind() == reflect.Uint8 {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// kind names a Go value's type for messages.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case float64, float32, json.Number:
		return fmt.Sprintf("number %v", v)
	}
	return fmt.Sprintf("%T", v)
}

func (avroCodec) plain(v map[string]any, ver *version) any { return avroPlain(v, hambaOf(ver)) }

// avroPlain returns v with every union value unwrapped ({"string": "x"} →
// "x"), the form Verify compares, since hamba wraps or not depending on
// the union's other branches.
func avroPlain(v any, s hamba.Schema) any {
	s = deref(s)
	switch t := s.(type) {
	case *hamba.RecordSchema:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = x
		}
		for _, f := range t.Fields() {
			if x, ok := m[f.Name()]; ok {
				out[f.Name()] = avroPlain(x, f.Type())
			}
		}
		return out
	case *hamba.ArraySchema:
		arr, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(arr))
		for i, x := range arr {
			out[i] = avroPlain(x, t.Items())
		}
		return out
	case *hamba.MapSchema:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = avroPlain(x, t.Values())
		}
		return out
	case *hamba.UnionSchema:
		if m, ok := v.(map[string]any); ok && len(m) == 1 {
			for name, inner := range m {
				if b, _ := t.Types().Get(name); b != nil {
					return avroPlain(inner, b)
				}
			}
		}
		for _, b := range t.Types() {
			if b.Type() == hamba.Record || b.Type() == hamba.Map {
				return avroPlain(v, b)
			}
		}
	}
	return v
}

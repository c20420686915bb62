package contracts

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"

	hamba "github.com/hamba/avro/v2"

	"github.com/charter-dev/charter/compat/avro"
)

// buildAvro prepares an Avro schema. Values are read in the record's JSON
// form: records as objects, maps as objects, bytes and fixed as strings,
// enums as their symbol, unions as the bare value (or, as the Avro JSON
// encoding writes them, {"<branch type name>": value}); decimals as
// numbers. Decoding converts the example to hamba's generic values and
// encodes it with the schema (with the schema's own hamba config,
// avro.Schema.API), which checks ranges, sizes,
// symbols and union branches.
func (v *view) buildAvro(s *avro.Schema) error {
	hs := s.Hamba()
	if hs == nil {
		return errors.New("contracts: Avro schema has no hamba form")
	}
	// The schema's own hamba config, not hamba.Marshal's shared one: hamba
	// caches encoders by a fingerprint that leaves out defaults, so a
	// version adding a default would be judged with the encoder of one
	// without it (see avro.Schema.API).
	api := s.API()
	memo := map[string]*node{}
	v.root = avroNode(hs, memo)
	v.decode = func(example any) []decodeProblem {
		val, err := avroValue(hs, example, "")
		if err != nil {
			var p *decodeError
			if errors.As(err, &p) {
				return []decodeProblem{p.decodeProblem}
			}
			return []decodeProblem{{path: ".", msg: err.Error()}}
		}
		if _, err := api.Marshal(hs, val); err != nil {
			return []decodeProblem{{path: ".", msg: fmt.Sprintf("hamba/avro cannot encode the example with the schema: %v", err)}}
		}
		return nil
	}
	return nil
}

func avroLogical(s hamba.Schema) hamba.LogicalType {
	if ls, ok := s.(hamba.LogicalTypeSchema); ok && ls.Logical() != nil {
		return ls.Logical().Type()
	}
	return ""
}

func avroNode(s hamba.Schema, memo map[string]*node) *node {
	switch t := s.(type) {
	case *hamba.RefSchema:
		return avroNode(t.Schema(), memo)
	case *hamba.RecordSchema:
		if n, ok := memo[t.FullName()]; ok {
			return n
		}
		n := &node{kinds: kObject, typ: t.FullName(), fields: map[string]*field{}}
		memo[t.FullName()] = n
		for _, f := range t.Fields() {
			n.fields[f.Name()] = &field{
				name:       f.Name(),
				node:       avroNode(f.Type(), memo),
				present:    true, // every record field is written
				deprecated: truthy(f.Prop("deprecated")),
			}
		}
		return n
	case *hamba.EnumSchema:
		if n, ok := memo[t.FullName()]; ok {
			return n
		}
		n := &node{kinds: kString, typ: t.FullName(), enum: []string{}}
		for _, sym := range t.Symbols() {
			n.enum = append(n.enum, enumText(sym))
		}
		memo[t.FullName()] = n
		return n
	case *hamba.FixedSchema:
		n := &node{kinds: kString, typ: t.FullName()}
		if avroLogical(t) == hamba.Decimal {
			n.kinds, n.alt = kNumber|kInt, kString
		}
		return n
	case *hamba.ArraySchema:
		return &node{kinds: kArray, typ: "array", items: avroNode(t.Items(), memo)}
	case *hamba.MapSchema:
		return &node{kinds: kObject, typ: "map", values: avroNode(t.Values(), memo), open: true}
	case *hamba.UnionSchema:
		n := &node{branches: map[string]*node{}}
		for _, b := range t.Types() {
			bn := avroNode(b, memo)
			n.union = append(n.union, bn)
			n.kinds |= bn.kinds
			n.branches[unionName(b)] = bn
		}
		return n
	case *hamba.PrimitiveSchema:
		n := &node{typ: string(t.Type())}
		if lt := avroLogical(t); lt != "" {
			n.typ += "(" + string(lt) + ")"
		}
		switch t.Type() {
		case hamba.Null:
			n.kinds = kNull
		case hamba.Boolean:
			n.kinds = kBool
		case hamba.Int, hamba.Long:
			n.kinds = kInt
		case hamba.Float, hamba.Double:
			n.kinds = kNumber
		case hamba.String:
			n.kinds = kString
		case hamba.Bytes:
			n.kinds = kString
			if avroLogical(t) == hamba.Decimal {
				n.kinds, n.alt = kNumber|kInt, kString
			}
		}
		return n
	}
	return &node{kinds: kAny, typ: string(s.Type())}
}

func truthy(v any) bool {
	switch t := v.(type) {
	case bool:
		return t
	case string:
		return t != "" && t != "false"
	case nil:
		return false
	}
	return true
}

// decodeError is a decodeProblem as an error.
type decodeError struct{ decodeProblem }

func (e *decodeError) Error() string { return "at " + e.path + ": " + e.msg }

// avroValue converts an example value to the Go value hamba encodes for
// schema s. Record fields the example leaves out take their default, or
// the zero value of their type: an example lists only what the consumer
// reads.
func avroValue(s hamba.Schema, v any, path string) (any, error) {
	at := func(format string, args ...any) error {
		return &decodeError{decodeProblem{path: displayPath(path), msg: fmt.Sprintf(format, args...)}}
	}
	switch t := s.(type) {
	case *hamba.RefSchema:
		return avroValue(t.Schema(), v, path)
	case *hamba.RecordSchema:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, at("%s is not a record (an object)", describe(v))
		}
		out := make(map[string]any, len(t.Fields()))
		known := map[string]bool{}
		for _, f := range t.Fields() {
			known[f.Name()] = true
			fv, ok := obj[f.Name()]
			if !ok {
				if f.HasDefault() {
					continue
				}
				out[f.Name()] = avroZero(f.Type(), 0)
				continue
			}
			cv, err := avroValue(f.Type(), fv, path+"."+f.Name())
			if err != nil {
				return nil, err
			}
			out[f.Name()] = cv
		}
		for _, k := range sortedKeys(obj) {
			if !known[k] {
				return nil, at("record %s has no field %q", t.FullName(), k)
			}
		}
		return out, nil
	case *hamba.EnumSchema:
		str, ok := v.(string)
		if !ok {
			return nil, at("%s is not a symbol of enum %s", describe(v), t.FullName())
		}
		for _, sym := range t.Symbols() {
			if sym == str {
				return str, nil
			}
		}
		return nil, at("%q is not a symbol of enum %s", str, t.FullName())
	case *hamba.FixedSchema:
		if avroLogical(t) == hamba.Decimal {
			if r, ok := ratOf(v); ok {
				return r, nil
			}
		}
		b, err := avroBytes(v)
		if err != nil {
			return nil, at("%v", err)
		}
		if len(b) != t.Size() {
			return nil, at("fixed %s needs %d bytes, the example has %d", t.FullName(), t.Size(), len(b))
		}
		arr := reflect.New(reflect.ArrayOf(t.Size(), reflect.TypeFor[byte]())).Elem()
		reflect.Copy(arr, reflect.ValueOf(b))
		return arr.Interface(), nil
	case *hamba.ArraySchema:
		arr, ok := v.([]any)
		if !ok {
			return nil, at("%s is not an array", describe(v))
		}
		out := make([]any, len(arr))
		for i, e := range arr {
			cv, err := avroValue(t.Items(), e, path+"[]")
			if err != nil {
				return nil, err
			}
			out[i] = cv
		}
		return out, nil
	case *hamba.MapSchema:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, at("%s is not a map (an object)", describe(v))
		}
		out := make(map[string]any, len(obj))
		for _, k := range sortedKeys(obj) {
			cv, err := avroValue(t.Values(), obj[k], path+"{}")
			if err != nil {
				return nil, err
			}
			out[k] = cv
		}
		return out, nil
	case *hamba.UnionSchema:
		return avroUnion(t, v, path, at)
	case *hamba.PrimitiveSchema:
		return avroPrimitive(t, v, at)
	}
	return nil, at("unsupported Avro type %s", s.Type())
}

func avroUnion(t *hamba.UnionSchema, v any, path string, at func(string, ...any) error) (any, error) {
	if v == nil {
		if t.Nullable() {
			return nil, nil
		}
		return nil, at("null is not a branch of the union")
	}
	// The Avro JSON encoding: {"<type name>": value}.
	if obj, ok := v.(map[string]any); ok && len(obj) == 1 {
		for k, bv := range obj {
			if b, _ := t.Types().Get(k); b != nil {
				cv, err := avroValue(b, bv, path)
				if err != nil {
					return nil, err
				}
				return map[string]any{k: cv}, nil
			}
		}
	}
	var firstErr error
	for _, b := range t.Types() {
		if b.Type() == hamba.Null {
			continue
		}
		cv, err := avroValue(b, v, path)
		if err == nil {
			return map[string]any{unionName(b): cv}, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, at("%s matches no branch of the union (%v)", describe(v), firstErr)
}

// unionName is the name hamba uses to pick a union branch.
func unionName(s hamba.Schema) string {
	if r, ok := s.(*hamba.RefSchema); ok {
		s = r.Schema()
	}
	if n, ok := s.(hamba.NamedSchema); ok {
		return n.FullName()
	}
	if lt := avroLogical(s); lt != "" {
		return string(s.Type()) + "." + string(lt)
	}
	return string(s.Type())
}

func avroPrimitive(t *hamba.PrimitiveSchema, v any, at func(string, ...any) error) (any, error) {
	switch t.Type() {
	case hamba.Null:
		if v != nil {
			return nil, at("%s is not null", describe(v))
		}
		return nil, nil
	case hamba.Boolean:
		b, ok := v.(bool)
		if !ok {
			return nil, at("%s is not a boolean", describe(v))
		}
		return b, nil
	case hamba.Int, hamba.Long:
		n, ok := v.(json.Number)
		if !ok || !isIntegerText(n) {
			return nil, at("%s is not an integer", describe(v))
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return nil, at("%s is out of range for %s", n, t.Type())
		}
		if t.Type() == hamba.Int {
			if i < math.MinInt32 || i > math.MaxInt32 {
				return nil, at("%s is out of range for int (32 bits)", n)
			}
			return int(i), nil
		}
		return i, nil
	case hamba.Float, hamba.Double:
		n, ok := v.(json.Number)
		if !ok {
			return nil, at("%s is not a number", describe(v))
		}
		f, err := n.Float64()
		if err != nil {
			return nil, at("%s is out of range for %s", n, t.Type())
		}
		if t.Type() == hamba.Float {
			return float32(f), nil
		}
		return f, nil
	case hamba.String:
		str, ok := v.(string)
		if !ok {
			return nil, at("%s is not a string", describe(v))
		}
		return str, nil
	case hamba.Bytes:
		if avroLogical(t) == hamba.Decimal {
			if r, ok := ratOf(v); ok {
				return r, nil
			}
		}
		b, err := avroBytes(v)
		if err != nil {
			return nil, at("%v", err)
		}
		return b, nil
	}
	return nil, at("unsupported Avro type %s", t.Type())
}

// avroBytes reads bytes as the Avro JSON encoding writes them: a string
// whose code points 0-255 are the bytes.
func avroBytes(v any) ([]byte, error) {
	str, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("%s is not a string of bytes", describe(v))
	}
	out := make([]byte, 0, len(str))
	for _, r := range str {
		if r > 255 {
			return nil, fmt.Errorf("%q is not a string of bytes (code point U+%04X above 255)", str, r)
		}
		out = append(out, byte(r))
	}
	return out, nil
}

func ratOf(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(string(n))
	return r, ok
}

// avroZero is a value of s's type that hamba encodes, for fields an
// example leaves out.
func avroZero(s hamba.Schema, depth int) any {
	if depth > 32 {
		return nil
	}
	switch t := s.(type) {
	case *hamba.RefSchema:
		return avroZero(t.Schema(), depth+1)
	case *hamba.RecordSchema:
		out := map[string]any{}
		for _, f := range t.Fields() {
			if !f.HasDefault() {
				out[f.Name()] = avroZero(f.Type(), depth+1)
			}
		}
		return out
	case *hamba.EnumSchema:
		return t.Symbols()[0]
	case *hamba.FixedSchema:
		if avroLogical(t) == hamba.Decimal {
			return new(big.Rat)
		}
		return reflect.New(reflect.ArrayOf(t.Size(), reflect.TypeFor[byte]())).Elem().Interface()
	case *hamba.ArraySchema:
		return []any{}
	case *hamba.MapSchema:
		return map[string]any{}
	case *hamba.UnionSchema:
		b := t.Types()[0]
		if b.Type() == hamba.Null {
			return nil
		}
		return map[string]any{unionName(b): avroZero(b, depth+1)}
	case *hamba.PrimitiveSchema:
		switch t.Type() {
		case hamba.Boolean:
			return false
		case hamba.Int:
			return 0
		case hamba.Long:
			return int64(0)
		case hamba.Float:
			return float32(0)
		case hamba.Double:
			return float64(0)
		case hamba.String:
			return ""
		case hamba.Bytes:
			if avroLogical(t) == hamba.Decimal {
				return new(big.Rat)
			}
			return []byte{}
		}
	}
	return nil
}

// describe names an example value for messages: `"abc"`, `12`, an object.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		if len(t) > 40 {
			t = t[:40] + "…"
		}
		return strconv.Quote(t)
	case json.Number:
		return t.String()
	case bool:
		return strconv.FormatBool(t)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%v", v)
}

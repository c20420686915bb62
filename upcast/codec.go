package upcast

import (
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
)

// version is one parsed version of a subject.
type version struct {
	subject string
	num     int
	id      int64
	typ     compat.SchemaType
	schema  compat.Schema
	deps    []compat.Dependency
	deleted bool
	meta    *client.Metadata
	ruleSet *client.RuleSet
	codec   codec
	// state is the codec's prepared form of the schema (a hamba schema,
	// a JSON Schema validator and defaults, a protobuf message).
	state any
	// plan is the version's plan to the target in the chain state that
	// built it (the same as chainState.plans[num]).
	plan *plan
}

func (v *version) String() string { return fmt.Sprintf("%s v%d", v.subject, v.num) }

// decodeFunc decodes a bare payload (no wire-format header).
type decodeFunc func(payload []byte) (map[string]any, error)

// convertFunc is an implicit step on decoded values.
type convertFunc func(v map[string]any) (map[string]any, error)

// codec is one format's handling of data: decoding, implicit steps,
// validation and encoding. Values are the format's generic decoded form.
type codec interface {
	// resolution names the format's implicit step ("AVRO resolution").
	resolution() string
	// prepare builds the version's state.
	prepare(v *version, opts *options) error
	// decoder decodes payloads written with writer into reader's shape;
	// reader is writer or a version compat found able to read writer.
	decoder(writer, reader *version) (decodeFunc, error)
	// converter is the implicit step from → to on decoded values.
	converter(from, to *version) (convertFunc, error)
	// conform checks v against ver's schema and coerces what a step or
	// a JSONata rule may produce (JSON numbers for Avro ints …) into the
	// decoded form; lenient drops unknown fields instead of failing.
	conform(v map[string]any, ver *version, lenient bool) (map[string]any, error)
	// encode encodes a value of ver (no wire-format header).
	encode(v map[string]any, ver *version) ([]byte, error)
	// fromJSON reads a value of ver from JSON text (verify samples).
	fromJSON(raw []byte, ver *version) (map[string]any, error)
	// plain returns v in the form Verify compares (Avro unions unwrapped).
	plain(v map[string]any, ver *version) any
}

// pathError is a validation error at a path inside a value.
type pathError struct {
	path []string // innermost last, built while unwinding
	msg  string
}

func (e *pathError) Error() string {
	var b strings.Builder
	for i := len(e.path) - 1; i >= 0; i-- {
		b.WriteString(e.path[i])
	}
	if b.Len() == 0 {
		b.WriteString(".")
	}
	return b.String() + ": " + e.msg
}

func perr(format string, args ...any) error { return &pathError{msg: fmt.Sprintf(format, args...)} }

// at prefixes err's path with seg (".name", "[3]", "{key}").
func at(err error, seg string) error {
	if pe, ok := err.(*pathError); ok {
		pe.path = append(pe.path, seg)
		return pe
	}
	return err
}

// deepCopy copies maps and slices of decoded values (defaults are shared).
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, x := range t {
			s[i] = deepCopy(x)
		}
		return s
	case []byte:
		return append([]byte(nil), t...)
	}
	return v
}

// Equal reports whether two decoded values are equal: maps and slices
// element by element, numbers by value across Go number types, decimals
// (*big.Rat) by value, times by instant. Verify uses it to compare
// outputs with expected values.
func Equal(a, b any) bool {
	if an, ok := number(a); ok {
		bn, ok := number(b)
		return ok && an.Cmp(bn) == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	}
	return reflect.DeepEqual(a, b)
}

// number returns a numeric value as an exact rational.
func number(v any) (*big.Rat, bool) {
	switch n := v.(type) {
	case int:
		return new(big.Rat).SetInt64(int64(n)), true
	case int8:
		return new(big.Rat).SetInt64(int64(n)), true
	case int16:
		return new(big.Rat).SetInt64(int64(n)), true
	case int32:
		return new(big.Rat).SetInt64(int64(n)), true
	case int64:
		return new(big.Rat).SetInt64(n), true
	case uint8:
		return new(big.Rat).SetInt64(int64(n)), true
	case uint16:
		return new(big.Rat).SetInt64(int64(n)), true
	case uint32:
		return new(big.Rat).SetInt64(int64(n)), true
	case float32:
		r, ok := new(big.Rat).SetString(fmt.Sprint(n))
		return r, ok
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(n) == nil {
			return nil, false
		}
		// Compare float64 by its shortest decimal form, as JSON shows it.
		r, ok := new(big.Rat).SetString(fmt.Sprint(n))
		return r, ok
	case *big.Rat:
		if n == nil {
			return nil, false
		}
		return n, true
	}
	return nil, false
}

// formatValue renders a decoded value for a message: decimals as decimals,
// bytes as a quoted string, maps and slices as in Go.
func formatValue(v any) string {
	switch t := v.(type) {
	case *big.Rat:
		if t == nil {
			return "<nil>"
		}
		if t.IsInt() {
			return t.RatString()
		}
		return strings.TrimRight(strings.TrimRight(t.FloatString(18), "0"), ".")
	case []byte:
		return fmt.Sprintf("%q", t)
	case string:
		return fmt.Sprintf("%q", t)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", v)
}

// Diff lists the paths where got and want differ (at most max), with
// both values, for messages such as `.amount: got 12.3, want 12.34`.
func Diff(got, want any, max int) []string {
	var out []string
	var walk func(path string, g, w any)
	walk = func(path string, g, w any) {
		if len(out) >= max {
			return
		}
		gm, gok := g.(map[string]any)
		wm, wok := w.(map[string]any)
		if gok && wok {
			keys := map[string]bool{}
			for k := range gm {
				keys[k] = true
			}
			for k := range wm {
				keys[k] = true
			}
			for _, k := range sortedKeys(keys) {
				gv, gin := gm[k]
				wv, win := wm[k]
				switch {
				case !gin:
					out = append(out, fmt.Sprintf("%s.%s: missing, want %s", path, k, formatValue(wv)))
				case !win:
					out = append(out, fmt.Sprintf("%s.%s: got %s, want no such field", path, k, formatValue(gv)))
				default:
					walk(path+"."+k, gv, wv)
				}
				if len(out) >= max {
					return
				}
			}
			return
		}
		gs, gok := g.([]any)
		ws, wok := w.([]any)
		if gok && wok && len(gs) == len(ws) {
			for i := range gs {
				walk(fmt.Sprintf("%s[%d]", path, i), gs[i], ws[i])
			}
			return
		}
		if !Equal(g, w) {
			p := path
			if p == "" {
				p = "."
			}
			out = append(out, fmt.Sprintf("%s: got %s, want %s", p, formatValue(g), formatValue(w)))
		}
	}
	walk("", got, want)
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

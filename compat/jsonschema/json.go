package jsonschema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds an order-preserving JSON reader and the writers behind
// Canonical and Normalized. encoding/json decodes objects into Go maps,
// which lose the key order Confluent keeps in the text it stores (Jackson's
// ObjectNode is a LinkedHashMap).

// maxDepth bounds JSON nesting so hostile input cannot exhaust the stack of
// the walkers that run after the reader.
const maxDepth = 512

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jval is one JSON value. Numbers keep their lexeme; objects keep key order.
type jval struct {
	kind jkind
	b    bool
	s    string // string value or number lexeme
	arr  []*jval
	obj  []member
	// index maps keys to their position in obj once an object has more
	// than smallObject members, so that reading and looking up stay
	// linear in the text however many keys an object holds.
	index map[string]int
}

// smallObject is the number of members up to which an object's keys are
// looked up by scanning them.
const smallObject = 8

// find returns the position of key in the object v.
func (v *jval) find(key string) (int, bool) {
	if v.index != nil {
		i, ok := v.index[key]
		return i, ok
	}
	for i := range v.obj {
		if v.obj[i].key == key {
			return i, true
		}
	}
	return 0, false
}

// set gives key the value val in the object v: a repeated key keeps the
// first key's position and line and takes the last value, as Jackson's
// ObjectNode does.
func (v *jval) set(key string, val *jval, line int32) {
	if i, ok := v.find(key); ok {
		v.obj[i].val = val
		return
	}
	v.add(member{key, val, line})
}

// add appends m, whose key v does not have yet.
func (v *jval) add(m member) {
	v.obj = append(v.obj, m)
	switch {
	case v.index != nil:
		v.index[m.key] = len(v.obj) - 1
	case len(v.obj) > smallObject:
		v.index = make(map[string]int, 2*len(v.obj))
		for i, m := range v.obj {
			v.index[m.key] = i
		}
	}
}

type member struct {
	key  string
	val  *jval
	line int32 // 1-based line of the key in the text
}

// get returns the value of key in an object, or nil.
func (v *jval) get(key string) *jval {
	if v == nil || v.kind != jObject {
		return nil
	}
	if i, ok := v.find(key); ok {
		return v.obj[i].val
	}
	return nil
}

// has reports whether the object v has key.
func (v *jval) has(key string) bool { return v.get(key) != nil }

// str returns the string value of key, if key holds a string.
func (v *jval) str(key string) (string, bool) {
	x := v.get(key)
	if x == nil || x.kind != jString {
		return "", false
	}
	return x.s, true
}

// toAny converts v to the representation encoding/json produces with
// UseNumber, which is what santhosh-tekuri/jsonschema compiles.
func (v *jval) toAny() any {
	switch v.kind {
	case jBool:
		return v.b
	case jNumber:
		return json.Number(v.s)
	case jString:
		return v.s
	case jArray:
		out := make([]any, len(v.arr))
		for i, e := range v.arr {
			out[i] = e.toAny()
		}
		return out
	case jObject:
		out := make(map[string]any, len(v.obj))
		for _, m := range v.obj {
			out[m.key] = m.val.toAny()
		}
		return out
	}
	return nil
}

// SyntaxError is invalid JSON text, with the 1-based line and column of the
// offending character.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

type reader struct {
	src  string
	pos  int
	line int
	col  int // column of src[pos], 1-based, in characters
}

// parseJSON reads one JSON value and rejects trailing non-space text.
// Duplicate object keys keep the first key's position and the last value,
// as Jackson's ObjectNode does. Each member keeps the line of its key.
func parseJSON(text string) (*jval, error) {
	r := &reader{src: text, line: 1, col: 1}
	r.skipSpace()
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	r.skipSpace()
	if r.pos < len(r.src) {
		return nil, r.errf("unexpected %s after the JSON value", r.describe())
	}
	return v, nil
}

func (r *reader) errf(format string, args ...any) error {
	return &SyntaxError{Line: r.line, Column: r.col, Msg: fmt.Sprintf(format, args...)}
}

func (r *reader) describe() string {
	if r.pos >= len(r.src) {
		return "end of input"
	}
	c, _ := utf8.DecodeRuneInString(r.src[r.pos:])
	return strconv.QuoteRune(c)
}

func (r *reader) advance(n int) {
	for i := 0; i < n && r.pos < len(r.src); {
		c, size := utf8.DecodeRuneInString(r.src[r.pos:])
		r.pos += size
		i += size
		if c == '\n' {
			r.line++
			r.col = 1
		} else {
			r.col++
		}
	}
}

func (r *reader) skipSpace() {
	for r.pos < len(r.src) {
		switch r.src[r.pos] {
		case ' ', '\t', '\r', '\n':
			r.advance(1)
		default:
			return
		}
	}
}

func (r *reader) value(depth int) (*jval, error) {
	if depth > maxDepth {
		return nil, r.errf("nesting deeper than %d levels", maxDepth)
	}
	if r.pos >= len(r.src) {
		return nil, r.errf("unexpected end of input, want a value")
	}
	switch c := r.src[r.pos]; {
	case c == '{':
		return r.object(depth)
	case c == '[':
		return r.array(depth)
	case c == '"':
		s, err := r.string()
		if err != nil {
			return nil, err
		}
		return &jval{kind: jString, s: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return r.number()
	case strings.HasPrefix(r.src[r.pos:], "true"):
		r.advance(4)
		return &jval{kind: jBool, b: true}, nil
	case strings.HasPrefix(r.src[r.pos:], "false"):
		r.advance(5)
		return &jval{kind: jBool}, nil
	case strings.HasPrefix(r.src[r.pos:], "null"):
		r.advance(4)
		return &jval{kind: jNull}, nil
	}
	return nil, r.errf("unexpected %s, want a value", r.describe())
}

func (r *reader) object(depth int) (*jval, error) {
	r.advance(1) // {
	v := &jval{kind: jObject}
	r.skipSpace()
	if r.pos < len(r.src) && r.src[r.pos] == '}' {
		r.advance(1)
		return v, nil
	}
	for {
		r.skipSpace()
		if r.pos >= len(r.src) || r.src[r.pos] != '"' {
			return nil, r.errf("unexpected %s, want a string key", r.describe())
		}
		line := int32(r.line)
		key, err := r.string()
		if err != nil {
			return nil, err
		}
		r.skipSpace()
		if r.pos >= len(r.src) || r.src[r.pos] != ':' {
			return nil, r.errf("unexpected %s, want ':'", r.describe())
		}
		r.advance(1)
		r.skipSpace()
		val, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.set(key, val, line)
		r.skipSpace()
		if r.pos < len(r.src) && r.src[r.pos] == ',' {
			r.advance(1)
			continue
		}
		if r.pos < len(r.src) && r.src[r.pos] == '}' {
			r.advance(1)
			return v, nil
		}
		return nil, r.errf("unexpected %s, want ',' or '}'", r.describe())
	}
}

func (r *reader) array(depth int) (*jval, error) {
	r.advance(1) // [
	v := &jval{kind: jArray, arr: []*jval{}}
	r.skipSpace()
	if r.pos < len(r.src) && r.src[r.pos] == ']' {
		r.advance(1)
		return v, nil
	}
	for {
		r.skipSpace()
		e, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.arr = append(v.arr, e)
		r.skipSpace()
		if r.pos < len(r.src) && r.src[r.pos] == ',' {
			r.advance(1)
			continue
		}
		if r.pos < len(r.src) && r.src[r.pos] == ']' {
			r.advance(1)
			return v, nil
		}
		return nil, r.errf("unexpected %s, want ',' or ']'", r.describe())
	}
}

func (r *reader) string() (string, error) {
	r.advance(1) // opening quote
	var sb strings.Builder
	for {
		if r.pos >= len(r.src) {
			return "", r.errf("unterminated string")
		}
		c := r.src[r.pos]
		switch {
		case c == '"':
			r.advance(1)
			return sb.String(), nil
		case c < 0x20:
			return "", r.errf("control character %U in string", rune(c))
		case c == '\\':
			if r.pos+1 >= len(r.src) {
				return "", r.errf("unterminated escape")
			}
			e := r.src[r.pos+1]
			switch e {
			case '"', '\\', '/':
				sb.WriteByte(e)
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case 'n':
				sb.WriteByte('\n')
			case 'r':
				sb.WriteByte('\r')
			case 't':
				sb.WriteByte('\t')
			case 'u':
				u, ok := r.hex4(r.pos + 2)
				if !ok {
					return "", r.errf("invalid \\u escape")
				}
				n := 6
				if utf16.IsSurrogate(u) {
					if u2, ok := r.hex4(r.pos + 8); ok && r.src[r.pos+6] == '\\' && r.src[r.pos+7] == 'u' {
						if d := utf16.DecodeRune(u, u2); d != utf8.RuneError {
							u = d
							n = 12
						}
					}
				}
				sb.WriteRune(u)
				r.advance(n)
				continue
			default:
				return "", r.errf("invalid escape: backslash followed by %q", string(e))
			}
			r.advance(2)
		default:
			ch, size := utf8.DecodeRuneInString(r.src[r.pos:])
			if ch == utf8.RuneError && size == 1 {
				return "", r.errf("invalid UTF-8 in string")
			}
			sb.WriteString(r.src[r.pos : r.pos+size])
			r.advance(size)
		}
	}
}

// hex4 reads four hex digits at i (the position after "\u").
func (r *reader) hex4(i int) (rune, bool) {
	if i+4 > len(r.src) {
		return 0, false
	}
	n, err := strconv.ParseUint(r.src[i:i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}

func (r *reader) number() (*jval, error) {
	start := r.pos
	i := r.pos
	if i < len(r.src) && r.src[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(r.src) && r.src[i] >= '0' && r.src[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(r.src) && r.src[i] == '0' {
		i++
	} else if digits() == 0 {
		r.advance(i - start)
		return nil, r.errf("invalid number")
	}
	if i < len(r.src) && r.src[i] == '.' {
		i++
		if digits() == 0 {
			r.advance(i - start)
			return nil, r.errf("invalid number: want digits after '.'")
		}
	}
	if i < len(r.src) && (r.src[i] == 'e' || r.src[i] == 'E') {
		i++
		if i < len(r.src) && (r.src[i] == '+' || r.src[i] == '-') {
			i++
		}
		expStart := i
		if digits() == 0 {
			r.advance(i - start)
			return nil, r.errf("invalid number: want digits in the exponent")
		}
		if len(strings.TrimLeft(r.src[expStart:i], "0")) > 4 {
			r.advance(i - start)
			return nil, r.errf("number exponent out of range (more than 4 digits)")
		}
	}
	lex := r.src[start:i]
	r.advance(i - start)
	return &jval{kind: jNumber, s: lex}, nil
}

// --- writers ---

// writeCompact appends v as Jackson writes a JsonNode read with
// USE_BIG_DECIMAL_FOR_FLOATS (Confluent's JSON Schema ObjectMapper): no
// whitespace, keys in the given order, numbers as BigDecimal.toString().
func writeCompact(sb *strings.Builder, v *jval) {
	switch v.kind {
	case jNull:
		sb.WriteString("null")
	case jBool:
		if v.b {
			sb.WriteString("true")
		} else {
			sb.WriteString("false")
		}
	case jNumber:
		sb.WriteString(jacksonNumber(v.s))
	case jString:
		writeString(sb, v.s)
	case jArray:
		sb.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeCompact(sb, e)
		}
		sb.WriteByte(']')
	case jObject:
		sb.WriteByte('{')
		for i, m := range v.obj {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeString(sb, m.key)
			sb.WriteByte(':')
			writeCompact(sb, m.val)
		}
		sb.WriteByte('}')
	}
}

const hexDigits = "0123456789ABCDEF"

// writeString quotes s as Jackson does: '"' and '\\' escaped, \b \t \f \n \r
// short escapes, other control characters as \u00XX, everything else raw.
func writeString(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\b':
			sb.WriteString(`\b`)
		case '\t':
			sb.WriteString(`\t`)
		case '\f':
			sb.WriteString(`\f`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			if c < 0x20 {
				sb.WriteString(`\u00`)
				sb.WriteByte(hexDigits[c>>4])
				sb.WriteByte(hexDigits[c&0xF])
			} else {
				sb.WriteByte(c)
			}
		}
	}
	sb.WriteByte('"')
}

// decimal is a JSON number as an unscaled integer and a scale, the way
// java.math.BigDecimal holds it: value = unscaled × 10^-scale.
type decimal struct {
	neg      bool
	digits   string // unscaled magnitude without leading zeros ("0" for zero)
	scale    int
	isIntLex bool // the lexeme had neither '.' nor an exponent
}

func parseDecimal(lex string) decimal {
	var d decimal
	s := lex
	if strings.HasPrefix(s, "-") {
		d.neg = true
		s = s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			// An exponent beyond int range: clamp; such numbers are
			// meaningless in a schema but must not panic.
			if strings.HasPrefix(s[i+1:], "-") {
				e = -1 << 30
			} else {
				e = 1 << 30
			}
		}
		exp = e
	}
	intPart, frac, hasDot := strings.Cut(mant, ".")
	d.isIntLex = !hasDot && !strings.ContainsAny(s, "eE")
	d.digits = strings.TrimLeft(intPart+frac, "0")
	if d.digits == "" {
		d.digits = "0"
	}
	d.scale = len(frac) - exp
	return d
}

// jacksonNumber renders a number lexeme as Jackson does: integers in plain
// digits, other numbers as BigDecimal.toString().
func jacksonNumber(lex string) string {
	d := parseDecimal(lex)
	if d.isIntLex {
		if d.digits == "0" {
			return "0"
		}
		if d.neg {
			return "-" + d.digits
		}
		return d.digits
	}
	return d.javaString()
}

// javaString is BigDecimal.toString(): plain notation when the scale is not
// negative and the adjusted exponent is at least -6, scientific otherwise.
func (d decimal) javaString() string {
	var sb strings.Builder
	if d.neg {
		sb.WriteByte('-')
	}
	coeff := d.digits
	adjusted := -d.scale + (len(coeff) - 1)
	switch {
	case d.scale == 0:
		sb.WriteString(coeff)
	case d.scale > 0 && adjusted >= -6:
		if pad := d.scale - len(coeff); pad >= 0 {
			sb.WriteString("0.")
			sb.WriteString(strings.Repeat("0", pad))
			sb.WriteString(coeff)
		} else {
			sb.WriteString(coeff[:len(coeff)-d.scale])
			sb.WriteByte('.')
			sb.WriteString(coeff[len(coeff)-d.scale:])
		}
	default:
		sb.WriteByte(coeff[0])
		if len(coeff) > 1 {
			sb.WriteByte('.')
			sb.WriteString(coeff[1:])
		}
		sb.WriteByte('E')
		if adjusted > 0 {
			sb.WriteByte('+')
		}
		sb.WriteString(strconv.Itoa(adjusted))
	}
	return sb.String()
}

// normalNumber renders a number by its mathematical value alone (JSON
// Schema compares numbers by value: 10, 10.0 and 1e1 are equal): trailing
// zeros dropped, plain digits while the exponent stays small, otherwise
// d.dddE±n.
func normalNumber(lex string) string {
	d := parseDecimal(lex)
	if d.digits == "0" {
		return "0"
	}
	coeff := d.digits
	scale := d.scale
	for len(coeff) > 1 && coeff[len(coeff)-1] == '0' {
		coeff = coeff[:len(coeff)-1]
		scale--
	}
	norm := decimal{neg: d.neg, digits: coeff, scale: scale}
	adjusted := -scale + (len(coeff) - 1)
	if scale < 0 && adjusted <= 20 {
		// Integer with trailing zeros: write them out.
		s := coeff + strings.Repeat("0", -scale)
		if d.neg {
			return "-" + s
		}
		return s
	}
	return norm.javaString()
}

// numberRat returns the exact value of a number lexeme.
func numberRat(lex string) (*big.Rat, bool) {
	r, ok := new(big.Rat).SetString(lex)
	return r, ok
}

// writeNormalized appends v with object keys sorted by UTF-16 code units
// (Java String order, as Confluent's sorted ObjectMapper) and numbers in
// normalNumber form.
func writeNormalized(sb *strings.Builder, v *jval) {
	switch v.kind {
	case jNumber:
		sb.WriteString(normalNumber(v.s))
	case jArray:
		sb.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeNormalized(sb, e)
		}
		sb.WriteByte(']')
	case jObject:
		sb.WriteByte('{')
		for i, m := range sortedMembers(v.obj) {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeString(sb, m.key)
			sb.WriteByte(':')
			writeNormalized(sb, m.val)
		}
		sb.WriteByte('}')
	default:
		writeCompact(sb, v)
	}
}

func sortedMembers(ms []member) []member {
	out := append([]member(nil), ms...)
	sort.SliceStable(out, func(i, j int) bool { return javaLess(out[i].key, out[j].key) })
	return out
}

// javaLess orders strings by UTF-16 code units, as java.lang.String does.
func javaLess(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		return a < b
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return len(ua) < len(ub)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// compact returns v in compact form.
func compact(v *jval) string {
	var sb strings.Builder
	writeCompact(&sb, v)
	return sb.String()
}

// jsonEqual reports whether a and b are equal JSON values in JSON Schema's
// sense (numbers by value, objects regardless of key order).
func jsonEqual(a, b *jval) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case jNull:
		return true
	case jBool:
		return a.b == b.b
	case jString:
		return a.s == b.s
	case jNumber:
		ra, ok1 := numberRat(a.s)
		rb, ok2 := numberRat(b.s)
		if !ok1 || !ok2 {
			return a.s == b.s
		}
		return ra.Cmp(rb) == 0
	case jArray:
		if len(a.arr) != len(b.arr) {
			return false
		}
		for i := range a.arr {
			if !jsonEqual(a.arr[i], b.arr[i]) {
				return false
			}
		}
		return true
	case jObject:
		if len(a.obj) != len(b.obj) {
			return false
		}
		for _, m := range a.obj {
			o := b.get(m.key)
			if o == nil || !jsonEqual(m.val, o) {
				return false
			}
		}
		return true
	}
	return false
}

// valueKey returns a text that two values share exactly when jsonEqual
// holds for them (their normalized form: keys sorted, numbers by value),
// so that sets of values are compared in linear time.
func valueKey(v *jval) string {
	var sb strings.Builder
	writeNormalized(&sb, v)
	return sb.String()
}

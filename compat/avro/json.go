package avro

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds a small order-preserving JSON reader and the writer used
// for Canonical and Normalized text. encoding/json decodes objects into Go
// maps, which lose the key order that custom properties keep in Java Avro's
// Schema.toString(); hamba/avro decodes through maps too.

// maxDepth bounds JSON nesting so that hostile input cannot exhaust the
// stack of the parsers that run after this one.
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
	line int32  // 1-based line where the value starts in the text
	s    string // string value or number lexeme
	arr  []*jval
	obj  []member
	// index maps keys to their position in obj once an object has more
	// than smallObject members, so that reading stays linear in the text
	// however many keys an object holds.
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

// set gives key the value val in the object v: a repeated key keeps its
// first position and takes the last value, as Jackson's ObjectNode (and so
// Java Avro) does.
func (v *jval) set(key string, val *jval) {
	if i, ok := v.find(key); ok {
		v.obj[i].val = val
		return
	}
	v.obj = append(v.obj, member{key: key, val: val})
	switch {
	case v.index != nil:
		v.index[key] = len(v.obj) - 1
	case len(v.obj) > smallObject:
		v.index = make(map[string]int, 2*len(v.obj))
		for i, m := range v.obj {
			v.index[m.key] = i
		}
	}
}

type member struct {
	key string
	val *jval
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

// str returns the string value of key and whether key holds a string.
func (v *jval) str(key string) (string, bool) {
	x := v.get(key)
	if x == nil || x.kind != jString {
		return "", false
	}
	return x.s, true
}

// parseJSON decodes text into a jval. Errors name the line and column.
func parseJSON(text string) (*jval, error) {
	p := jsonParser{src: text, line: 1}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.src) {
		return nil, p.errorf("unexpected %q after the schema", p.src[p.pos])
	}
	return v, nil
}

type jsonParser struct {
	src  string
	pos  int
	line int32 // current 1-based line; JSON strings cannot hold a raw newline, so only skipSpace crosses lines
}

func (p *jsonParser) errorf(format string, args ...any) error {
	line, col := 1, 1
	for i := 0; i < p.pos && i < len(p.src); i++ {
		if p.src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Errorf("invalid JSON at line %d, column %d: %s", line, col, fmt.Sprintf(format, args...))
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\n':
			p.line++
			p.pos++
		case ' ', '\t', '\r':
			p.pos++
		default:
			return
		}
	}
}

// value parses one JSON value and records the line it starts on.
func (p *jsonParser) value(depth int) (*jval, error) {
	line := p.line
	v, err := p.bareValue(depth)
	if v != nil {
		v.line = line
	}
	return v, err
}

func (p *jsonParser) bareValue(depth int) (*jval, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested deeper than %d levels", maxDepth)
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &jval{kind: jString, s: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case strings.HasPrefix(p.src[p.pos:], "true"):
		p.pos += 4
		return &jval{kind: jBool, b: true}, nil
	case strings.HasPrefix(p.src[p.pos:], "false"):
		p.pos += 5
		return &jval{kind: jBool}, nil
	case strings.HasPrefix(p.src[p.pos:], "null"):
		p.pos += 4
		return &jval{kind: jNull}, nil
	default:
		return nil, p.errorf("unexpected %q", c)
	}
}

func (p *jsonParser) object(depth int) (*jval, error) {
	p.pos++ // {
	v := &jval{kind: jObject}
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errorf("expected a quoted object key")
		}
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errorf("expected ':' after object key %q", key)
		}
		p.pos++
		p.skipSpace()
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.set(key, val)
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.errorf("unexpected end of input in object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return v, nil
		default:
			return nil, p.errorf("expected ',' or '}' in object, found %q", p.src[p.pos])
		}
	}
}

func (p *jsonParser) array(depth int) (*jval, error) {
	p.pos++ // [
	v := &jval{kind: jArray}
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		p.skipSpace()
		val, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.arr = append(v.arr, val)
		p.skipSpace()
		if p.pos >= len(p.src) {
			return nil, p.errorf("unexpected end of input in array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v, nil
		default:
			return nil, p.errorf("expected ',' or ']' in array, found %q", p.src[p.pos])
		}
	}
}

func (p *jsonParser) string() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '"' {
			s := p.src[start:p.pos]
			p.pos++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		p.pos++
	}
	var b strings.Builder
	b.WriteString(p.src[start:p.pos])
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.errorf("control character %q in string", c)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(p.src[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", p.errorf("invalid UTF-8 in string (byte 0x%02X)", c)
			}
			b.WriteString(p.src[p.pos : p.pos+size])
			p.pos += size
			continue
		case c != '\\':
			b.WriteByte(c)
			p.pos++
			continue
		}
		p.pos++ // backslash
		if p.pos >= len(p.src) {
			break
		}
		e := p.src[p.pos]
		p.pos++
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.errorf("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if strings.HasPrefix(p.src[p.pos:], `\u`) {
					save := p.pos
					p.pos += 2
					var ok2 bool
					if r2, ok2 = p.hex4(); !ok2 {
						p.pos = save
						r2 = -1
					}
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r = dec
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
		default:
			return "", p.errorf("invalid escape: backslash followed by %q", string(e))
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.pos+4 > len(p.src) {
		return 0, false
	}
	n, err := strconv.ParseUint(p.src[p.pos:p.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(n), true
}

func (p *jsonParser) number() (*jval, error) {
	start := p.pos
	if p.src[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	intStart := p.pos
	if digits() == 0 {
		return nil, p.errorf("invalid number")
	}
	if p.src[intStart] == '0' && p.pos-intStart > 1 {
		return nil, p.errorf("invalid number: leading zero")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.errorf("invalid number: no digits after '.'")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.errorf("invalid number: no digits in exponent")
		}
	}
	return &jval{kind: jNumber, s: p.src[start:p.pos]}, nil
}

// isInteger reports whether a number lexeme has no fraction or exponent.
func isInteger(lexeme string) bool {
	return !strings.ContainsAny(lexeme, ".eE")
}

// intValue returns the value of an integer JSON number.
func (v *jval) intValue() (int64, bool) {
	if v == nil || v.kind != jNumber || !isInteger(v.s) {
		return 0, false
	}
	n, err := strconv.ParseInt(v.s, 10, 64)
	return n, err == nil
}

// writer builds compact JSON text.
type writer struct {
	strings.Builder
}

// quote writes s as a JSON string the way Jackson does: UTF-8 kept as is,
// only quote, backslash and control characters escaped.
func (w *writer) quote(s string) {
	w.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				w.WriteString(s[start:i])
				w.WriteString("\uFFFD")
				i++
				start = i
				continue
			}
			i += size
			continue
		}
		w.WriteString(s[start:i])
		switch c {
		case '"':
			w.WriteString(`\"`)
		case '\\':
			w.WriteString(`\\`)
		case '\n':
			w.WriteString(`\n`)
		case '\r':
			w.WriteString(`\r`)
		case '\t':
			w.WriteString(`\t`)
		case '\b':
			w.WriteString(`\b`)
		case '\f':
			w.WriteString(`\f`)
		default:
			fmt.Fprintf(w, `\u%04X`, c)
		}
		i++
		start = i
	}
	w.WriteString(s[start:])
	w.WriteByte('"')
}

// value writes v compactly. With sorted set, object keys are sorted (used
// by Normalized); otherwise they keep their source order.
func (w *writer) value(v *jval, sorted bool) {
	switch v.kind {
	case jNull:
		w.WriteString("null")
	case jBool:
		if v.b {
			w.WriteString("true")
		} else {
			w.WriteString("false")
		}
	case jNumber:
		w.WriteString(javaNumber(v.s))
	case jString:
		w.quote(v.s)
	case jArray:
		w.WriteByte('[')
		for i, x := range v.arr {
			if i > 0 {
				w.WriteByte(',')
			}
			w.value(x, sorted)
		}
		w.WriteByte(']')
	case jObject:
		ms := v.obj
		if sorted && len(ms) > 1 {
			ms = append([]member(nil), ms...)
			sort.Slice(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
		}
		w.WriteByte('{')
		for i, m := range ms {
			if i > 0 {
				w.WriteByte(',')
			}
			w.quote(m.key)
			w.WriteByte(':')
			w.value(m.val, sorted)
		}
		w.WriteByte('}')
	}
}

// javaNumber renders a JSON number lexeme as Jackson re-serialises the node
// Java Avro keeps: integers as integers ("-0" as "0"), other numbers as a
// double printed like Java's Double.toString ("1.0", "1.5E-7", "1.0E20").
func javaNumber(lexeme string) string {
	if isInteger(lexeme) {
		if strings.TrimLeft(lexeme, "-0") == "" {
			return "0"
		}
		return lexeme
	}
	f, err := strconv.ParseFloat(lexeme, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return lexeme
	}
	return javaDouble(f)
}

// javaDouble formats f like java.lang.Double.toString: plain decimal
// notation with at least one fractional digit for 1e-3 <= |f| < 1e7,
// computerised scientific notation ("d.dddE±n") otherwise.
func javaDouble(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	sign := ""
	if f < 0 {
		sign = "-"
		f = -f
	}
	// Shortest digits that round-trip, as d.ddde±x.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	if f >= 1e-3 && f < 1e7 {
		var intPart, frac string
		if exp >= 0 {
			if len(digits) > exp+1 {
				intPart, frac = digits[:exp+1], digits[exp+1:]
			} else {
				intPart, frac = digits+strings.Repeat("0", exp+1-len(digits)), "0"
			}
		} else {
			intPart, frac = "0", strings.Repeat("0", -exp-1)+digits
		}
		return sign + intPart + "." + frac
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}

package pii

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// mixedAcronyms are spelled with a lower-case letter inside an acronym,
// which camel-case splitting would cut ("IPv4" → "I", "Pv4").
var mixedAcronyms = strings.NewReplacer("IPv4", "Ipv4", "IPv6", "Ipv6")

// Tokens splits a field name into lower-case words across naming styles:
// snake_case, kebab-case, dot.case, camelCase, PascalCase and
// SCREAMING_CASE, with acronyms kept whole ("customerSSN" → customer, ssn;
// "IPAddress" → ip, address; "clientIPv4" → client, ipv4). Digits stay in
// their word ("address2", "line1"). Non-letters other than digits
// separate words.
func Tokens(name string) []string {
	if strings.Contains(name, "IPv") {
		name = mixedAcronyms.Replace(name)
	}
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			return tokensRunes([]rune(name))
		}
	}
	// ASCII: words are slices of name, lower-cased only when needed.
	out := make([]string, 0, 4)
	start := -1
	upper := false
	flush := func(end int) {
		if start >= 0 {
			w := name[start:end]
			if upper {
				w = strings.ToLower(w)
			}
			out = append(out, w)
		}
		start, upper = -1, false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		isUp, isLow, isDigit := c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9'
		if !isUp && !isLow && !isDigit {
			flush(i)
			continue
		}
		if isUp && start >= 0 {
			p := name[i-1]
			prevLow, prevDigit, prevUp := p >= 'a' && p <= 'z', p >= '0' && p <= '9', p >= 'A' && p <= 'Z'
			nextLow := i+1 < len(name) && name[i+1] >= 'a' && name[i+1] <= 'z'
			if prevLow || prevDigit || (prevUp && nextLow) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
		upper = upper || isUp
	}
	flush(len(name))
	if len(out) == 0 {
		return nil
	}
	return out
}

// tokensRunes is Tokens for names with non-ASCII letters.
func tokensRunes(runes []rune) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range runes {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && len(cur) > 0 {
			prev := runes[i-1]
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			// lower/digit → Upper starts a word ("customerEmail"); so does the
			// last capital of an acronym followed by lower case ("SSNNumber"
			// → SSN, Number).
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// Normalize returns a name's tokens joined by "_": the form the
// allow-list and reasons use ("customerEmailAddress" →
// "customer_email_address").
func Normalize(name string) string {
	return strings.Join(Tokens(name), "_")
}

// docWords splits prose into lower-case words.
func docWords(doc string) []string {
	return strings.FieldsFunc(strings.ToLower(doc), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// forms returns the spellings a token is matched under: itself, without
// trailing digits ("phone2"), and singular ("emails", "addresses").
func forms(t string, buf []string) []string {
	buf = append(buf[:0], t)
	if s := strings.TrimRight(t, "0123456789"); s != t && s != "" {
		buf = append(buf, s)
	}
	if len(t) > 3 && strings.HasSuffix(t, "s") && !strings.HasSuffix(t, "ss") {
		buf = append(buf, t[:len(t)-1])
		if strings.HasSuffix(t, "sses") || strings.HasSuffix(t, "xes") || strings.HasSuffix(t, "ches") || strings.HasSuffix(t, "shes") {
			buf = append(buf, t[:len(t)-2])
		}
	}
	return buf
}

// Kind is the kind of value a field holds, read from its Type.
type Kind uint8

// Value kinds. A pattern lists the kinds that can hold what it looks for:
// an email is text, never a boolean.
const (
	KindUnknown  Kind = 1 << iota // no type, or a type Charter cannot classify
	KindString                    // string, bytes, uuid
	KindNumber                    // integers, floats, decimals
	KindBoolean                   // boolean, bool
	KindTemporal                  // date, time, timestamp logical types and google.protobuf.Timestamp
	KindNamed                     // a named type that may be an enum, a record or a fixed
	KindRecord                    // a JSON Schema object
)

var kindNames = map[Kind]string{
	KindUnknown: "unknown", KindString: "string", KindNumber: "number", KindBoolean: "boolean",
	KindTemporal: "temporal", KindNamed: "named", KindRecord: "record",
}

// String names a kind, or the kinds of a set joined by "|".
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	var parts []string
	for bit := KindUnknown; bit <= KindRecord; bit <<= 1 {
		if k&bit != 0 {
			parts = append(parts, kindNames[bit])
		}
	}
	return strings.Join(parts, "|")
}

// scalarKinds maps lower-cased type names of every format to kinds.
var scalarKinds = func() map[string]Kind {
	m := map[string]Kind{}
	add := func(k Kind, names ...string) {
		for _, n := range names {
			m[n] = k
		}
	}
	add(KindString, "string", "bytes", "uuid", "google.protobuf.stringvalue", "google.protobuf.bytesvalue")
	add(KindBoolean, "boolean", "bool", "google.protobuf.boolvalue")
	add(KindNumber, "int", "long", "float", "double", "int32", "int64", "uint32", "uint64", "sint32", "sint64",
		"fixed32", "fixed64", "sfixed32", "sfixed64", "integer", "number", "big-decimal",
		"google.protobuf.int32value", "google.protobuf.int64value", "google.protobuf.uint32value",
		"google.protobuf.uint64value", "google.protobuf.floatvalue", "google.protobuf.doublevalue")
	add(KindTemporal, "date", "time-millis", "time-micros", "timestamp-millis", "timestamp-micros",
		"timestamp-nanos", "local-timestamp-millis", "local-timestamp-micros", "local-timestamp-nanos",
		"date-time", "google.protobuf.timestamp", "google.type.date")
	add(KindRecord, "object")
	add(KindNamed, "enum", "record", "fixed")
	add(KindUnknown, "null", "array", "")
	return m
}()

// KindOf classifies a Field.Type as each format spells it: Avro
// ("union{null,string}", "array<long>", "decimal(9,2)", "com.acme.Status"),
// Protobuf ("repeated string", "map<string, int64>", "acme.v1.Status") and
// JSON Schema ("string", "integer", "object", "string|null"). Containers
// take their element's kind; a union or type list takes the kind of its
// non-null members when they agree.
func KindOf(typ string) Kind {
	t := strings.ToLower(strings.TrimSpace(typ))
	t = strings.TrimPrefix(t, "repeated ")
	t = strings.TrimPrefix(t, "optional ")
	switch {
	case strings.HasPrefix(t, "array<") && strings.HasSuffix(t, ">"):
		return KindOf(t[len("array<") : len(t)-1])
	case strings.HasPrefix(t, "map<") && strings.HasSuffix(t, ">"):
		inner := t[len("map<") : len(t)-1]
		if i := topLevelComma(inner); i >= 0 {
			inner = inner[i+1:]
		}
		return KindOf(inner)
	case strings.HasPrefix(t, "union{") && strings.HasSuffix(t, "}"):
		return unionKind(splitTopLevel(t[len("union{"):len(t)-1], ','))
	case strings.Contains(t, "|") && len(splitTopLevel(t, '|')) > 1:
		// A '|' inside brackets only (FuzzDetect: "map<a, array<b|<")
		// splits nothing; recursing on the same text would never end.
		return unionKind(splitTopLevel(t, '|'))
	case strings.HasPrefix(t, "decimal("):
		return KindNumber
	}
	if k, ok := scalarKinds[t]; ok {
		return k
	}
	if r, _ := utf8.DecodeRuneInString(t); unicode.IsLetter(r) || r == '_' || r == '.' {
		return KindNamed
	}
	return KindUnknown
}

func unionKind(parts []string) Kind {
	var k Kind
	for _, p := range parts {
		if strings.TrimSpace(p) == "null" {
			continue
		}
		pk := KindOf(p)
		if k != 0 && pk != k {
			return KindUnknown
		}
		k = pk
	}
	if k == 0 {
		return KindUnknown
	}
	return k
}

// splitTopLevel splits s at sep outside <>, {} and ().
func splitTopLevel(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '{', '(':
			depth++
		case '>', '}', ')':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func topLevelComma(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '{', '(':
			depth++
		case '>', '}', ')':
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

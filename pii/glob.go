package pii

import "strings"

// glob is a compiled metadata.tags path pattern.
type glob struct {
	src    string
	toks   []globTok
	prefix string // the literal bytes before the first wildcard
	plain  bool   // no wildcard at all: the name must equal prefix
}

type globKind uint8

const (
	gLit      globKind = iota // one literal byte
	gOne                      // ?: one byte other than '.'
	gSegment                  // *: any run of bytes without '.'
	gAnything                 // **: any run of bytes
)

type globTok struct {
	kind globKind
	b    byte
}

// compileGlob reads a pattern as Confluent's WildcardMatcher does: "**.*"
// is first shortened to "**"; "**" matches any run of characters, dots
// included; "*" a run within one dot-separated segment; "?" one character
// other than a dot; a backslash makes the next character literal. Every
// other character is literal (Confluent hands "[", "]" and a few others to
// a regular expression unescaped; Charter does not).
func compileGlob(pattern string) glob {
	p := strings.ReplaceAll(pattern, "**.*", "**")
	g := glob{src: pattern, toks: make([]globTok, 0, len(p))}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				i++
				g.toks = append(g.toks, globTok{kind: gAnything})
			} else {
				g.toks = append(g.toks, globTok{kind: gSegment})
			}
		case '?':
			g.toks = append(g.toks, globTok{kind: gOne})
		case '\\':
			if i+1 < len(p) {
				i++
				g.toks = append(g.toks, globTok{kind: gLit, b: p[i]})
			} else {
				g.toks = append(g.toks, globTok{kind: gLit, b: '\\'})
			}
		default:
			g.toks = append(g.toks, globTok{kind: gLit, b: c})
		}
	}
	var lit []byte
	g.plain = true
	for _, t := range g.toks {
		if t.kind != gLit {
			g.plain = false
			break
		}
		lit = append(lit, t.b)
	}
	g.prefix = string(lit)
	return g
}

// match reports whether the whole of name matches. It runs in
// O(len(pattern)·len(name)) time with one row of state per pattern token.
func (g glob) match(name string) bool {
	if g.plain {
		return name == g.prefix
	}
	if !strings.HasPrefix(name, g.prefix) {
		return false
	}
	// cur[j]: the tokens so far match name[:j]. The literal prefix is
	// already matched.
	name = name[len(g.prefix):]
	n := len(name)
	var buf [256]bool
	var state []bool
	if 2*(n+1) <= len(buf) {
		state = buf[:2*(n+1)]
	} else {
		state = make([]bool, 2*(n+1))
	}
	cur, next := state[:n+1], state[n+1:]
	cur[0] = true
	for _, t := range g.toks[len(g.prefix):] {
		clear(next)
		switch t.kind {
		case gLit:
			for j := 0; j < n; j++ {
				if cur[j] && name[j] == t.b {
					next[j+1] = true
				}
			}
		case gOne:
			for j := 0; j < n; j++ {
				if cur[j] && name[j] != '.' {
					next[j+1] = true
				}
			}
		case gSegment:
			for j := 0; j <= n; j++ {
				if cur[j] || (j > 0 && next[j-1] && name[j-1] != '.') {
					next[j] = true
				}
			}
		case gAnything:
			for j := 0; j <= n; j++ {
				if cur[j] || (j > 0 && next[j-1]) {
					next[j] = true
				}
			}
		}
		cur, next = next, cur
	}
	return cur[n]
}

// MatchGlob reports whether a Confluent metadata.tags path pattern matches
// a field's full name, with Confluent's wildcard rules: "?" matches one
// character other than ".", "*" any run of characters within one
// dot-separated segment, "**" any run across segments ("**.ssn" matches
// "com.acme.Customer.ssn" but not "ssn"), "\" makes the next character
// literal; the match is case-sensitive and covers the whole name. Source:
// WildcardMatcher in Confluent's schema-registry client (Java and Go).
func MatchGlob(pattern, name string) bool {
	return compileGlob(pattern).match(name)
}

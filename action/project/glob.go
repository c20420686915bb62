package project

import (
	"fmt"
	"regexp"
	"strings"
)

// glob is a compiled file pattern over slash-separated paths relative to
// the project root:
//
//   - any run of characters except "/"
//     ?       one character except "/"
//     **      any run of characters, "/" included, when it is a whole path
//     element: "**/x", "a/**/x", "a/**"
//     [abc]   [a-z] [!a]  one character of (or not of) a class
//     {a,b}   one of the comma-separated alternatives (no nesting)
//
// A pattern is matched against the whole path.
type glob struct {
	pattern string
	re      *regexp.Regexp
}

func compileGlob(pattern string) (*glob, error) {
	if pattern == "" {
		return nil, fmt.Errorf("empty glob")
	}
	if strings.HasPrefix(pattern, "/") {
		return nil, fmt.Errorf("glob %q: must be relative to the project root (no leading /)", pattern)
	}
	var b strings.Builder
	b.WriteString("^")
	inAlt := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch c {
		case '*':
			if i+1 < len(pattern) && pattern[i+1] == '*' {
				start := i == 0 || pattern[i-1] == '/'
				end := i+2 == len(pattern) || pattern[i+2] == '/'
				if !start || !end {
					return nil, fmt.Errorf("glob %q: ** must be a whole path element", pattern)
				}
				switch {
				case i+2 == len(pattern): // "a/**" or "**": everything below
					b.WriteString(".*")
					i++
				default: // "**/": zero or more directories
					b.WriteString("(?:.*/)?")
					i += 2
				}
				continue
			}
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '[':
			j := strings.IndexByte(pattern[i+1:], ']')
			if j < 0 {
				return nil, fmt.Errorf("glob %q: unclosed [", pattern)
			}
			class := pattern[i+1 : i+1+j]
			if class == "" || class == "!" {
				return nil, fmt.Errorf("glob %q: empty character class", pattern)
			}
			b.WriteByte('[')
			if class[0] == '!' {
				b.WriteByte('^')
				class = class[1:]
			}
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(class, `\`, `\\`), "[", `\[`))
			b.WriteByte(']')
			i += j + 1
		case '{':
			if inAlt {
				return nil, fmt.Errorf("glob %q: nested {", pattern)
			}
			inAlt = true
			b.WriteString("(?:")
		case '}':
			if !inAlt {
				return nil, fmt.Errorf("glob %q: } without {", pattern)
			}
			inAlt = false
			b.WriteString(")")
		case ',':
			if inAlt {
				b.WriteString("|")
			} else {
				b.WriteString(",")
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if inAlt {
		return nil, fmt.Errorf("glob %q: unclosed {", pattern)
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("glob %q: %w", pattern, err)
	}
	return &glob{pattern: pattern, re: re}, nil
}

func (g *glob) match(path string) bool { return g.re.MatchString(path) }

// globs is a list of patterns; a path matches when any pattern does.
type globs []*glob

func compileGlobs(patterns []string) (globs, error) {
	out := make(globs, 0, len(patterns))
	for _, p := range patterns {
		g, err := compileGlob(p)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

func (gs globs) match(path string) bool {
	for _, g := range gs {
		if g.match(path) {
			return true
		}
	}
	return false
}

package project

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/charter-dev/charter/compat"
)

// locator finds the line of a finding's path in one schema file: the
// declaration line of the field the path names (compat.Field.Line), the
// line of a JSON Schema pointer, or of a Protobuf message or enum
// declaration; failing those, the line of the closest enclosing element.
type locator struct {
	byPath map[string]int
}

func newLocator(s *Schema) *locator {
	l := &locator{byPath: map[string]int{}}
	if s == nil {
		return l
	}
	switch s.Format {
	case compat.JSON:
		jsonPointerLines(s.Text, l.byPath)
	case compat.Protobuf:
		protoDeclLines(s.Text, l.byPath)
	}
	if s.Parsed != nil {
		for _, f := range compat.Fields(s.Parsed) {
			if f.Line > 0 {
				if _, ok := l.byPath[f.Path]; !ok {
					l.byPath[f.Path] = f.Line
				}
			}
		}
	}
	return l
}

// line returns the line of path or of its closest ancestor, 0 when none
// is known.
func (l *locator) line(path string) int {
	if path == "#/" {
		path = "#"
	}
	for p := path; p != ""; p = parentPath(p) {
		if n, ok := l.byPath[p]; ok {
			return n
		}
	}
	return 0
}

// parentPath drops the last element of a dotted path (".a.b[]" → ".a.b",
// ".a.b" → ".a", ".a<T>" → ".a") or a JSON pointer ("#/a/b" → "#/a");
// "" after the root.
func parentPath(p string) string {
	if strings.HasPrefix(p, "#") {
		i := strings.LastIndexByte(p, '/')
		if i <= 1 {
			return ""
		}
		return p[:i]
	}
	if strings.HasSuffix(p, ">") {
		if i := strings.LastIndexByte(p, '<'); i > 0 {
			return p[:i]
		}
	}
	if strings.HasSuffix(p, "[]") || strings.HasSuffix(p, "{}") {
		return p[:len(p)-2]
	}
	i := strings.LastIndexByte(p, '.')
	if i <= 0 {
		return ""
	}
	return p[:i]
}

// jsonPointerLines records, for every member and element of a JSON
// document, the line where it starts, keyed by JSON pointer ("#/properties/a").
func jsonPointerLines(text string, out map[string]int) {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int64) int {
		return sort.Search(len(starts), func(i int) bool { return starts[i] > int(off) })
	}
	type frame struct {
		ptr       string // the container's pointer
		object    bool
		index     int    // next array element
		key       string // current object member
		expectKey bool
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var stack []*frame
	out["#"] = 1
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return
		}
		// The token starts at the first byte after before that is not
		// white space or a separator.
		start := before
		for int(start) < len(text) && strings.IndexByte(" \t\r\n,:", text[start]) >= 0 {
			start++
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		ptr := "#"
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			switch {
			case top.object && top.expectKey:
				top.key, _ = tok.(string)
				top.expectKey = false
				out[top.ptr+"/"+escapeToken(top.key)] = lineOf(start)
				continue
			case top.object:
				ptr = top.ptr + "/" + escapeToken(top.key)
				top.expectKey = true
			default:
				ptr = top.ptr + "/" + strconv.Itoa(top.index)
				out[ptr] = lineOf(start)
				top.index++
			}
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &frame{ptr: ptr, object: d == '{', expectKey: d == '{'})
		}
	}
}

func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

var protoDeclRe = regexp.MustCompile(`^\s*(message|enum)\s+([A-Za-z_][A-Za-z0-9_]*)\s*\{?`)

// protoDeclLines records the line of every message and enum declaration
// by its path relative to the package (".Order", ".Order.Line"), tracking
// nesting by braces outside comments and strings.
func protoDeclLines(text string, out map[string]int) {
	type scope struct {
		name  string
		depth int
	}
	var stack []scope
	depth := 0
	pending := ""
	inBlock := false
	for i, line := range strings.Split(text, "\n") {
		code := stripProtoComments(line, &inBlock)
		if m := protoDeclRe.FindStringSubmatch(code); m != nil {
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1].name
			}
			pending = parent + "." + m[2]
			if _, ok := out[pending]; !ok {
				out[pending] = i + 1
			}
		}
		for _, c := range code {
			switch c {
			case '{':
				depth++
				if pending != "" {
					stack = append(stack, scope{pending, depth})
					pending = ""
				}
			case '}':
				if len(stack) > 0 && stack[len(stack)-1].depth == depth {
					stack = stack[:len(stack)-1]
				}
				depth--
			}
		}
	}
}

// stripProtoComments removes comments and string literals from one line;
// inBlock carries an open /* */ comment across lines.
func stripProtoComments(line string, inBlock *bool) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		if *inBlock {
			if strings.HasPrefix(line[i:], "*/") {
				*inBlock = false
				i++
			}
			continue
		}
		switch {
		case strings.HasPrefix(line[i:], "//"):
			return b.String()
		case strings.HasPrefix(line[i:], "/*"):
			*inBlock = true
			i++
		case line[i] == '"' || line[i] == '\'':
			q := line[i]
			for i++; i < len(line) && line[i] != q; i++ {
				if line[i] == '\\' {
					i++
				}
			}
		default:
			b.WriteByte(line[i])
		}
	}
	return b.String()
}

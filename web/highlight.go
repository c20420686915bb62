package web

import (
	"bytes"
	"encoding/json"
	"html/template"
	"regexp"
	"strings"

	"github.com/charter-dev/charter/compat"
)

// codeLine is one line of a schema shown with syntax highlighting: its
// tokens as HTML spans, and the marks of the fields declared on it.
type codeLine struct {
	No    int
	HTML  template.HTML
	Marks []mark
	// Field is the path of the field declared on the line, "" when none.
	Field string
}

// mark labels a line: a PII tag, a deprecation, a finding.
type mark struct {
	Class string // pii, deprecated, finding-error, finding-warning, added, removed
	Label string
}

// schemaText is the text the UI shows for a schema: JSON (Avro, JSON
// Schema) indented when it was stored on one line, Protobuf as stored.
func schemaText(t compat.SchemaType, text string) string {
	if t == compat.Protobuf || strings.Count(strings.TrimSpace(text), "\n") > 0 {
		return text
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(text), "", "  "); err != nil {
		return text
	}
	return buf.String()
}

// highlight splits text into lines of highlighted tokens and finds the
// line each field is declared on: compat.Field.Line when the text is the
// stored text with lines, else the first line after the previous field's
// that names it ("name": "x" in Avro, "x": in JSON Schema, the field name
// before "=" in Protobuf).
func highlight(t compat.SchemaType, stored, text string, fields []compat.Field) []codeLine {
	raw := strings.Split(strings.TrimRight(text, "\n"), "\n")
	lines := make([]codeLine, len(raw))
	for i, l := range raw {
		lines[i] = codeLine{No: i + 1, HTML: tokens(t, l)}
	}
	useLine := text == stored && strings.Contains(stored, "\n")
	at := 0
	for _, f := range fields {
		n := 0
		if useLine && f.Line > 0 && f.Line <= len(lines) {
			n = f.Line
		} else {
			re := declPattern(t, f.Name)
			for i := at; i < len(raw) && n == 0; i++ {
				if re.MatchString(raw[i]) && lines[i].Field == "" {
					n = i + 1
				}
			}
		}
		if n == 0 {
			continue
		}
		if lines[n-1].Field == "" {
			lines[n-1].Field = f.Path
		}
		at = n
	}
	return lines
}

// declPattern matches a line declaring field name.
func declPattern(t compat.SchemaType, name string) *regexp.Regexp {
	q := regexp.QuoteMeta(name)
	switch t {
	case compat.Protobuf:
		return regexp.MustCompile(`\b` + q + `\s*=\s*\d+`)
	case compat.JSON:
		return regexp.MustCompile(`"` + q + `"\s*:\s*\{`)
	}
	return regexp.MustCompile(`"name"\s*:\s*"` + q + `"`)
}

var protoKeywords = map[string]bool{
	"syntax": true, "package": true, "import": true, "option": true, "message": true, "enum": true, "service": true,
	"rpc": true, "returns": true, "repeated": true, "optional": true, "required": true, "reserved": true, "oneof": true,
	"map": true, "extend": true, "public": true, "weak": true, "stream": true, "to": true, "max": true, "edition": true,
}

var protoTypes = map[string]bool{
	"double": true, "float": true, "int32": true, "int64": true, "uint32": true, "uint64": true, "sint32": true,
	"sint64": true, "fixed32": true, "fixed64": true, "sfixed32": true, "sfixed64": true, "bool": true, "string": true, "bytes": true,
}

// tokens highlights one line: JSON strings (keys apart from values),
// numbers and literals; Protobuf comments, strings, keywords, scalar
// types and numbers. Each token is an escaped span with a class.
func tokens(t compat.SchemaType, line string) template.HTML {
	var b strings.Builder
	span := func(class, s string) {
		if class == "" {
			b.WriteString(template.HTMLEscapeString(s))
			return
		}
		b.WriteString(`<span class="tok-` + class + `">` + template.HTMLEscapeString(s) + `</span>`)
	}
	i := 0
	for i < len(line) {
		c := line[i]
		switch {
		case c == '"' || (c == '\'' && t == compat.Protobuf):
			j := i + 1
			for j < len(line) && line[j] != c {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(line))
			class := "str"
			if t != compat.Protobuf && strings.HasPrefix(strings.TrimLeft(line[j:], " \t"), ":") {
				class = "key"
			}
			span(class, line[i:j])
			i = j
		case t == compat.Protobuf && strings.HasPrefix(line[i:], "//"):
			span("comment", line[i:])
			i = len(line)
		case c >= '0' && c <= '9' || (c == '-' && i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9'):
			j := i + 1
			for j < len(line) && strings.IndexByte("0123456789.eE+-xX", line[j]) >= 0 {
				j++
			}
			span("num", line[i:j])
			i = j
		case isIdent(c):
			j := i
			for j < len(line) && (isIdent(line[j]) || line[j] >= '0' && line[j] <= '9' || line[j] == '.') {
				j++
			}
			w := line[i:j]
			class := ""
			switch {
			case t != compat.Protobuf && (w == "true" || w == "false" || w == "null"):
				class = "lit"
			case t == compat.Protobuf && protoKeywords[w]:
				class = "kw"
			case t == compat.Protobuf && protoTypes[w]:
				class = "type"
			case t == compat.Protobuf && (w == "true" || w == "false"):
				class = "lit"
			}
			span(class, w)
			i = j
		default:
			j := i + 1
			for j < len(line) && !isIdent(line[j]) && line[j] != '"' && line[j] != '\'' && line[j] != '/' && !(line[j] >= '0' && line[j] <= '9') && line[j] != '-' {
				j++
			}
			span("", line[i:j])
			i = j
		}
	}
	return template.HTML(b.String())
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

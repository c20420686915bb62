package protobuf

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bufbuild/protocompile/ast"
)

// canonicalText re-prints a parsed file from its syntax tree: tokens in
// source order, comments and whitespace replaced by a fixed layout.
func canonicalText(file *ast.FileNode) string {
	p := &tokenPrinter{file: file}
	for _, child := range file.Children() {
		if child == file.EOF {
			continue
		}
		p.node(child)
	}
	p.b.WriteByte('\n')
	return p.b.String()
}

// tokenPrinter writes tokens with canonical spacing. Words (identifiers,
// keywords, literals, qualified names) are separated by one space;
// punctuation follows the rules in spaceBefore.
type tokenPrinter struct {
	file      *ast.FileNode
	b         strings.Builder
	indent    int
	lineStart bool // the next token starts a new line
	blankLine bool // a blank line goes before the next token
	started   bool
	prev      string
}

func (p *tokenPrinter) node(n ast.Node) {
	switch n := n.(type) {
	case *ast.EmptyDeclNode:
		return
	case ast.StringValueNode:
		p.word(quoteProto(n.AsString()))
		return
	case *ast.UintLiteralNode:
		p.word(strconv.FormatUint(n.Val, 10))
		return
	case *ast.NegativeIntLiteralNode:
		p.word(strconv.FormatInt(n.Val, 10))
		return
	case *ast.FloatLiteralNode:
		p.word(formatFloat(n.Val))
		return
	case *ast.SignedFloatLiteralNode:
		p.word(formatFloat(n.Val))
		return
	case *ast.SpecialFloatLiteralNode:
		p.word(formatFloat(n.Val))
		return
	case *ast.CompoundIdentNode, *ast.OptionNameNode, *ast.FieldReferenceNode:
		// Qualified names and option names print as one word.
		p.word(p.joined(n))
		return
	case *ast.MapTypeNode:
		p.word("map<" + p.joined(n.KeyType) + ", " + p.joined(n.ValueType) + ">")
		return
	case *ast.MessageLiteralNode:
		p.messageLiteral(n)
		return
	case ast.TerminalNode:
		p.terminal(n)
		return
	case ast.CompositeNode:
		for _, c := range n.Children() {
			p.node(c)
		}
	}
}

// joined returns the source tokens of n without spaces (names only).
func (p *tokenPrinter) joined(n ast.Node) string {
	var sb strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		switch n := n.(type) {
		case ast.TerminalNode:
			sb.WriteString(p.tokenText(n))
		case ast.CompositeNode:
			for _, c := range n.Children() {
				walk(c)
			}
		}
	}
	walk(n)
	return sb.String()
}

func (p *tokenPrinter) tokenText(n ast.TerminalNode) string {
	switch n := n.(type) {
	case *ast.RuneNode:
		return string(n.Rune)
	case *ast.IdentNode:
		return n.Val
	case *ast.KeywordNode:
		return n.Val
	}
	return p.file.NodeInfo(n).RawText()
}

func (p *tokenPrinter) messageLiteral(n *ast.MessageLiteralNode) {
	p.punct("{")
	for _, f := range n.Elements {
		p.newline()
		p.word(p.joined(f.Name))
		if f.Sep != nil {
			p.punct(":")
		}
		p.node(f.Val)
	}
	p.punct("}")
}

func (p *tokenPrinter) terminal(n ast.TerminalNode) {
	if r, ok := n.(*ast.RuneNode); ok {
		p.punct(string(r.Rune))
		return
	}
	p.word(p.tokenText(n))
}

func (p *tokenPrinter) newline() {
	if p.started {
		p.lineStart = true
	}
}

func (p *tokenPrinter) start(tok string) {
	switch {
	case !p.started:
	case p.lineStart || p.blankLine:
		if p.blankLine {
			p.b.WriteByte('\n')
		}
		p.b.WriteByte('\n')
		p.b.WriteString(strings.Repeat("  ", p.indent))
	case spaceBefore(p.prev, tok):
		p.b.WriteByte(' ')
	}
	p.started, p.lineStart, p.blankLine = true, false, false
	p.b.WriteString(tok)
	p.prev = tok
}

func (p *tokenPrinter) word(w string) { p.start(w) }

func (p *tokenPrinter) punct(r string) {
	switch r {
	case "{":
		p.start(r)
		p.indent++
		p.lineStart = true
	case "}":
		if p.indent > 0 {
			p.indent--
		}
		p.lineStart = true
		p.start(r)
		p.lineStart = true
		if p.indent == 0 {
			p.blankLine = true
		}
	case ";":
		p.lineStart, p.blankLine = false, false
		p.start(r)
		p.lineStart = true
	default:
		if r == "," || r == "]" || r == ")" || r == ">" {
			// Close up after a block: `}];`, `},`.
			p.lineStart, p.blankLine = false, false
		}
		p.start(r)
	}
}

// spaceBefore reports whether a space separates tok from the previous token
// on one line.
func spaceBefore(prev, tok string) bool {
	switch tok {
	case ";", ",", ")", "]", ">", ":":
		return false
	}
	switch prev {
	case "(", "[", "<", "-":
		return false
	}
	return true
}

// quoteProto quotes s as a .proto string literal: printable UTF-8 is kept,
// quotes and backslashes are escaped, every other byte is an octal escape.
func quoteProto(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(octal(s[i]))
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(octal(s[i]))
		case r >= 0x80 && !strconv.IsPrint(r):
			for j := 0; j < size; j++ {
				b.WriteString(octal(s[i+j]))
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

func octal(c byte) string {
	return `\` + string([]byte{'0' + c>>6, '0' + (c>>3)&7, '0' + c&7})
}

// formatFloat writes a float the way .proto accepts it ("inf", "nan",
// shortest decimal otherwise).
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

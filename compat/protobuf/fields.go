package protobuf

import (
	"regexp"
	"slices"
	"strings"

	"github.com/bufbuild/protocompile/ast"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/charter-dev/charter/compat"
)

var _ compat.FieldLister = (*Schema)(nil)

// fieldMetaName is Confluent's field option (confluent/meta.proto,
// extension 1088 of FieldOptions): Meta{doc, params, tags, rules}.
const fieldMetaName = "confluent.field_meta"

// fieldSource is what the syntax tree says about a field declaration,
// kept after the tree is dropped.
type fieldSource struct {
	line int    // 1-based, in the schema file; 0 in other files
	doc  string // leading comment, else trailing comment
}

// Fields lists the fields of every message declared in the file, depth
// first in declaration order ([compat.FieldLister]): each message's fields,
// then its nested messages (map entries excepted).
//
//   - Path is the Violation path: ".Msg.field", ".Outer.Inner.field"
//     (message names relative to the package). A field whose message type
//     is defined in another file (a reference or import) is followed into
//     that type, as CheckRead does: ".Order.customer.email"; repeated and
//     map fields add nothing to the path. Types of google/protobuf/*.proto
//     and confluent.type.Decimal are values, not followed. A message of
//     this file is listed under its own name, not again through fields.
//   - FullName is the field descriptor's full name ("acme.v1.Order.id"),
//     as Confluent's rule executors name it.
//   - Type is written as in .proto text: "string", "acme.v1.Address",
//     "repeated int64", "map<string, acme.v1.Address>".
//   - Required is true for a proto2 `required` field (editions
//     LEGACY_REQUIRED); every other field has a default (HasDefault).
//   - Doc is (confluent.field_meta).doc, else the field's leading comment,
//     else its trailing comment (comment markers removed).
//   - Tags are (confluent.field_meta).tags plus Apicurio's "@tag:NAME"
//     markers in the field's comments. Deprecated is [deprecated = true].
//   - Props holds (confluent.field_meta).params and every other
//     string-valued custom option, keyed "(full.name)".
//   - Line is the line where the declaration starts in the schema text, 0
//     for fields declared in another file.
//
// A message already on the path (a recursive type) is listed as a field
// but not entered again. A message of another file that many paths reach
// (three fields of a type with three fields of another type, n levels
// deep, make 3^n paths) is followed at each path until types have been
// followed again maxFieldRepeats (10,000) times; after that it is entered
// only if no earlier path entered it, so every field is listed at least
// once and the list stays bounded. Extensions are not listed.
func (s *Schema) Fields() []compat.Field {
	if s == nil || s.fd == nil {
		return nil
	}
	l := &protoLister{s: s, entered: map[protoreflect.FullName]bool{}}
	_, order := collectMessages(s.fd.Messages(), nil, nil)
	for _, m := range order {
		l.stack = append(l.stack[:0], m.FullName())
		l.message("."+localName(m), m)
	}
	return l.out
}

// maxFieldRepeats bounds how many times Fields follows a message type
// that an earlier path already followed.
const maxFieldRepeats = 10000

type protoLister struct {
	s       *Schema
	out     []compat.Field
	stack   []protoreflect.FullName // messages on the current path
	entered map[protoreflect.FullName]bool
	repeats int // times a schema was entered again at another path
}

func (l *protoLister) message(path string, m protoreflect.MessageDescriptor) {
	fs := m.Fields()
	for i := 0; i < fs.Len(); i++ {
		f := fs.Get(i)
		fp := path + "." + string(f.Name())
		l.out = append(l.out, l.field(f, fp))
		t := f.Message()
		if f.IsMap() {
			t = f.MapValue().Message()
		}
		if t == nil || t.ParentFile().Path() == l.s.fd.Path() || valueMessage(t) || slices.Contains(l.stack, t.FullName()) {
			continue
		}
		if l.entered[t.FullName()] {
			if l.repeats >= maxFieldRepeats {
				continue
			}
			l.repeats++
		}
		l.entered[t.FullName()] = true
		l.stack = append(l.stack, t.FullName())
		l.message(fp, t)
		l.stack = l.stack[:len(l.stack)-1]
	}
}

// valueMessage reports message types that are values rather than records:
// the well-known types and Confluent's decimal.
func valueMessage(m protoreflect.MessageDescriptor) bool {
	return m.ParentFile().Package() == "google.protobuf" || m.FullName() == "confluent.type.Decimal"
}

func (l *protoLister) field(f protoreflect.FieldDescriptor, path string) compat.Field {
	out := compat.Field{
		Path:       path,
		Name:       string(f.Name()),
		FullName:   string(f.FullName()),
		Type:       fieldTypeText(f),
		Required:   f.Cardinality() == protoreflect.Required,
		HasDefault: f.Cardinality() != protoreflect.Required,
	}
	src := l.s.src[f.FullName()]
	if f.ParentFile().Path() == l.s.fd.Path() {
		out.Line = src.line
	}
	out.Doc = src.doc
	out.Tags = commentTags(src.doc)
	if opts, ok := f.Options().(*descriptorpb.FieldOptions); ok && opts != nil {
		out.Deprecated = opts.GetDeprecated()
		customOptions(opts, &out)
	}
	if len(out.Tags) > 1 {
		slices.Sort(out.Tags)
		out.Tags = slices.Compact(out.Tags)
	}
	return out
}

// customOptions reads confluent.field_meta and the other string-valued
// custom options of a field. protocompile keeps interpreted custom options
// as (dynamic) extension fields of FieldOptions.
func customOptions(opts *descriptorpb.FieldOptions, out *compat.Field) {
	opts.ProtoReflect().Range(func(x protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if !x.IsExtension() || x.IsList() || x.IsMap() {
			return true
		}
		switch {
		case x.FullName() == fieldMetaName && x.Message() != nil:
			readMeta(v.Message(), out)
		case x.Kind() == protoreflect.StringKind:
			setProp(out, "("+string(x.FullName())+")", v.String())
		}
		return true
	})
}

// readMeta copies a confluent.Meta value: doc, params and tags.
func readMeta(m protoreflect.Message, out *compat.Field) {
	fs := m.Descriptor().Fields()
	if d := fs.ByName("doc"); d != nil && d.Kind() == protoreflect.StringKind && !d.IsList() {
		if doc := m.Get(d).String(); doc != "" {
			out.Doc = doc
		}
	}
	if t := fs.ByName("tags"); t != nil && t.IsList() && t.Kind() == protoreflect.StringKind {
		list := m.Get(t).List()
		for i := 0; i < list.Len(); i++ {
			if tag := list.Get(i).String(); tag != "" {
				out.Tags = append(out.Tags, tag)
			}
		}
	}
	if p := fs.ByName("params"); p != nil && p.IsMap() && p.MapValue().Kind() == protoreflect.StringKind {
		m.Get(p).Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			setProp(out, k.String(), v.String())
			return true
		})
	}
}

func setProp(out *compat.Field, k, v string) {
	if out.Props == nil {
		out.Props = map[string]string{}
	}
	out.Props[k] = v
}

// fieldTypeText spells a field's type as .proto text does.
func fieldTypeText(f protoreflect.FieldDescriptor) string {
	if f.IsMap() {
		return "map<" + kindText(f.MapKey()) + ", " + kindText(f.MapValue()) + ">"
	}
	if f.IsList() {
		return "repeated " + kindText(f)
	}
	return kindText(f)
}

func kindText(f protoreflect.FieldDescriptor) string {
	switch f.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return string(f.Message().FullName())
	case protoreflect.EnumKind:
		return string(f.Enum().FullName())
	}
	return f.Kind().String()
}

// tagMarker is Apicurio's tag marker in Protobuf comments: "@tag:PII".
var tagMarker = regexp.MustCompile(`@tag:([A-Za-z0-9_.\-]+)`)

func commentTags(doc string) []string {
	if !strings.Contains(doc, "@tag:") {
		return nil
	}
	var tags []string
	for _, m := range tagMarker.FindAllStringSubmatch(doc, -1) {
		tags = append(tags, m[1])
	}
	return tags
}

// fieldSources reads the line and comments of every field declared in
// res and in the files it imports that still have their syntax tree.
func fieldSources(res linker.Result) map[protoreflect.FullName]fieldSource {
	out := map[protoreflect.FullName]fieldSource{}
	seen := map[string]bool{}
	var visit func(f protoreflect.FileDescriptor, main bool)
	visit = func(f protoreflect.FileDescriptor, main bool) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		if r, ok := f.(linker.Result); ok && r.AST() != nil {
			fileSources(r, main, out)
		}
		imps := f.Imports()
		for i := 0; i < imps.Len(); i++ {
			if imp := imps.Get(i).FileDescriptor; imp != nil && !imp.IsPlaceholder() {
				visit(imp, false)
			}
		}
	}
	visit(res, true)
	return out
}

func fileSources(r linker.Result, main bool, out map[protoreflect.FullName]fieldSource) {
	file := r.AST()
	fdp := r.FileDescriptorProto()
	prefix := fdp.GetPackage()
	var walk func(prefix string, msgs []*descriptorpb.DescriptorProto)
	walk = func(prefix string, msgs []*descriptorpb.DescriptorProto) {
		for _, m := range msgs {
			if m.GetOptions().GetMapEntry() {
				continue
			}
			name := m.GetName()
			if prefix != "" {
				name = prefix + "." + name
			}
			for _, f := range m.GetField() {
				n := r.FieldNode(f)
				if n == nil {
					continue
				}
				if _, synthetic := n.(*ast.NoSourceNode); synthetic {
					continue
				}
				info := file.NodeInfo(n)
				src := fieldSource{doc: leadingComment(info)}
				if src.doc == "" {
					src.doc = commentText(info.TrailingComments())
				}
				if main {
					src.line = info.Start().Line
				}
				if src.line != 0 || src.doc != "" {
					out[protoreflect.FullName(name+"."+f.GetName())] = src
				}
			}
			walk(name, m.GetNestedType())
		}
	}
	walk(prefix, fdp.GetMessageType())
}

// leadingComment returns the comments directly above a declaration, as
// protoc attaches them: the last block of comments with no blank line
// between them and the declaration.
func leadingComment(info ast.NodeInfo) string {
	cs := info.LeadingComments()
	n := cs.Len()
	if n == 0 || info.Start().Line-cs.Index(n-1).End().Line > 1 {
		return ""
	}
	first := n - 1
	for first > 0 && cs.Index(first).Start().Line-cs.Index(first-1).End().Line <= 1 {
		first--
	}
	parts := make([]string, 0, n-first)
	for i := first; i < n; i++ {
		parts = append(parts, cleanComment(cs.Index(i).RawText()))
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

func commentText(cs ast.Comments) string {
	parts := make([]string, 0, cs.Len())
	for i := 0; i < cs.Len(); i++ {
		parts = append(parts, cleanComment(cs.Index(i).RawText()))
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// cleanComment removes comment markers: "//" and one space, or "/*", "*/"
// and the leading "*" of each line of a block comment.
func cleanComment(raw string) string {
	if rest, ok := strings.CutPrefix(raw, "//"); ok {
		return strings.TrimPrefix(strings.TrimRight(rest, " \t\r"), " ")
	}
	raw = strings.TrimSuffix(strings.TrimPrefix(raw, "/*"), "*/")
	lines := strings.Split(raw, "\n")
	for i, ln := range lines {
		ln = strings.TrimSpace(ln)
		ln = strings.TrimPrefix(ln, "*")
		lines[i] = strings.TrimSpace(ln)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

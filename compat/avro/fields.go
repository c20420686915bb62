package avro

import (
	"slices"
	"strconv"
	"strings"

	"github.com/charter-dev/charter/compat"
)

var _ compat.FieldLister = (*Schema)(nil)

// Field property names that Fields reads (Confluent data contracts).
const (
	// PropTags is the field property holding the field's inline tags, an
	// array of strings: "confluent:tags": ["PII"].
	PropTags = "confluent:tags"
	// PropDeprecated is the field property that marks a field deprecated:
	// true, or a non-empty string giving the reason ("use carrier.code"),
	// as Avro IDL's @deprecated("…") writes it. false, "" and "false"
	// leave the field active.
	PropDeprecated = "deprecated"
)

// Fields lists the fields of every record reachable from the root, depth
// first in declaration order ([compat.FieldLister]).
//
//   - Path is the Violation path: ".customer.address.city", "[]" for array
//     items, "{}" for map values and "<T>" for the union branch of type T
//     that holds a record (".billing<com.acme.Address>.city").
//   - FullName is the declaring record's full name and the field name
//     ("com.acme.Address.city"), as Confluent's rule executors name it.
//   - Type is written in Avro IDL style: a primitive or a named type's full
//     name, a logical type by its logicalType ("date", "uuid",
//     "decimal(9,2)"), "array<T>", "map<T>" and "union{null,string}".
//   - Required is true for a field without a default, HasDefault for one
//     with a default.
//   - Tags come from the "confluent:tags" property (an array of strings; a
//     single string is read as one tag), Deprecated from "deprecated" (see
//     [PropDeprecated]); Props holds every other string-valued field
//     property, "deprecated" included when it gives a reason.
//   - Line is the line of the field's "name" in the schema text, 0 for
//     fields of types defined in a referenced schema.
//
// A record already on the path (a recursive type) is listed as a field but
// not entered again. A record reused by many fields is entered at most
// [MaxRecordEntries] times, so a small schema whose records each use the
// one below several times (3^n paths) cannot make the list explode: every
// field of every record is still listed at least once.
func (s *Schema) Fields() []compat.Field {
	if s == nil || s.root == nil {
		return nil
	}
	l := fieldLister{entries: map[*node]int{}}
	l.walk(s.root, "")
	return l.out
}

// MaxRecordEntries bounds how many times Fields lists the fields of one
// record type reached through different paths.
const MaxRecordEntries = 1_000

type fieldLister struct {
	out     []compat.Field
	onTop   []*node       // records on the current path
	entries map[*node]int // times each record's fields were listed
}

// walk lists the fields inside type n, whose own path is path.
func (l *fieldLister) walk(n *node, path string) {
	switch n.kind {
	case kRecord:
		if slices.Contains(l.onTop, n) || l.entries[n] >= MaxRecordEntries {
			return
		}
		l.entries[n]++
		l.onTop = append(l.onTop, n)
		for _, f := range n.fields {
			fp := path + "." + f.name
			l.out = append(l.out, fieldOf(n, f, fp))
			l.walk(f.typ, fp)
		}
		l.onTop = l.onTop[:len(l.onTop)-1]
	case kArray:
		l.walk(n.items, path+"[]")
	case kMap:
		l.walk(n.items, path+"{}")
	case kUnion:
		for _, b := range n.branches {
			if hasFields(b) {
				l.walk(b, path+"<"+b.typeName()+">")
			}
		}
	}
}

// hasFields reports whether a union branch of type n can hold record
// fields, so that only such branches add a "<T>" path segment.
func hasFields(n *node) bool {
	switch n.kind {
	case kRecord:
		return true
	case kArray, kMap:
		return hasFields(n.items)
	case kUnion:
		return slices.ContainsFunc(n.branches, hasFields)
	}
	return false
}

func fieldOf(rec *node, f *field, path string) compat.Field {
	out := compat.Field{
		Path:       path,
		Name:       f.name,
		FullName:   rec.full + "." + f.name,
		Type:       typeText(f.typ),
		Required:   f.def == nil,
		HasDefault: f.def != nil,
		Line:       f.line,
	}
	if f.doc != nil {
		out.Doc = *f.doc
	}
	for _, m := range f.props {
		switch m.key {
		case PropTags:
			out.Tags = appendTags(out.Tags, m.val)
			continue
		case PropDeprecated:
			out.Deprecated = deprecatedValue(m.val)
		}
		if m.val.kind == jString {
			if out.Props == nil {
				out.Props = map[string]string{}
			}
			out.Props[m.key] = m.val.s
		}
	}
	if len(out.Tags) > 1 {
		slices.Sort(out.Tags)
		out.Tags = slices.Compact(out.Tags)
	}
	return out
}

// appendTags adds the strings of a "confluent:tags" value.
func appendTags(tags []string, v *jval) []string {
	switch v.kind {
	case jString:
		if v.s != "" {
			tags = append(tags, v.s)
		}
	case jArray:
		for _, x := range v.arr {
			if x.kind == jString && x.s != "" {
				tags = append(tags, x.s)
			}
		}
	}
	return tags
}

// deprecatedValue reads a "deprecated" property: true or a reason.
func deprecatedValue(v *jval) bool {
	switch v.kind {
	case jBool:
		return v.b
	case jString:
		s := strings.TrimSpace(v.s)
		return s != "" && !strings.EqualFold(s, "false")
	}
	return false
}

// typeText spells a type in Avro IDL style (see Fields).
func typeText(n *node) string {
	switch n.kind {
	case kUnion:
		parts := make([]string, len(n.branches))
		for i, b := range n.branches {
			parts[i] = typeText(b)
		}
		return "union{" + strings.Join(parts, ",") + "}"
	case kArray:
		return "array<" + typeText(n.items) + ">"
	case kMap:
		return "map<" + typeText(n.items) + ">"
	}
	if n.kind.named() {
		return n.full
	}
	switch n.logical {
	case "":
		return n.kind.String()
	case "decimal":
		return "decimal(" + strconv.Itoa(n.precision) + "," + strconv.Itoa(n.scale) + ")"
	}
	return n.logical
}

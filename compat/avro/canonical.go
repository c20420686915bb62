package avro

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// canonicalText renders root as Java Avro's Schema.toString() does, which is
// the text Confluent stores and returns from GET /schemas/ids/{id}:
//
//   - compact JSON, keys in Java's order: record: type, name, namespace,
//     doc, fields, properties, aliases; field: name, type, doc, default,
//     order (unless ascending), aliases, properties; enum: type, name,
//     namespace, doc, symbols, default, properties, aliases; fixed: type,
//     name, namespace, doc, size, properties, aliases; array/map: type,
//     items/values, properties;
//   - "name" is the simple name; "namespace" is written only where it
//     differs from the enclosing one, so an inherited namespace and the
//     same one written out give equal text;
//   - a named type is defined at its first use and referred to by name
//     afterwards (the simple name inside its own namespace, else the full
//     name); types defined by references (known) are always referred to;
//   - properties (custom ones, logicalType, precision, scale) keep their
//     source order; numbers print as Jackson prints them (1.0, 1.0E20);
//     strings are UTF-8 with only quote, backslash and control characters
//     escaped.
func canonicalText(root *node, known map[*node]bool) string {
	c := canon{written: make(map[*node]bool, len(known))}
	for n := range known {
		c.written[n] = true
	}
	c.schema(root, "")
	return c.w.String()
}

type canon struct {
	w       writer
	written map[*node]bool
}

func (c *canon) schema(n *node, space string) {
	w := &c.w
	switch n.kind {
	case kUnion:
		w.WriteByte('[')
		for i, b := range n.branches {
			if i > 0 {
				w.WriteByte(',')
			}
			c.schema(b, space)
		}
		w.WriteByte(']')
		return
	case kArray, kMap:
		w.WriteString(`{"type":"`)
		w.WriteString(n.kind.String())
		if n.kind == kArray {
			w.WriteString(`","items":`)
		} else {
			w.WriteString(`","values":`)
		}
		c.schema(n.items, space)
		c.props(n.props)
		w.WriteByte('}')
		return
	case kRecord, kEnum, kFixed:
		c.named(n, space)
		return
	}
	// Primitive.
	if len(n.props) == 0 {
		w.quote(n.kind.String())
		return
	}
	w.WriteString(`{"type":`)
	w.quote(n.kind.String())
	c.props(n.props)
	w.WriteByte('}')
}

func (c *canon) named(n *node, space string) {
	w := &c.w
	if c.written[n] {
		if n.space == space {
			w.quote(n.name)
		} else {
			w.quote(n.full)
		}
		return
	}
	c.written[n] = true
	w.WriteString(`{"type":`)
	switch {
	case n.isError:
		w.WriteString(`"error"`)
	default:
		w.quote(n.kind.String())
	}
	w.WriteString(`,"name":`)
	w.quote(n.name)
	if n.space != space {
		w.WriteString(`,"namespace":`)
		w.quote(n.space)
	}
	if n.doc != nil {
		w.WriteString(`,"doc":`)
		w.quote(*n.doc)
	}
	switch n.kind {
	case kRecord:
		w.WriteString(`,"fields":[`)
		for i, f := range n.fields {
			if i > 0 {
				w.WriteByte(',')
			}
			c.field(f, n.space)
		}
		w.WriteByte(']')
	case kEnum:
		w.WriteString(`,"symbols":[`)
		for i, s := range n.symbols {
			if i > 0 {
				w.WriteByte(',')
			}
			w.quote(s)
		}
		w.WriteByte(']')
		if n.enumDefault != nil {
			w.WriteString(`,"default":`)
			w.quote(*n.enumDefault)
		}
	case kFixed:
		w.WriteString(`,"size":`)
		w.WriteString(strconv.Itoa(n.size))
	}
	c.props(n.props)
	if len(n.aliases) > 0 {
		w.WriteString(`,"aliases":[`)
		for i, a := range n.aliases {
			if i > 0 {
				w.WriteByte(',')
			}
			w.quote(relativeName(a, n.space))
		}
		w.WriteByte(']')
	}
	w.WriteByte('}')
}

// relativeName writes a full name relative to space: the simple name when
// it is in space, else the full name.
func relativeName(full, space string) string {
	if space != "" && len(full) > len(space)+1 && full[:len(space)] == space && full[len(space)] == '.' {
		if rest := full[len(space)+1:]; !strings.Contains(rest, ".") {
			return rest
		}
	}
	return full
}

func (c *canon) field(f *field, space string) {
	w := &c.w
	w.WriteString(`{"name":`)
	w.quote(f.name)
	w.WriteString(`,"type":`)
	c.schema(f.typ, space)
	if f.doc != nil {
		w.WriteString(`,"doc":`)
		w.quote(*f.doc)
	}
	if f.def != nil {
		w.WriteString(`,"default":`)
		w.value(f.def, false)
	}
	if f.order != "" && f.order != "ascending" {
		w.WriteString(`,"order":`)
		w.quote(f.order)
	}
	if len(f.aliases) > 0 {
		w.WriteString(`,"aliases":[`)
		for i, a := range f.aliases {
			if i > 0 {
				w.WriteByte(',')
			}
			w.quote(a)
		}
		w.WriteByte(']')
	}
	c.props(f.props)
	w.WriteByte('}')
}

func (c *canon) props(ps []member) {
	for _, m := range ps {
		c.w.WriteByte(',')
		c.w.quote(m.key)
		c.w.WriteByte(':')
		c.w.value(m.val, false)
	}
}

// normalizedText renders root for normalize=true: Canonical's content with
// the differences that cannot change meaning removed:
//
//   - every name is a full name and no "namespace" attribute is written
//     (except "namespace":"" for a null-namespace type inside a namespaced
//     one, where a simple name would otherwise be qualified);
//   - keys follow the Parsing Canonical Form order (name, type, fields,
//     symbols, items, values, size), then default, order, aliases, doc,
//     logicalType, precision, scale, then other properties sorted by key;
//   - aliases are full names, sorted; "order":"ascending" and a decimal's
//     "scale":0 (the defaults) are dropped; objects inside defaults and
//     property values have sorted keys;
//   - references stay references: a type defined by a schema reference is
//     written as its full name, not inlined, because the registry stores the
//     reference list beside the text and resolves it the same way.
func normalizedText(root *node, known map[*node]bool) string {
	c := norm{written: make(map[*node]bool, len(known))}
	for n := range known {
		c.written[n] = true
	}
	c.schema(root, "")
	return c.w.String()
}

type norm struct {
	w       writer
	written map[*node]bool
}

// logicalKeys are written right after the fixed attributes in Normalized.
var logicalKeys = []string{"logicalType", "precision", "scale"}

func (c *norm) schema(n *node, space string) {
	w := &c.w
	switch n.kind {
	case kUnion:
		w.WriteByte('[')
		for i, b := range n.branches {
			if i > 0 {
				w.WriteByte(',')
			}
			c.schema(b, space)
		}
		w.WriteByte(']')
		return
	case kArray, kMap:
		w.WriteString(`{"type":"`)
		w.WriteString(n.kind.String())
		if n.kind == kArray {
			w.WriteString(`","items":`)
		} else {
			w.WriteString(`","values":`)
		}
		c.schema(n.items, space)
		c.props(n)
		w.WriteByte('}')
		return
	case kRecord, kEnum, kFixed:
		c.named(n, space)
		return
	}
	if len(c.propsOf(n)) == 0 {
		w.quote(n.kind.String())
		return
	}
	w.WriteString(`{"type":`)
	w.quote(n.kind.String())
	c.props(n)
	w.WriteByte('}')
}

func (c *norm) named(n *node, space string) {
	w := &c.w
	if c.written[n] {
		w.quote(n.full)
		return
	}
	c.written[n] = true
	w.WriteString(`{"name":`)
	w.quote(n.full)
	if n.space == "" && space != "" {
		// A simple name would otherwise take the enclosing namespace.
		w.WriteString(`,"namespace":""`)
	}
	w.WriteString(`,"type":`)
	if n.isError {
		w.WriteString(`"error"`)
	} else {
		w.quote(n.kind.String())
	}
	switch n.kind {
	case kRecord:
		w.WriteString(`,"fields":[`)
		for i, f := range n.fields {
			if i > 0 {
				w.WriteByte(',')
			}
			c.field(f, n.space)
		}
		w.WriteByte(']')
	case kEnum:
		w.WriteString(`,"symbols":[`)
		for i, s := range n.symbols {
			if i > 0 {
				w.WriteByte(',')
			}
			w.quote(s)
		}
		w.WriteByte(']')
	case kFixed:
		w.WriteString(`,"size":`)
		w.WriteString(strconv.Itoa(n.size))
	}
	if n.enumDefault != nil {
		w.WriteString(`,"default":`)
		w.quote(*n.enumDefault)
	}
	c.aliases(n.aliases)
	if n.doc != nil {
		w.WriteString(`,"doc":`)
		w.quote(*n.doc)
	}
	c.props(n)
	w.WriteByte('}')
}

func (c *norm) field(f *field, space string) {
	w := &c.w
	w.WriteString(`{"name":`)
	w.quote(f.name)
	w.WriteString(`,"type":`)
	c.schema(f.typ, space)
	if f.def != nil {
		w.WriteString(`,"default":`)
		w.value(f.def, true)
	}
	if f.order != "" && f.order != "ascending" {
		w.WriteString(`,"order":`)
		w.quote(f.order)
	}
	c.aliases(f.aliases)
	if f.doc != nil {
		w.WriteString(`,"doc":`)
		w.quote(*f.doc)
	}
	c.sortedProps(f.props)
	w.WriteByte('}')
}

func (c *norm) aliases(as []string) {
	if len(as) == 0 {
		return
	}
	sorted := slices.Clone(as)
	sort.Strings(sorted)
	c.w.WriteString(`,"aliases":[`)
	for i, a := range sorted {
		if i > 0 {
			c.w.WriteByte(',')
		}
		c.w.quote(a)
	}
	c.w.WriteByte(']')
}

// propsOf returns n's properties without the ones Normalized drops: a
// decimal's "scale":0.
func (c *norm) propsOf(n *node) []member {
	if n.logical != "decimal" || n.scale != 0 {
		return n.props
	}
	out := make([]member, 0, len(n.props))
	for _, m := range n.props {
		if m.key != "scale" {
			out = append(out, m)
		}
	}
	return out
}

// props writes logicalType, precision and scale first, then the other
// properties sorted by key.
func (c *norm) props(n *node) {
	ps := c.propsOf(n)
	for _, k := range logicalKeys {
		for _, m := range ps {
			if m.key == k {
				c.member(m)
			}
		}
	}
	rest := make([]member, 0, len(ps))
	for _, m := range ps {
		if !slices.Contains(logicalKeys, m.key) {
			rest = append(rest, m)
		}
	}
	c.sortedProps(rest)
}

func (c *norm) sortedProps(ps []member) {
	if len(ps) > 1 {
		ps = slices.Clone(ps)
		sort.Slice(ps, func(i, j int) bool { return ps[i].key < ps[j].key })
	}
	for _, m := range ps {
		c.member(m)
	}
}

func (c *norm) member(m member) {
	c.w.WriteByte(',')
	c.w.quote(m.key)
	c.w.WriteByte(':')
	c.w.value(m.val, true)
}

package jsonschema

import (
	"slices"
	"strings"

	"github.com/charter-dev/charter/compat"
)

var _ compat.FieldLister = (*Schema)(nil)

// Keywords Fields reads for tags: Confluent's, and Apicurio's two.
var tagKeywords = []string{"confluent:tags", "x-tags", "x-confluent-tags"}

// notProps are string-valued keywords that are structure or data, not
// annotations, so Fields leaves them out of Props.
var notProps = map[string]bool{
	"$ref": true, "$id": true, "id": true, "$schema": true, "$anchor": true, "$dynamicRef": true,
	"$dynamicAnchor": true, "$recursiveRef": true, "type": true, "pattern": true, "description": true,
	"$comment": true, "const": true, "default": true, "enum": true,
}

// Fields lists the properties of the schema's objects, depth first in
// declaration order ([compat.FieldLister]).
//
//   - Path is dotted, as compat.Field asks: ".customer.address.city", "[]"
//     for array items (all items, tuple items and additional items alike)
//     and "{}" for additionalProperties values. (Violations use JSON
//     pointers instead: ".a.b" is "#/properties/a/properties/b".) A
//     property that allOf/anyOf/oneOf branches declare more than once is
//     listed once, from the first branch that declares it.
//   - FullName is "$" followed by the property names ("$.customer.ssn"),
//     as Confluent's rule executors name JSON fields.
//   - Type is the "type" keyword ("string", "integer", "string|null" for
//     a type array); without one, what the schema's keywords make it:
//     "object", "array", "enum", "const", or the types of the
//     oneOf/anyOf/allOf branches joined by "|". A $ref is followed.
//   - Required is true when the enclosing object lists the property in
//     "required"; HasDefault when the property has a "default".
//   - Doc is the "description", else the "title". Tags come from
//     "confluent:tags" and Apicurio's "x-tags" and "x-confluent-tags".
//     Deprecated is "deprecated": true, read in every draft. Props holds
//     every other string-valued keyword of the property schema (format,
//     title, contentEncoding, connect.type, x-… extensions).
//   - Line is the 1-based line of the property's name in the schema text
//     ("email": {…}), 0 for properties declared in a referenced schema.
//
// A schema already on the path (a recursive $ref) is listed as a field
// but not entered again. A definition that many paths reach (three uses
// of a definition that uses another three times, n levels deep, make 3^n
// paths) is listed at each path until definitions have been entered again
// maxFieldRepeats (10,000) times; after that it is entered only if no
// earlier path entered it, so every property is listed at least once and
// the list stays bounded.
func (s *Schema) Fields() []compat.Field {
	if s == nil || s.root == nil {
		return nil
	}
	l := &jsonLister{seen: map[string]bool{}, entered: map[*node]bool{}}
	l.walk(s.root, "", "$")
	return l.out
}

// maxFieldRepeats bounds how many times Fields enters a definition that
// an earlier path already entered.
const maxFieldRepeats = 10000

type jsonLister struct {
	out     []compat.Field
	seen    map[string]bool // paths listed
	stack   []*node         // schemas on the current path
	entered map[*node]bool  // schemas walked at some path
	repeats int             // times a schema was entered again at another path
}

// walk lists the properties inside n, whose own path and full name are
// path and full.
func (l *jsonLister) walk(n *node, path, full string) {
	n = deref(n)
	if n == nil || slices.Contains(l.stack, n) {
		return
	}
	if l.entered[n] {
		if l.repeats >= maxFieldRepeats {
			return
		}
		l.repeats++
	}
	l.entered[n] = true
	l.stack = append(l.stack, n)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	switch n.kind {
	case kObject:
		for _, p := range n.props {
			fp := path + "." + p.name
			ff := full + "." + p.name
			if !l.seen[fp] {
				l.seen[fp] = true
				f := jsonField(p.n, p.name, fp, ff, n.isRequired(p.name))
				f.Line = int(p.line)
				l.out = append(l.out, f)
			}
			l.walk(p.n, fp, ff)
		}
		if n.addlSchema != nil {
			l.walk(n.addlSchema, path+"{}", full)
		}
	case kArray:
		for _, it := range append(append([]*node{n.allItems}, n.tuple...), n.addlItemsSchema) {
			if it != nil {
				l.walk(it, path+"[]", full)
			}
		}
	case kCombined:
		for _, sub := range n.subs {
			l.walk(sub, path, full)
		}
	}
}

func jsonField(n *node, name, path, full string, required bool) compat.Field {
	f := compat.Field{
		Path:     path,
		Name:     name,
		FullName: full,
		Type:     typeText(n, 0),
		Required: required,
	}
	raw := n.raw
	if raw == nil || raw.kind != jObject {
		return f
	}
	f.HasDefault = raw.has("default")
	if d, ok := raw.str("description"); ok {
		f.Doc = d
	} else if t, ok := raw.str("title"); ok {
		f.Doc = t
	}
	if d := raw.get("deprecated"); d != nil && d.kind == jBool {
		f.Deprecated = d.b
	}
	for _, m := range raw.obj {
		switch {
		case slices.Contains(tagKeywords, m.key):
			f.Tags = appendTags(f.Tags, m.val)
		case m.val.kind == jString && !notProps[m.key]:
			if f.Props == nil {
				f.Props = map[string]string{}
			}
			f.Props[m.key] = m.val.s
		}
	}
	if len(f.Tags) > 1 {
		slices.Sort(f.Tags)
		f.Tags = slices.Compact(f.Tags)
	}
	return f
}

// appendTags adds the strings of a tags keyword: an array of strings, or
// one string.
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

// typeText spells a property's type (see Fields). depth bounds the walk
// through references and branches.
func typeText(n *node, depth int) string {
	if depth > 8 {
		return ""
	}
	if n != nil && n.kind == kRef {
		// A $ref object's own "type" is ignored before 2019-09; the
		// target's counts.
		return typeText(deref(n), depth+1)
	}
	if n == nil {
		return ""
	}
	if n.raw != nil && n.raw.kind == jObject {
		if t := n.raw.get("type"); t != nil {
			switch t.kind {
			case jString:
				return t.s
			case jArray:
				var ts []string
				for _, e := range t.arr {
					if e.kind == jString {
						ts = append(ts, e.s)
					}
				}
				return strings.Join(ts, "|")
			}
		}
	}
	switch n.kind {
	case kObject:
		return "object"
	case kArray:
		return "array"
	case kString:
		return "string"
	case kNumber:
		if n.integer {
			return "integer"
		}
		return "number"
	case kBoolean:
		return "boolean"
	case kNull:
		return "null"
	case kEnum:
		return "enum"
	case kConst:
		return "const"
	case kCombined:
		if n.key == "|parts" {
			// One schema object split into keyword families: a $ref
			// part gives the type, else the first part that has one.
			for _, s := range n.subs {
				if s.kind == kRef {
					return typeText(s, depth+1)
				}
			}
			for _, s := range n.subs {
				if t := typeText(s, depth+1); t != "" {
					return t
				}
			}
			return ""
		}
		var ts []string
		for _, s := range n.subs {
			for _, t := range strings.Split(typeText(s, depth+1), "|") {
				if t != "" && !slices.Contains(ts, t) {
					ts = append(ts, t)
				}
			}
		}
		return strings.Join(ts, "|")
	}
	return ""
}

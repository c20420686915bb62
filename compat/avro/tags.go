package avro

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charter-dev/charter/compat"
)

// tagsProp is the property in which Confluent keeps the tags of an Avro
// record or field.
const tagsProp = "confluent:tags"

var _ compat.Tagger = (*Schema)(nil)

// WithTags returns the schema with the tags of its records and fields
// changed (compat.Tagger): a record (SR_RECORD) is named by its full
// name, a field (SR_FIELD) by its record's full name, a dot and its
// name, and the tags are the element's "confluent:tags" property. For
// each element, in the order first named, the tags to add are added
// (without repeats), then those to remove removed, as Confluent's
// registration with schemaTagsToAdd and schemaTagsToRemove does; a
// property left empty is dropped. Only the types this schema's text
// defines are tagged (not those of its references); a path that names
// none of them is an error.
func (s *Schema) WithTags(add, remove []compat.SchemaTags, deps []compat.Dependency) (compat.Schema, error) {
	root, known, _, err := parseModel(s.canonical, deps)
	if err != nil {
		return nil, err
	}
	records := map[string]*node{}
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil || known[n] {
			return
		}
		if n.kind.named() {
			if _, seen := records[n.full]; seen {
				return
			}
			records[n.full] = n
		}
		for _, f := range n.fields {
			walk(f.typ)
		}
		walk(n.items)
		for _, b := range n.branches {
			walk(b)
		}
	}
	walk(root)
	type edit struct{ add, remove []string }
	edits := map[*[]member]*edit{}
	var order []*[]member
	for i, list := range [][]compat.SchemaTags{add, remove} {
		for _, t := range list {
			props, err := tagTarget(records, t)
			if err != nil {
				return nil, err
			}
			e := edits[props]
			if e == nil {
				e = &edit{}
				edits[props] = e
				order = append(order, props)
			}
			if i == 0 {
				e.add = append(e.add, t.Tags...)
			} else {
				e.remove = append(e.remove, t.Tags...)
			}
		}
	}
	for _, props := range order {
		retag(props, edits[props].add, edits[props].remove)
	}
	return Parse(canonicalText(root, known), deps)
}

// tagTarget returns the properties of the element t names.
func tagTarget(records map[string]*node, t compat.SchemaTags) (*[]member, error) {
	switch t.Kind {
	case "SR_RECORD":
		if n := records[t.Path]; n != nil && n.kind == kRecord {
			return &n.props, nil
		}
	case "SR_FIELD":
		if i := strings.LastIndexByte(t.Path, '.'); i > 0 {
			if n := records[t.Path[:i]]; n != nil && n.kind == kRecord {
				if j, ok := n.fieldIndex[t.Path[i+1:]]; ok {
					return &n.fields[j].props, nil
				}
			}
		}
	default:
		return nil, fmt.Errorf("schema tags: entity type %q of %q: want SR_RECORD or SR_FIELD", compat.Clip(t.Kind), compat.Clip(t.Path))
	}
	return nil, fmt.Errorf("schema tags: %s %q names no record or field of the schema", t.Kind, compat.Clip(t.Path))
}

// retag sets the tags property of props to its tags plus add minus
// remove, in place; an empty list removes the property.
func retag(props *[]member, add, remove []string) {
	at := slices.IndexFunc(*props, func(m member) bool { return m.key == tagsProp })
	var tags []string
	if at >= 0 {
		if v := (*props)[at].val; v != nil && v.kind == jArray {
			for _, x := range v.arr {
				if x != nil && x.kind == jString {
					tags = append(tags, x.s)
				}
			}
		}
	}
	for _, t := range add {
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	tags = slices.DeleteFunc(tags, func(t string) bool { return slices.Contains(remove, t) })
	if len(tags) == 0 {
		if at >= 0 {
			*props = slices.Delete(*props, at, at+1)
		}
		return
	}
	v := &jval{kind: jArray}
	for _, t := range tags {
		v.arr = append(v.arr, &jval{kind: jString, s: t})
	}
	if at >= 0 {
		(*props)[at].val = v
		return
	}
	*props = append(*props, member{key: tagsProp, val: v})
}

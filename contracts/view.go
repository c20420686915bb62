package contracts

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/avro"
	"github.com/charter-dev/charter/compat/jsonschema"
	"github.com/charter-dev/charter/compat/protobuf"
)

// kinds is a set of JSON value kinds a schema position may hold, as the
// consumer sees the message (Avro's JSON form, Protobuf's JSON mapping,
// JSON itself). kInt is an integral number; kNumber a number that may have
// decimal places.
type kinds uint8

const (
	kNull kinds = 1 << iota
	kBool
	kInt
	kNumber
	kString
	kObject
	kArray

	kAny = kNull | kBool | kInt | kNumber | kString | kObject | kArray
)

var kindNames = []struct {
	k    kinds
	name string
}{{kNull, "null"}, {kBool, "boolean"}, {kInt, "integer"}, {kNumber, "decimal"}, {kString, "string"}, {kObject, "object"}, {kArray, "array"}}

func (k kinds) String() string {
	if k == kAny {
		return "any"
	}
	var parts []string
	for _, n := range kindNames {
		if k&n.k != 0 {
			parts = append(parts, n.name)
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, "|")
}

// kindOf is the kind of an example value.
func kindOf(v any) kinds {
	switch t := v.(type) {
	case nil:
		return kNull
	case bool:
		return kBool
	case json.Number:
		if isIntegerText(t) {
			return kInt
		}
		return kNumber
	case float64:
		if t == float64(int64(t)) {
			return kInt
		}
		return kNumber
	case string:
		return kString
	case map[string]any:
		return kObject
	case []any:
		return kArray
	}
	return 0
}

// node is one schema position in the format-neutral shape verification
// walks: which kinds of value it holds, its fields (records, messages,
// objects), its items (arrays), its values (maps) and its enum values.
// Nodes of recursive types are shared, so a node never stores its path.
type node struct {
	kinds kinds
	// alt is another form the same values take in JSON (Protobuf's JSON
	// mapping reads 64-bit integers and floats from strings, enums from
	// numbers; Avro's JSON encoding writes decimals as byte strings); an
	// example of an alt kind is checked against alt.
	alt kinds
	// typ is the type as the format spells it, for messages.
	typ string
	// fields, by the names a JSON document uses for them (Protobuf: JSON
	// name and field name).
	fields map[string]*field
	// open is true when properties not in fields are allowed (JSON
	// Schema without additionalProperties: false; Struct; Any).
	open bool
	// items is the array item node, values the map value node.
	items, values *node
	// enum holds the allowed values as canonical JSON text; nil when the
	// position is not an enumeration.
	enum []string
	// union lists the branches of an Avro union or a JSON Schema
	// anyOf/oneOf; all the parts of an allOf. Their fields, items and enum
	// values are looked up lazily, so recursive types need no copying.
	union, all []*node
	// pathBase, when set, is the path the node's fields hang from
	// instead of the path that led to it: compat/protobuf lists the
	// fields of a message of the schema's own file under the message's
	// name (".Parcel.barcode"), however it is reached.
	pathBase string
	// flat is true when array items and map values add no path segment
	// (Protobuf repeated and map fields); otherwise "[]" and "{}".
	flat bool
	// branches names an Avro union's branches as its JSON encoding does
	// ({"string": "x"}, {"com.acme.Address": {…}}).
	branches map[string]*node
	// required names the properties a JSON Schema object requires, which
	// may be declared in another allOf part than the properties.
	required map[string]bool
}

// field is a named member of a node.
type field struct {
	// name is the field's schema name (the path element).
	name string
	node *node
	// present is true when data always carries the field (every Avro
	// record field; every Protobuf field, read as its default when
	// unset; JSON Schema properties listed in "required").
	present bool
	// deprecated is true when the schema marks the field deprecated.
	deprecated bool
}

// view is a schema prepared for verification.
type view struct {
	schema compat.Schema
	root   *node
	// fields are compat.Fields(schema) by path, when the format lists
	// them (tags and deprecation marks).
	fields map[string]compat.Field
	// decode checks that an example message decodes with the schema's
	// semantics and returns why not; nil when the format has no decoder.
	decode func(example any) []decodeProblem
}

// newView builds the verification view of a parsed schema. refs are the
// schema's resolved references (JSON Schema needs them to validate).
// message selects the Protobuf message ("pkg.Order"); "" means the
// file's first message, as Confluent's wire format defaults to.
func newView(s compat.Schema, refs []compat.Dependency, message string) (*view, error) {
	v := &view{schema: s, fields: map[string]compat.Field{}}
	for _, f := range compat.Fields(s) {
		v.fields[f.Path] = f
	}
	var err error
	switch t := s.(type) {
	case *avro.Schema:
		err = v.buildAvro(t)
	case *protobuf.Schema:
		err = v.buildProtobuf(t, message)
	case *jsonschema.Schema:
		err = v.buildJSONSchema(t, refs)
	default:
		return nil, fmt.Errorf("contracts: schema type %s is not supported", s.Type())
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// enumText renders an enum value as canonical JSON for comparison.
func enumText(v any) string {
	switch t := v.(type) {
	case string:
		b, _ := json.Marshal(t)
		return string(b)
	case json.Number:
		return t.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// unwrap returns the value inside an Avro JSON-encoded union value
// ({"<branch>": value}) and the wrapper's key, ok false when v is not one.
func (n *node) unwrap(v any) (inner any, key string, ok bool) {
	if n.branches == nil {
		return v, "", false
	}
	m, isMap := v.(map[string]any)
	if !isMap || len(m) != 1 {
		return v, "", false
	}
	for k, iv := range m {
		if _, ok := n.branches[k]; ok {
			return iv, k, true
		}
	}
	return v, "", false
}

// childPath is the path of field name of the object node n reached at path.
func (n *node) childPath(path, name string) string {
	if n.pathBase != "" {
		return n.pathBase + "." + name
	}
	return path + "." + name
}

// itemPath and valuePath extend path to a list item or map value of n.
func (n *node) itemPath(path string) string {
	if n.flat {
		return path
	}
	return path + "[]"
}

func (n *node) valuePath(path string) string {
	if n.flat {
		return path
	}
	return path + "{}"
}

// pick chooses the Avro union branch an example value takes and the path
// segment compat/avro adds for it ("<com.acme.Address>" for a branch that
// holds record fields); ok false when n is not an Avro union or no branch
// has v's kind.
func (n *node) pick(v any) (b *node, seg string, ok bool) {
	if n.branches == nil {
		return nil, "", false
	}
	vk := kindOf(v)
	var best *node
	for _, c := range n.union {
		if c.kinds&vk == 0 && !(vk == kInt && c.kinds&kNumber != 0) {
			continue
		}
		if best == nil {
			best = c
		}
		if obj, isObj := v.(map[string]any); isObj && c.fields != nil {
			all := true
			for k := range obj {
				if c.fields[k] == nil {
					all = false
					break
				}
			}
			if all {
				best = c
				break
			}
		}
	}
	if best == nil {
		return nil, "", false
	}
	if avroHasFields(best) {
		seg = "<" + best.typ + ">"
	}
	return best, seg, true
}

// avroHasFields mirrors compat/avro: a branch holds record fields when it
// is a record, or an array, map or union of something that does.
func avroHasFields(n *node) bool {
	return avroHasFieldsD(n, 0)
}

func avroHasFieldsD(n *node, d int) bool {
	if d > maxDepth {
		return false
	}
	switch {
	case n.fields != nil:
		return true
	case n.items != nil:
		return avroHasFieldsD(n.items, d+1)
	case n.values != nil:
		return avroHasFieldsD(n.values, d+1)
	}
	for _, b := range n.union {
		if avroHasFieldsD(b, d+1) {
			return true
		}
	}
	return false
}

// resolve finds the field at a schema path (".a.b", "[]" items, "{}" map
// values) and whether data always carries it; nil when the schema has no
// such field.
func (v *view) resolve(path string) (f *field, present bool) {
	n := v.root
	for path != "" {
		switch {
		case strings.HasPrefix(path, "[]"):
			c := n.itemNode()
			if c == nil {
				return nil, false
			}
			f, present, n, path = &field{name: "[]", node: c}, true, c, path[2:]
		case strings.HasPrefix(path, "{}"):
			c := n.valueNode()
			if c == nil {
				return nil, false
			}
			f, present, n, path = &field{name: "{}", node: c}, true, c, path[2:]
		case path[0] == '.':
			rest := path[1:]
			end := strings.IndexAny(rest, ".[{")
			if end < 0 {
				end = len(rest)
			}
			name := rest[:end]
			c := n.lookup(name)
			if c == nil {
				return nil, false
			}
			f, present, n, path = c, c.present || n.requires(name), c.node, rest[end:]
		default:
			return nil, false
		}
	}
	return f, present
}

// maxDepth bounds the walks through union branches and allOf parts, which a
// schema may make cyclic ({"$ref": "#"}).
const maxDepth = 64

// requires reports whether the object requires property name, in itself
// or in any allOf part (every part applies).
func (n *node) requires(name string) bool { return n.requiresD(name, 0) }

func (n *node) requiresD(name string, d int) bool {
	if n.required[name] {
		return true
	}
	if d > maxDepth {
		return false
	}
	for _, b := range n.all {
		if b.requiresD(name, d+1) {
			return true
		}
	}
	return false
}

// lookup finds the field a JSON property name denotes, through union
// branches and allOf parts (first match).
func (n *node) lookup(name string) *field { return n.lookupD(name, 0) }

func (n *node) lookupD(name string, d int) *field {
	if f, ok := n.fields[name]; ok {
		return f
	}
	if d > maxDepth {
		return nil
	}
	for _, bs := range [][]*node{n.union, n.all} {
		for _, b := range bs {
			if f := b.lookupD(name, d+1); f != nil {
				return f
			}
		}
	}
	return nil
}

// isOpen reports whether properties not declared are allowed.
func (n *node) isOpen() bool { return n.isOpenD(0) }

func (n *node) isOpenD(d int) bool {
	if d > maxDepth {
		return true
	}
	if len(n.all) > 0 {
		if !n.open {
			return false
		}
		for _, b := range n.all {
			if b.kinds&kObject != 0 && !b.isOpenD(d+1) {
				return false
			}
		}
		return true
	}
	if n.open {
		return true
	}
	for _, b := range n.union {
		if b.kinds&kObject != 0 && b.isOpenD(d+1) {
			return true
		}
	}
	return false
}

// itemNode is the node of an array's items, valueNode of a map's values.
func (n *node) itemNode() *node  { return n.find(func(b *node) *node { return b.items }, 0) }
func (n *node) valueNode() *node { return n.find(func(b *node) *node { return b.values }, 0) }

func (n *node) find(get func(*node) *node, d int) *node {
	if c := get(n); c != nil {
		return c
	}
	if d > maxDepth {
		return nil
	}
	for _, bs := range [][]*node{n.union, n.all} {
		for _, b := range bs {
			if c := b.find(get, d+1); c != nil {
				return c
			}
		}
	}
	return nil
}

// enumValues returns the values a position allows when it is an
// enumeration, as canonical JSON text; ok is false when it is not (or
// when a union branch of the same kinds is not).
func (n *node) enumValues() (vals []string, ok bool) { return n.enumD(0) }

func (n *node) enumD(d int) (vals []string, ok bool) {
	if n.enum != nil {
		return n.enum, true
	}
	if d > maxDepth || len(n.union) == 0 && len(n.all) == 0 {
		return nil, false
	}
	for _, b := range n.all {
		// allOf: the narrowest enumeration among the parts wins.
		if ev, ok := b.enumD(d + 1); ok {
			return ev, true
		}
	}
	set := map[string]bool{}
	for _, b := range n.union {
		if b.kinds&^kNull == 0 {
			continue
		}
		ev, ok := b.enumD(d + 1)
		if !ok {
			return nil, false
		}
		for _, e := range ev {
			set[e] = true
		}
	}
	if len(set) == 0 {
		return nil, false
	}
	for e := range set {
		vals = append(vals, e)
	}
	sort.Strings(vals)
	return vals, true
}

// typeName is the node's type for messages.
func (n *node) typeName() string {
	if n.typ != "" {
		return n.typ
	}
	var parts []string
	for _, b := range n.union {
		if b.typ != "" {
			parts = append(parts, b.typ)
		} else {
			parts = append(parts, b.kinds.String())
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, "|")
	}
	return n.kinds.String()
}

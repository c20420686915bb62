package avro

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// kind is the Avro type of a node.
type kind uint8

const (
	kNull kind = iota
	kBoolean
	kInt
	kLong
	kFloat
	kDouble
	kBytes
	kString
	kRecord
	kEnum
	kFixed
	kArray
	kMap
	kUnion
)

var kindNames = [...]string{
	kNull: "null", kBoolean: "boolean", kInt: "int", kLong: "long", kFloat: "float", kDouble: "double",
	kBytes: "bytes", kString: "string", kRecord: "record", kEnum: "enum", kFixed: "fixed",
	kArray: "array", kMap: "map", kUnion: "union",
}

func (k kind) String() string { return kindNames[k] }

func (k kind) named() bool { return k == kRecord || k == kEnum || k == kFixed }

var primitiveKinds = map[string]kind{
	"null": kNull, "boolean": kBoolean, "int": kInt, "long": kLong, "float": kFloat, "double": kDouble,
	"bytes": kBytes, "string": kString,
}

// maxFixedSize bounds a fixed's size: hamba/avro allocates a value of that
// size for every default, so an absurd size would let one schema exhaust
// memory. 16 MiB is far above any real fixed.
const maxFixedSize = 1 << 24

// node is one schema in the resolved schema graph. A named type is one node
// however many times it is referenced, so recursion is a cycle of pointers.
type node struct {
	kind    kind
	isError bool // a record declared with "type":"error"

	// Named types.
	name, space, full string
	aliases           []string // full names
	doc               *string

	// Records.
	fields     []*field
	fieldIndex map[string]int // field name → index in fields

	// Enums.
	symbols     []string
	symbolIndex map[string]int // position of each symbol in symbols
	enumDefault *string

	// Fixed.
	size int

	// Arrays (items) and maps (values).
	items *node

	// Unions.
	branches []*node
	// byType and byName find the branches of a union with more than
	// smallObject branches (see selectBranch): by type name, and by
	// simple name and alias for named branches, in branch order.
	byType map[string]int
	byName map[string][]int

	// Logical type when valid for the underlying type (spec: an invalid
	// logical type is ignored), else "".
	logical          string
	precision, scale int

	// Properties outside the reserved attributes, in source order: custom
	// properties and logicalType/precision/scale.
	props []member
}

// typeName is how paths and messages name a schema: the full name of a
// named type, otherwise the Avro type name.
func (n *node) typeName() string {
	if n.kind.named() {
		return n.full
	}
	return n.kind.String()
}

// field is one record field.
type field struct {
	name    string
	aliases []string
	doc     *string
	typ     *node
	def     *jval // nil: no default
	order   string
	props   []member
	line    int // 1-based line of the field's "name" in the schema text; 0 for fields of referenced schemas
}

// Reserved attributes (Java Avro's Schema.SCHEMA_RESERVED and
// FIELD_RESERVED): everything else on a schema or field is a property.
var (
	schemaReserved = map[string]bool{
		"doc": true, "fields": true, "items": true, "name": true, "namespace": true, "size": true,
		"symbols": true, "values": true, "type": true, "aliases": true,
	}
	fieldReserved = map[string]bool{
		"default": true, "doc": true, "name": true, "order": true, "type": true, "aliases": true,
	}
)

// builder turns JSON into a node graph, resolving names as the
// specification's "Names" section says.
type builder struct {
	named   map[string]*node
	defined []*node // named types in definition order
	// withDefaults collects fields with a default; their defaults are
	// checked once the whole schema is built.
	withDefaults []*field
}

func newBuilder() *builder {
	return &builder{named: map[string]*node{}}
}

// buildTop builds a whole schema text and checks its field defaults.
func (b *builder) buildTop(v *jval) (*node, error) {
	b.withDefaults = b.withDefaults[:0]
	n, err := b.build(v, "")
	if err != nil {
		return nil, err
	}
	work := 0
	for _, f := range b.withDefaults {
		if !validDefault(f.typ, f.def, &work) {
			return nil, fmt.Errorf("field %q: default %s is not a valid %s", f.name, clip(f.def), describeDefaultType(f.typ))
		}
		if work > maxDefaultWork {
			return nil, fmt.Errorf("field %q: the enum values in the schema's defaults take more than %d symbol comparisons to validate "+
				"(the Avro library looks each value up among its enum's symbols one by one); shorten the defaults or the enums",
				f.name, maxDefaultWork)
		}
	}
	return n, nil
}

// maxDefaultWork bounds the symbol comparisons that hamba/avro makes to
// validate the enum values in a schema's field defaults: it looks each one
// up by scanning its enum's symbols, so an array default of 40,000 values
// of a 40,000-symbol enum (700 KB) would cost seconds of CPU. Real
// defaults cost a few thousand.
const maxDefaultWork = 10_000_000

func (b *builder) build(v *jval, space string) (*node, error) {
	switch v.kind {
	case jString:
		return b.reference(v.s, space)
	case jArray:
		return b.union(v, space)
	case jObject:
		return b.object(v, space)
	default:
		return nil, errors.New("a schema must be a JSON string, object or array")
	}
}

func (b *builder) reference(name, space string) (*node, error) {
	if k, ok := primitiveKinds[name]; ok {
		return &node{kind: k}, nil
	}
	if n := b.lookup(name, space); n != nil {
		return n, nil
	}
	return nil, fmt.Errorf("unknown type %q", name)
}

// lookup finds a named type: a dotted name is a full name, a simple name
// is looked up in the enclosing namespace and then, as Java Avro does, in
// the null namespace.
func (b *builder) lookup(name, space string) *node {
	if strings.Contains(name, ".") || space == "" {
		return b.named[name]
	}
	if n := b.named[space+"."+name]; n != nil {
		return n
	}
	return b.named[name]
}

func (b *builder) union(v *jval, space string) (*node, error) {
	n := &node{kind: kUnion, branches: make([]*node, 0, len(v.arr))}
	seen := make(map[string]bool, len(v.arr))
	for i, x := range v.arr {
		br, err := b.build(x, space)
		if err != nil {
			return nil, fmt.Errorf("union branch %d: %w", i, err)
		}
		if br.kind == kUnion {
			return nil, fmt.Errorf("union branch %d: a union may not immediately contain another union", i)
		}
		key := br.typeName()
		if seen[key] {
			return nil, fmt.Errorf("union contains %s more than once", key)
		}
		seen[key] = true
		n.branches = append(n.branches, br)
	}
	if len(n.branches) > smallObject {
		n.byType = make(map[string]int, len(n.branches))
		n.byName = make(map[string][]int, len(n.branches))
		for i, br := range n.branches {
			n.byType[br.typeName()] = i
			if br.kind.named() {
				n.byName[br.name] = append(n.byName[br.name], i)
				for _, a := range br.aliases {
					n.byName[a] = append(n.byName[a], i)
				}
			}
		}
	}
	return n, nil
}

func (b *builder) object(v *jval, space string) (*node, error) {
	t := v.get("type")
	if t == nil {
		return nil, errors.New(`schema object has no "type"`)
	}
	switch t.kind {
	case jArray:
		// {"type": [...]}: not in the specification, accepted by hamba/avro
		// and read as the union.
		return b.union(t, space)
	case jString:
	default:
		return nil, errors.New(`"type" must be a string`)
	}
	switch t.s {
	case "record", "error":
		return b.record(v, space, t.s == "error")
	case "enum":
		return b.enum(v, space)
	case "fixed":
		return b.fixed(v, space)
	case "array", "map":
		key := "items"
		if t.s == "map" {
			key = "values"
		}
		x := v.get(key)
		if x == nil {
			return nil, fmt.Errorf("%s has no %q", t.s, key)
		}
		inner, err := b.build(x, space)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", t.s, key, err)
		}
		n := &node{kind: kArray, items: inner, props: props(v, schemaReserved)}
		if t.s == "map" {
			n.kind = kMap
		}
		return n, nil
	}
	if k, ok := primitiveKinds[t.s]; ok {
		n := &node{kind: k, props: props(v, schemaReserved)}
		n.setLogical(v)
		return n, nil
	}
	// {"type": "some.Name"}: a reference to a named type.
	return b.reference(t.s, space)
}

// props returns the members of v whose keys are not reserved.
func props(v *jval, reserved map[string]bool) []member {
	var out []member
	for _, m := range v.obj {
		if !reserved[m.key] {
			out = append(out, m)
		}
	}
	return out
}

// define reads the name, namespace, aliases and doc of a named type and
// registers it, so that its own fields may refer to it.
func (b *builder) define(v *jval, k kind, space string) (*node, error) {
	name, ok := v.str("name")
	if !ok || name == "" {
		return nil, fmt.Errorf(`%s has no "name"`, k)
	}
	ns := space
	if x := v.get("namespace"); x != nil && x.kind != jNull {
		if x.kind != jString {
			return nil, fmt.Errorf("%s %q: namespace must be a string", k, name)
		}
		ns = x.s
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		ns, name = name[:i], name[i+1:]
	}
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("%s name: %w", k, err)
	}
	if ns != "" {
		if err := checkFullName(ns); err != nil {
			return nil, fmt.Errorf("%s %q namespace: %w", k, name, err)
		}
	}
	full := name
	if ns != "" {
		full = ns + "." + name
	}
	if _, prim := primitiveKinds[full]; prim {
		return nil, fmt.Errorf("%s may not redefine the primitive type %q", k, full)
	}
	if _, dup := b.named[full]; dup {
		return nil, fmt.Errorf("type %q is defined twice", full)
	}
	n := &node{kind: k, name: name, space: ns, full: full}
	if x := v.get("aliases"); x != nil && x.kind != jNull {
		if x.kind != jArray {
			return nil, fmt.Errorf("%s %q: aliases must be an array of strings", k, full)
		}
		seen := stringSet{}
		for _, a := range x.arr {
			if a.kind != jString {
				return nil, fmt.Errorf("%s %q: aliases must be an array of strings", k, full)
			}
			if err := checkFullName(a.s); err != nil {
				return nil, fmt.Errorf("%s %q alias: %w", k, full, err)
			}
			alias := a.s
			if !strings.Contains(alias, ".") && ns != "" {
				alias = ns + "." + alias
			}
			n.aliases = seen.add(n.aliases, alias)
		}
	}
	if doc, err := docOf(v); err != nil {
		return nil, fmt.Errorf("%s %q: %w", k, full, err)
	} else {
		n.doc = doc
	}
	b.named[full] = n
	b.defined = append(b.defined, n)
	return n, nil
}

func docOf(v *jval) (*string, error) {
	x := v.get("doc")
	if x == nil || x.kind == jNull {
		return nil, nil
	}
	if x.kind != jString {
		return nil, errors.New("doc must be a string")
	}
	s := x.s
	return &s, nil
}

// stringSet collects strings without duplicates, in constant time per
// string (a schema may list tens of thousands of aliases).
type stringSet map[string]bool

// add appends s to list unless the set has it already.
func (set stringSet) add(list []string, s string) []string {
	if set[s] {
		return list
	}
	set[s] = true
	return append(list, s)
}

func (b *builder) record(v *jval, space string, isError bool) (*node, error) {
	n, err := b.define(v, kRecord, space)
	if err != nil {
		return nil, err
	}
	n.isError = isError
	n.props = props(v, schemaReserved)
	fs := v.get("fields")
	if fs == nil || fs.kind != jArray {
		return nil, fmt.Errorf("record %q must have an array of fields", n.full)
	}
	n.fields = make([]*field, 0, len(fs.arr))
	n.fieldIndex = make(map[string]int, len(fs.arr))
	for i, fv := range fs.arr {
		f, err := b.field(fv, n.space)
		if err != nil {
			return nil, fmt.Errorf("record %q field %d: %w", n.full, i, err)
		}
		if _, dup := n.fieldIndex[f.name]; dup {
			return nil, fmt.Errorf("record %q has two fields named %q", n.full, f.name)
		}
		n.fieldIndex[f.name] = len(n.fields)
		n.fields = append(n.fields, f)
	}
	return n, nil
}

func (b *builder) field(v *jval, space string) (*field, error) {
	if v.kind != jObject {
		return nil, errors.New("a field must be a JSON object")
	}
	name, ok := v.str("name")
	if !ok {
		return nil, errors.New(`field has no "name"`)
	}
	if err := checkName(name); err != nil {
		return nil, fmt.Errorf("field name: %w", err)
	}
	t := v.get("type")
	if t == nil {
		return nil, fmt.Errorf("field %q has no type", name)
	}
	typ, err := b.build(t, space)
	if err != nil {
		return nil, fmt.Errorf("field %q: %w", name, err)
	}
	f := &field{name: name, typ: typ, def: v.get("default"), props: props(v, fieldReserved), line: int(v.get("name").line)}
	if x := v.get("order"); x != nil && x.kind != jNull {
		switch s, _ := v.str("order"); s {
		case "ascending", "descending", "ignore":
			f.order = s
		default:
			return nil, fmt.Errorf(`field %q: order must be "ascending", "descending" or "ignore"`, name)
		}
	}
	if x := v.get("aliases"); x != nil && x.kind != jNull {
		if x.kind != jArray {
			return nil, fmt.Errorf("field %q: aliases must be an array of strings", name)
		}
		seen := stringSet{}
		for _, a := range x.arr {
			if a.kind != jString {
				return nil, fmt.Errorf("field %q: aliases must be an array of strings", name)
			}
			if err := checkName(a.s); err != nil {
				return nil, fmt.Errorf("field %q alias: %w", name, err)
			}
			f.aliases = seen.add(f.aliases, a.s)
		}
	}
	if f.doc, err = docOf(v); err != nil {
		return nil, fmt.Errorf("field %q: %w", name, err)
	}
	if f.def != nil {
		b.withDefaults = append(b.withDefaults, f)
	}
	return f, nil
}

func (b *builder) enum(v *jval, space string) (*node, error) {
	n, err := b.define(v, kEnum, space)
	if err != nil {
		return nil, err
	}
	n.props = props(v, enumReserved)
	syms := v.get("symbols")
	if syms == nil || syms.kind != jArray {
		return nil, fmt.Errorf("enum %q must have an array of symbols", n.full)
	}
	seen := make(map[string]int, len(syms.arr))
	for _, s := range syms.arr {
		if s.kind != jString {
			return nil, fmt.Errorf("enum %q: symbols must be strings", n.full)
		}
		if err := checkName(s.s); err != nil {
			return nil, fmt.Errorf("enum %q symbol: %w", n.full, err)
		}
		if _, dup := seen[s.s]; dup {
			return nil, fmt.Errorf("enum %q has symbol %q twice", n.full, s.s)
		}
		seen[s.s] = len(n.symbols)
		n.symbols = append(n.symbols, s.s)
	}
	n.symbolIndex = seen
	if d := v.get("default"); d != nil && d.kind != jNull {
		if _, ok := seen[d.s]; d.kind != jString || !ok {
			return nil, fmt.Errorf("enum %q: default must be one of its symbols", n.full)
		}
		s := d.s
		n.enumDefault = &s
	}
	return n, nil
}

var enumReserved = func() map[string]bool {
	m := map[string]bool{"default": true}
	for k := range schemaReserved {
		m[k] = true
	}
	return m
}()

func (b *builder) fixed(v *jval, space string) (*node, error) {
	n, err := b.define(v, kFixed, space)
	if err != nil {
		return nil, err
	}
	n.props = props(v, schemaReserved)
	size, ok := v.get("size").intValue()
	if !ok || size < 0 {
		return nil, fmt.Errorf("fixed %q must have a non-negative integer size", n.full)
	}
	if size > maxFixedSize {
		return nil, fmt.Errorf("fixed %q: size %d is larger than %d", n.full, size, maxFixedSize)
	}
	n.size = int(size)
	n.setLogical(v)
	return n, nil
}

// setLogical records v's logicalType when it is valid for n's type
// (specification, "Logical Types", Avro 1.12); an unknown or invalid one is
// ignored, as the specification requires.
func (n *node) setLogical(v *jval) {
	lt, ok := v.str("logicalType")
	if !ok {
		return
	}
	switch {
	case n.kind == kInt && (lt == "date" || lt == "time-millis"):
	case n.kind == kLong && (lt == "time-micros" || lt == "timestamp-millis" || lt == "timestamp-micros" ||
		lt == "timestamp-nanos" || lt == "local-timestamp-millis" || lt == "local-timestamp-micros" ||
		lt == "local-timestamp-nanos"):
	case n.kind == kString && lt == "uuid":
	case n.kind == kFixed && lt == "uuid" && n.size == 16:
	case n.kind == kFixed && lt == "duration" && n.size == 12:
	case n.kind == kBytes && lt == "big-decimal":
	case (n.kind == kBytes || n.kind == kFixed) && lt == "decimal":
		prec, ok := v.get("precision").intValue()
		if !ok || prec <= 0 {
			return
		}
		var scale int64
		if s := v.get("scale"); s != nil {
			if scale, ok = s.intValue(); !ok {
				return
			}
		}
		if scale < 0 || scale > prec {
			return
		}
		if n.kind == kFixed && float64(prec) > math.Floor(float64(8*n.size-1)*math.Log10(2)) {
			return
		}
		n.precision, n.scale = int(prec), int(scale)
	default:
		return
	}
	n.logical = lt
}

// checkName checks a simple name against [A-Za-z_][A-Za-z0-9_]*.
func checkName(s string) error {
	if s == "" {
		return errors.New("empty name")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return fmt.Errorf("invalid name %q: names start with [A-Za-z_] and contain only [A-Za-z0-9_]", s)
	}
	return nil
}

// checkFullName checks a dotted name part by part.
func checkFullName(s string) error {
	for part := range strings.SplitSeq(s, ".") {
		if err := checkName(part); err != nil {
			if part == "" {
				return fmt.Errorf("invalid name %q: empty part", s)
			}
			return err
		}
	}
	return nil
}

// validDefault checks a field default against its type as the
// specification's table of field default values says: numbers for numeric
// types (integers without fraction and in range for int and long), strings
// for bytes, string, fixed and enum (an enum default must be a symbol),
// objects for records and maps, arrays for arrays, and for a union a value
// of its first branch. A record default may leave out fields that have
// their own default.
//
// work counts the symbol comparisons hamba/avro makes for the enum values
// (the symbol's position + 1), so that the caller can bound them.
func validDefault(t *node, v *jval, work *int) bool {
	switch t.kind {
	case kNull:
		return v.kind == jNull
	case kBoolean:
		return v.kind == jBool
	case kInt, kLong:
		if v.kind != jNumber || !isInteger(v.s) {
			return false
		}
		n, ok := v.intValue()
		if !ok {
			return false
		}
		return t.kind == kLong || (n >= math.MinInt32 && n <= math.MaxInt32)
	case kFloat, kDouble:
		return v.kind == jNumber
	case kBytes, kString, kFixed:
		return v.kind == jString
	case kEnum:
		if v.kind != jString {
			return false
		}
		i, ok := t.symbolIndex[v.s]
		if ok {
			*work += i + 1
		} else {
			*work += len(t.symbols)
		}
		return ok
	case kArray:
		if v.kind != jArray {
			return false
		}
		for _, x := range v.arr {
			if !validDefault(t.items, x, work) {
				return false
			}
		}
		return true
	case kMap:
		if v.kind != jObject {
			return false
		}
		for _, m := range v.obj {
			if !validDefault(t.items, m.val, work) {
				return false
			}
		}
		return true
	case kUnion:
		return len(t.branches) > 0 && validDefault(t.branches[0], v, work)
	case kRecord:
		if v.kind != jObject {
			return false
		}
		for _, f := range t.fields {
			x := v.get(f.name)
			if x == nil {
				if f.def == nil {
					return false
				}
				continue
			}
			if !validDefault(f.typ, x, work) {
				return false
			}
		}
		return true
	}
	return false
}

func describeDefaultType(t *node) string {
	if t.kind == kUnion && len(t.branches) > 0 {
		return "value of the union's first branch (" + t.branches[0].typeName() + ")"
	}
	return t.typeName()
}

// clip renders a JSON value for an error message, shortened.
func clip(v *jval) string {
	var w writer
	w.value(v, false)
	s := []rune(w.String())
	if len(s) > 40 {
		return string(s[:37]) + "..."
	}
	return string(s)
}

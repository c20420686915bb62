package protobuf

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/bufbuild/protocompile/protoutil"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/charter-dev/charter/compat"
)

// checker walks a reader file and a writer file and collects the
// violations of the rules in its set.
type checker struct {
	rules   ruleSet
	r, w    protoreflect.FileDescriptor
	out     []compat.Violation
	visited map[[2]protoreflect.FullName]bool
}

func checkRead(rules ruleSet, r, w protoreflect.FileDescriptor) []compat.Violation {
	c := &checker{rules: rules, r: r, w: w, visited: map[[2]protoreflect.FullName]bool{}}
	c.file()
	return c.out
}

func (c *checker) add(rule, path, format string, args ...any) {
	if !c.rules[rule] {
		return
	}
	c.out = append(c.out, compat.Violation{RuleID: rule, Path: path, Message: fmt.Sprintf(format, args...)})
}

// localName is a type's full name without its file's package, the name
// Confluent and Charter pair types by: "Outer.Inner".
func localName(d protoreflect.Descriptor) string {
	full := string(d.FullName())
	if pkg := string(d.ParentFile().Package()); pkg != "" {
		return strings.TrimPrefix(full, pkg+".")
	}
	return full
}

func (c *checker) file() {
	if c.r.Package() != c.w.Package() {
		c.add(RulePackageChanged, ".", "the package is %q in the writer but %q in the reader; keep the package (full names, Any type URLs and gRPC paths contain it)",
			c.w.Package(), c.r.Package())
	}
	rMsgs, _ := collectMessages(c.r.Messages(), nil, nil)
	_, wOrder := collectMessages(c.w.Messages(), nil, nil)
	for _, wm := range wOrder {
		name := localName(wm)
		rm, ok := rMsgs[name]
		if !ok {
			c.add(RuleMessageRemoved, "."+name, "message %s of the writer is missing from the reader; keep it, since data may have been written with it", name)
			continue
		}
		c.message("."+name, rm, wm)
	}
	rExts, _ := collectExtensions(c.r)
	_, wExts := collectExtensions(c.w)
	for _, wx := range wExts {
		if rx, ok := rExts[extensionKey(wx)]; ok {
			c.extension("."+localName(rx), rx, wx)
		}
	}
	rEnums, _ := collectEnums(c.r)
	_, wEnums := collectEnums(c.w)
	for _, we := range wEnums {
		if re, ok := rEnums[localName(we)]; ok {
			c.enum("."+localName(we), re, we)
		}
	}
}

// collectMessages lists a file's messages, nested ones after their parent,
// without map entries, by local name and in declaration order.
func collectMessages(ms protoreflect.MessageDescriptors, byName map[string]protoreflect.MessageDescriptor, order []protoreflect.MessageDescriptor) (map[string]protoreflect.MessageDescriptor, []protoreflect.MessageDescriptor) {
	if byName == nil {
		byName = map[string]protoreflect.MessageDescriptor{}
	}
	for i := 0; i < ms.Len(); i++ {
		m := ms.Get(i)
		if m.IsMapEntry() {
			continue
		}
		byName[localName(m)] = m
		order = append(order, m)
		byName, order = collectMessages(m.Messages(), byName, order)
	}
	return byName, order
}

func collectEnums(fd protoreflect.FileDescriptor) (map[string]protoreflect.EnumDescriptor, []protoreflect.EnumDescriptor) {
	byName := map[string]protoreflect.EnumDescriptor{}
	var order []protoreflect.EnumDescriptor
	var walk func(es protoreflect.EnumDescriptors, ms protoreflect.MessageDescriptors)
	walk = func(es protoreflect.EnumDescriptors, ms protoreflect.MessageDescriptors) {
		for i := 0; i < es.Len(); i++ {
			byName[localName(es.Get(i))] = es.Get(i)
			order = append(order, es.Get(i))
		}
		for i := 0; i < ms.Len(); i++ {
			walk(ms.Get(i).Enums(), ms.Get(i).Messages())
		}
	}
	walk(fd.Enums(), fd.Messages())
	return byName, order
}

// extensionKey pairs extensions by extendee and number, as buf does.
func extensionKey(x protoreflect.FieldDescriptor) string {
	return fmt.Sprintf("%s#%d", x.ContainingMessage().FullName(), x.Number())
}

func collectExtensions(fd protoreflect.FileDescriptor) (map[string]protoreflect.FieldDescriptor, []protoreflect.FieldDescriptor) {
	byKey := map[string]protoreflect.FieldDescriptor{}
	var order []protoreflect.FieldDescriptor
	var walk func(xs protoreflect.ExtensionDescriptors, ms protoreflect.MessageDescriptors)
	walk = func(xs protoreflect.ExtensionDescriptors, ms protoreflect.MessageDescriptors) {
		for i := 0; i < xs.Len(); i++ {
			byKey[extensionKey(xs.Get(i))] = xs.Get(i)
			order = append(order, xs.Get(i))
		}
		for i := 0; i < ms.Len(); i++ {
			walk(ms.Get(i).Extensions(), ms.Get(i).Messages())
		}
	}
	walk(fd.Extensions(), fd.Messages())
	return byKey, order
}

// extension compares two extensions of the same extendee and number with
// buf's field rules. Confluent's differ does not look at extensions, so
// its rules do not run here.
func (c *checker) extension(path string, rx, wx protoreflect.FieldDescriptor) {
	c.bufType(path, rx, wx, RuleFieldWireCompatibleType, wireGroup)
	c.bufType(path, rx, wx, RuleFieldWireJSONCompatibleType, wireJSONGroup)
	c.cardinality(path, rx, wx)
	c.sameDefault(path, rx, wx)
	if rx.FullName() != wx.FullName() {
		c.add(RuleFieldNameChanged, path, "extension %d of %s is named %s in the writer but %s in the reader; keep the name",
			rx.Number(), rx.ContainingMessage().FullName(), wx.FullName(), rx.FullName())
	}
}

// realOneof returns the field's oneof unless it is absent or synthetic
// (proto3 optional).
func realOneof(f protoreflect.FieldDescriptor) protoreflect.OneofDescriptor {
	if o := f.ContainingOneof(); o != nil && !o.IsSynthetic() {
		return o
	}
	return nil
}

func fieldsByNumber(m protoreflect.MessageDescriptor) map[protoreflect.FieldNumber]protoreflect.FieldDescriptor {
	fs := m.Fields()
	out := make(map[protoreflect.FieldNumber]protoreflect.FieldDescriptor, fs.Len())
	for i := 0; i < fs.Len(); i++ {
		out[fs.Get(i).Number()] = fs.Get(i)
	}
	return out
}

func (c *checker) message(path string, rm, wm protoreflect.MessageDescriptor) {
	key := [2]protoreflect.FullName{rm.FullName(), wm.FullName()}
	if c.visited[key] {
		return
	}
	c.visited[key] = true

	rRes := newReservations(messageRanges(rm), rm.ReservedNames())
	c.reservedRanges(RuleReservedMessageNoDelete, path, "message", messageRanges(wm), wm.ReservedNames(), rRes)
	c.jsonFormat(RuleMessageSameJSONFormat, path, "message", rm, wm)

	rFields, wFields := fieldsByNumber(rm), fieldsByNumber(wm)
	// survivors counts, per writer oneof, its members the reader still
	// has, once per oneof rather than once per deleted member.
	survivors := map[protoreflect.FullName]int{}
	for _, wf := range sortedFields(wm.Fields()) {
		rf := rFields[wf.Number()]
		if rf == nil {
			c.deletedField(path+"."+string(wf.Name()), wf, rFields, rRes, survivors)
			continue
		}
		c.field(path+"."+string(rf.Name()), rf, wf)
	}
	for _, rf := range sortedFields(rm.Fields()) {
		if wFields[rf.Number()] == nil && rf.Cardinality() == protoreflect.Required {
			c.add(RuleRequiredFieldAdded, path+"."+string(rf.Name()),
				"required field %q (%d) is not in the writer, so the reader rejects every message; make it optional", rf.Name(), rf.Number())
		}
	}
	c.oneofs(path, rm, wFields)
}

// deletedField checks a writer field whose number the reader lacks.
func (c *checker) deletedField(path string, wf protoreflect.FieldDescriptor, rFields map[protoreflect.FieldNumber]protoreflect.FieldDescriptor,
	rRes reservations, survivors map[protoreflect.FullName]int) {
	if wf.Cardinality() == protoreflect.Required {
		c.add(RuleRequiredFieldRemoved, path,
			"required field %q (%d) of the writer is missing from the reader, so readers that still require it reject the reader's data; keep the field", wf.Name(), wf.Number())
	}
	if o := realOneof(wf); o != nil {
		n, ok := survivors[o.FullName()]
		if !ok {
			fs := o.Fields()
			for i := 0; i < fs.Len(); i++ {
				if rFields[fs.Get(i).Number()] != nil {
					n++
				}
			}
			survivors[o.FullName()] = n
		}
		// wf itself is gone, so any survivor is another member.
		if n > 0 {
			c.add(RuleOneofFieldRemoved, path,
				"field %q (%d) of the writer's oneof %q is missing from the reader, which would see the oneof as unset; keep the field in the oneof", wf.Name(), wf.Number(), o.Name())
		}
	}
	if !rRes.hasNumber(int64(wf.Number())) {
		c.add(RuleFieldNoDeleteUnlessNumberReserved, path,
			"field %q (%d) was deleted without reserving its number; add `reserved %d;`", wf.Name(), wf.Number(), wf.Number())
	}
	if !rRes.hasName(wf.Name()) {
		c.add(RuleFieldNoDeleteUnlessNameReserved, path,
			"field %q (%d) was deleted without reserving its name; add `reserved %q;`", wf.Name(), wf.Number(), wf.Name())
	}
}

// oneofs checks each reader oneof against the writer: it must not gather
// fields that the writer can set at the same time.
func (c *checker) oneofs(path string, rm protoreflect.MessageDescriptor, wFields map[protoreflect.FieldNumber]protoreflect.FieldDescriptor) {
	os := rm.Oneofs()
	for i := 0; i < os.Len(); i++ {
		o := os.Get(i)
		if o.IsSynthetic() {
			continue
		}
		var containers, plain []string
		fs := o.Fields()
		for j := 0; j < fs.Len(); j++ {
			wf := wFields[fs.Get(j).Number()]
			if wf == nil {
				continue
			}
			if wo := realOneof(wf); wo != nil {
				containers = append(containers, "oneof "+string(wo.Name()))
			} else {
				containers = append(containers, "field "+string(wf.Name()))
				plain = append(plain, fmt.Sprintf("%q (%d)", wf.Name(), wf.Number()))
			}
		}
		slices.Sort(containers)
		containers = slices.Compact(containers)
		if len(containers) < 2 {
			continue
		}
		if len(plain) >= 2 {
			c.add(RuleMultipleFieldsMovedToOneof, path+"."+string(o.Name()),
				"oneof %q gathers fields %s that the writer can set together, and the reader keeps only the last; move at most one existing field into a new oneof",
				o.Name(), strings.Join(plain, ", "))
			continue
		}
		c.add(RuleFieldMovedToExistingOneof, path+"."+string(o.Name()),
			"oneof %q gathers fields from %s of the writer, which can be set together, and the reader keeps only the last; keep fields in their oneof",
			o.Name(), strings.Join(containers, " and "))
	}
}

func (c *checker) field(path string, rf, wf protoreflect.FieldDescriptor) {
	rReq, wReq := rf.Cardinality() == protoreflect.Required, wf.Cardinality() == protoreflect.Required
	switch {
	case rReq && !wReq:
		c.add(RuleRequiredFieldAdded, path, "field %q (%d) is required in the reader but not in the writer, so the reader rejects messages without it; keep it optional", rf.Name(), rf.Number())
	case wReq && !rReq:
		c.add(RuleRequiredFieldRemoved, path, "field %q (%d) is required in the writer but not in the reader; keep it required while any reader or writer requires it", rf.Name(), rf.Number())
	}
	c.confluentType(path, rf, wf)
	if !rf.IsMap() && !wf.IsMap() && rf.IsList() != wf.IsList() && isNumeric(rf) && isNumeric(wf) {
		c.add(RuleFieldNumericLabelChanged, path, "field %q (%d) is %s in the writer but %s in the reader; numeric repeated fields are packed, so add a new field instead",
			rf.Name(), rf.Number(), labelWord(wf), labelWord(rf))
	}
	c.bufType(path, rf, wf, RuleFieldWireCompatibleType, wireGroup)
	c.bufType(path, rf, wf, RuleFieldWireJSONCompatibleType, wireJSONGroup)
	c.cardinality(path, rf, wf)
	c.sameOneof(path, rf, wf)
	c.sameDefault(path, rf, wf)
	if rf.Name() != wf.Name() {
		c.add(RuleFieldNameChanged, path, "field %d is named %q in the writer but %q in the reader; JSON and text data carry names, so keep the name", rf.Number(), wf.Name(), rf.Name())
	}
	if rf.JSONName() != wf.JSONName() {
		c.add(RuleFieldJSONNameChanged, path, "field %q (%d) has JSON name %q in the writer but %q in the reader; keep the JSON name", rf.Name(), rf.Number(), wf.JSONName(), rf.JSONName())
	}
}

func labelWord(f protoreflect.FieldDescriptor) string {
	if f.IsList() {
		return "repeated"
	}
	return "singular"
}

// Confluent's field kinds and scalar groups.
type kind int

const (
	kindScalar kind = iota
	kindMessage
	kindMap
)

func confluentKind(f protoreflect.FieldDescriptor) kind {
	switch {
	case f.IsMap():
		return kindMap
	case f.Kind() == protoreflect.MessageKind || f.Kind() == protoreflect.GroupKind:
		return kindMessage
	}
	return kindScalar
}

var kindNames = map[kind]string{kindScalar: "a scalar", kindMessage: "a message", kindMap: "a map"}

func scalarGroup(k protoreflect.Kind) string {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Int64Kind, protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.BoolKind, protoreflect.EnumKind:
		return "varint"
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return "zigzag"
	case protoreflect.StringKind, protoreflect.BytesKind:
		return "string"
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		return "fixed32"
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return "fixed64"
	case protoreflect.FloatKind:
		return "float"
	case protoreflect.DoubleKind:
		return "double"
	}
	return k.String()
}

func isNumeric(f protoreflect.FieldDescriptor) bool {
	return confluentKind(f) == kindScalar && scalarGroup(f.Kind()) != "string"
}

// typeName describes a field's type for messages: "int32", "enum
// pkg.Status", "message pkg.Order", "map<string, int32>".
func typeName(f protoreflect.FieldDescriptor) string {
	if f.IsMap() {
		return "map<" + strings.TrimPrefix(typeName(f.MapKey()), "enum ") + ", " + typeName(f.MapValue()) + ">"
	}
	switch f.Kind() {
	case protoreflect.MessageKind:
		return "message " + string(f.Message().FullName())
	case protoreflect.GroupKind:
		return "group " + string(f.Message().FullName())
	case protoreflect.EnumKind:
		return "enum " + string(f.Enum().FullName())
	}
	return f.Kind().String()
}

// confluentType compares field types the way Confluent's FieldSchemaDiff
// does: kinds, scalar groups, message names, map keys and values, and
// message types from imports recursively.
func (c *checker) confluentType(path string, rf, wf protoreflect.FieldDescriptor) {
	rk, wk := confluentKind(rf), confluentKind(wf)
	if rk != wk {
		c.add(RuleFieldKindChanged, path, "field %q (%d) is %s (%s) in the writer but %s (%s) in the reader; add a new field instead of changing its kind",
			rf.Name(), rf.Number(), kindNames[wk], typeName(wf), kindNames[rk], typeName(rf))
		return
	}
	switch rk {
	case kindMap:
		c.confluentType(path, rf.MapKey(), wf.MapKey())
		c.confluentType(path, rf.MapValue(), wf.MapValue())
	case kindScalar:
		if scalarGroup(rf.Kind()) != scalarGroup(wf.Kind()) {
			c.add(RuleFieldScalarKindChanged, path, "field %q (%d) is %s in the writer but %s in the reader, which the wire format encodes differently; add a new field instead",
				rf.Name(), rf.Number(), typeName(wf), typeName(rf))
		}
	case kindMessage:
		rm, wm := rf.Message(), wf.Message()
		if localName(rm) != localName(wm) {
			c.add(RuleFieldNamedTypeChanged, path, "field %q (%d) is %s in the writer but %s in the reader; keep the message type, or add a new field",
				rf.Name(), rf.Number(), typeName(wf), typeName(rf))
			return
		}
		// Messages of both schema files are compared on their own; types
		// from imports are compared through the field.
		if rm.ParentFile().Path() != c.r.Path() || wm.ParentFile().Path() != c.w.Path() {
			c.message(path, rm, wm)
		}
	}
}

// buf's wire-compatible groups (bufcheckserverhandle, breaking_util.go).
func wireGroup(k protoreflect.Kind) int {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Int64Kind, protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.BoolKind:
		return 1
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return 2
	case protoreflect.StringKind:
		return 3
	case protoreflect.BytesKind:
		return 4
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		return 5
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return 6
	case protoreflect.DoubleKind:
		return 7
	case protoreflect.FloatKind:
		return 8
	case protoreflect.GroupKind:
		return 9
	case protoreflect.MessageKind:
		return 10
	case protoreflect.EnumKind:
		return 11
	}
	return 0
}

// buf's wire- and JSON-compatible groups.
func wireJSONGroup(k protoreflect.Kind) int {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Uint32Kind:
		return 1
	case protoreflect.Int64Kind, protoreflect.Uint64Kind:
		return 2
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		return 3
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return 4
	}
	return 100 + int(k)
}

// bufType is buf's FIELD_WIRE(_JSON)_COMPATIBLE_TYPE: kinds in one group,
// string→bytes allowed on the wire, messages of the same name, enums of
// the same name whose writer values the reader all has. Map fields compare
// their keys and values, as buf does through the map entry messages.
func (c *checker) bufType(path string, rf, wf protoreflect.FieldDescriptor, rule string, group func(protoreflect.Kind) int) {
	if !c.rules[rule] {
		return
	}
	if rf.IsMap() && wf.IsMap() {
		c.bufType(path, rf.MapKey(), wf.MapKey(), rule, group)
		c.bufType(path, rf.MapValue(), wf.MapValue(), rule, group)
		return
	}
	rk, wk := rf.Kind(), wf.Kind()
	if group(rk) != group(wk) {
		if rule == RuleFieldWireCompatibleType && wk == protoreflect.StringKind && rk == protoreflect.BytesKind {
			return
		}
		hint := ""
		if wk == protoreflect.BytesKind && rk == protoreflect.StringKind {
			hint = " (bytes may hold invalid UTF-8, which a string field rejects)"
		}
		c.add(rule, path, "field %q (%d) is %s in the writer but %s in the reader%s; add a new field instead", rf.Name(), rf.Number(), typeName(wf), typeName(rf), hint)
		return
	}
	switch {
	case rk == protoreflect.MessageKind || rk == protoreflect.GroupKind:
		if localName(rf.Message()) != localName(wf.Message()) {
			c.add(rule, path, "field %q (%d) is %s in the writer but %s in the reader; keep the message type", rf.Name(), rf.Number(), typeName(wf), typeName(rf))
		}
	case rk == protoreflect.EnumKind:
		re, we := rf.Enum(), wf.Enum()
		if localName(re) == localName(we) {
			return // compared as enums of the file
		}
		if re.Name() != we.Name() || !enumSuperset(re, we) {
			c.add(rule, path, "field %q (%d) is %s in the writer but %s in the reader, which lacks some of its values; keep the enum type", rf.Name(), rf.Number(), typeName(wf), typeName(rf))
		}
	}
}

// enumSuperset reports whether every value (number and name) of w is in r.
func enumSuperset(r, w protoreflect.EnumDescriptor) bool {
	vs := w.Values()
	for i := 0; i < vs.Len(); i++ {
		rv := r.Values().ByName(vs.Get(i).Name())
		if rv == nil || rv.Number() != vs.Get(i).Number() {
			return false
		}
	}
	return true
}

type card int

const (
	cardOptional card = iota + 1
	cardImplicit
	cardRequired
	cardRepeated
	cardMap
)

var cardNames = map[card]string{
	cardOptional: "optional with explicit presence", cardImplicit: "optional with implicit presence",
	cardRequired: "required", cardRepeated: "repeated", cardMap: "map",
}

func cardinalityOf(f protoreflect.FieldDescriptor) card {
	switch {
	case f.IsMap():
		return cardMap
	case f.IsList():
		return cardRepeated
	case f.Cardinality() == protoreflect.Required:
		return cardRequired
	case f.HasPresence():
		return cardOptional
	}
	return cardImplicit
}

func (c *checker) cardinality(path string, rf, wf protoreflect.FieldDescriptor) {
	rc, wc := cardinalityOf(rf), cardinalityOf(wf)
	wire := map[card]int{cardOptional: 1, cardImplicit: 1, cardRequired: 2, cardRepeated: 3, cardMap: 3}
	if wire[rc] != wire[wc] {
		c.add(RuleFieldWireCompatibleCardinality, path, "field %q (%d) is %s in the writer but %s in the reader; add a new field instead", rf.Name(), rf.Number(), cardNames[wc], cardNames[rc])
	}
	jsonGroup := func(k card) int {
		if k == cardMap {
			return 4
		}
		return wire[k]
	}
	if jsonGroup(rc) != jsonGroup(wc) {
		c.add(RuleFieldWireJSONCompatibleCardinality, path, "field %q (%d) is %s in the writer but %s in the reader, which JSON writes differently; add a new field instead", rf.Name(), rf.Number(), cardNames[wc], cardNames[rc])
	}
}

func (c *checker) sameOneof(path string, rf, wf protoreflect.FieldDescriptor) {
	ro, wo := realOneof(rf), realOneof(wf)
	switch {
	case ro == nil && wo == nil:
	case ro != nil && wo != nil:
		if ro.Name() != wo.Name() {
			c.add(RuleFieldSameOneof, path, "field %q (%d) is in oneof %q in the writer but in oneof %q in the reader; keep it in its oneof", rf.Name(), rf.Number(), wo.Name(), ro.Name())
		}
	case wo != nil:
		c.add(RuleFieldSameOneof, path, "field %q (%d) is in oneof %q in the writer but outside any oneof in the reader; keep it in its oneof", rf.Name(), rf.Number(), wo.Name())
	default:
		c.add(RuleFieldSameOneof, path, "field %q (%d) is outside any oneof in the writer but in oneof %q in the reader; keep it outside", rf.Name(), rf.Number(), ro.Name())
	}
}

func (c *checker) sameDefault(path string, rf, wf protoreflect.FieldDescriptor) {
	canHave := func(f protoreflect.FieldDescriptor) bool {
		return !f.IsList() && !f.IsMap() && f.Message() == nil
	}
	if !c.rules[RuleFieldSameDefault] || !canHave(rf) || !canHave(wf) {
		return
	}
	rd, wd := defaultOf(rf), defaultOf(wf)
	if rd.zero && wd.zero || rd.text == wd.text {
		return
	}
	c.add(RuleFieldSameDefault, path, "field %q (%d) has default %s in the writer but %s in the reader, so absent values read differently; keep the default", rf.Name(), rf.Number(), wd.text, rd.text)
}

type defaultValue struct {
	text string
	zero bool
}

func defaultOf(f protoreflect.FieldDescriptor) defaultValue {
	v := f.Default()
	switch f.Kind() {
	case protoreflect.EnumKind:
		return defaultValue{text: fmt.Sprint(int32(v.Enum())), zero: v.Enum() == 0}
	case protoreflect.StringKind:
		return defaultValue{text: quoteProto(v.String()), zero: v.String() == ""}
	case protoreflect.BytesKind:
		return defaultValue{text: quoteProto(string(v.Bytes())), zero: len(v.Bytes()) == 0}
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		fv := v.Float()
		return defaultValue{text: formatFloat(fv), zero: fv == 0 && !math.Signbit(fv)}
	case protoreflect.BoolKind:
		return defaultValue{text: fmt.Sprint(v.Bool()), zero: !v.Bool()}
	}
	s := fmt.Sprint(v.Interface())
	return defaultValue{text: s, zero: s == "0"}
}

func (c *checker) enum(path string, re, we protoreflect.EnumDescriptor) {
	rRes := newReservations(enumRanges(re), re.ReservedNames())
	c.reservedRanges(RuleReservedEnumNoDelete, path, "enum", enumRanges(we), we.ReservedNames(), rRes)
	c.jsonFormat(RuleEnumSameJSONFormat, path, "enum", re, we)
	numbers := func(e protoreflect.EnumDescriptor) (map[protoreflect.EnumNumber][]string, []protoreflect.EnumNumber) {
		out := map[protoreflect.EnumNumber][]string{}
		var order []protoreflect.EnumNumber
		vs := e.Values()
		for i := 0; i < vs.Len(); i++ {
			n := vs.Get(i).Number()
			if _, ok := out[n]; !ok {
				order = append(order, n)
			}
			out[n] = append(out[n], string(vs.Get(i).Name()))
		}
		sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
		return out, order
	}
	rNums, _ := numbers(re)
	wNums, wOrder := numbers(we)
	for _, n := range wOrder {
		wNames := wNums[n]
		rNames, ok := rNums[n]
		if !ok {
			vpath := path + "." + wNames[0]
			if !rRes.hasNumber(int64(n)) {
				c.add(RuleEnumValueNoDeleteUnlessNumberReserved, vpath, "enum value %s (%d) was deleted without reserving its number; add `reserved %d;`", wNames[0], n, n)
			}
			for _, name := range wNames {
				if !rRes.hasName(protoreflect.Name(name)) {
					c.add(RuleEnumValueNoDeleteUnlessNameReserved, vpath, "enum value %s (%d) was deleted without reserving its name; add `reserved %q;`", wNames[0], n, name)
					break
				}
			}
			continue
		}
		for _, name := range rNames {
			if !slices.Contains(wNames, name) {
				c.add(RuleEnumValueNameChanged, path+"."+name, "enum value %d is named %s in the writer but %s in the reader; JSON writes enum values by name, so keep the name",
					n, strings.Join(wNames, ", "), strings.Join(rNames, ", "))
				break
			}
		}
	}
}

// messageRanges returns a message's reserved ranges with inclusive ends.
func messageRanges(m protoreflect.MessageDescriptor) [][2]int64 {
	rr := m.ReservedRanges()
	out := make([][2]int64, rr.Len())
	for i := range out {
		r := rr.Get(i)
		out[i] = [2]int64{int64(r[0]), int64(r[1]) - 1}
	}
	return out
}

func enumRanges(e protoreflect.EnumDescriptor) [][2]int64 {
	rr := e.ReservedRanges()
	out := make([][2]int64, rr.Len())
	for i := range out {
		r := rr.Get(i)
		out[i] = [2]int64{int64(r[0]), int64(r[1])}
	}
	return out
}

// reservations indexes the reader's reserved numbers (sorted, merged,
// inclusive ranges) and names. protocompile's descriptors answer Has by
// scanning their lists, which made checks quadratic in the number of
// reservations and deleted fields or values.
type reservations struct {
	ranges [][2]int64
	names  map[protoreflect.Name]bool
}

func newReservations(ranges [][2]int64, names protoreflect.Names) reservations {
	sorted := slices.Clone(ranges)
	slices.SortFunc(sorted, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	var merged [][2]int64
	for _, r := range sorted {
		// Ranges that overlap or touch cover the same numbers as one.
		if n := len(merged); n > 0 && r[0] <= merged[n-1][1]+1 {
			merged[n-1][1] = max(merged[n-1][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	res := reservations{ranges: merged}
	if names != nil && names.Len() > 0 {
		res.names = make(map[protoreflect.Name]bool, names.Len())
		for i := 0; i < names.Len(); i++ {
			res.names[names.Get(i)] = true
		}
	}
	return res
}

// first returns the index of the first range that ends at n or later.
func (r reservations) first(n int64) int {
	i, _ := slices.BinarySearchFunc(r.ranges, n, func(rg [2]int64, n int64) int { return cmp.Compare(rg[1], n) })
	return i
}

func (r reservations) hasNumber(n int64) bool {
	i := r.first(n)
	return i < len(r.ranges) && r.ranges[i][0] <= n
}

func (r reservations) hasName(s protoreflect.Name) bool { return r.names[s] }

// uncovered describes the part of w that no reserved range covers, or "".
func (r reservations) uncovered(w [2]int64) string {
	var missing []string
	next := w[0]
	for _, s := range r.ranges[r.first(w[0]):] {
		if s[0] > w[1] {
			break
		}
		if s[0] > next {
			missing = append(missing, rangeText(next, s[0]-1, math.MaxInt64))
		}
		next = s[1] + 1
	}
	if next <= w[1] {
		missing = append(missing, rangeText(next, w[1], math.MaxInt64))
	}
	return strings.Join(missing, ", ")
}

// reservedRanges reports writer reserved numbers or names that the reader
// no longer reserves (buf RESERVED_*_NO_DELETE).
func (c *checker) reservedRanges(rule, path, what string, wRanges [][2]int64, wNames protoreflect.Names, rRes reservations) {
	if !c.rules[rule] {
		return
	}
	for _, wr := range wRanges {
		if missing := rRes.uncovered(wr); missing != "" {
			c.add(rule, path, "%s %s reserves %s in the writer but not in the reader; keep the reservation", what, strings.TrimPrefix(path, "."), missing)
		}
	}
	for i := 0; i < wNames.Len(); i++ {
		if !rRes.hasName(wNames.Get(i)) {
			c.add(rule, path, "%s %s reserves the name %q in the writer but not in the reader; keep the reservation", what, strings.TrimPrefix(path, "."), wNames.Get(i))
		}
	}
}

// jsonFormat is buf's *_SAME_JSON_FORMAT: a json_format feature that was
// ALLOW must stay ALLOW.
func (c *checker) jsonFormat(rule, path, what string, r, w protoreflect.Descriptor) {
	if !c.rules[rule] {
		return
	}
	field := (*descriptorpb.FeatureSet)(nil).ProtoReflect().Descriptor().Fields().ByName("json_format")
	rv, err1 := protoutil.ResolveFeature(r, field)
	wv, err2 := protoutil.ResolveFeature(w, field)
	if err1 != nil || err2 != nil {
		return
	}
	allow := protoreflect.EnumNumber(descriptorpb.FeatureSet_ALLOW)
	if wv.Enum() == allow && rv.Enum() != allow {
		c.add(rule, path, "%s %s supports JSON in the writer but not in the reader (json_format %s); keep json_format ALLOW",
			what, strings.TrimPrefix(path, "."), descriptorpb.FeatureSet_JsonFormat(rv.Enum()))
	}
}

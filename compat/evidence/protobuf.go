package evidence

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/charter-dev/charter/compat/protobuf"
)

// protoEngine generates messages of the writer's descriptors with
// dynamicpb, marshals them, and unmarshals the wire bytes into messages of
// the reader's descriptors of the same full name, as a consumer's runtime
// does: proto3 strings are validated as UTF-8, proto2 enums are closed
// (an unknown number goes to the unknown fields), required fields are
// checked.
//
// Events are generated for the writer's root messages, round robin: the
// messages (nested ones included) that no field of another message uses
// (all top-level messages when every one is used); the messages they use
// are generated inside them.
type protoEngine struct {
	reader, writer protoreflect.FileDescriptor
	pkg            string
	rootMsgs       []protoreflect.MessageDescriptor
	readers        []protoreflect.MessageDescriptor // per root; nil when the reader lacks it
}

func newProtoEngine(r, w *protobuf.Schema) (*protoEngine, error) {
	e := &protoEngine{reader: r.Descriptor(), writer: w.Descriptor(), pkg: string(w.Descriptor().Package())}
	used := map[protoreflect.FullName]bool{}
	var mark func(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool)
	mark = func(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) {
		if seen[md.FullName()] {
			return
		}
		seen[md.FullName()] = true
		fs := md.Fields()
		for i := range fs.Len() {
			if m := fs.Get(i).Message(); m != nil {
				if m.FullName() != md.FullName() {
					used[m.FullName()] = true
				}
				mark(m, seen)
			}
		}
		ms := md.Messages()
		for i := range ms.Len() {
			mark(ms.Get(i), seen)
		}
	}
	seen := map[protoreflect.FullName]bool{}
	top := e.writer.Messages()
	for i := range top.Len() {
		mark(top.Get(i), seen)
	}
	var roots func(ms protoreflect.MessageDescriptors)
	roots = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			md := ms.Get(i)
			if !used[md.FullName()] && !md.IsMapEntry() {
				e.rootMsgs = append(e.rootMsgs, md)
			}
			roots(md.Messages())
		}
	}
	roots(top)
	if len(e.rootMsgs) == 0 {
		for i := range top.Len() {
			e.rootMsgs = append(e.rootMsgs, top.Get(i))
		}
	}
	for _, md := range e.rootMsgs {
		e.readers = append(e.readers, findMessage(e.reader, md.FullName()))
	}
	return e, nil
}

func findMessage(fd protoreflect.FileDescriptor, name protoreflect.FullName) protoreflect.MessageDescriptor {
	var find func(ms protoreflect.MessageDescriptors) protoreflect.MessageDescriptor
	find = func(ms protoreflect.MessageDescriptors) protoreflect.MessageDescriptor {
		for i := range ms.Len() {
			m := ms.Get(i)
			if m.FullName() == name {
				return m
			}
			if strings.HasPrefix(string(name), string(m.FullName())+".") {
				if got := find(m.Messages()); got != nil {
					return got
				}
			}
		}
		return nil
	}
	return find(fd.Messages())
}

func (e *protoEngine) roots() int { return len(e.rootMsgs) }

// msgPath is a message's path as the Protobuf violations write it: its
// full name without the package, after a dot (".Order", ".Order.Line").
func (e *protoEngine) msgPath(md protoreflect.MessageDescriptor) string {
	name := string(md.FullName())
	if e.pkg != "" {
		name = strings.TrimPrefix(name, e.pkg+".")
	}
	return "." + name
}

func (e *protoEngine) event(root int, ch *chooser) (*observed, bool) {
	wmd := e.rootMsgs[root]
	g := protoGen{ch: ch}
	wm := dynamicpb.NewMessage(wmd)
	g.fill(wm, e.msgPath(wmd), 0)
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(wm)
	if err != nil {
		return nil, false
	}
	obs := &observed{event: func() json.RawMessage { return protoJSON(wm) }}
	rmd := e.readers[root]
	if rmd == nil {
		obs.add(Refused, e.msgPath(wmd), "refused", fmt.Sprintf("the reader has no message %s to decode the event with", wmd.FullName()), "")
		return obs, true
	}
	rm := dynamicpb.NewMessage(rmd)
	if err := proto.Unmarshal(data, rm); err != nil {
		msg := protoError(err)
		path, rule := e.refusal(wmd, msg)
		obs.add(Refused, path, "refused", "the reader refused the wire bytes: "+msg, rule)
		return obs, true
	}
	obs.read = func() json.RawMessage { return protoJSON(rm) }
	e.compare(wm, rm, e.msgPath(wmd), obs)
	return obs, true
}

// refusal locates a decoding error: the field an invalid-UTF-8 error
// names, with the rule it proves when the writer declares that field as
// bytes (or a proto2 string, which no runtime validates) and the reader
// as a validated string.
func (e *protoEngine) refusal(wmd protoreflect.MessageDescriptor, msg string) (string, string) {
	const marker = "field "
	i := strings.Index(msg, marker)
	j := strings.Index(msg, " contains invalid UTF-8")
	if i < 0 || j < i {
		return e.msgPath(wmd), ""
	}
	full := protoreflect.FullName(msg[i+len(marker) : j])
	parent := findMessage(e.reader, full.Parent())
	if parent == nil {
		return e.msgPath(wmd), ""
	}
	rf := parent.Fields().ByName(full.Name())
	if rf == nil {
		return e.msgPath(wmd), ""
	}
	path := e.msgPath(parent) + "." + string(rf.Name())
	if wp := findMessage(e.writer, parent.FullName()); wp != nil {
		if wf := wp.Fields().ByNumber(rf.Number()); wf != nil && (wf.Kind() == protoreflect.BytesKind || wf.Kind() == protoreflect.StringKind && !validatesUTF8(wf)) {
			return path, RuleProtoStringBytesInvalidUTF8
		}
	}
	return path, ""
}

// protoError is err's text with the spaces protobuf-go randomly writes
// as no-break spaces (so that no one depends on its messages) made
// plain, so that counterexamples are stable.
func protoError(err error) string {
	return strings.ReplaceAll(err.Error(), "\u00a0", " ")
}

// validatesUTF8 reports whether a runtime refuses invalid UTF-8 in string
// field fd: proto3 (and editions with utf8_validation VERIFY) do, proto2
// does not.
func validatesUTF8(fd protoreflect.FieldDescriptor) bool {
	if fd.Kind() != protoreflect.StringKind {
		return false
	}
	if fd.ParentFile() == nil {
		return true
	}
	return fd.ParentFile().Syntax() != protoreflect.Proto2
}

type protoGen struct{ ch *chooser }

func (g protoGen) pick(key string, n, depth int) int {
	if depth > maxDepth || g.ch.low() {
		return 0
	}
	return g.ch.pick(key, n)
}

// fill sets the fields of m by the chooser's choices: for each field,
// option 0 leaves it unset; a oneof is one choice among none and each
// member.
func (g protoGen) fill(m *dynamicpb.Message, path string, depth int) {
	md := m.Descriptor()
	oneofs := md.Oneofs()
	for i := range oneofs.Len() {
		o := oneofs.Get(i)
		if o.IsSynthetic() {
			continue
		}
		k := g.pick(path+"."+string(o.Name())+"|", o.Fields().Len()+1, depth)
		if k > 0 {
			fd := o.Fields().Get(k - 1)
			g.setField(m, fd, path+"."+string(fd.Name()), depth, true)
		}
	}
	fs := md.Fields()
	for i := range fs.Len() {
		fd := fs.Get(i)
		if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() {
			continue
		}
		g.setField(m, fd, path+"."+string(fd.Name()), depth, false)
	}
}

func (g protoGen) setField(m *dynamicpb.Message, fd protoreflect.FieldDescriptor, key string, depth int, chosen bool) {
	switch {
	case fd.IsMap():
		n := repeatLens[g.pick(key+"#", len(repeatLens), depth)]
		if n == 0 {
			return
		}
		mp := m.Mutable(fd).Map()
		for i := range n {
			k, ok := g.mapKey(fd.MapKey(), i)
			if !ok {
				break
			}
			mp.Set(k, g.elem(m, fd.MapValue(), mp.NewValue, fmt.Sprintf("%s{%d}", key, i), depth+1))
		}
	case fd.IsList():
		n := repeatLens[g.pick(key+"#", len(repeatLens), depth)]
		if n == 0 {
			return
		}
		l := m.Mutable(fd).List()
		for i := range n {
			l.Append(g.elem(m, fd, l.NewElement, fmt.Sprintf("%s[%d]", key, i), depth+1))
		}
	default:
		if fd.Message() != nil {
			if !chosen && (depth > maxDepth || g.pick(key+"?", 2, depth) == 0) {
				if fd.Cardinality() != protoreflect.Required || depth > 4*maxDepth {
					return
				}
			}
			sub := m.Mutable(fd).Message().Interface().(*dynamicpb.Message)
			g.fill(sub, key, depth+1)
			return
		}
		vals := scalarValues(fd)
		required := fd.Cardinality() == protoreflect.Required
		if chosen || required {
			// Set: a value among the non-zero ones (a oneof member or
			// a required field is present even when zero).
			m.Set(fd, vals[g.pick(key, len(vals), depth)])
			return
		}
		k := g.pick(key, len(vals)+1, depth)
		if k == 0 {
			return
		}
		m.Set(fd, vals[k-1])
	}
}

func (g protoGen) elem(m *dynamicpb.Message, fd protoreflect.FieldDescriptor, fresh func() protoreflect.Value, key string, depth int) protoreflect.Value {
	if fd.Message() != nil {
		v := fresh()
		g.fill(v.Message().Interface().(*dynamicpb.Message), key, depth)
		return v
	}
	vals := scalarValues(fd)
	return vals[g.pick(key, len(vals), depth)]
}

func (g protoGen) mapKey(fd protoreflect.FieldDescriptor, i int) (protoreflect.MapKey, bool) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(mapKeys[i]).MapKey(), true
	case protoreflect.BoolKind:
		if i > 1 {
			return protoreflect.MapKey{}, false
		}
		return protoreflect.ValueOfBool(i == 1).MapKey(), true
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(i) - 1).MapKey(), true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(i) - 1).MapKey(), true
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(i)).MapKey(), true
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(i)).MapKey(), true
	}
	return protoreflect.MapKey{}, false
}

// scalarValues are the values generated for a scalar field, boundaries
// included; a proto2 string also gets invalid UTF-8, which proto2 runtimes
// write and read as is.
func scalarValues(fd protoreflect.FieldDescriptor) []protoreflect.Value {
	var out []protoreflect.Value
	switch fd.Kind() {
	case protoreflect.BoolKind:
		out = append(out, protoreflect.ValueOfBool(true), protoreflect.ValueOfBool(false))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		for _, v := range []int32{1, -1, math.MaxInt32, math.MinInt32, 0} {
			out = append(out, protoreflect.ValueOfInt32(v))
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		for _, v := range []int64{1, -1, math.MaxInt64, math.MinInt64, 1<<53 + 1, 0} {
			out = append(out, protoreflect.ValueOfInt64(v))
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		for _, v := range []uint32{1, math.MaxUint32, 0} {
			out = append(out, protoreflect.ValueOfUint32(v))
		}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		for _, v := range []uint64{1, math.MaxUint64, 0} {
			out = append(out, protoreflect.ValueOfUint64(v))
		}
	case protoreflect.FloatKind:
		for _, v := range []float32{1.5, -1, math.MaxFloat32, math.SmallestNonzeroFloat32, 0} {
			out = append(out, protoreflect.ValueOfFloat32(v))
		}
	case protoreflect.DoubleKind:
		for _, v := range []float64{1.5, -1, math.MaxFloat64, 5e-324, 0.1, 0} {
			out = append(out, protoreflect.ValueOfFloat64(v))
		}
	case protoreflect.StringKind:
		for _, s := range genStrings[1:] {
			out = append(out, protoreflect.ValueOfString(s))
		}
		if !validatesUTF8(fd) {
			out = append(out, protoreflect.ValueOfString(string(genBytes[2])))
		}
		out = append(out, protoreflect.ValueOfString(""))
	case protoreflect.BytesKind:
		for _, b := range genBytes[1:] {
			out = append(out, protoreflect.ValueOfBytes(b))
		}
		out = append(out, protoreflect.ValueOfBytes(nil))
	case protoreflect.EnumKind:
		vs := fd.Enum().Values()
		for i := range vs.Len() {
			if n := vs.Get(i).Number(); n != 0 {
				out = append(out, protoreflect.ValueOfEnum(n))
			}
		}
		out = append(out, protoreflect.ValueOfEnum(fd.Enum().Values().Get(0).Number()))
	}
	return out
}

// compare compares the message written with the one read, field by
// field number.
func (e *protoEngine) compare(wm, rm protoreflect.Message, path string, obs *observed) {
	rmd := rm.Descriptor()
	wmd := wm.Descriptor()
	// In field order, not wm.Range's (dynamicpb ranges over a Go map):
	// an event's findings, and so its outcomes, come in one order.
	rangeFields(wm, func(wf protoreflect.FieldDescriptor, wv protoreflect.Value) bool {
		rf := rmd.Fields().ByNumber(wf.Number())
		if rf == nil {
			// Not declared by the reader: projected away, unless it
			// was the member set of a oneof whose other members the
			// reader keeps, which then reads as unset.
			if o := wf.ContainingOneof(); o != nil && !o.IsSynthetic() {
				for i := range o.Fields().Len() {
					if other := rmd.Fields().ByNumber(o.Fields().Get(i).Number()); other != nil && other.ContainingOneof() != nil {
						obs.add(Lossy, path+"."+string(wf.Name()), "dropped",
							fmt.Sprintf("the reader's oneof %s lacks the member the writer set, so it reads as unset", other.ContainingOneof().Name()), "")
						break
					}
				}
			}
			return true
		}
		fpath := path + "." + string(wf.Name())
		if wf.IsList() && !rf.IsList() && !rf.IsMap() && wv.List().Len() > 1 && wireType(wf) == wireType(rf) {
			n := wv.List().Len()
			what := fmt.Sprintf("the reader kept only the last of %d values", n)
			if wf.Message() != nil {
				what = fmt.Sprintf("the reader merged %d messages into one", n)
			}
			// The rule is about strings, bytes and messages, which the
			// rules accept repeated→singular; a numeric field (or bool,
			// enum) is PROTO_FIELD_NUMERIC_LABEL_CHANGED's already.
			id := ""
			switch wf.Kind() {
			case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind, protoreflect.GroupKind:
				id = RuleProtoRepeatedToSingular
			}
			obs.add(Lossy, fpath, "truncated", what, id)
			return true
		}
		if !rm.Has(rf) {
			// An implicit-presence reader field holding its zero
			// value reads as unset: equal when the writer wrote
			// that zero (a list of one zero, say).
			if !rf.IsList() && !rf.IsMap() && rf.Message() == nil && !wf.IsMap() && (!wf.IsList() || wv.List().Len() == 1) && wireType(wf) == wireType(rf) {
				one := wv
				if wf.IsList() {
					one = wv.List().Get(0)
				}
				var quiet observed
				e.value(wf, rf, one, rm.Get(rf), fpath, &quiet)
				if len(quiet.finds) == 0 {
					return true
				}
				if wf.Enum() == nil || rf.Enum() == nil {
					// A number read as another one (its zero).
					obs.finds = append(obs.finds, quiet.finds...)
					return true
				}
			}
			e.dropped(wf, rf, wv, fpath, obs)
			return true
		}
		rv := rm.Get(rf)
		switch {
		case wf.IsMap():
			if !rf.IsMap() {
				obs.add(Lossy, fpath, "changed", "the reader read a map as another kind of field", "")
				return true
			}
			if rv.Map().Len() != wv.Map().Len() {
				obs.add(Lossy, fpath, "truncated", fmt.Sprintf("the reader kept %d entries of %d", rv.Map().Len(), wv.Map().Len()), "")
				return true
			}
			for _, k := range sortedMapKeys(wv.Map()) {
				e.value(wf.MapValue(), rf.MapValue(), wv.Map().Get(k), rv.Map().Get(k), fpath+"{}", obs)
			}
		case wf.IsList() && !rf.IsList():
			e.value(wf, rf, wv.List().Get(0), rv, fpath, obs)
		case !wf.IsList() && rf.IsList():
			if rv.List().Len() != 1 {
				obs.add(Lossy, fpath, "changed", fmt.Sprintf("the reader read one value as %d", rv.List().Len()), "")
				return true
			}
			e.value(wf, rf, wv, rv.List().Get(0), fpath, obs)
		case wf.IsList():
			wl, rl := wv.List(), rv.List()
			if wl.Len() != rl.Len() {
				obs.add(Lossy, fpath, "truncated", fmt.Sprintf("the reader kept %d values of %d", rl.Len(), wl.Len()), "")
				return true
			}
			for i := range wl.Len() {
				e.value(wf, rf, wl.Get(i), rl.Get(i), fpath+"[]", obs)
			}
		default:
			e.value(wf, rf, wv, rv, fpath, obs)
		}
		return true
	})
	fs := rmd.Fields()
	for i := range fs.Len() {
		if rf := fs.Get(i); wmd.Fields().ByNumber(rf.Number()) == nil && rf.HasDefault() {
			obs.add(Defaulted, path+"."+string(rf.Name()), "default", "the reader gave the field its declared default", "")
		}
	}
}

// rangeFields calls f for each field m holds, in the order its message
// declares them, until f returns false.
func rangeFields(m protoreflect.Message, f func(protoreflect.FieldDescriptor, protoreflect.Value) bool) {
	fs := m.Descriptor().Fields()
	for i := range fs.Len() {
		if fd := fs.Get(i); m.Has(fd) && !f(fd, m.Get(fd)) {
			return
		}
	}
}

// sortedMapKeys returns the keys of m in the order of their text.
func sortedMapKeys(m protoreflect.Map) []protoreflect.MapKey {
	keys := make([]protoreflect.MapKey, 0, m.Len())
	m.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	return keys
}

// wireType is the wire type of a field's (or a list element's) values.
func wireType(fd protoreflect.FieldDescriptor) int {
	switch fd.Kind() {
	case protoreflect.BoolKind, protoreflect.EnumKind, protoreflect.Int32Kind, protoreflect.Int64Kind,
		protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return 0
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return 1
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return 5
	case protoreflect.GroupKind:
		return 3
	}
	return 2
}

// dropped reports a written value the reader does not hold in its field
// of the same number.
func (e *protoEngine) dropped(wf, rf protoreflect.FieldDescriptor, wv protoreflect.Value, path string, obs *observed) {
	if rf.ContainingOneof() != nil && !rf.ContainingOneof().IsSynthetic() {
		obs.add(Lossy, path, "dropped", "the reader's oneof kept another member written in the same event", "")
		return
	}
	if wf.Enum() != nil && rf.Enum() != nil && rf.Enum().IsClosed() {
		n := enumNumber(wf, wv)
		if rf.Enum().Values().ByNumber(n) == nil {
			obs.add(Lossy, path, "dropped", fmt.Sprintf("the reader's closed enum %s has no value %d: the field reads as unset (%s) and the number goes to the unknown fields",
				rf.Enum().FullName(), n, rf.DefaultEnumValue().Name()), RuleProtoClosedEnumValueRemoved)
			return
		}
	}
	obs.add(Lossy, path, "dropped", "the reader did not read the value into its field of the same number (another wire type): it went to the unknown fields", "")
}

func enumNumber(fd protoreflect.FieldDescriptor, v protoreflect.Value) protoreflect.EnumNumber {
	if fd.IsList() {
		l := v.List()
		for i := range l.Len() {
			if n := l.Get(i).Enum(); fd.Enum().Values().ByNumber(n) != nil {
				return n
			}
		}
		return l.Get(0).Enum()
	}
	return v.Enum()
}

// value compares one written value with the one read.
func (e *protoEngine) value(wf, rf protoreflect.FieldDescriptor, wv, rv protoreflect.Value, path string, obs *observed) {
	if wf.Message() != nil {
		if rf.Message() == nil {
			obs.add(Lossy, path, "changed", "the reader read a message as a "+rf.Kind().String(), "")
			return
		}
		e.compare(wv.Message(), rv.Message(), path, obs)
		return
	}
	if wf.Enum() != nil && rf.Enum() != nil {
		if n := rv.Enum(); rf.Enum().IsClosed() && rf.Enum().Values().ByNumber(n) == nil {
			// Go's dynamicpb keeps the number; generated code in
			// every language (Go's included) and the C++ and Java
			// runtimes move it to the unknown fields, as the
			// language guide says closed enums do.
			obs.add(Lossy, path, "dropped", fmt.Sprintf("the reader's closed enum %s has no value %d: a conforming runtime moves the number to the unknown fields and the field reads as unset (%s)",
				rf.Enum().FullName(), n, rf.Enum().Values().Get(0).Name()), RuleProtoClosedEnumValueRemoved)
			return
		}
		if wv.Enum() != rv.Enum() {
			obs.add(Lossy, path, "changed", fmt.Sprintf("the reader read enum number %d as %d", wv.Enum(), rv.Enum()), "")
		}
		return
	}
	if wf.Kind() == protoreflect.StringKind || wf.Kind() == protoreflect.BytesKind {
		wb, rb := textBytes(wv), textBytes(rv)
		if !bytes.Equal(wb, rb) {
			obs.add(Lossy, path, "changed", fmt.Sprintf("the reader read %q as %q", wb, rb), "")
		}
		return
	}
	wn, rn := protoNumber(wv), protoNumber(rv)
	if !equalScalar(wn, rn) {
		obs.add(Lossy, path, "changed", fmt.Sprintf("the reader read %v (%s) as %v (%s)", wn, wf.Kind(), rn, rf.Kind()), "")
	}
}

func textBytes(v protoreflect.Value) []byte {
	switch x := v.Interface().(type) {
	case string:
		return []byte(x)
	case []byte:
		return x
	}
	return nil
}

// protoNumber is a scalar as a Go number (bools as 0 and 1, enums as
// their numbers).
func protoNumber(v protoreflect.Value) any {
	switch x := v.Interface().(type) {
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case protoreflect.EnumNumber:
		return int64(x)
	}
	return v.Interface()
}

// protoJSON renders a message as JSON with the field names of its
// descriptor (bytes in base64, as protojson writes them; a string that is
// not UTF-8 as {"invalidUtf8": base64}), fields in number order.
func protoJSON(m protoreflect.Message) json.RawMessage {
	b, err := json.Marshal(protoAny(m))
	if err != nil {
		return json.RawMessage(`null`)
	}
	return b
}

func protoAny(m protoreflect.Message) any {
	out := orderedObject{}
	fs := m.Descriptor().Fields()
	for i := range fs.Len() {
		fd := fs.Get(i)
		if !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		var jv any
		switch {
		case fd.IsMap():
			mo := orderedObject{}
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				mo = append(mo, kv{k.String(), protoScalar(fd.MapValue(), mv)})
				return true
			})
			mo.sort()
			jv = mo
		case fd.IsList():
			l := make([]any, v.List().Len())
			for j := range l {
				l[j] = protoScalar(fd, v.List().Get(j))
			}
			jv = l
		default:
			jv = protoScalar(fd, v)
		}
		out = append(out, kv{string(fd.Name()), jv})
	}
	if u := m.GetUnknown(); len(u) > 0 {
		out = append(out, kv{"(unknown fields)", base64.StdEncoding.EncodeToString(u)})
	}
	return out
}

func protoScalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) any {
	switch {
	case fd.Message() != nil:
		return protoAny(v.Message())
	case fd.Enum() != nil:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return int64(v.Enum())
	}
	switch x := v.Interface().(type) {
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case string:
		if !utf8.ValidString(x) {
			return map[string]string{"invalidUtf8": base64.StdEncoding.EncodeToString([]byte(x))}
		}
		return x
	case float32:
		return jsonFloat(float64(x), 32)
	case float64:
		return jsonFloat(x, 64)
	case int64, uint64:
		return fmt.Sprint(x) // protojson writes 64-bit integers as strings
	}
	return v.Interface()
}

// orderedObject is a JSON object that keeps its keys in order.
type orderedObject []kv

type kv struct {
	k string
	v any
}

func (o orderedObject) sort() {
	for i := 1; i < len(o); i++ {
		for j := i; j > 0 && o[j].k < o[j-1].k; j-- {
			o[j], o[j-1] = o[j-1], o[j]
		}
	}
}

// MarshalJSON writes the object's keys in order.
func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

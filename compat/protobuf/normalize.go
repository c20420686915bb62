package protobuf

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// normalizedText prints the linked file in the normalized form described on
// Schema.Normalized.
func normalizedText(res linker.Result) (string, error) {
	n := &normPrinter{res: linker.ResolverFromFile(res)}
	n.file(res)
	if n.err != nil {
		return "", n.err
	}
	return n.b.String(), nil
}

type normPrinter struct {
	res    linker.Resolver
	b      strings.Builder
	indent int
	err    error
}

func (n *normPrinter) line(format string, args ...any) {
	n.b.WriteString(strings.Repeat("  ", n.indent))
	fmt.Fprintf(&n.b, format, args...)
	n.b.WriteByte('\n')
}

func (n *normPrinter) file(fd protoreflect.FileDescriptor) {
	switch fd.Syntax() {
	case protoreflect.Editions:
		n.line("edition = %s;", quoteProto(editionName(fd)))
	case protoreflect.Proto3:
		n.line(`syntax = "proto3";`)
	default:
		n.line(`syntax = "proto2";`)
	}
	if fd.Package() != "" {
		n.line("package %s;", fd.Package())
	}
	var imports []string
	for i := 0; i < fd.Imports().Len(); i++ {
		imp := fd.Imports().Get(i)
		prefix := ""
		if imp.IsPublic {
			prefix = "public "
		} else if imp.IsWeak {
			prefix = "weak "
		}
		imports = append(imports, "import "+prefix+quoteProto(imp.Path())+";")
	}
	slices.Sort(imports)
	for _, imp := range imports {
		n.line("%s", imp)
	}
	n.options(fd.Options(), false)
	n.body(fd.Messages(), fd.Enums(), fd.Extensions(), fd.Syntax())
	services := fd.Services()
	var svcs []protoreflect.ServiceDescriptor
	for i := 0; i < services.Len(); i++ {
		svcs = append(svcs, services.Get(i))
	}
	slices.SortFunc(svcs, func(a, b protoreflect.ServiceDescriptor) int { return cmp.Compare(a.Name(), b.Name()) })
	for _, s := range svcs {
		n.service(s)
	}
}

func editionName(fd protoreflect.FileDescriptor) string {
	type editioned interface{ Edition() int32 }
	if e, ok := fd.(editioned); ok {
		switch e.Edition() {
		case 1000:
			return "2023"
		case 1001:
			return "2024"
		default:
			return strconv.Itoa(int(e.Edition()))
		}
	}
	return "2023"
}

// body prints messages (declaration order), enums (by name) and
// extensions (by extendee, then number).
func (n *normPrinter) body(msgs protoreflect.MessageDescriptors, enums protoreflect.EnumDescriptors, exts protoreflect.ExtensionDescriptors, syntax protoreflect.Syntax) {
	for i := 0; i < msgs.Len(); i++ {
		m := msgs.Get(i)
		if m.IsMapEntry() || isGroupMessage(m) {
			continue
		}
		n.message(m, syntax)
	}
	var es []protoreflect.EnumDescriptor
	for i := 0; i < enums.Len(); i++ {
		es = append(es, enums.Get(i))
	}
	slices.SortFunc(es, func(a, b protoreflect.EnumDescriptor) int { return cmp.Compare(a.Name(), b.Name()) })
	for _, e := range es {
		n.enum(e)
	}
	var xs []protoreflect.ExtensionDescriptor
	for i := 0; i < exts.Len(); i++ {
		xs = append(xs, exts.Get(i))
	}
	slices.SortFunc(xs, func(a, b protoreflect.ExtensionDescriptor) int {
		if c := cmp.Compare(a.ContainingMessage().FullName(), b.ContainingMessage().FullName()); c != 0 {
			return c
		}
		return cmp.Compare(a.Number(), b.Number())
	})
	for i := 0; i < len(xs); {
		extendee := xs[i].ContainingMessage().FullName()
		n.line("extend .%s {", extendee)
		n.indent++
		for ; i < len(xs) && xs[i].ContainingMessage().FullName() == extendee; i++ {
			n.field(xs[i], syntax)
		}
		n.indent--
		n.line("}")
	}
}

// isGroupMessage reports whether m is the message of a proto2 group field
// (printed inside the field).
func isGroupMessage(m protoreflect.MessageDescriptor) bool {
	parent, ok := m.Parent().(protoreflect.MessageDescriptor)
	if !ok || m.ParentFile().Syntax() != protoreflect.Proto2 {
		return false
	}
	fields := parent.Fields()
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		if f.Kind() == protoreflect.GroupKind && f.Message() == m {
			return true
		}
	}
	return false
}

func (n *normPrinter) message(m protoreflect.MessageDescriptor, syntax protoreflect.Syntax) {
	n.line("message %s {", m.Name())
	n.indent++
	n.messageBody(m, syntax)
	n.indent--
	n.line("}")
}

func (n *normPrinter) messageBody(m protoreflect.MessageDescriptor, syntax protoreflect.Syntax) {
	n.options(m.Options(), false)
	fields := sortedFields(m.Fields())
	printedOneof := map[protoreflect.FullName]bool{}
	for _, f := range fields {
		if o := f.ContainingOneof(); o != nil && !o.IsSynthetic() {
			if printedOneof[o.FullName()] {
				continue
			}
			printedOneof[o.FullName()] = true
			n.line("oneof %s {", o.Name())
			n.indent++
			n.options(o.Options(), false)
			for _, of := range sortedFields(o.Fields()) {
				n.field(of, syntax)
			}
			n.indent--
			n.line("}")
			continue
		}
		n.field(f, syntax)
	}
	ranges := m.ExtensionRanges()
	var ers [][2]protoreflect.FieldNumber
	for i := 0; i < ranges.Len(); i++ {
		r := ranges.Get(i)
		ers = append(ers, [2]protoreflect.FieldNumber{r[0], r[1]})
	}
	type extRange struct {
		r    [2]protoreflect.FieldNumber
		opts string
	}
	var exts []extRange
	for i, r := range ers {
		exts = append(exts, extRange{r: r, opts: n.compactOptions(m.ExtensionRangeOptions(i), nil)})
	}
	slices.SortFunc(exts, func(a, b extRange) int { return cmp.Compare(a.r[0], b.r[0]) })
	for _, e := range exts {
		n.line("extensions %s%s;", rangeText(int64(e.r[0]), int64(e.r[1])-1, int64(maxFieldNumber)), e.opts)
	}
	var reserved [][2]int64
	rr := m.ReservedRanges()
	for i := 0; i < rr.Len(); i++ {
		r := rr.Get(i)
		reserved = append(reserved, [2]int64{int64(r[0]), int64(r[1]) - 1})
	}
	n.reserved(reserved, m.ReservedNames(), int64(maxFieldNumber), syntax)
	n.body(m.Messages(), m.Enums(), m.Extensions(), syntax)
}

func sortedFields(fs protoreflect.FieldDescriptors) []protoreflect.FieldDescriptor {
	out := make([]protoreflect.FieldDescriptor, 0, fs.Len())
	for i := 0; i < fs.Len(); i++ {
		out = append(out, fs.Get(i))
	}
	slices.SortFunc(out, func(a, b protoreflect.FieldDescriptor) int { return cmp.Compare(a.Number(), b.Number()) })
	return out
}

// reserved prints merged, sorted reserved ranges (inclusive ends) and
// sorted names.
func (n *normPrinter) reserved(ranges [][2]int64, names protoreflect.Names, max int64, syntax protoreflect.Syntax) {
	slices.SortFunc(ranges, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	var merged [][2]int64
	for _, r := range ranges {
		if len(merged) > 0 && r[0] <= merged[len(merged)-1][1]+1 {
			merged[len(merged)-1][1] = max64(merged[len(merged)-1][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	if len(merged) > 0 {
		parts := make([]string, len(merged))
		for i, r := range merged {
			parts[i] = rangeText(r[0], r[1], max)
		}
		n.line("reserved %s;", strings.Join(parts, ", "))
	}
	if names.Len() > 0 {
		var ns []string
		for i := 0; i < names.Len(); i++ {
			if syntax == protoreflect.Editions {
				ns = append(ns, string(names.Get(i)))
			} else {
				ns = append(ns, quoteProto(string(names.Get(i))))
			}
		}
		slices.Sort(ns)
		n.line("reserved %s;", strings.Join(ns, ", "))
	}
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

func rangeText(start, end, max int64) string {
	switch {
	case start == end:
		return strconv.FormatInt(start, 10)
	case end == max:
		return strconv.FormatInt(start, 10) + " to max"
	default:
		return strconv.FormatInt(start, 10) + " to " + strconv.FormatInt(end, 10)
	}
}

func (n *normPrinter) field(f protoreflect.FieldDescriptor, syntax protoreflect.Syntax) {
	label := ""
	switch {
	case f.IsMap():
	case f.IsList():
		label = "repeated "
	case syntax == protoreflect.Proto2 && f.Cardinality() == protoreflect.Required:
		label = "required "
	case syntax == protoreflect.Proto2 && f.ContainingOneof() == nil:
		label = "optional "
	case syntax == protoreflect.Proto3 && f.HasOptionalKeyword():
		label = "optional "
	}
	name := string(f.Name())
	var extra []string
	if f.HasDefault() {
		extra = append(extra, "default = "+defaultText(f))
	}
	if !f.IsExtension() && f.JSONName() != jsonCamelCase(string(f.Name())) {
		extra = append(extra, "json_name = "+quoteProto(f.JSONName()))
	}
	opts := n.compactOptions(f.Options(), extra)
	if f.Kind() == protoreflect.GroupKind && syntax == protoreflect.Proto2 && !f.IsExtension() {
		n.line("%sgroup %s = %d%s {", label, f.Message().Name(), f.Number(), opts)
		n.indent++
		n.messageBody(f.Message(), syntax)
		n.indent--
		n.line("}")
		return
	}
	n.line("%s%s %s = %d%s;", label, typeText(f), name, f.Number(), opts)
}

// typeText is the field's type as written in normalized text.
func typeText(f protoreflect.FieldDescriptor) string {
	if f.IsMap() {
		return "map<" + typeText(f.MapKey()) + ", " + typeText(f.MapValue()) + ">"
	}
	switch f.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return "." + string(f.Message().FullName())
	case protoreflect.EnumKind:
		return "." + string(f.Enum().FullName())
	}
	return f.Kind().String()
}

func defaultText(f protoreflect.FieldDescriptor) string {
	v := f.Default()
	switch f.Kind() {
	case protoreflect.EnumKind:
		if ev := f.DefaultEnumValue(); ev != nil {
			return string(ev.Name())
		}
		return strconv.Itoa(int(v.Enum()))
	case protoreflect.StringKind:
		return quoteProto(v.String())
	case protoreflect.BytesKind:
		return quoteProto(string(v.Bytes()))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return formatFloat(v.Float())
	}
	return fmt.Sprint(v.Interface())
}

// jsonCamelCase is protoc's default json_name: underscores removed and the
// letter after each one upper-cased.
func jsonCamelCase(s string) string {
	var b strings.Builder
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_':
			upper = true
		case upper && 'a' <= c && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
			upper = false
		default:
			b.WriteByte(c)
			upper = false
		}
	}
	return b.String()
}

func (n *normPrinter) enum(e protoreflect.EnumDescriptor) {
	n.line("enum %s {", e.Name())
	n.indent++
	n.options(e.Options(), false)
	vals := e.Values()
	var vs []protoreflect.EnumValueDescriptor
	for i := 0; i < vals.Len(); i++ {
		vs = append(vs, vals.Get(i))
	}
	// The first value stays first: it is the default (proto2) and must be
	// zero (proto3); the others are sorted by number.
	if len(vs) > 1 {
		slices.SortStableFunc(vs[1:], func(a, b protoreflect.EnumValueDescriptor) int { return cmp.Compare(a.Number(), b.Number()) })
	}
	for _, v := range vs {
		n.line("%s = %d%s;", v.Name(), v.Number(), n.compactOptions(v.Options(), nil))
	}
	var reserved [][2]int64
	rr := e.ReservedRanges()
	for i := 0; i < rr.Len(); i++ {
		r := rr.Get(i)
		reserved = append(reserved, [2]int64{int64(r[0]), int64(r[1])})
	}
	n.reserved(reserved, e.ReservedNames(), 2147483647, e.ParentFile().Syntax())
	n.indent--
	n.line("}")
}

func (n *normPrinter) service(s protoreflect.ServiceDescriptor) {
	n.line("service %s {", s.Name())
	n.indent++
	n.options(s.Options(), false)
	methods := s.Methods()
	var ms []protoreflect.MethodDescriptor
	for i := 0; i < methods.Len(); i++ {
		ms = append(ms, methods.Get(i))
	}
	slices.SortFunc(ms, func(a, b protoreflect.MethodDescriptor) int { return cmp.Compare(a.Name(), b.Name()) })
	for _, m := range ms {
		in, out := "", ""
		if m.IsStreamingClient() {
			in = "stream "
		}
		if m.IsStreamingServer() {
			out = "stream "
		}
		head := fmt.Sprintf("rpc %s(%s.%s) returns (%s.%s)", m.Name(), in, m.Input().FullName(), out, m.Output().FullName())
		opts := n.optionList(m.Options())
		if len(opts) == 0 {
			n.line("%s;", head)
			continue
		}
		n.line("%s {", head)
		n.indent++
		for _, o := range opts {
			n.line("option %s;", o)
		}
		n.indent--
		n.line("}")
	}
	n.indent--
	n.line("}")
}

// options prints each set option as an `option name = value;` line,
// sorted.
func (n *normPrinter) options(opts proto.Message, _ bool) {
	for _, o := range n.optionList(opts) {
		n.line("option %s;", o)
	}
}

// compactOptions returns ` [a = 1, b = 2]` for extra pseudo-options and the
// set options, or "".
func (n *normPrinter) compactOptions(opts proto.Message, extra []string) string {
	all := append(extra, n.optionList(opts)...)
	if len(all) == 0 {
		return ""
	}
	slices.Sort(all)
	return " [" + strings.Join(all, ", ") + "]"
}

// optionList returns "name = value" for each set option, sorted. Custom
// options are read through the file's resolver so that extensions print
// by name; repeated options give one entry per element.
func (n *normPrinter) optionList(opts proto.Message) []string {
	if opts == nil || !opts.ProtoReflect().IsValid() {
		return nil
	}
	b, err := proto.MarshalOptions{AllowPartial: true, Deterministic: true}.Marshal(opts)
	if err != nil {
		n.fail(fmt.Errorf("options: %w", err))
		return nil
	}
	if len(b) == 0 {
		return nil
	}
	msg := dynamicpb.NewMessage(opts.ProtoReflect().Descriptor())
	if err := (proto.UnmarshalOptions{AllowPartial: true, Resolver: n.res}).Unmarshal(b, msg); err != nil {
		n.fail(fmt.Errorf("options: %w", err))
		return nil
	}
	var out []string
	msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := string(fd.Name())
		if fd.IsExtension() {
			name = "(" + string(fd.FullName()) + ")"
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				out = append(out, name+" = "+valueText(fd, l.Get(i), n.indent))
			}
			return true
		}
		out = append(out, name+" = "+valueText(fd, v, n.indent))
		return true
	})
	if unknown := msg.GetUnknown(); len(unknown) > 0 {
		n.fail(fmt.Errorf("options of %s have %d bytes of unresolved custom options", opts.ProtoReflect().Descriptor().Name(), len(unknown)))
	}
	slices.Sort(out)
	return out
}

func (n *normPrinter) fail(err error) {
	if n.err == nil {
		n.err = err
	}
}

// valueText formats one option value: scalars as .proto literals, enums
// by name, messages in text format with fields in number order.
func valueText(fd protoreflect.FieldDescriptor, v protoreflect.Value, indent int) string {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return messageText(v.Message(), indent)
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return strconv.Itoa(int(v.Enum()))
	case protoreflect.StringKind:
		return quoteProto(v.String())
	case protoreflect.BytesKind:
		return quoteProto(string(v.Bytes()))
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return formatFloat(v.Float())
	}
	return fmt.Sprint(v.Interface())
}

func messageText(m protoreflect.Message, indent int) string {
	type entry struct {
		num  protoreflect.FieldNumber
		text string
	}
	var entries []entry
	pad := strings.Repeat("  ", indent+1)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := string(fd.Name())
		if fd.IsExtension() {
			name = "[" + string(fd.FullName()) + "]"
		} else if fd.Kind() == protoreflect.GroupKind {
			name = string(fd.Message().Name())
		}
		switch {
		case fd.IsMap():
			// Map fields print as repeated entries, keys in order.
			var keys []protoreflect.MapKey
			v.Map().Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
				keys = append(keys, k)
				return true
			})
			slices.SortFunc(keys, func(a, b protoreflect.MapKey) int {
				return cmp.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
			})
			for _, k := range keys {
				text := pad + name + ": {\n" + pad + "  key: " + valueText(fd.MapKey(), k.Value(), 0) +
					"\n" + pad + "  value: " + valueText(fd.MapValue(), v.Map().Get(k), indent+2) + "\n" + pad + "}"
				entries = append(entries, entry{fd.Number(), text})
			}
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				entries = append(entries, entry{fd.Number(), pad + name + ": " + valueText(fd, l.Get(i), indent+1)})
			}
		default:
			entries = append(entries, entry{fd.Number(), pad + name + ": " + valueText(fd, v, indent+1)})
		}
		return true
	})
	slices.SortStableFunc(entries, func(a, b entry) int { return cmp.Compare(a.num, b.num) })
	if len(entries) == 0 {
		return "{}"
	}
	var b strings.Builder
	b.WriteString("{\n")
	for _, e := range entries {
		b.WriteString(e.text)
		b.WriteByte('\n')
	}
	b.WriteString(strings.Repeat("  ", indent) + "}")
	return b.String()
}

// maxFieldNumber is the largest valid field number (2^29-1), written "max"
// in ranges.
const maxFieldNumber = 536870911

package protobuf_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat/protobuf"
)

// The buf cross-check mutates a seed file in many small ways, runs
// `buf breaking --against` (WIRE and WIRE_JSON) on every (previous,
// current) pair and compares buf's verdict with Charter's CheckRead(current,
// previous) under ProfileWire and ProfileWireJSON. It needs buf v1.75.0 on
// PATH (go install github.com/bufbuild/buf/cmd/buf@v1.75.0) and is not part
// of CI.

type mField struct {
	label, typ, name string
	num              int
	oneof            string
	opts             string
}

type mMessage struct {
	name     string
	fields   []mField
	reserved []string
	nested   []mMessage
}

type mEnum struct {
	name     string
	values   []string // "NAME = N"
	reserved []string
}

type mFile struct {
	syntax, pkg string
	messages    []mMessage
	enums       []mEnum
}

func (f mFile) clone() mFile {
	b, _ := json.Marshal(f.export())
	var e exportFile
	_ = json.Unmarshal(b, &e)
	return e.file()
}

// exportFile mirrors mFile with exported fields, for deep copies.
type exportFile struct {
	Syntax, Pkg string
	Messages    []exportMessage
	Enums       []exportEnum
}
type exportMessage struct {
	Name     string
	Fields   []exportField
	Reserved []string
	Nested   []exportMessage
}
type exportField struct {
	Label, Typ, Name string
	Num              int
	Oneof, Opts      string
}
type exportEnum struct {
	Name             string
	Values, Reserved []string
}

func (f mFile) export() exportFile {
	e := exportFile{Syntax: f.syntax, Pkg: f.pkg}
	var msg func(m mMessage) exportMessage
	msg = func(m mMessage) exportMessage {
		em := exportMessage{Name: m.name, Reserved: m.reserved}
		for _, fl := range m.fields {
			em.Fields = append(em.Fields, exportField{fl.label, fl.typ, fl.name, fl.num, fl.oneof, fl.opts})
		}
		for _, n := range m.nested {
			em.Nested = append(em.Nested, msg(n))
		}
		return em
	}
	for _, m := range f.messages {
		e.Messages = append(e.Messages, msg(m))
	}
	for _, en := range f.enums {
		e.Enums = append(e.Enums, exportEnum{en.name, en.values, en.reserved})
	}
	return e
}

func (e exportFile) file() mFile {
	f := mFile{syntax: e.Syntax, pkg: e.Pkg}
	var msg func(m exportMessage) mMessage
	msg = func(m exportMessage) mMessage {
		mm := mMessage{name: m.Name, reserved: m.Reserved}
		for _, fl := range m.Fields {
			mm.fields = append(mm.fields, mField{fl.Label, fl.Typ, fl.Name, fl.Num, fl.Oneof, fl.Opts})
		}
		for _, n := range m.Nested {
			mm.nested = append(mm.nested, msg(n))
		}
		return mm
	}
	for _, m := range e.Messages {
		f.messages = append(f.messages, msg(m))
	}
	for _, en := range e.Enums {
		f.enums = append(f.enums, mEnum{en.Name, en.Values, en.Reserved})
	}
	return f
}

func (f mFile) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "syntax = %q;\npackage %s;\n\n", f.syntax, f.pkg)
	var msg func(m mMessage, indent string)
	msg = func(m mMessage, indent string) {
		fmt.Fprintf(&b, "%smessage %s {\n", indent, m.name)
		oneofs := map[string][]mField{}
		var oneofOrder []string
		for _, fl := range m.fields {
			if fl.oneof != "" {
				if _, ok := oneofs[fl.oneof]; !ok {
					oneofOrder = append(oneofOrder, fl.oneof)
				}
				oneofs[fl.oneof] = append(oneofs[fl.oneof], fl)
				continue
			}
			b.WriteString(fieldLine(fl, indent+"  "))
		}
		for _, o := range oneofOrder {
			fmt.Fprintf(&b, "%s  oneof %s {\n", indent, o)
			for _, fl := range oneofs[o] {
				fl.label = ""
				b.WriteString(fieldLine(fl, indent+"    "))
			}
			fmt.Fprintf(&b, "%s  }\n", indent)
		}
		for _, r := range m.reserved {
			fmt.Fprintf(&b, "%s  reserved %s;\n", indent, r)
		}
		for _, n := range m.nested {
			msg(n, indent+"  ")
		}
		fmt.Fprintf(&b, "%s}\n", indent)
	}
	for _, m := range f.messages {
		msg(m, "")
	}
	for _, e := range f.enums {
		fmt.Fprintf(&b, "enum %s {\n", e.name)
		for _, v := range e.values {
			fmt.Fprintf(&b, "  %s;\n", v)
		}
		for _, r := range e.reserved {
			fmt.Fprintf(&b, "  reserved %s;\n", r)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

func fieldLine(fl mField, indent string) string {
	label := ""
	if fl.label != "" {
		label = fl.label + " "
	}
	opts := ""
	if fl.opts != "" {
		opts = " [" + fl.opts + "]"
	}
	return fmt.Sprintf("%s%s%s %s = %d%s;\n", indent, label, fl.typ, fl.name, fl.num, opts)
}

func seed3() mFile {
	return mFile{syntax: "proto3", pkg: "shop", messages: []mMessage{
		{name: "Order", fields: []mField{
			{typ: "string", name: "id", num: 1},
			{typ: "int32", name: "qty", num: 2},
			{typ: "sint64", name: "delta", num: 3},
			{typ: "fixed32", name: "crc", num: 4},
			{typ: "double", name: "price", num: 5},
			{typ: "bytes", name: "blob", num: 6},
			{typ: "Status", name: "status", num: 7},
			{typ: "Customer", name: "customer", num: 8},
			{label: "repeated", typ: "string", name: "notes", num: 9},
			{label: "repeated", typ: "int64", name: "codes", num: 10},
			{typ: "map<string, int32>", name: "counts", num: 11},
			{typ: "string", name: "card", num: 12, oneof: "payment"},
			{typ: "string", name: "iban", num: 13, oneof: "payment"},
			{label: "optional", typ: "bool", name: "gift", num: 14},
			{typ: "uint64", name: "ts", num: 15},
		}, reserved: []string{"20 to 22", `"legacy"`}, nested: []mMessage{
			{name: "Line", fields: []mField{{typ: "string", name: "sku", num: 1}, {typ: "int32", name: "n", num: 2}}},
		}},
		{name: "Customer", fields: []mField{
			{typ: "string", name: "email", num: 1},
			{typ: "string", name: "full_name", num: 2},
		}},
		{name: "Address", fields: []mField{{typ: "string", name: "city", num: 1}}},
	}, enums: []mEnum{
		{name: "Status", values: []string{"STATUS_UNSPECIFIED = 0", "STATUS_OPEN = 1", "STATUS_DONE = 2"}, reserved: []string{"5", `"STATUS_OLD"`}},
		{name: "Kind", values: []string{"KIND_UNSPECIFIED = 0", "KIND_A = 1"}},
	}}
}

func seed2() mFile {
	return mFile{syntax: "proto2", pkg: "legacy", messages: []mMessage{
		{name: "Item", fields: []mField{
			{label: "required", typ: "string", name: "id", num: 1},
			{label: "optional", typ: "int32", name: "qty", num: 2, opts: "default = 1"},
			{label: "optional", typ: "string", name: "currency", num: 3, opts: `default = "EUR"`},
			{label: "repeated", typ: "int32", name: "sizes", num: 4},
			{label: "optional", typ: "Color", name: "color", num: 5},
		}},
	}, enums: []mEnum{{name: "Color", values: []string{"RED = 0", "GREEN = 1", "BLUE = 2"}}}}
}

type mutation struct {
	name string
	f    func(f *mFile)
}

func field(f *mFile, msg, name string) *mField {
	for i := range f.messages {
		if f.messages[i].name == msg {
			for j := range f.messages[i].fields {
				if f.messages[i].fields[j].name == name {
					return &f.messages[i].fields[j]
				}
			}
		}
	}
	panic("no field " + msg + "." + name)
}

func deleteField(f *mFile, msg, name string) {
	for i := range f.messages {
		if f.messages[i].name == msg {
			fs := f.messages[i].fields
			for j := range fs {
				if fs[j].name == name {
					f.messages[i].fields = append(fs[:j:j], fs[j+1:]...)
					return
				}
			}
		}
	}
	panic("no field " + msg + "." + name)
}

func message(f *mFile, name string) *mMessage {
	for i := range f.messages {
		if f.messages[i].name == name {
			return &f.messages[i]
		}
	}
	panic("no message " + name)
}

// mutations3 returns the mutations of the proto3 seed.
func mutations3() []mutation {
	var ms []mutation
	scalars := []string{"int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool", "fixed32", "sfixed32",
		"fixed64", "sfixed64", "float", "double", "string", "bytes", "Status", "Kind", "Customer", "Address"}
	for _, fname := range []string{"qty", "delta", "crc", "blob", "ts"} {
		for _, typ := range scalars {
			ms = append(ms, mutation{fmt.Sprintf("type_%s_%s", fname, typ), func(f *mFile) { field(f, "Order", fname).typ = typ }})
		}
	}
	for _, typ := range []string{"Address", "bytes", "string", "Order.Line"} {
		ms = append(ms, mutation{"type_customer_" + typ, func(f *mFile) { field(f, "Order", "customer").typ = typ }})
	}
	for _, typ := range []string{"Kind", "int32", "uint64", "sint32"} {
		ms = append(ms, mutation{"type_status_" + typ, func(f *mFile) { field(f, "Order", "status").typ = typ }})
	}
	for _, typ := range []string{"map<string, int64>", "map<int32, int32>", "map<string, string>", "map<string, Customer>"} {
		ms = append(ms, mutation{"type_counts_" + typ, func(f *mFile) { field(f, "Order", "counts").typ = typ }})
	}
	for _, fname := range []string{"id", "qty", "customer", "status", "gift"} {
		ms = append(ms,
			mutation{"repeated_" + fname, func(f *mFile) { field(f, "Order", fname).label = "repeated" }},
			mutation{"optional_" + fname, func(f *mFile) { field(f, "Order", fname).label = "optional" }},
			mutation{"plain_" + fname, func(f *mFile) { field(f, "Order", fname).label = "" }},
		)
	}
	ms = append(ms,
		mutation{"singular_notes", func(f *mFile) { field(f, "Order", "notes").label = "" }},
		mutation{"singular_codes", func(f *mFile) { field(f, "Order", "codes").label = "" }},
		mutation{"map_to_repeated", func(f *mFile) {
			fl := field(f, "Order", "counts")
			fl.label, fl.typ = "repeated", "CountsEntry"
			m := message(f, "Order")
			m.nested = append(m.nested, mMessage{name: "CountsEntry", fields: []mField{{typ: "string", name: "key", num: 1}, {typ: "int32", name: "value", num: 2}}})
		}},
	)
	for _, fname := range []string{"id", "qty", "customer", "card", "iban", "gift", "notes"} {
		ms = append(ms,
			mutation{"delete_" + fname, func(f *mFile) { deleteField(f, "Order", fname) }},
			mutation{"delete_reserve_number_" + fname, func(f *mFile) {
				n := field(f, "Order", fname).num
				deleteField(f, "Order", fname)
				m := message(f, "Order")
				m.reserved = append(m.reserved, fmt.Sprint(n))
			}},
			mutation{"delete_reserve_both_" + fname, func(f *mFile) {
				n := field(f, "Order", fname).num
				deleteField(f, "Order", fname)
				m := message(f, "Order")
				m.reserved = append(m.reserved, fmt.Sprint(n), fmt.Sprintf("%q", fname))
			}},
			mutation{"rename_" + fname, func(f *mFile) { field(f, "Order", fname).name = fname + "_v2" }},
			mutation{"renumber_" + fname, func(f *mFile) { field(f, "Order", fname).num = 30 }},
			mutation{"json_name_" + fname, func(f *mFile) { field(f, "Order", fname).opts = `json_name = "x` + fname + `"` }},
		)
	}
	ms = append(ms,
		mutation{"rename_full_name_camel", func(f *mFile) { field(f, "Customer", "full_name").name = "fullName" }},
		mutation{"reuse_reserved_number", func(f *mFile) {
			m := message(f, "Order")
			m.reserved = []string{`"legacy"`}
			m.fields = append(m.fields, mField{typ: "string", name: "back", num: 21})
		}},
		mutation{"drop_reserved_name", func(f *mFile) { message(f, "Order").reserved = []string{"20 to 22"} }},
		mutation{"shrink_reserved_range", func(f *mFile) { message(f, "Order").reserved = []string{"20 to 21", `"legacy"`} }},
		mutation{"package", func(f *mFile) { f.pkg = "shop.v2" }},
		mutation{"delete_message_address", func(f *mFile) { f.messages = f.messages[:2] }},
		mutation{"rename_message_address", func(f *mFile) { f.messages[2].name = "Location" }},
		mutation{"rename_message_customer", func(f *mFile) {
			f.messages[1].name = "Buyer"
			field(f, "Order", "customer").typ = "Buyer"
		}},
		mutation{"reorder_messages", func(f *mFile) { f.messages[1], f.messages[2] = f.messages[2], f.messages[1] }},
		mutation{"add_field", func(f *mFile) {
			m := message(f, "Order")
			m.fields = append(m.fields, mField{typ: "string", name: "extra", num: 16})
		}},
		mutation{"nested_type_change", func(f *mFile) { f.messages[0].nested[0].fields[1].typ = "string" }},
		mutation{"nested_delete", func(f *mFile) { f.messages[0].nested = nil }},
		mutation{"qty_into_new_oneof", func(f *mFile) { field(f, "Order", "qty").oneof = "amount" }},
		mutation{"two_into_new_oneof", func(f *mFile) {
			field(f, "Order", "qty").oneof = "amount"
			field(f, "Order", "delta").oneof = "amount"
		}},
		mutation{"qty_into_payment", func(f *mFile) { field(f, "Order", "qty").oneof = "payment" }},
		mutation{"iban_out_of_oneof", func(f *mFile) { field(f, "Order", "iban").oneof = "" }},
		mutation{"rename_oneof", func(f *mFile) {
			field(f, "Order", "card").oneof = "pay"
			field(f, "Order", "iban").oneof = "pay"
		}},
		mutation{"dissolve_oneof", func(f *mFile) {
			field(f, "Order", "card").oneof = ""
			field(f, "Order", "iban").oneof = ""
		}},
		mutation{"delete_enum_value", func(f *mFile) { f.enums[0].values = f.enums[0].values[:2] }},
		mutation{"delete_enum_value_reserved", func(f *mFile) {
			f.enums[0].values = f.enums[0].values[:2]
			f.enums[0].reserved = append(f.enums[0].reserved, "2", `"STATUS_DONE"`)
		}},
		mutation{"rename_enum_value", func(f *mFile) { f.enums[0].values[2] = "STATUS_FINISHED = 2" }},
		mutation{"renumber_enum_value", func(f *mFile) { f.enums[0].values[2] = "STATUS_DONE = 3" }},
		mutation{"add_enum_value", func(f *mFile) { f.enums[0].values = append(f.enums[0].values, "STATUS_NEW = 3") }},
		mutation{"drop_enum_reserved", func(f *mFile) { f.enums[0].reserved = nil }},
		mutation{"delete_enum_kind", func(f *mFile) { f.enums = f.enums[:1] }},
	)
	return ms
}

func mutations2() []mutation {
	return []mutation{
		{"p2_required_to_optional", func(f *mFile) { field(f, "Item", "id").label = "optional" }},
		{"p2_optional_to_required", func(f *mFile) { field(f, "Item", "qty").label = "required" }},
		{"p2_delete_required", func(f *mFile) { deleteField(f, "Item", "id") }},
		{"p2_add_required", func(f *mFile) {
			message(f, "Item").fields = append(message(f, "Item").fields, mField{label: "required", typ: "int64", name: "ts", num: 9})
		}},
		{"p2_default_changed", func(f *mFile) { field(f, "Item", "qty").opts = "default = 2" }},
		{"p2_default_removed", func(f *mFile) { field(f, "Item", "currency").opts = "" }},
		{"p2_default_enum", func(f *mFile) { field(f, "Item", "color").opts = "default = BLUE" }},
		{"p2_sizes_singular", func(f *mFile) { field(f, "Item", "sizes").label = "optional" }},
		{"p2_sizes_packed", func(f *mFile) { field(f, "Item", "sizes").opts = "packed = true" }},
		{"p2_qty_int64", func(f *mFile) { field(f, "Item", "qty").typ = "int64" }},
		{"p2_delete_color_value", func(f *mFile) { f.enums[0].values = f.enums[0].values[:2] }},
	}
}

type crossPair struct {
	name       string
	prev, curr string
}

// crossPairs builds every (previous, current) pair: each mutation applied
// to the seed, in both directions.
func crossPairs() []crossPair {
	var pairs []crossPair
	add := func(seed mFile, ms []mutation) {
		base := seed.text()
		for _, m := range ms {
			mut := seed.clone()
			m.f(&mut)
			text := mut.text()
			if text == base {
				continue
			}
			pairs = append(pairs, crossPair{m.name + "+fwd", base, text}, crossPair{m.name + "+rev", text, base})
		}
	}
	add(seed3(), mutations3())
	add(seed2(), mutations2())
	return pairs
}

// TestMutatedPairsParse keeps the generator honest in every run: each
// mutant must be a valid .proto file.
func TestMutatedPairsParse(t *testing.T) {
	pairs := crossPairs()
	if len(pairs) < 200 {
		t.Fatalf("%d mutated pairs, want at least 200", len(pairs))
	}
	for _, p := range pairs {
		for _, text := range []string{p.prev, p.curr} {
			if _, err := protobuf.Parse(text, nil); err != nil {
				t.Errorf("%s: %v\n%s", p.name, err, text)
			}
		}
	}
}

// TestBufCrossCheck compares Charter with buf on every mutated pair. All
// pairs go into one module per side (one file and one package per pair, so
// that buf pairs elements only within a pair), and buf runs once per
// category.
func TestBufCrossCheck(t *testing.T) {
	if os.Getenv("CI") == "true" {
		t.Skip("the buf cross-check is not part of CI")
	}
	bufBin, err := exec.LookPath("buf")
	if err != nil {
		t.Skip("buf is not on PATH; install it with go install github.com/bufbuild/buf/cmd/buf@v1.75.0")
	}
	pairs := crossPairs()
	root := t.TempDir()
	prevDir, currDir := filepath.Join(root, "prev"), filepath.Join(root, "curr")
	files := make([]string, len(pairs))
	for i, p := range pairs {
		files[i] = fmt.Sprintf("p%03d.proto", i)
		for _, side := range []struct{ dir, text string }{{prevDir, p.prev}, {currDir, p.curr}} {
			text := renamePackage(side.text, i)
			if err := os.MkdirAll(side.dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(side.dir, files[i]), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	charterToBuf := map[string]string{}
	for b, cs := range bufToCharter {
		for _, c := range cs {
			charterToBuf[c] = b
		}
	}
	total, agree, breaking, sameRules, registryAgree := 0, 0, 0, 0, 0
	var registryDiff []string
	var disagreements []string
	for _, cat := range []struct {
		name    string
		profile protobuf.Profile
	}{{"WIRE", protobuf.ProfileWire}, {"WIRE_JSON", protobuf.ProfileWireJSON}} {
		config := "version: v2\nbreaking:\n  use:\n    - " + cat.name + "\n"
		for _, dir := range []string{prevDir, currDir} {
			if err := os.WriteFile(filepath.Join(dir, "buf.yaml"), []byte(config), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(bufBin, "breaking", "curr", "--against", "prev", "--error-format", "json")
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil && cmd.ProcessState.ExitCode() != 100 {
			t.Fatalf("buf breaking (%s): %v\n%s", cat.name, err, out)
		}
		bufRules := map[string][]string{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if line == "" {
				continue
			}
			var a struct {
				Path string `json:"path"`
				Type string `json:"type"`
			}
			if err := json.Unmarshal([]byte(line), &a); err != nil {
				t.Fatalf("buf output %q: %v", line, err)
			}
			if strings.HasPrefix(a.Type, "RPC_") {
				continue
			}
			bufRules[filepath.Base(a.Path)] = append(bufRules[filepath.Base(a.Path)], a.Type)
		}
		for i, p := range pairs {
			reader, err := protobuf.Parse(renamePackage(p.curr, i), nil)
			if err != nil {
				t.Fatal(err)
			}
			writer, err := protobuf.Parse(renamePackage(p.prev, i), nil)
			if err != nil {
				t.Fatal(err)
			}
			got := protobuf.Format{Profile: cat.profile}.CheckRead(reader, writer)
			bufBreaks, ourBreaks := len(bufRules[files[i]]) > 0, len(got) > 0
			total++
			if bufBreaks {
				breaking++
			}
			var mapped []string
			for _, v := range got {
				mapped = append(mapped, charterToBuf[v.RuleID])
			}
			if slices.Equal(sortedSet(mapped), sortedSet(bufRules[files[i]])) {
				sameRules++
			}
			if cat.name == "WIRE" {
				reg := len(protobuf.Format{}.CheckRead(reader, writer)) > 0
				if reg == bufBreaks {
					registryAgree++
				} else {
					registryDiff = append(registryDiff, fmt.Sprintf("%s (buf breaking=%v)", p.name, bufBreaks))
				}
			}
			if bufBreaks == ourBreaks {
				agree++
				continue
			}
			disagreements = append(disagreements, fmt.Sprintf("%s %s: buf %v, Charter %v", cat.name, p.name, sortedSet(bufRules[files[i]]), got))
		}
	}
	sort.Strings(disagreements)
	t.Logf("buf cross-check: %d pairs x 2 categories (WIRE, WIRE_JSON), buf breaking in %d; verdicts agree in %d/%d (%.1f%%); same rule set in %d/%d",
		len(pairs), breaking, agree, total, 100*float64(agree)/float64(total), sameRules, total)
	t.Logf("default profile (Confluent verdicts) vs buf WIRE: %d/%d agree; differing pairs: %s",
		registryAgree, len(pairs), strings.Join(registryDiff, ", "))
	// ProfileWire and ProfileWireJSON reproduce buf; the default profile's
	// deliberate differences are pinned in testdata/bufdiff.
	for _, d := range disagreements {
		t.Errorf("ProfileWire/ProfileWireJSON disagree with buf: %s", d)
	}
}

// renamePackage gives pair i its own package so that buf, which pairs
// elements by full name across a module, compares files pairwise.
func renamePackage(text string, i int) string {
	lines := strings.Split(text, "\n")
	for j, l := range lines {
		if strings.HasPrefix(l, "package ") {
			lines[j] = fmt.Sprintf("package pair%03d.%s", i, strings.TrimPrefix(l, "package "))
		}
	}
	return strings.Join(lines, "\n")
}

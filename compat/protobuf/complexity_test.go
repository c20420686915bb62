package protobuf_test

// Families of schema pairs whose comparison could grow faster than the
// schemas (the JSON Schema engine's fresh-user report F1/F2, checked here
// for Protobuf): message types shared by many fields (a DAG of messages,
// in the file or in an import), deep nesting, and wide oneofs, enums and
// reserved lists. Tests check verdicts and finding counts; the benchmarks
// print the time per size.

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
)

// chainedMessages returns messages M0…Mn: M0 has field x (int32, or string
// when changed), and every M(i) has fields a, b and c of type M(i-1), so
// 3^n field paths reach M0. The root message Root holds one Mn.
func chainedMessages(pkg string, n int, changed bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "syntax = \"proto3\";\npackage %s;\n\nmessage Root {\n  M%d top = 1;\n}\n\n", pkg, n)
	typ := "int32"
	if changed {
		typ = "string"
	}
	fmt.Fprintf(&b, "message M0 {\n  %s x = 1;\n}\n", typ)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "message M%d {\n  M%d a = 1;\n  M%d b = 2;\n  M%d c = 3;\n}\n", i, i-1, i-1, i-1)
	}
	return b.String()
}

// importingRoot is a file whose message Root holds the top of the chain
// defined in the import "chain.proto".
func importingRoot(n int) string {
	return fmt.Sprintf("syntax = \"proto3\";\npackage app;\nimport \"chain.proto\";\n\nmessage Root {\n  lib.M%d top = 1;\n}\n", n)
}

// nestedMessages returns messages nested depth levels deep (L1 inside
// Outer, L2 inside L1, …), each holding a field of the next level; the
// innermost has field x (int32, or string when changed).
func nestedMessages(depth int, changed bool) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage deep;\n\nmessage Outer {\n")
	for i := 1; i <= depth; i++ {
		fmt.Fprintf(&b, "%smessage L%d {\n", strings.Repeat("  ", i), i)
	}
	typ := "int32"
	if changed {
		typ = "string"
	}
	fmt.Fprintf(&b, "%s%s x = 1;\n", strings.Repeat("  ", depth+1), typ)
	for i := depth; i >= 1; i-- {
		fmt.Fprintf(&b, "%s}\n", strings.Repeat("  ", i))
		if i > 1 {
			fmt.Fprintf(&b, "%sL%d next = 1;\n", strings.Repeat("  ", i), i)
		}
	}
	b.WriteString("  L1 first = 1;\n}\n")
	return b.String()
}

// wideOneof returns a message with a oneof of k string fields; with kept,
// only the last member survives (all others deleted without reservation).
func wideOneof(k int, kept bool) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage wide;\n\nmessage Choice {\n  oneof pick {\n")
	for i := 1; i <= k; i++ {
		if !kept || i == k {
			fmt.Fprintf(&b, "    string f%d = %d;\n", i, i)
		}
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

// wideReserved returns a message and an enum that each reserve k single
// numbers (1, 3, 5, …; 0, 2, 4, … for the enum); with dropped, the last
// one of each is no longer reserved.
func wideReserved(k int, dropped bool) string {
	var msg, enum []string
	for i := 0; i < k; i++ {
		if dropped && i == k-1 {
			break
		}
		msg = append(msg, fmt.Sprint(2*i+1))
		enum = append(enum, fmt.Sprint(2*i+2))
	}
	return fmt.Sprintf("syntax = \"proto3\";\npackage wide;\n\nmessage Held {\n  reserved %s;\n  string name = %d;\n}\n\n"+
		"enum Kind {\n  KIND_UNSPECIFIED = 0;\n  reserved %s;\n}\n", strings.Join(msg, ", "), 2*k+2, strings.Join(enum, ", "))
}

func parseProto(tb testing.TB, text string, deps ...compat.Dependency) compat.Schema {
	tb.Helper()
	s, err := protobuf.Format{}.Parse(text, deps)
	if err != nil {
		tb.Fatalf("parse: %v", err)
	}
	return s
}

func ruleAndPaths(vs []compat.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.RuleID+" "+v.Path)
	}
	return out
}

// TestChainedMessages: a type change in M0, which 3^n field paths reach,
// is one finding, and the work (allocations, deterministic) grows
// linearly with n, for a chain in the file and in an import.
func TestChainedMessages(t *testing.T) {
	allocs := map[int]float64{}
	for _, n := range []int{8, 12, 20, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			v1, v2 := parseProto(t, chainedMessages("lib", n, false)), parseProto(t, chainedMessages("lib", n, true))
			got := ruleAndPaths(protobuf.Format{}.CheckRead(v2, v1))
			if want := "PROTO_FIELD_SCALAR_KIND_CHANGED .M0.x"; len(got) != 1 || got[0] != want {
				t.Errorf("in the file: %v, want [%s]", got, want)
			}
			wire := ruleAndPaths(protobuf.Format{Profile: protobuf.ProfileWireJSON}.CheckRead(v2, v1))
			if want := "PROTO_FIELD_WIRE_JSON_COMPATIBLE_TYPE .M0.x"; len(wire) != 1 || wire[0] != want {
				t.Errorf("in the file, WIRE_JSON: %v, want [%s]", wire, want)
			}

			// The chain in an import is compared through the fields,
			// once per message pair, at the first path.
			r1 := parseProto(t, importingRoot(n), compat.Dependency{Name: "chain.proto", Text: chainedMessages("lib", n, false)})
			r2 := parseProto(t, importingRoot(n), compat.Dependency{Name: "chain.proto", Text: chainedMessages("lib", n, true)})
			got = ruleAndPaths(protobuf.Format{}.CheckRead(r2, r1))
			want := "PROTO_FIELD_SCALAR_KIND_CHANGED .Root.top" + strings.Repeat(".a", n) + ".x"
			if len(got) != 1 || got[0] != want {
				t.Errorf("through an import: %v, want [%s]", got, want)
			}
			allocs[n] = testing.AllocsPerRun(3, func() { protobuf.Format{}.CheckRead(r2, r1) })

			// Fields follows the imported chain at each path until types
			// have been followed again 10,000 times: bounded, not 3^n,
			// and every field is listed.
			fields := compat.Fields(r2)
			if len(fields) > 3*(10000+n)+2 {
				t.Errorf("Fields: %d, want at most %d", len(fields), 3*(10000+n)+2)
			}
			if !slices.ContainsFunc(fields, func(f compat.Field) bool {
				return f.FullName == "lib.M0.x" && f.Path == ".Root.top"+strings.Repeat(".a", n)+".x"
			}) {
				t.Errorf("Fields: lib.M0.x is not listed at the first path")
			}
		})
	}
	// Exponential work would multiply by 3^20 from 20 to 40 levels.
	if allocs[40] > 3*allocs[20] {
		t.Errorf("allocations per check: %v at 20 levels, %v at 40; want linear growth", allocs[20], allocs[40])
	}
}

// TestNestedMessages: a change 30 declarations below a top-level message
// (protocompile's limit is a depth under 32) is one finding at the nested
// message's path.
func TestNestedMessages(t *testing.T) {
	const depth = 30
	v1, v2 := parseProto(t, nestedMessages(depth, false)), parseProto(t, nestedMessages(depth, true))
	var names []string
	for i := 1; i <= depth; i++ {
		names = append(names, fmt.Sprintf("L%d", i))
	}
	want := "PROTO_FIELD_SCALAR_KIND_CHANGED .Outer." + strings.Join(names, ".") + ".x"
	if got := ruleAndPaths(protobuf.Format{}.CheckRead(v2, v1)); len(got) != 1 || got[0] != want {
		t.Errorf("got %v, want [%s]", got, want)
	}
}

// TestWideOneof: deleting all but one member of a k-field oneof gives one
// ONEOF_FIELD_REMOVED per deleted member (and, under WIRE, one unreserved
// number each); the members that remain are counted once per oneof, not
// once per deleted member.
func TestWideOneof(t *testing.T) {
	const k = 500
	v1, v2 := parseProto(t, wideOneof(k, false)), parseProto(t, wideOneof(k, true))
	got := (protobuf.Format{}).CheckRead(v2, v1)
	if len(got) != k-1 {
		t.Fatalf("%d findings, want %d", len(got), k-1)
	}
	for _, v := range got {
		if v.RuleID != protobuf.RuleOneofFieldRemoved {
			t.Fatalf("unexpected %v", v)
		}
	}
	wire := (protobuf.Format{Profile: protobuf.ProfileWire}).CheckRead(v2, v1)
	if len(wire) != k-1 || wire[0].RuleID != protobuf.RuleFieldNoDeleteUnlessNumberReserved {
		t.Errorf("WIRE: %d findings (first %v), want %d %s", len(wire), wire[0], k-1, protobuf.RuleFieldNoDeleteUnlessNumberReserved)
	}
}

// TestWideReserved: dropping the last of k reserved numbers of a message
// and of an enum is one finding each (WIRE: buf's RESERVED_*_NO_DELETE).
func TestWideReserved(t *testing.T) {
	const k = 500
	v1, v2 := parseProto(t, wideReserved(k, false)), parseProto(t, wideReserved(k, true))
	got := ruleAndPaths(protobuf.Format{Profile: protobuf.ProfileWire}.CheckRead(v2, v1))
	want := []string{"PROTO_RESERVED_MESSAGE_NO_DELETE .Held", "PROTO_RESERVED_ENUM_NO_DELETE .Kind"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := (protobuf.Format{}).CheckRead(v2, v1); len(got) != 0 {
		t.Errorf("registry profile: %v", got)
	}
}

func BenchmarkChainedMessages(b *testing.B) {
	for _, n := range []int{8, 12, 20, 40} {
		b.Run(fmt.Sprintf("levels=%d", n), func(b *testing.B) {
			r1 := parseProto(b, importingRoot(n), compat.Dependency{Name: "chain.proto", Text: chainedMessages("lib", n, false)})
			r2 := parseProto(b, importingRoot(n), compat.Dependency{Name: "chain.proto", Text: chainedMessages("lib", n, true)})
			b.ReportAllocs()
			for b.Loop() {
				if vs := (protobuf.Format{}).CheckRead(r2, r1); len(vs) != 1 {
					b.Fatal(vs)
				}
			}
		})
	}
}

func BenchmarkWideOneof(b *testing.B) {
	for _, k := range []int{1000, 4000, 16000} {
		b.Run(fmt.Sprintf("members=%d", k), func(b *testing.B) {
			v1, v2 := parseProto(b, wideOneof(k, false)), parseProto(b, wideOneof(k, true))
			b.ReportAllocs()
			for b.Loop() {
				protobuf.Format{}.CheckRead(v2, v1)
			}
		})
	}
}

func BenchmarkWideReserved(b *testing.B) {
	for _, k := range []int{1000, 4000, 16000} {
		b.Run(fmt.Sprintf("ranges=%d", k), func(b *testing.B) {
			v1, v2 := parseProto(b, wideReserved(k, false)), parseProto(b, wideReserved(k, true))
			f := protobuf.Format{Profile: protobuf.ProfileWire}
			b.ReportAllocs()
			for b.Loop() {
				f.CheckRead(v2, v1)
			}
		})
	}
}

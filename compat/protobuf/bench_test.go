package protobuf_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
)

// bigFile returns a file of n messages, each with seven fields (scalars, an
// enum, a reference to the previous message, a map, a oneof); with extra,
// every message has one more field.
func bigFile(n int, extra bool) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage bench.v1;\n\nenum Kind {\n  KIND_UNSPECIFIED = 0;\n  KIND_A = 1;\n}\n\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "message M%d {\n  string id = 1;\n  int64 count = 2;\n  Kind kind = 3;\n", i)
		if i > 0 {
			fmt.Fprintf(&b, "  M%d prev = 4;\n", i-1)
		}
		b.WriteString("  map<string, int32> tags = 5;\n  oneof choice {\n    string a = 6;\n    bytes b = 7;\n  }\n")
		if extra {
			b.WriteString("  repeated string added = 8;\n")
		}
		b.WriteString("}\n\n")
	}
	return b.String()
}

func mustParse(b *testing.B, text string) compat.Schema {
	b.Helper()
	s, err := protobuf.Format{}.Parse(text, nil)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkCheckRead200Messages checks v2 (a field added to each of 200
// messages) against v1, both ways, with the default and the WIRE_JSON
// profiles.
func BenchmarkCheckRead200Messages(b *testing.B) {
	v1, v2 := mustParse(b, bigFile(200, false)), mustParse(b, bigFile(200, true))
	for _, p := range []protobuf.Profile{protobuf.ProfileRegistry, protobuf.ProfileWireJSON} {
		name := string(p)
		if name == "" {
			name = "REGISTRY"
		}
		b.Run(name, func(b *testing.B) {
			f := protobuf.Format{Profile: p}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if vs := f.CheckRead(v2, v1); p == protobuf.ProfileRegistry && len(vs) != 0 {
					b.Fatalf("v2 should read v1: %v", vs[0])
				}
				f.CheckRead(v1, v2)
			}
			b.ReportMetric(float64(2*200*b.N)/b.Elapsed().Seconds(), "messages/s")
		})
	}
}

// BenchmarkParse200Messages parses (and links, prints Canonical and
// Normalized) the 200-message file.
func BenchmarkParse200Messages(b *testing.B) {
	text := bigFile(200, false)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := protobuf.Parse(text, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckFullTransitive1000 runs compat.Check at FULL_TRANSITIVE
// for a new version against 1,000 previous versions of a small file (2,000
// CheckRead calls per op).
func BenchmarkCheckFullTransitive1000(b *testing.B) {
	version := func(i int) string {
		return fmt.Sprintf("syntax = \"proto3\";\npackage events;\n\nmessage Event {\n  string id = 1;\n  int64 ts = 2;\n"+
			"  string note_v%d = 3;\n  Kind kind = 4;\n  repeated string tags = 5;\n}\n\nenum Kind {\n  KIND_UNSPECIFIED = 0;\n}\n", i)
	}
	prev := make([]compat.Previous, 1000)
	for i := range prev {
		prev[i] = compat.Previous{Version: i + 1, Schema: mustParse(b, version(i))}
	}
	next := mustParse(b, version(1000))
	f := protobuf.Format{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if res := compat.Check(f, compat.FullTransitive, next, prev); !res.Compatible() {
			b.Fatalf("renaming a field is compatible: %v", res.Findings[0])
		}
	}
	b.ReportMetric(float64(2000*b.N)/b.Elapsed().Seconds(), "checks/s")
}

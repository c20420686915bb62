package protobuf_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/fuzztest"
	"github.com/charter-dev/charter/compat/protobuf"
)

// FuzzParseDescriptor feeds Parse the serialized form, a base64
// FileDescriptorProto (the fuzzed bytes are the descriptor before base64):
// no input panics or takes more than fuzztest.Bound allows, errors are one
// line, and an accepted descriptor's stored text (Canonical, the
// descriptor printed as .proto) parses as text to itself, as the registry
// reads it back, and its Serialized form parses to the same text.
func FuzzParseDescriptor(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*", "*.proto"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		s, err := protobuf.Parse(string(b), nil)
		if err != nil {
			continue
		}
		fdp := protodesc.ToFileDescriptorProto(s.Descriptor())
		fdp.SourceCodeInfo = nil
		raw, err := proto.Marshal(fdp)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		text := base64.StdEncoding.EncodeToString(raw)
		var s *protobuf.Schema
		var err error
		fuzztest.Bound(t, len(text), func() { s, err = protobuf.Parse(text, nil) })
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("error is not one line: %q", err)
			}
			return
		}
		if !s.FromDescriptor() {
			return // no descriptor (empty, or without a name and a syntax) but text that parses
		}
		stored, err := protobuf.Parse(s.Canonical(), nil)
		if err != nil {
			t.Fatalf("the stored text does not parse: %v\n%s", err, s.Canonical())
		}
		if stored.Canonical() != s.Canonical() {
			t.Fatalf("the stored text is not a fixed point:\n%s\n----\n%s", s.Canonical(), stored.Canonical())
		}
		again, err := protobuf.Parse(stored.Serialized(), nil)
		if err != nil {
			t.Fatalf("the Serialized form does not parse: %v\n%s", err, s.Canonical())
		}
		if again.Canonical() != s.Canonical() {
			t.Fatalf("the Serialized form reads as other text:\n%s\n----\n%s", s.Canonical(), again.Canonical())
		}
		compat.Fields(s)
	})
}

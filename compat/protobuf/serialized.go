package protobuf

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/parser"
	"github.com/bufbuild/protocompile/reporter"
	"github.com/jhump/protoreflect/desc"
	"github.com/jhump/protoreflect/desc/protoprint"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/charter-dev/charter/compat"
)

// DecodeDescriptor reads the serialized form of a Protobuf schema: a
// base64-encoded (standard alphabet, padded or not) FileDescriptorProto
// with a name or a syntax, as Confluent's Python and JavaScript serializers
// register. ok is false for anything else; err then says why text, when
// it is base64 at all, is not a descriptor (nil when it is not base64, as
// .proto text never is).
func DecodeDescriptor(text string) (fdp *descriptorpb.FileDescriptorProto, ok bool, err error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, false, nil
	}
	b, err := base64.StdEncoding.DecodeString(t)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(t); err != nil {
			return nil, false, nil
		}
	}
	fdp = &descriptorpb.FileDescriptorProto{}
	if err := proto.Unmarshal(b, fdp); err != nil {
		return nil, false, fmt.Errorf("the base64 does not decode to a FileDescriptorProto: %v", err)
	}
	if fdp.GetName() == "" && fdp.GetSyntax() == "" {
		return nil, false, errors.New("the base64 decodes to no FileDescriptorProto with a name or a syntax")
	}
	return fdp, true, nil
}

// parseDescriptor links fdp with its references, prints it as .proto text
// and parses that text.
func parseDescriptor(fdp *descriptorpb.FileDescriptorProto, deps []compat.Dependency) (*Schema, error) {
	sources, err := sourcesOf(deps)
	if err != nil {
		return nil, err
	}
	fdp = proto.Clone(fdp).(*descriptorpb.FileDescriptorProto)
	fdp.SourceCodeInfo = nil
	defaultJSONNames(fdp.GetExtension())
	for _, m := range fdp.GetMessageType() {
		defaultJSONNamesIn(m)
	}
	name := freeName(sources, fdp.GetName())
	fdp.Name = proto.String(name)
	file, err := compile(name, protocompile.SearchResult{Proto: fdp}, sources)
	if err != nil {
		return nil, fmt.Errorf("invalid Protobuf schema (serialized): %s", strings.TrimPrefix(err.Error(), "invalid Protobuf schema: "))
	}
	if err := validateDescriptor(fdp, file.Imports()); err != nil {
		return nil, fmt.Errorf("invalid Protobuf schema (serialized): %v", err)
	}
	text, err := printFile(file)
	if err != nil {
		return nil, fmt.Errorf("invalid Protobuf schema (serialized): %v", err)
	}
	s, err := parseText(text, deps)
	if err != nil {
		return nil, fmt.Errorf("invalid Protobuf schema (serialized): the descriptor prints as text that does not parse: %s",
			strings.TrimPrefix(err.Error(), "invalid Protobuf schema: "))
	}
	s.serialized = true
	return s, nil
}

// defaultJSONNamesIn gives every field of m and of its nested messages
// without a json_name (or with an empty one) its default JSON name, as
// protoc does. Descriptors built by Python's protobuf runtime have none,
// and the compiler would otherwise take each absent name for a custom ""
// that conflicts with the next.
func defaultJSONNamesIn(m *descriptorpb.DescriptorProto) {
	defaultJSONNames(m.GetField())
	defaultJSONNames(m.GetExtension())
	for _, n := range m.GetNestedType() {
		defaultJSONNamesIn(n)
	}
}

func defaultJSONNames(fields []*descriptorpb.FieldDescriptorProto) {
	for _, f := range fields {
		if f.GetJsonName() == "" {
			f.JsonName = proto.String(jsonCamelCase(f.GetName()))
		}
	}
}

// validateDescriptor checks fdp as protodesc.NewFile does, against the
// files it imports as they were linked. protocompile links a
// FileDescriptorProto it is given with fewer checks than it applies to
// source: it lets through, for example, an unknown syntax, an extension
// with neither a name nor an extendee, or a field with neither a name nor
// a type but with a default value, and the linked file it returns then
// panics the printer (FuzzParseDescriptor found both).
func validateDescriptor(fdp *descriptorpb.FileDescriptorProto, imports protoreflect.FileImports) error {
	var deps protoregistry.Files
	var register func(imports protoreflect.FileImports) error
	register = func(imports protoreflect.FileImports) error {
		for i := range imports.Len() {
			imp := imports.Get(i).FileDescriptor
			if _, err := deps.FindFileByPath(imp.Path()); err == nil {
				continue
			}
			if err := register(imp.Imports()); err != nil {
				return err
			}
			if err := deps.RegisterFile(imp); err != nil {
				return err
			}
		}
		return nil
	}
	if err := register(imports); err != nil {
		return err
	}
	_, err := protodesc.NewFile(fdp, &deps)
	return err
}

// printFile prints a linked file as .proto text with protoprint.
func printFile(fd protoreflect.FileDescriptor) (string, error) {
	d, err := desc.WrapFile(fd)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := printer.PrintProtoFile(d, &b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// printer prints descriptors as .proto text: elements in descriptor
// order, type names relative to the package where unambiguous.
var printer = protoprint.Printer{Indent: "  "}

// printed caches the canonical text of a Schema's descriptor printed as
// .proto text (see Schema.PrintedCanonical).
type printed struct {
	once sync.Once
	text string
}

// FromDescriptor reports whether the schema was sent in its serialized
// form (a base64 FileDescriptorProto).
func (s *Schema) FromDescriptor() bool { return s.serialized }

// PrintedCanonical returns the Canonical text of the schema's descriptor
// printed as .proto text: Canonical itself for a schema sent serialized
// (and for the stored text of one, which the registry reads back as text).
// Two schemas with equal descriptors have equal PrintedCanonical text,
// whichever form each came in; "" when the descriptor does not print.
func (s *Schema) PrintedCanonical() string {
	if s.serialized {
		return s.canonical
	}
	s.printed.once.Do(func() {
		text, err := printFile(s.fd)
		if err != nil {
			return
		}
		file, err := parser.Parse(schemaFileName, strings.NewReader(text), reporter.NewHandler(nil))
		if err == nil {
			s.printed.text = canonicalText(file)
		}
	})
	return s.printed.text
}

// InPrintedForm reports whether the schema's Canonical text is its
// descriptor printed as .proto text, as the stored text of a schema sent
// serialized is.
func (s *Schema) InPrintedForm() bool { return s.PrintedCanonical() == s.canonical }

// Serialized returns the schema's serialized form: its linked
// FileDescriptorProto (without source information), marshalled
// deterministically and base64-encoded, as Confluent answers
// ?format=serialized.
func (s *Schema) Serialized() string {
	fdp := protodesc.ToFileDescriptorProto(s.fd)
	fdp.SourceCodeInfo = nil
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(fdp)
	if err != nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(b)
}

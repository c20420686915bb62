package contracts

import (
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/charter-dev/charter/compat/protobuf"
)

// buildProtobuf prepares one message of a .proto file. Values are read in
// the canonical proto3 JSON mapping (https://protobuf.dev/programming-guides/json/):
// fields by JSON name or field name, 64-bit integers as numbers or
// strings, enums by value name, bytes as base64, well-known types in
// their special forms (Timestamp as an RFC 3339 string, wrappers as the
// bare value or null, Struct as any object). Paths use field names. Every
// field is present to a reader (an unset field reads as its default),
// except a member of a oneof, which is absent when another member is set.
// Decoding unmarshals the example with protojson into a dynamicpb message
// of the descriptor.
func (v *view) buildProtobuf(s *protobuf.Schema, message string) error {
	fd := s.Descriptor()
	if fd == nil || fd.Messages().Len() == 0 {
		return fmt.Errorf("contracts: the .proto file declares no message")
	}
	md := fd.Messages().Get(0)
	if message != "" {
		idx, err := s.MessageIndexes(qualify(fd, message))
		if err != nil {
			return fmt.Errorf("contracts: %w", err)
		}
		if md, err = s.Message(idx); err != nil {
			return fmt.Errorf("contracts: %w", err)
		}
	}
	b := &protoBuilder{file: fd, memo: map[protoreflect.FullName]*node{}}
	v.root = b.message(md)
	v.decode = func(example any) []decodeProblem {
		b, err := json.Marshal(example)
		if err != nil {
			return []decodeProblem{{path: ".", msg: err.Error()}}
		}
		msg := dynamicpb.NewMessage(md)
		if err := (protojson.UnmarshalOptions{}).Unmarshal(b, msg); err != nil {
			return []decodeProblem{{path: ".", msg: fmt.Sprintf("protojson cannot read the example as %s: %s", md.FullName(), cleanProtoErr(err))}}
		}
		return nil
	}
	return nil
}

// qualify prefixes a message name with the file's package unless it is
// already qualified.
func qualify(fd protoreflect.FileDescriptor, name string) string {
	name = strings.TrimPrefix(name, ".")
	pkg := string(fd.Package())
	if pkg == "" || strings.HasPrefix(name, pkg+".") {
		return name
	}
	return pkg + "." + name
}

// cleanProtoErr drops protojson's "proto: " prefix and its non-breaking
// spaces, which make messages hard to compare.
func cleanProtoErr(err error) string {
	s := strings.ReplaceAll(err.Error(), "\u00a0", " ")
	return strings.TrimPrefix(s, "proto: ")
}

// protoBuilder builds the nodes of one schema file's messages.
type protoBuilder struct {
	file protoreflect.FileDescriptor
	memo map[protoreflect.FullName]*node
}

func (b *protoBuilder) message(md protoreflect.MessageDescriptor) *node {
	if n, ok := b.memo[md.FullName()]; ok {
		return n
	}
	if n := wellKnownNode(md.FullName()); n != nil {
		return n
	}
	n := &node{kinds: kObject, typ: string(md.FullName()), fields: map[string]*field{}}
	if md.ParentFile() != nil && md.ParentFile().Path() == b.file.Path() {
		// compat/protobuf lists this file's messages under their names
		// relative to the package; imported ones through the field.
		local := strings.TrimPrefix(string(md.FullName()), string(b.file.Package())+".")
		if b.file.Package() == "" {
			local = string(md.FullName())
		}
		n.pathBase = "." + local
	}
	b.memo[md.FullName()] = n
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		f := &field{
			name:    string(fd.Name()),
			node:    b.field(fd),
			present: fd.ContainingOneof() == nil || fd.ContainingOneof().IsSynthetic(),
		}
		if o, ok := fd.Options().(*descriptorpb.FieldOptions); ok && o.GetDeprecated() {
			f.deprecated = true
		}
		n.fields[string(fd.Name())] = f
		n.fields[fd.JSONName()] = f
	}
	return n
}

func (b *protoBuilder) field(fd protoreflect.FieldDescriptor) *node {
	if fd.IsMap() {
		return &node{kinds: kObject, typ: "map", open: true, flat: true, values: b.kind(fd.MapValue())}
	}
	el := b.kind(fd)
	if fd.IsList() {
		return &node{kinds: kArray, typ: "repeated " + el.typeName(), flat: true, items: el}
	}
	return el
}

func (b *protoBuilder) kind(fd protoreflect.FieldDescriptor) *node {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return &node{kinds: kBool, typ: "bool"}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		n := &node{kinds: kInt, typ: fd.Kind().String()}
		switch fd.Kind() {
		case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
			n.alt = kString // written as a decimal string
		}
		return n
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return &node{kinds: kNumber, alt: kString, typ: fd.Kind().String()} // "NaN", "Infinity"
	case protoreflect.StringKind, protoreflect.BytesKind:
		return &node{kinds: kString, typ: fd.Kind().String()}
	case protoreflect.EnumKind:
		ed := fd.Enum()
		if ed.FullName() == "google.protobuf.NullValue" {
			return &node{kinds: kNull, typ: string(ed.FullName())}
		}
		n := &node{kinds: kString, alt: kInt, typ: string(ed.FullName()), enum: []string{}}
		vals := ed.Values()
		for i := 0; i < vals.Len(); i++ {
			n.enum = append(n.enum, enumText(string(vals.Get(i).Name())))
		}
		return n
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return b.message(fd.Message())
	}
	return &node{kinds: kAny, typ: fd.Kind().String()}
}

// wellKnownNode gives the JSON shape of the well-known types that the JSON
// mapping writes specially, nil for any other message.
func wellKnownNode(name protoreflect.FullName) *node {
	switch name {
	case "google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask":
		return &node{kinds: kString, typ: string(name)}
	case "google.protobuf.Struct":
		return &node{kinds: kObject, typ: string(name), open: true, values: &node{kinds: kAny}}
	case "google.protobuf.Value":
		return &node{kinds: kAny, typ: string(name)}
	case "google.protobuf.ListValue":
		return &node{kinds: kArray, typ: string(name), items: &node{kinds: kAny}}
	case "google.protobuf.Any":
		return &node{kinds: kObject, typ: string(name), open: true}
	case "google.protobuf.DoubleValue", "google.protobuf.FloatValue":
		return &node{kinds: kNumber | kNull, typ: string(name)}
	case "google.protobuf.Int32Value", "google.protobuf.Int64Value", "google.protobuf.UInt32Value", "google.protobuf.UInt64Value":
		return &node{kinds: kInt | kNull, typ: string(name)}
	case "google.protobuf.BoolValue":
		return &node{kinds: kBool | kNull, typ: string(name)}
	case "google.protobuf.StringValue", "google.protobuf.BytesValue":
		return &node{kinds: kString | kNull, typ: string(name)}
	}
	return nil
}

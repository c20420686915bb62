package protobuf

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/charter-dev/charter/compat"
)

// metaExtensions are Confluent's confluent.field_meta and
// confluent.message_meta extensions (of type confluent.Meta), compiled
// once from the embedded meta.proto.
var metaExtensions = sync.OnceValues(func() (map[string]protoreflect.ExtensionType, error) {
	const name = "charter_tags_meta.proto"
	f, err := compile(name, protocompile.SearchResult{Source: strings.NewReader(
		"syntax = \"proto3\";\nimport \"confluent/meta.proto\";\n")}, nil)
	if err != nil {
		return nil, err
	}
	out := map[string]protoreflect.ExtensionType{}
	imps := f.Imports()
	for i := 0; i < imps.Len(); i++ {
		for _, n := range []protoreflect.Name{"field_meta", "message_meta"} {
			if xd := imps.Get(i).FileDescriptor.Extensions().ByName(n); xd != nil {
				out[string(n)] = dynamicpb.NewExtensionType(xd)
			}
		}
	}
	if len(out) != 2 {
		return nil, fmt.Errorf("confluent/meta.proto declares no field_meta or message_meta")
	}
	return out, nil
})

var _ compat.Tagger = (*Schema)(nil)

// WithTags returns the schema with the tags of its messages and fields
// changed (compat.Tagger): a message (SR_RECORD) is named by its path
// relative to the package (".Outer.Inner" or "Outer.Inner"), a field
// (SR_FIELD) by its message's path, a dot and its name; the tags are
// (confluent.message_meta).tags and (confluent.field_meta).tags. For each
// element, in the order first named, the tags to add are added (without
// repeats), then those to remove removed, as Confluent's registration
// with schemaTagsToAdd and schemaTagsToRemove does; the option's other
// members are kept and an option left empty is dropped. The schema is
// printed from its descriptor, with an import of confluent/meta.proto
// when it had none, and parsed again with deps. A path that names no
// element is an error.
func (s *Schema) WithTags(add, remove []compat.SchemaTags, deps []compat.Dependency) (compat.Schema, error) {
	xts, err := metaExtensions()
	if err != nil {
		return nil, err
	}
	fdp := protodesc.ToFileDescriptorProto(s.fd)
	type edit struct{ add, remove []string }
	edits := map[proto.Message]*edit{}
	var order []proto.Message
	kinds := map[proto.Message]string{}
	for i, list := range [][]compat.SchemaTags{add, remove} {
		for _, t := range list {
			opts, kind, err := tagTarget(fdp, t)
			if err != nil {
				return nil, err
			}
			e := edits[opts]
			if e == nil {
				e = &edit{}
				edits[opts] = e
				order = append(order, opts)
				kinds[opts] = kind
			}
			if i == 0 {
				e.add = append(e.add, t.Tags...)
			} else {
				e.remove = append(e.remove, t.Tags...)
			}
		}
	}
	for _, opts := range order {
		retag(opts, xts[kinds[opts]], edits[opts].add, edits[opts].remove)
	}
	if !slices.Contains(fdp.Dependency, "confluent/meta.proto") {
		fdp.Dependency = append(fdp.Dependency, "confluent/meta.proto")
	}
	out, err := parseDescriptor(fdp, deps)
	if err != nil {
		return nil, err
	}
	out.serialized = s.serialized
	return out, nil
}

// tagTarget returns the options of the element t names in fdp (created
// when it has none) and the name of the meta extension they take.
func tagTarget(fdp *descriptorpb.FileDescriptorProto, t compat.SchemaTags) (proto.Message, string, error) {
	path := strings.TrimPrefix(t.Path, ".")
	switch t.Kind {
	case "SR_RECORD":
		if m := findMessage(fdp, strings.Split(path, ".")); m != nil {
			if m.Options == nil {
				m.Options = &descriptorpb.MessageOptions{}
			}
			return m.Options, "message_meta", nil
		}
	case "SR_FIELD":
		parts := strings.Split(path, ".")
		if m := findMessage(fdp, parts[:len(parts)-1]); m != nil {
			for _, f := range m.GetField() {
				if f.GetName() == parts[len(parts)-1] {
					if f.Options == nil {
						f.Options = &descriptorpb.FieldOptions{}
					}
					return f.Options, "field_meta", nil
				}
			}
		}
	default:
		return nil, "", fmt.Errorf("schema tags: entity type %q of %q: want SR_RECORD or SR_FIELD", compat.Clip(t.Kind), compat.Clip(t.Path))
	}
	return nil, "", fmt.Errorf("schema tags: %s %q names no message or field of the schema", t.Kind, compat.Clip(t.Path))
}

// findMessage returns the message names leads to (["Outer", "Inner"]),
// nil when there is none.
func findMessage(fdp *descriptorpb.FileDescriptorProto, names []string) *descriptorpb.DescriptorProto {
	if len(names) == 0 {
		return nil
	}
	msgs := fdp.GetMessageType()
	var m *descriptorpb.DescriptorProto
	for _, name := range names {
		m = nil
		for _, c := range msgs {
			if c.GetName() == name {
				m = c
				break
			}
		}
		if m == nil {
			return nil
		}
		msgs = m.GetNestedType()
	}
	return m
}

// retag sets the tags of opts' meta option (extension xt) to its tags
// plus add (in order, without repeats) minus remove; the option's other
// members (doc, params) are kept, and an option left empty is dropped.
func retag(opts proto.Message, xt protoreflect.ExtensionType, add, remove []string) {
	name := xt.TypeDescriptor().FullName()
	or := opts.ProtoReflect()
	meta := dynamicpb.NewMessage(xt.TypeDescriptor().Message())
	var old []protoreflect.FieldDescriptor
	or.Range(func(x protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if x.IsExtension() && x.FullName() == name && x.Message() != nil {
			old = append(old, x)
			if b, err := proto.Marshal(v.Message().Interface()); err == nil {
				_ = proto.UnmarshalOptions{Merge: true}.Unmarshal(b, meta)
			}
		}
		return true
	})
	for _, x := range old {
		or.Clear(x)
	}
	tagsField := meta.Descriptor().Fields().ByName("tags")
	var tags []string
	list := meta.Get(tagsField).List()
	for i := 0; i < list.Len(); i++ {
		tags = append(tags, list.Get(i).String())
	}
	for _, t := range add {
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	tags = slices.DeleteFunc(tags, func(t string) bool { return slices.Contains(remove, t) })
	meta.Clear(tagsField)
	if len(tags) > 0 {
		nl := meta.Mutable(tagsField).List()
		for _, t := range tags {
			nl.Append(protoreflect.ValueOfString(t))
		}
	}
	empty := true
	meta.Range(func(protoreflect.FieldDescriptor, protoreflect.Value) bool { empty = false; return false })
	if !empty {
		proto.SetExtension(opts, xt, meta)
	}
}

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

// fieldMeta is Confluent's confluent.field_meta extension and its
// confluent.Meta message, compiled once from the embedded meta.proto.
var fieldMeta = sync.OnceValues(func() (protoreflect.ExtensionType, error) {
	const name = "charter_tags_meta.proto"
	f, err := compile(name, protocompile.SearchResult{Source: strings.NewReader(
		"syntax = \"proto3\";\nimport \"confluent/meta.proto\";\n")}, nil)
	if err != nil {
		return nil, err
	}
	imps := f.Imports()
	for i := 0; i < imps.Len(); i++ {
		if xd := imps.Get(i).FileDescriptor.Extensions().ByName("field_meta"); xd != nil {
			return dynamicpb.NewExtensionType(xd), nil
		}
	}
	return nil, fmt.Errorf("confluent/meta.proto declares no field_meta")
})

var _ compat.Tagger = (*Schema)(nil)

// WithTags returns the schema with the tags of its fields changed
// (compat.Tagger): a field's path is ".Msg.field" or "Msg.field",
// messages named relative to the package and nested ones by their dotted
// path, and its tags are (confluent.field_meta).tags. For each field, in
// the order first named, the tags to add are added (without repeats),
// then those to remove removed, as Confluent's registration with
// schemaTagsToAdd and schemaTagsToRemove does. The schema is printed from
// its descriptor, with an import of confluent/meta.proto when it had
// none, and parsed again with deps. Only fields are tagged here (kind
// SR_FIELD); a path that names no field is an error.
func (s *Schema) WithTags(add, remove []compat.SchemaTags, deps []compat.Dependency) (compat.Schema, error) {
	xt, err := fieldMeta()
	if err != nil {
		return nil, err
	}
	fdp := protodesc.ToFileDescriptorProto(s.fd)
	var order []string
	adds, removes := map[string][]string{}, map[string][]string{}
	for _, list := range []struct {
		tags []compat.SchemaTags
		into map[string][]string
	}{{add, adds}, {remove, removes}} {
		for _, t := range list.tags {
			if t.Kind != "SR_FIELD" {
				return nil, fmt.Errorf("schema tags: %s entity %q: only fields (SR_FIELD) of a Protobuf schema take tags here", t.Kind, t.Path)
			}
			p := strings.TrimPrefix(t.Path, ".")
			if _, seen := adds[p]; !seen {
				if _, seen := removes[p]; !seen {
					order = append(order, p)
				}
			}
			list.into[p] = append(list.into[p], t.Tags...)
			if _, ok := adds[p]; !ok {
				adds[p] = nil
			}
		}
	}
	for _, path := range order {
		f := findField(fdp, path)
		if f == nil {
			return nil, fmt.Errorf("schema tags: %q names no field of the schema", path)
		}
		if err := retagField(f, xt, adds[path], removes[path]); err != nil {
			return nil, err
		}
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

// findField returns the field path names in fdp ("Outer.Inner.field"),
// nil when there is none.
func findField(fdp *descriptorpb.FileDescriptorProto, path string) *descriptorpb.FieldDescriptorProto {
	parts := strings.Split(path, ".")
	if len(parts) < 2 {
		return nil
	}
	msgs := fdp.GetMessageType()
	var m *descriptorpb.DescriptorProto
	for _, name := range parts[:len(parts)-1] {
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
	for _, f := range m.GetField() {
		if f.GetName() == parts[len(parts)-1] {
			return f
		}
	}
	return nil
}

// retagField sets f's (confluent.field_meta).tags to its tags plus add
// (in order, without repeats) minus remove; the option's doc and params
// are kept, and an option left empty is dropped.
func retagField(f *descriptorpb.FieldDescriptorProto, xt protoreflect.ExtensionType, add, remove []string) error {
	if f.Options == nil {
		f.Options = &descriptorpb.FieldOptions{}
	}
	opts := f.Options.ProtoReflect()
	meta := dynamicpb.NewMessage(xt.TypeDescriptor().Message())
	var old []protoreflect.FieldDescriptor
	opts.Range(func(x protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if x.IsExtension() && x.FullName() == fieldMetaName && x.Message() != nil {
			old = append(old, x)
			if b, err := proto.Marshal(v.Message().Interface()); err == nil {
				_ = proto.UnmarshalOptions{Merge: true}.Unmarshal(b, meta)
			}
		}
		return true
	})
	for _, x := range old {
		opts.Clear(x)
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
	nl := meta.Mutable(tagsField).List()
	for _, t := range tags {
		nl.Append(protoreflect.ValueOfString(t))
	}
	if len(tags) == 0 {
		meta.Clear(tagsField)
	}
	empty := true
	meta.Range(func(protoreflect.FieldDescriptor, protoreflect.Value) bool { empty = false; return false })
	if !empty {
		proto.SetExtension(f.Options, xt, meta)
	}
	return nil
}

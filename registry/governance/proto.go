package governance

import (
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/charter-dev/charter/compat"
)

// descriptorSchema is a parsed Protobuf schema (compat/protobuf.Schema).
type descriptorSchema interface {
	Descriptor() protoreflect.FileDescriptor
}

// FieldNumbers returns the Protobuf field numbers of the messages declared
// in s's file, by field path as compat.Field.Path spells it
// (".Order.id", ".Outer.Inner.name"); nil for other formats.
func FieldNumbers(s compat.Schema) map[string]int {
	ds, ok := s.(descriptorSchema)
	if !ok {
		return nil
	}
	fd := ds.Descriptor()
	if fd == nil {
		return nil
	}
	out := map[string]int{}
	pkg := string(fd.Package())
	var walk func(ms protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			m := ms.Get(i)
			if m.IsMapEntry() {
				continue
			}
			path := "." + strings.TrimPrefix(string(m.FullName()), pkg+".")
			if pkg == "" {
				path = "." + string(m.FullName())
			}
			fs := m.Fields()
			for j := 0; j < fs.Len(); j++ {
				f := fs.Get(j)
				out[path+"."+string(f.Name())] = int(f.Number())
			}
			walk(m.Messages())
		}
	}
	walk(fd.Messages())
	return out
}

// parentPath returns the path of the record holding the field at path:
// ".a.b" → ".a", ".a" → "", ".a[].b" → ".a[]".
func parentPath(path string) string {
	i := lastDot(path)
	if i <= 0 {
		return ""
	}
	return path[:i]
}

// lastDot returns the index of the dot that starts path's last name,
// skipping dots inside <…> union branch names (".billing<com.acme.Address>.city").
func lastDot(path string) int {
	depth := 0
	for i := len(path) - 1; i >= 0; i-- {
		switch path[i] {
		case '>':
			depth++
		case '<':
			depth--
		case '.':
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// TopLevel returns the fields of the schema's top-level record, as
// Confluent's ParsedSchema.hasTopLevelField sees them: an Avro record's
// fields, a JSON Schema's root properties, the fields of the first
// Protobuf message.
func TopLevel(t compat.SchemaType, fields []compat.Field) []compat.Field {
	var out []compat.Field
	if t == compat.Protobuf {
		if len(fields) == 0 {
			return nil
		}
		first := parentPath(fields[0].Path)
		for _, f := range fields {
			if parentPath(f.Path) == first {
				out = append(out, f)
			}
		}
		return out
	}
	for _, f := range fields {
		if parentPath(f.Path) == "" {
			out = append(out, f)
		}
	}
	return out
}

// byParent groups fields by the path of their parent record, in one pass
// (childrenOf for every path at once); key "" holds the top level as
// TopLevel sees it.
func byParent(t compat.SchemaType, fields []compat.Field) map[string][]compat.Field {
	out := make(map[string][]compat.Field)
	for _, f := range fields {
		p := parentPath(f.Path)
		out[p] = append(out[p], f)
	}
	if t == compat.Protobuf {
		if len(fields) == 0 {
			out[""] = nil
		} else {
			out[""] = out[parentPath(fields[0].Path)]
		}
	}
	return out
}

// childrenOf returns the fields whose parent is path ("" for the top
// level, as TopLevel).
func childrenOf(t compat.SchemaType, fields []compat.Field, path string) []compat.Field {
	if path == "" {
		return TopLevel(t, fields)
	}
	var out []compat.Field
	for _, f := range fields {
		if parentPath(f.Path) == path {
			out = append(out, f)
		}
	}
	return out
}

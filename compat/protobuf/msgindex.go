package protobuf

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/charter-dev/charter/compat/rule"
)

// declaredMessages returns the messages declared in ms, without the map
// entry messages that protoc synthesizes for map fields.
func declaredMessages(ms protoreflect.MessageDescriptors) []protoreflect.MessageDescriptor {
	out := make([]protoreflect.MessageDescriptor, 0, ms.Len())
	for i := 0; i < ms.Len(); i++ {
		if m := ms.Get(i); !m.IsMapEntry() {
			out = append(out, m)
		}
	}
	return out
}

// MessageName resolves Confluent wire-format message indexes to the full
// name of a message of the file ("pkg.Outer.Inner"). indexes[0] is the
// position of a top-level message, each further index the position among
// the previous message's nested messages; an empty slice means [0], the
// first message, as in Confluent's wire format. It returns an error naming
// the first index that is out of range.
func (s *Schema) MessageName(indexes []int) (string, error) {
	m, err := s.message(indexes)
	if err != nil {
		return "", err
	}
	return string(m.FullName()), nil
}

// Message is MessageName returning the message descriptor.
func (s *Schema) Message(indexes []int) (protoreflect.MessageDescriptor, error) {
	return s.message(indexes)
}

func (s *Schema) message(indexes []int) (protoreflect.MessageDescriptor, error) {
	if len(indexes) == 0 {
		indexes = []int{0}
	}
	level := declaredMessages(s.fd.Messages())
	var m protoreflect.MessageDescriptor
	for i, idx := range indexes {
		if idx < 0 || idx >= len(level) {
			where := "the file"
			if m != nil {
				where = "message " + string(m.FullName())
			}
			return nil, fmt.Errorf("message index %d (position %d of %v) is out of range: %s has %s", idx, i, indexes, where, rule.Plural(len(level), "message"))
		}
		m = level[idx]
		level = declaredMessages(m.Messages())
	}
	return m, nil
}

// MessageIndexes returns the Confluent wire-format message indexes of the
// message with the given full name ("pkg.Outer.Inner", a leading dot is
// allowed), e.g. [1, 0]. It returns an error when the file declares no such
// message (map entries included).
func (s *Schema) MessageIndexes(fullName string) ([]int, error) {
	name := protoreflect.FullName(strings.TrimPrefix(fullName, "."))
	var find func(ms []protoreflect.MessageDescriptor, prefix []int) []int
	find = func(ms []protoreflect.MessageDescriptor, prefix []int) []int {
		for i, m := range ms {
			path := append(append([]int(nil), prefix...), i)
			if m.FullName() == name {
				return path
			}
			if strings.HasPrefix(string(name), string(m.FullName())+".") {
				if p := find(declaredMessages(m.Messages()), path); p != nil {
					return p
				}
			}
		}
		return nil
	}
	if p := find(declaredMessages(s.fd.Messages()), nil); p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("message %q is not declared in the schema", name)
}

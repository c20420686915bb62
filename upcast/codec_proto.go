package upcast

import (
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/charter-dev/charter/compat/protobuf"
)

// protoCodec handles Protobuf data. Decoded values are the message's
// protobuf JSON mapping (protojson with default values emitted, as
// Confluent's Go serde gives migration rules) decoded by encoding/json:
// fields by JSON name, 64-bit integers as strings, enums by name. The
// implicit step re-reads the message's bytes with the reader's descriptor,
// so fields match by number (renames are followed) and fields the reader
// does not know are dropped.
type protoCodec struct{}

func (protoCodec) resolution() string { return "PROTOBUF field numbers" }

// protoState is the version's message: the subject's message chosen with
// WithProtoMessage, else the first message of the file.
type protoState struct {
	file *protobuf.Schema
	msg  protoreflect.MessageDescriptor
}

func (protoCodec) prepare(v *version, opts *options) error {
	s, ok := v.schema.(*protobuf.Schema)
	if !ok {
		return fmt.Errorf("%s: not a Protobuf schema from compat/protobuf", v)
	}
	var md protoreflect.MessageDescriptor
	if name := opts.protoMessages[v.subject]; name != "" {
		idx, err := s.MessageIndexes(name)
		if err != nil {
			return fmt.Errorf("%s: %w", v, err)
		}
		if md, err = s.Message(idx); err != nil {
			return fmt.Errorf("%s: %w", v, err)
		}
	} else {
		var err error
		if md, err = s.Message(nil); err != nil {
			return fmt.Errorf("%s: %w", v, err)
		}
	}
	v.state = &protoState{file: s, msg: md}
	return nil
}

func protoStateOf(v *version) *protoState { return v.state.(*protoState) }

var (
	protoJSONOut = protojson.MarshalOptions{EmitDefaultValues: true}
	protoJSONIn  = protojson.UnmarshalOptions{}
)

func protoToMap(m proto.Message) (map[string]any, error) {
	b, err := protoJSONOut.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// mapToProto reads a decoded value into a message of md; unknown field
// names and wrong types are errors.
func mapToProto(v map[string]any, md protoreflect.MessageDescriptor) (*dynamicpb.Message, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	m := dynamicpb.NewMessage(md)
	if err := protoJSONIn.Unmarshal(b, m); err != nil {
		return nil, err
	}
	return m, nil
}

func (protoCodec) decoder(_, reader *version) (decodeFunc, error) {
	md := protoStateOf(reader).msg
	return func(payload []byte) (map[string]any, error) {
		m := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(payload, m); err != nil {
			return nil, err
		}
		return protoToMap(m)
	}, nil
}

func (protoCodec) converter(from, to *version) (convertFunc, error) {
	fromMD, toMD := protoStateOf(from).msg, protoStateOf(to).msg
	return func(v map[string]any) (map[string]any, error) {
		m, err := mapToProto(v, fromMD)
		if err != nil {
			return nil, fmt.Errorf("read as %s: %w", from, err)
		}
		b, err := proto.Marshal(m)
		if err != nil {
			return nil, err
		}
		out := dynamicpb.NewMessage(toMD)
		if err := proto.Unmarshal(b, out); err != nil {
			return nil, fmt.Errorf("re-read as %s: %w", to, err)
		}
		return protoToMap(out)
	}, nil
}

func (protoCodec) conform(v map[string]any, ver *version, lenient bool) (map[string]any, error) {
	md := protoStateOf(ver).msg
	if lenient {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		m := dynamicpb.NewMessage(md)
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, m); err != nil {
			return nil, err
		}
		return protoToMap(m)
	}
	if _, err := mapToProto(v, md); err != nil {
		return nil, err
	}
	return v, nil
}

func (protoCodec) encode(v map[string]any, ver *version) ([]byte, error) {
	m, err := mapToProto(v, protoStateOf(ver).msg)
	if err != nil {
		return nil, err
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(m)
}

func (protoCodec) fromJSON(raw []byte, ver *version) (map[string]any, error) {
	m := dynamicpb.NewMessage(protoStateOf(ver).msg)
	if err := protoJSONIn.Unmarshal(raw, m); err != nil {
		return nil, fmt.Errorf("read JSON value as %s: %w", ver, err)
	}
	return protoToMap(m)
}

func (protoCodec) plain(v map[string]any, _ *version) any { return v }

//go:build cgo

package clienttest

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/protobuf"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The .proto files of the Protobuf round trip, compiled at test time with
// protocompile: orders.proto imports common.proto, so the serializer
// registers common.proto first and references it.
const (
	commonProtoName = "charter/test/common.proto"
	commonProto     = `syntax = "proto3";
package charter.test;

message Address {
  string city = 1;
  string zip = 2;
}
`
	ordersProtoName = "charter/test/orders.proto"
	ordersProto     = `syntax = "proto3";
package charter.test;

import "charter/test/common.proto";

// Order is the first message: message index [0].
message Order {
  int64 id = 1;
  Address ship_to = 2;
  repeated string items = 3;
  Status status = 4;
  enum Status {
    NEW = 0;
    PAID = 1;
  }
}

// Refund is the second message: message index [1].
message Refund {
  int64 order_id = 1;
  double amount = 2;
  message Reason {
    string text = 1;
  }
  Reason reason = 3;
}
`
)

// compileProtos compiles the test .proto files and returns orders.proto.
func compileProtos(t *testing.T) protoreflect.FileDescriptor {
	t.Helper()
	files := map[string]string{commonProtoName: commonProto, ordersProtoName: ordersProto}
	c := protocompile.Compiler{
		Resolver: &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(files)},
	}
	fds, err := c.Compile(context.Background(), ordersProtoName)
	if err != nil {
		t.Fatalf("compile %s: %v", ordersProtoName, err)
	}
	return fds[0]
}

// setField sets field name of m, a dynamic message, to v.
func setField(t *testing.T, m *dynamicpb.Message, name string, v protoreflect.Value) {
	t.Helper()
	fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		t.Fatalf("%s has no field %s", m.Descriptor().FullName(), name)
	}
	m.Set(fd, v)
}

// TestConfluentProtobufSerde round-trips Protobuf messages through the
// client's serde/protobuf package against charter serve: the serializer
// auto-registers orders.proto with its import common.proto as a
// reference, frames each message with its message index, and the
// deserializer decodes with the schema Charter returns by ID.
func TestConfluentProtobufSerde(t *testing.T) {
	s := startServer(t)
	fd := compileProtos(t)
	orderMD := fd.Messages().ByName("Order")
	refundMD := fd.Messages().ByName("Refund")
	addressMD := orderMD.Fields().ByName("ship_to").Message()

	order := dynamicpb.NewMessage(orderMD)
	setField(t, order, "id", protoreflect.ValueOfInt64(42))
	addr := dynamicpb.NewMessage(addressMD)
	setField(t, addr, "city", protoreflect.ValueOfString("Zürich"))
	setField(t, addr, "zip", protoreflect.ValueOfString("8001"))
	setField(t, order, "ship_to", protoreflect.ValueOfMessage(addr))
	items := order.NewField(orderMD.Fields().ByName("items")).List()
	items.Append(protoreflect.ValueOfString("book"))
	items.Append(protoreflect.ValueOfString("pen"))
	setField(t, order, "items", protoreflect.ValueOfList(items))
	setField(t, order, "status", protoreflect.ValueOfEnum(1))

	refund := dynamicpb.NewMessage(refundMD)
	setField(t, refund, "order_id", protoreflect.ValueOfInt64(42))
	setField(t, refund, "amount", protoreflect.ValueOfFloat64(9.5))
	reason := dynamicpb.NewMessage(refundMD.Messages().ByName("Reason"))
	setField(t, reason, "text", protoreflect.ValueOfString("damaged"))
	setField(t, refund, "reason", protoreflect.ValueOfMessage(reason))

	ser, err := protobuf.NewSerializer(newSRClient(t, s.URL), serde.ValueSerde, protobuf.NewSerializerConfig())
	if err != nil {
		t.Fatalf("NewSerializer: %v", err)
	}
	// The deserializer builds messages by name from this registry.
	types := new(protoregistry.Types)
	for _, md := range []protoreflect.MessageDescriptor{orderMD, refundMD} {
		if err := types.RegisterMessage(dynamicpb.NewMessageType(md)); err != nil {
			t.Fatal(err)
		}
	}
	de, err := protobuf.NewDeserializer(newSRClient(t, s.URL), serde.ValueSerde, protobuf.NewDeserializerConfig())
	if err != nil {
		t.Fatalf("NewDeserializer: %v", err)
	}
	de.ProtoRegistry = types

	cases := []struct {
		name  string
		msg   *dynamicpb.Message
		index []byte // message indexes as framed after the ID (zigzag varints)
	}{
		{"first message", order, []byte{0}},
		{"second message", refund, []byte{2, 2}}, // count 1, index 1
	}
	var ids []int
	for _, c := range cases {
		msg, err := ser.Serialize("orders", c.msg)
		if err != nil {
			t.Fatalf("%s: Serialize: %v", c.name, err)
		}
		ids = append(ids, wireID(t, msg))
		if got := msg[5 : 5+len(c.index)]; !slices.Equal(got, c.index) {
			t.Errorf("%s: message indexes framed as % x, want % x", c.name, got, c.index)
		}
		got, err := de.Deserialize("orders", msg)
		if err != nil {
			t.Fatalf("%s: Deserialize: %v", c.name, err)
		}
		pm, ok := got.(proto.Message)
		if !ok || !proto.Equal(pm, c.msg) {
			t.Errorf("%s: round trip got %v, want %v", c.name, got, c.msg)
		}
		into := dynamicpb.NewMessage(c.msg.Descriptor())
		if err := de.DeserializeInto("orders", msg, into); err != nil {
			t.Fatalf("%s: DeserializeInto: %v", c.name, err)
		}
		if !proto.Equal(into, c.msg) {
			t.Errorf("%s: DeserializeInto got %v, want %v", c.name, into, c.msg)
		}
	}
	if ids[0] != ids[1] {
		t.Errorf("both messages of one file: schema IDs %v, want one ID", ids)
	}

	// What the serializer registered: common.proto under its own name,
	// orders-value referencing it.
	c := newSRClient(t, s.URL)
	md, err := c.GetLatestSchemaMetadata("orders-value")
	if err != nil {
		t.Fatalf("GetLatestSchemaMetadata(orders-value): %v", err)
	}
	if md.ID != ids[0] || md.SchemaType != "PROTOBUF" {
		t.Errorf("orders-value: id %d type %q, want %d PROTOBUF", md.ID, md.SchemaType, ids[0])
	}
	wantRefs := []schemaregistry.Reference{{Name: commonProtoName, Subject: commonProtoName, Version: 1}}
	if !reflect.DeepEqual(md.References, wantRefs) {
		t.Errorf("orders-value references %+v, want %+v", md.References, wantRefs)
	}
	refs, err := c.GetSubjectsAndVersionsByID(md.ID)
	if err != nil || len(refs) != 1 || refs[0].Subject != "orders-value" {
		t.Errorf("GetSubjectsAndVersionsByID(%d) = %+v, %v", md.ID, refs, err)
	}

	// Evolution through the client, with the reference: a new field is
	// compatible, a changed field type is not.
	evolved := func(from, to string) schemaregistry.SchemaInfo {
		return schemaregistry.SchemaInfo{Schema: strings.Replace(md.Schema, from, to, 1), SchemaType: "PROTOBUF", References: md.References}
	}
	for _, tc := range []struct {
		name string
		info schemaregistry.SchemaInfo
		want bool
	}{
		{"field added", evolved("int64 id = 1;", "int64 id = 1;\n  string note = 5;"), true},
		{"field type changed", evolved("int64 id = 1;", "string id = 1;"), false},
	} {
		ok, err := c.TestSubjectCompatibility("orders-value", tc.info)
		if err != nil || ok != tc.want {
			t.Errorf("%s: TestSubjectCompatibility = %v, %v; want %v", tc.name, ok, err, tc.want)
		}
	}
	if _, err := c.Register("orders-value", evolved("int64 id = 1;", "string id = 1;"), false); err == nil {
		t.Errorf("Register an incompatible Protobuf schema: no error")
	} else {
		wantRESTError(t, "Register an incompatible Protobuf schema", err, 409)
	}
	// common.proto is referenced: its only version cannot go.
	_, err = c.DeleteSubjectVersion(commonProtoName, 1, false)
	wantRESTError(t, "DeleteSubjectVersion of a referenced schema", err, 42206)
}

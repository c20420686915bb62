package protobuf

import (
	"encoding/base64"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/charter-dev/charter/compat"
)

// serialize returns the base64 FileDescriptorProto of text, named name,
// as a Confluent serializer sends it.
func serialize(t *testing.T, name, text string, deps []compat.Dependency) string {
	t.Helper()
	s, err := Parse(text, deps)
	if err != nil {
		t.Fatalf("Parse text: %v", err)
	}
	fdp := protodesc.ToFileDescriptorProto(s.Descriptor())
	fdp.Name = proto.String(name)
	stripDefaultJSONNames(fdp.GetMessageType())
	b, err := proto.Marshal(fdp)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestSerializedRoundTrip(t *testing.T) {
	common := "syntax = \"proto3\";\npackage common;\nmessage Money {\n  string currency = 1;\n  int64 units = 2;\n}\n"
	deps := []compat.Dependency{{Name: "common/money.proto", Text: common}}
	for _, tc := range []struct {
		name, text string
		deps       []compat.Dependency
	}{
		{"simple", "syntax = \"proto3\";\npackage shop;\n\nmessage Order {\n  string id = 1;\n  repeated string lines = 2;\n  map<string, int32> counts = 3;\n  oneof payment { string card = 4; string iban = 5; }\n  Status status = 6;\n  enum Status { UNKNOWN = 0; PAID = 1; }\n  message Line { int32 qty = 1; }\n  Line first = 7;\n}\n", nil},
		{"well-known types", "syntax = \"proto3\";\npackage shop;\nimport \"google/protobuf/timestamp.proto\";\nimport \"google/protobuf/wrappers.proto\";\nmessage Event {\n  google.protobuf.Timestamp at = 1;\n  google.protobuf.StringValue note = 2;\n}\n", nil},
		{"reference", "syntax = \"proto3\";\npackage shop;\nimport \"common/money.proto\";\nmessage Payment {\n  common.Money amount = 1;\n  string ref = 2 [json_name = \"reference\"];\n}\n", deps},
		{"custom options and services", "syntax = \"proto3\";\npackage shop;\nimport \"confluent/meta.proto\";\nimport \"google/protobuf/empty.proto\";\noption go_package = \"example.com/shop\";\nmessage Customer {\n  string email = 1 [(confluent.field_meta) = { doc: \"contact\", tags: [\"PII\"] }, deprecated = true];\n  reserved 2, 5 to 7;\n  reserved \"old\";\n  optional string nick_name = 3;\n}\nservice Customers {\n  rpc Get(google.protobuf.Empty) returns (Customer);\n}\n", nil},
		{"proto2", "syntax = \"proto2\";\npackage legacy;\noption java_package = \"com.example\";\nmessage Item {\n  required string sku = 1;\n  optional int32 qty = 2 [default = 1];\n  extensions 100 to 199;\n}\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fromText, err := Parse(tc.text, tc.deps)
			if err != nil {
				t.Fatal(err)
			}
			b64 := serialize(t, "shop/order.proto", tc.text, tc.deps)
			fromDesc, err := Parse(b64, tc.deps)
			if err != nil {
				t.Fatalf("Parse descriptor: %v", err)
			}
			if !fromDesc.FromDescriptor() || fromText.FromDescriptor() {
				t.Errorf("FromDescriptor: text %v, descriptor %v", fromText.FromDescriptor(), fromDesc.FromDescriptor())
			}
			if fromDesc.Normalized() != fromText.Normalized() {
				t.Errorf("Normalized differs:\ntext:\n%s\ndescriptor:\n%s", fromText.Normalized(), fromDesc.Normalized())
			}
			if fromText.PrintedCanonical() != fromDesc.Canonical() || !fromDesc.InPrintedForm() {
				t.Errorf("PrintedCanonical of the text:\n%s\nwant the descriptor's Canonical:\n%s", fromText.PrintedCanonical(), fromDesc.Canonical())
			}
			// The stored text of the descriptor parses back to itself and is
			// recognised as a printed descriptor.
			again, err := Parse(fromDesc.Canonical(), tc.deps)
			if err != nil {
				t.Fatalf("Parse stored text: %v\n%s", err, fromDesc.Canonical())
			}
			if again.Canonical() != fromDesc.Canonical() || !again.InPrintedForm() {
				t.Errorf("stored text not stable or not in printed form:\n%s\nagain:\n%s", fromDesc.Canonical(), again.Canonical())
			}
			// Serialized, decoded and parsed again: the same stored text.
			ser, err := Parse(again.Serialized(), tc.deps)
			if err != nil {
				t.Fatalf("Parse Serialized: %v", err)
			}
			if ser.Canonical() != fromDesc.Canonical() {
				t.Errorf("Serialized round trip:\n%s\nwant\n%s", ser.Canonical(), fromDesc.Canonical())
			}
			fdp, ok, err := DecodeDescriptor(fromText.Serialized())
			if !ok || err != nil || fdp.GetPackage() == "" {
				t.Errorf("DecodeDescriptor(Serialized) = %v, %v, %v", fdp, ok, err)
			}
			if no := CheckRead(t, fromText, fromDesc); len(no) != 0 {
				t.Errorf("text and descriptor differ: %v", no)
			}
			t.Logf("stored:\n%s", fromDesc.Canonical())
		})
	}
}

func CheckRead(t *testing.T, a, b compat.Schema) []compat.Violation {
	t.Helper()
	return append(Format{}.CheckRead(a, b), Format{}.CheckRead(b, a)...)
}

func TestSerializedInvalid(t *testing.T) {
	notDesc := base64.StdEncoding.EncodeToString([]byte{0x08, 0xff})
	empty := base64.StdEncoding.EncodeToString(mustMarshal(t, &descriptorpb.FileDescriptorProto{Package: proto.String("x")}))
	badType := base64.StdEncoding.EncodeToString(mustMarshal(t, &descriptorpb.FileDescriptorProto{
		Name: proto.String("x.proto"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M"), Field: []*descriptorpb.FieldDescriptorProto{{
			Name: proto.String("f"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
			Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".Missing"),
		}}}},
	}))
	missingImport := base64.StdEncoding.EncodeToString(mustMarshal(t, &descriptorpb.FileDescriptorProto{
		Name: proto.String("x.proto"), Syntax: proto.String("proto3"), Dependency: []string{"other.proto"},
	}))
	for _, tc := range []struct{ name, in, want string }{
		{"not a descriptor", notDesc, "neither .proto text"},
		{"empty descriptor", empty, "no FileDescriptorProto with a name or a syntax"},
		{"unknown type", badType, "invalid Protobuf schema (serialized)"},
		{"missing import", missingImport, "other.proto"},
		{"text", "syntax = \"proto3\"; message {", "invalid Protobuf schema: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.in, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse(%q) = %v, want an error containing %q", tc.in, err, tc.want)
			}
		})
	}
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stripDefaultJSONNames drops the json_name of fields that have the
// default one, as descriptors built by Python's protobuf runtime have none.
func stripDefaultJSONNames(msgs []*descriptorpb.DescriptorProto) {
	for _, m := range msgs {
		for _, f := range m.GetField() {
			if f.GetJsonName() == jsonCamelCase(f.GetName()) {
				f.JsonName = nil
			}
		}
		stripDefaultJSONNames(m.GetNestedType())
	}
}

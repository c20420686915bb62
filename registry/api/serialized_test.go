package api_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jhump/protoreflect/desc"
	"github.com/jhump/protoreflect/desc/protoprint"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
)

// descriptorOf returns text's base64 FileDescriptorProto named name, as
// Confluent's Python and JavaScript Protobuf serializers register it.
func descriptorOf(t *testing.T, name, text string, deps ...compat.Dependency) string {
	t.Helper()
	s, err := protobuf.Parse(text, deps)
	if err != nil {
		t.Fatal(err)
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

// idOf returns the "id" member of a JSON answer.
func idOf(t *testing.T, body string) int64 {
	t.Helper()
	var v struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil || v.ID == 0 {
		t.Fatalf("no id in %s (%v)", body, err)
	}
	return v.ID
}

// protoWKT imports a well-known type and a reference.
const protoWKT = "syntax = \"proto3\";\npackage acme;\n\nimport \"common.proto\";\nimport \"google/protobuf/timestamp.proto\";\n\n// An order.\nmessage Order {\n  Address addr = 1;\n  google.protobuf.Timestamp placed_at = 2;\n  map<string, int32> counts = 3;\n  enum State { NEW = 0; DONE = 1; }\n  State state = 4;\n}\n"

func TestProtobufSerializedForm(t *testing.T) {
	common := compat.Dependency{Name: "common.proto", Text: protoCommon}
	for _, order := range []string{"text first", "descriptor first"} {
		t.Run(order, func(t *testing.T) {
			e := newEnvFormats(t, allFormats)
			commonDesc := descriptorOf(t, "common.proto", protoCommon)
			orderDesc := descriptorOf(t, "acme/order.proto", protoWKT, common)
			first, second := typed(compat.Protobuf, protoCommon), typed(compat.Protobuf, commonDesc)
			firstO, secondO := typed(compat.Protobuf, protoWKT, protoRefs), typed(compat.Protobuf, orderDesc, protoRefs)
			if order == "descriptor first" {
				first, second, firstO, secondO = second, first, secondO, firstO
			}
			c1 := idOf(t, e.mustDo("POST", "/subjects/common/versions", first))
			c2 := idOf(t, e.mustDo("POST", "/subjects/common/versions", second))
			o1 := idOf(t, e.mustDo("POST", "/subjects/orders-value/versions", firstO))
			o2 := idOf(t, e.mustDo("POST", "/subjects/orders-value/versions", secondO))
			if c1 != c2 || o1 != o2 {
				t.Fatalf("ids: common %d then %d, order %d then %d; want one id each", c1, c2, o1, o2)
			}
			e.run([]step{
				{method: "GET", path: "/subjects/common/versions", json: `[1]`},
				{method: "GET", path: "/subjects/orders-value/versions", json: `[1]`},
				// Lookup and compatibility with the other form.
				{method: "POST", path: "/subjects/orders-value", body: secondO, contains: []string{`"version":1`, `"id":` + itoa(int(o1))}},
				{method: "POST", path: "/subjects/orders-value", body: firstO, contains: []string{`"version":1`}},
				{method: "POST", path: "/compatibility/subjects/orders-value/versions/latest", body: secondO, json: `{"is_compatible":true}`},
				{method: "POST", path: "/governance/subjects/orders-value/check", body: secondO},
			})
			// A descriptor with an incompatible change is judged as text is.
			broken := strings.Replace(protoWKT, "State state = 4;", "string state = 4;", 1)
			brokenDesc := typed(compat.Protobuf, descriptorOf(t, "acme/order.proto", broken, common), protoRefs)
			e.run([]step{
				{method: "POST", path: "/compatibility/subjects/orders-value/versions/latest?verbose=true", body: brokenDesc, contains: []string{`"is_compatible":false`}},
				{method: "POST", path: "/subjects/orders-value/versions", body: brokenDesc, status: 409},
			})

			// ?format=serialized answers the descriptor; its printed form
			// is the stored text.
			var stored struct {
				Schema string `json:"schema"`
			}
			if err := json.Unmarshal([]byte(e.mustDo("GET", "/subjects/orders-value/versions/1", "")), &stored); err != nil {
				t.Fatal(err)
			}
			files := new(protoregistry.Files)
			for _, path := range []string{"/schemas/ids/" + itoa(int(c1)) + "?format=serialized", "/subjects/common/versions/1?format=serialized"} {
				fdp := decodeServed(t, e.mustDo("GET", path, ""))
				if fdp.GetPackage() != "acme" || len(fdp.GetMessageType()) != 1 || fdp.GetMessageType()[0].GetName() != "Address" {
					t.Fatalf("%s: %v", path, fdp)
				}
				if files.NumFiles() == 0 {
					fdp.Name = proto.String("common.proto")
					fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
					if err != nil {
						t.Fatal(err)
					}
					if err := files.RegisterFile(fd); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, path := range []string{"/schemas/ids/" + itoa(int(o1)) + "?format=serialized", "/subjects/orders-value/versions/1?format=serialized",
				"/schemas/ids/" + itoa(int(o1)) + "/schema?format=serialized", "/subjects/orders-value/versions/latest/schema?format=serialized"} {
				body := e.mustDo("GET", path, "")
				var fdp *descriptorpb.FileDescriptorProto
				if strings.HasSuffix(strings.SplitN(path, "?", 2)[0], "/schema") {
					fdp = decodeBase64(t, body)
				} else {
					fdp = decodeServed(t, body)
				}
				if got := fdp.GetDependency(); len(got) != 2 || got[0] != "common.proto" || got[1] != "google/protobuf/timestamp.proto" {
					t.Errorf("%s: dependencies %v", path, got)
				}
				resolver := &both{files}
				fd, err := protodesc.NewFile(fdp, resolver)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				w, err := desc.WrapFile(fd)
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				if err := (&protoprint.Printer{Indent: "  "}).PrintProtoFile(w, &b); err != nil {
					t.Fatal(err)
				}
				printed, err := protobuf.Parse(b.String(), []compat.Dependency{common})
				if err != nil {
					t.Fatalf("%s: printed descriptor: %v\n%s", path, err, b.String())
				}
				want, err := protobuf.Parse(stored.Schema, []compat.Dependency{common})
				if err != nil {
					t.Fatal(err)
				}
				if printed.Normalized() != want.Normalized() {
					t.Errorf("%s: printed form\n%s\nwant the stored text\n%s", path, printed.Normalized(), want.Normalized())
				}
				if order == "descriptor first" && printed.Canonical() != stored.Schema {
					t.Errorf("%s: printed form\n%s\nwant the stored text\n%s", path, printed.Canonical(), stored.Schema)
				}
			}
			// Lookup answers with format too.
			var looked struct {
				Schema string `json:"schema"`
			}
			if err := json.Unmarshal([]byte(e.mustDo("POST", "/subjects/common?format=serialized", first)), &looked); err != nil {
				t.Fatal(err)
			}
			if fdp := decodeBase64(t, looked.Schema); fdp.GetMessageType()[0].GetName() != "Address" {
				t.Errorf("lookup ?format=serialized: %v", fdp)
			}
			// Without format, or with another value, the stored text.
			for _, f := range []string{"", "?format=default", "?format=resolved", "?format=nonsense"} {
				if got := e.mustDo("GET", "/subjects/orders-value/versions/1/schema"+f, ""); got != stored.Schema {
					t.Errorf("format %q: %s", f, got)
				}
			}
		})
	}
}

// both resolves files from a registry, then the global one (well-known
// types).
type both struct{ r *protoregistry.Files }

func (b *both) FindFileByPath(p string) (protoreflect.FileDescriptor, error) {
	if fd, err := b.r.FindFileByPath(p); err == nil {
		return fd, nil
	}
	return protoregistry.GlobalFiles.FindFileByPath(p)
}

func (b *both) FindDescriptorByName(n protoreflect.FullName) (protoreflect.Descriptor, error) {
	if d, err := b.r.FindDescriptorByName(n); err == nil {
		return d, nil
	}
	return protoregistry.GlobalFiles.FindDescriptorByName(n)
}

func decodeServed(t *testing.T, body string) *descriptorpb.FileDescriptorProto {
	t.Helper()
	var v struct {
		Schema     string `json:"schema"`
		SchemaType string `json:"schemaType"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil || v.SchemaType != "PROTOBUF" {
		t.Fatalf("%s: %v", body, err)
	}
	return decodeBase64(t, v.Schema)
}

func decodeBase64(t *testing.T, s string) *descriptorpb.FileDescriptorProto {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("not base64: %q", s)
	}
	fdp := &descriptorpb.FileDescriptorProto{}
	if err := proto.Unmarshal(b, fdp); err != nil {
		t.Fatal(err)
	}
	return fdp
}

func TestProtobufSerializedInvalid(t *testing.T) {
	e := newEnvFormats(t, allFormats)
	junk := base64.StdEncoding.EncodeToString([]byte{0x08, 0xff})
	e.run([]step{
		{method: "POST", path: "/subjects/x/versions", body: typed(compat.Protobuf, junk), status: 422, code: 42201, contains: []string{"neither .proto text", "FileDescriptorProto"}},
		{method: "POST", path: "/subjects/x/versions", body: typed(compat.Protobuf, "message {"), status: 422, code: 42201, notContains: []string{"FileDescriptorProto"}},
	})
}

// stripDefaultJSONNames drops the json_name of fields that have the
// default one, as descriptors built by Python's protobuf runtime have none.
func stripDefaultJSONNames(msgs []*descriptorpb.DescriptorProto) {
	for _, m := range msgs {
		for _, f := range m.GetField() {
			if f.GetJsonName() == camel(f.GetName()) {
				f.JsonName = nil
			}
		}
		stripDefaultJSONNames(m.GetNestedType())
	}
}

func camel(name string) string {
	parts := strings.Split(name, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// TestProtobufSerializedOrder: a descriptor is the version of the text with
// the same descriptor only, declaration order included (Confluent's
// canonical text keeps it); normalize=true matches either order.
func TestProtobufSerializedOrder(t *testing.T) {
	// Type names qualified differently from Normalized's, so that no
	// text's Normalized form is another's Canonical one.
	const (
		textAB = "syntax = \"proto3\";\npackage p;\nmessage M {\n}\nmessage N {\n  M a = 1;\n  string b = 2;\n}\n"
		textBA = "syntax = \"proto3\";\npackage p;\nmessage M {\n}\nmessage N {\n  string b = 2;\n  M a = 1;\n}\n"
	)
	e := newEnvFormats(t, allFormats)
	ab := typed(compat.Protobuf, descriptorOf(t, "n.proto", textAB))
	ba := typed(compat.Protobuf, descriptorOf(t, "n.proto", textBA))
	id := idOf(t, e.mustDo("POST", "/subjects/n/versions", typed(compat.Protobuf, textAB)))
	if got := idOf(t, e.mustDo("POST", "/subjects/n/versions", ab)); got != id {
		t.Fatalf("descriptor of the same text: id %d, want %d", got, id)
	}
	e.run([]step{
		{method: "POST", path: "/subjects/n", body: ba, status: 404, code: 40403},
		{method: "POST", path: "/subjects/n?normalize=true", body: ba, contains: []string{`"version":1`}},
		{method: "POST", path: "/subjects/n/versions", body: ba, contains: []string{`"id":` + itoa(int(id)+1)}},
		{method: "GET", path: "/subjects/n/versions", json: `[1,2]`},
		{method: "POST", path: "/subjects/n", body: typed(compat.Protobuf, textBA), contains: []string{`"version":2`}},
	})
}

// TestProtobufSerializedAcrossSubjects: the text of a schema registered
// serialized under another subject gets its ID (Confluent's stored text is
// the printed descriptor); the converse is not looked for.
func TestProtobufSerializedAcrossSubjects(t *testing.T) {
	const text = "syntax = \"proto3\";\npackage p;\nmessage M {\n}\nmessage N {\n  .p.M a = 1;\n}\n"
	e := newEnvFormats(t, allFormats)
	id := idOf(t, e.mustDo("POST", "/subjects/a/versions", typed(compat.Protobuf, descriptorOf(t, "n.proto", text))))
	if got := idOf(t, e.mustDo("POST", "/subjects/b/versions", typed(compat.Protobuf, text))); got != id {
		t.Errorf("text under another subject: id %d, want %d", got, id)
	}
	e.run([]step{
		{method: "GET", path: "/schemas/ids/" + itoa(int(id)) + "/versions", json: `[{"subject":"a","version":1},{"subject":"b","version":1}]`},
		{method: "POST", path: "/subjects/b", body: typed(compat.Protobuf, text), contains: []string{`"id":` + itoa(int(id))}},
	})
}

//go:build cgo

package clienttest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/jsonschema"
)

// Customer is serialised with the JSON Schema the serde reflects from it.
type Customer struct {
	ID    int64    `json:"id"`
	Name  string   `json:"name"`
	Email string   `json:"email,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

// addressSchema and shipmentSchema are registered by hand: shipment's
// "$ref": "address.json" resolves through a reference.
const (
	addressSchema  = `{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string","pattern":"^[0-9]{4,5}$"}},"required":["city"]}`
	shipmentSchema = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":` +
		`{"id":{"type":"integer"},"to":{"$ref":"address.json"}},"required":["id","to"]}`
)

// Address and Shipment match addressSchema and shipmentSchema.
type Address struct {
	City string `json:"city"`
	Zip  string `json:"zip,omitempty"`
}

// Shipment references Address.
type Shipment struct {
	ID int64   `json:"id"`
	To Address `json:"to"`
}

// TestConfluentJSONSchemaSerde round-trips JSON documents through the
// client's serde/jsonschema package against charter serve, the serializer
// validating each document against the schema (and its references) that
// Charter returns: auto-registration of a schema reflected from a
// Go struct, then a schema with a "$ref" resolved through a reference.
func TestConfluentJSONSchemaSerde(t *testing.T) {
	s := startServer(t)

	t.Run("auto-register", func(t *testing.T) {
		conf := jsonschema.NewSerializerConfig()
		conf.EnableValidation = true
		ser, err := jsonschema.NewSerializer(newSRClient(t, s.URL), serde.ValueSerde, conf)
		if err != nil {
			t.Fatalf("NewSerializer: %v", err)
		}
		in := Customer{ID: 7, Name: "Ada", Email: "ada@example.com", Tags: []string{"vip"}}
		msg, err := ser.Serialize("customers", &in)
		if err != nil {
			t.Fatalf("Serialize: %v", err)
		}
		md, err := newSRClient(t, s.URL).GetLatestSchemaMetadata("customers-value")
		if err != nil {
			t.Fatalf("GetLatestSchemaMetadata(customers-value): %v", err)
		}
		if got := wireID(t, msg); got != md.ID || md.SchemaType != "JSON" {
			t.Errorf("wire schema ID %d, registry says %d (type %q)", got, md.ID, md.SchemaType)
		}
		// (The deserializer validates only generic values, not the struct
		// DeserializeInto fills: its EnableValidation stays off.)
		de, err := jsonschema.NewDeserializer(newSRClient(t, s.URL), serde.ValueSerde, jsonschema.NewDeserializerConfig())
		if err != nil {
			t.Fatalf("NewDeserializer: %v", err)
		}
		var out Customer
		if err := de.DeserializeInto("customers", msg, &out); err != nil {
			t.Fatalf("DeserializeInto: %v", err)
		}
		if !reflect.DeepEqual(out, in) {
			t.Errorf("round trip: got %+v, want %+v", out, in)
		}
		// Serializing the same type again finds the same schema.
		msg2, err := ser.Serialize("customers", &Customer{ID: 8, Name: "Grace"})
		if err != nil || wireID(t, msg2) != md.ID {
			t.Errorf("second Serialize: %v, id %d; want id %d", err, wireID(t, msg2), md.ID)
		}
	})

	t.Run("reference", func(t *testing.T) {
		admin := newSRClient(t, s.URL)
		if _, err := admin.Register("address", schemaregistry.SchemaInfo{Schema: addressSchema, SchemaType: "JSON"}, false); err != nil {
			t.Fatalf("Register address: %v", err)
		}
		refs := []schemaregistry.Reference{{Name: "address.json", Subject: "address", Version: 1}}
		info := schemaregistry.SchemaInfo{Schema: shipmentSchema, SchemaType: "JSON", References: refs}
		id, err := admin.Register("shipments-value", info, false)
		if err != nil {
			t.Fatalf("Register shipments-value with a reference: %v", err)
		}
		if got, err := newSRClient(t, s.URL).GetID("shipments-value", info, false); err != nil || got != id {
			t.Errorf("GetID with the reference = %d, %v; want %d", got, err, id)
		}

		conf := jsonschema.NewSerializerConfig()
		conf.AutoRegisterSchemas = false
		conf.UseLatestVersion = true
		conf.EnableValidation = true
		ser, err := jsonschema.NewSerializer(newSRClient(t, s.URL), serde.ValueSerde, conf)
		if err != nil {
			t.Fatalf("NewSerializer: %v", err)
		}
		in := Shipment{ID: 1, To: Address{City: "Lyon", Zip: "69001"}}
		msg, err := ser.Serialize("shipments", &in)
		if err != nil {
			t.Fatalf("Serialize: %v", err)
		}
		if got := wireID(t, msg); got != id {
			t.Errorf("wire schema ID %d, want %d", got, id)
		}
		// The referenced schema's constraints apply: a bad zip fails.
		if _, err := ser.Serialize("shipments", &Shipment{ID: 2, To: Address{City: "Lyon", Zip: "x"}}); err == nil {
			t.Errorf("Serialize of a document the referenced schema rejects: no error")
		}
		de, err := jsonschema.NewDeserializer(newSRClient(t, s.URL), serde.ValueSerde, jsonschema.NewDeserializerConfig())
		if err != nil {
			t.Fatalf("NewDeserializer: %v", err)
		}
		var out Shipment
		if err := de.DeserializeInto("shipments", msg, &out); err != nil {
			t.Fatalf("DeserializeInto: %v", err)
		}
		if out != in {
			t.Errorf("round trip: got %+v, want %+v", out, in)
		}

		// Compatibility through the client, with the reference (Confluent's
		// STRICT JSON semantics: a property added to an open content model
		// and a narrowed bound are refused, a widened type is accepted).
		for _, tc := range []struct {
			name, schema string
			want         bool
		}{
			{"optional property added", strings.Replace(shipmentSchema, `"id":{"type":"integer"}`, `"id":{"type":"integer"},"note":{"type":"string"}`, 1), false},
			{"type narrowed", strings.Replace(shipmentSchema, `"id":{"type":"integer"}`, `"id":{"type":"integer","maximum":10}`, 1), false},
			{"type widened", strings.Replace(shipmentSchema, `"id":{"type":"integer"}`, `"id":{"type":"number"}`, 1), true},
		} {
			ok, err := admin.TestSubjectCompatibility("shipments-value", schemaregistry.SchemaInfo{Schema: tc.schema, SchemaType: "JSON", References: refs})
			if err != nil || ok != tc.want {
				t.Errorf("%s: TestSubjectCompatibility = %v, %v; want %v", tc.name, ok, err, tc.want)
			}
		}
		_, err = admin.DeleteSubjectVersion("address", 1, false)
		wantRESTError(t, "DeleteSubjectVersion of a referenced JSON schema", err, 42206)
	})
}

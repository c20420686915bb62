//go:build cgo

package clienttest

import (
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/avrov2"
)

// TestConfluentAvroSerdeInContext: confluent-kafka-go's client with its
// base URL under /contexts/.staging (as Confluent documents for schema
// contexts) auto-registers in .staging, whose schema IDs start at 1 like
// the default context's, and its deserializer reads them back from
// .staging; the default context's ID 1 stays another schema.
func TestConfluentAvroSerdeInContext(t *testing.T) {
	s := startServer(t)
	staging := s.URL + "/contexts/.staging"
	id, err := newSRClient(t, s.URL).Register("other-value", schemaregistry.SchemaInfo{Schema: orderV1}, false)
	if err != nil || id != 1 {
		t.Fatalf("register in the default context: %d, %v", id, err)
	}
	ser, err := avrov2.NewSerializer(newSRClient(t, staging), serde.ValueSerde, avrov2.NewSerializerConfig())
	if err != nil {
		t.Fatalf("NewSerializer: %v", err)
	}
	in := Payment{ID: 42, Amount: 12.5, Note: "staged"}
	msg, err := ser.Serialize("payments", &in)
	if err != nil {
		t.Fatalf("Serialize: %v", err)
	}
	if got := wireID(t, msg); got != 1 {
		t.Errorf("wire schema ID %d, want 1 (the first of .staging)", got)
	}
	md, err := newSRClient(t, s.URL).GetLatestSchemaMetadata(":.staging:payments-value")
	if err != nil || md.ID != 1 {
		t.Fatalf("latest of :.staging:payments-value = %d, %v; want ID 1", md.ID, err)
	}
	de, err := avrov2.NewDeserializer(newSRClient(t, staging), serde.ValueSerde, avrov2.NewDeserializerConfig())
	if err != nil {
		t.Fatalf("NewDeserializer: %v", err)
	}
	var out Payment
	if err := de.DeserializeInto("payments", msg, &out); err != nil {
		t.Fatalf("DeserializeInto: %v", err)
	}
	if out != in {
		t.Errorf("round trip: got %+v, want %+v", out, in)
	}
	def, err := newSRClient(t, s.URL).GetBySubjectAndID("", 1)
	if err != nil {
		t.Fatal(err)
	}
	wantSameSchema(t, "the default context's schema 1", def.Schema, orderV1)
}

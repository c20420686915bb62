//go:build cgo

package clienttest

import (
	"encoding/binary"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/rest"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde"
	"github.com/confluentinc/confluent-kafka-go/v2/schemaregistry/serde/avrov2"
)

const (
	orderV1 = `{"type":"record","name":"Order","namespace":"com.example","fields":[` +
		`{"name":"id","type":"long"},{"name":"amount","type":"double"}]}`
	// orderV2 adds a field with a default: BACKWARD compatible with v1.
	orderV2 = `{"type":"record","name":"Order","namespace":"com.example","fields":[` +
		`{"name":"id","type":"long"},{"name":"amount","type":"double"},` +
		`{"name":"currency","type":"string","default":"EUR"}]}`
	// orderBad adds a field without a default: not BACKWARD compatible with v1.
	orderBad = `{"type":"record","name":"Order","namespace":"com.example","fields":[` +
		`{"name":"id","type":"long"},{"name":"amount","type":"double"},` +
		`{"name":"customer","type":"string"}]}`
)

// newSRClient returns a fresh Confluent client (fresh caches) for url.
func newSRClient(t *testing.T, url string) schemaregistry.Client {
	t.Helper()
	c, err := schemaregistry.NewClient(schemaregistry.NewConfig(url))
	if err != nil {
		t.Fatalf("new schema registry client: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// wantRESTError requires err to be the client's *rest.Error with one of the
// given codes and returns it.
func wantRESTError(t *testing.T, what string, err error, codes ...int) *rest.Error {
	t.Helper()
	var re *rest.Error
	if !errors.As(err, &re) {
		t.Fatalf("%s: error %v (%T), want a *rest.Error with code %v", what, err, err, codes)
	}
	if !slices.Contains(codes, re.Code) {
		t.Fatalf("%s: error code %d (%q), want one of %v", what, re.Code, re.Message, codes)
	}
	return re
}

func wantSameSchema(t *testing.T, what, got, want string) {
	t.Helper()
	same, err := sameJSON(got, want)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !same {
		t.Fatalf("%s: schema %s, want %s", what, got, want)
	}
}

// TestConfluentGoClient drives charter serve with the confluent-kafka-go
// schemaregistry client: register, look up, fetch by ID, compatibility and
// config, each call with the client's own request and response shapes.
func TestConfluentGoClient(t *testing.T) {
	s := startServer(t)
	info := schemaregistry.SchemaInfo{Schema: orderV1}

	// Register: a new schema gets an ID; the same schema again, from a
	// client with empty caches and under a second subject, the same ID.
	id1, err := newSRClient(t, s.URL).Register("orders-value", info, false)
	if err != nil {
		t.Fatalf("Register orders-value: %v", err)
	}
	if id1 <= 0 {
		t.Fatalf("Register orders-value: id %d, want > 0", id1)
	}
	for _, subject := range []string{"orders-value", "orders-archive-value"} {
		id, err := newSRClient(t, s.URL).Register(subject, info, false)
		if err != nil {
			t.Fatalf("Register %s again: %v", subject, err)
		}
		if id != id1 {
			t.Errorf("Register %s again: id %d, want %d", subject, id, id1)
		}
	}

	c := newSRClient(t, s.URL)

	t.Run("lookup", func(t *testing.T) {
		c := newSRClient(t, s.URL)
		id, err := c.GetID("orders-value", info, false)
		if err != nil || id != id1 {
			t.Fatalf("GetID: %d, %v; want %d", id, err, id1)
		}
		md, err := newSRClient(t, s.URL).GetIDFullResponse("orders-value", info, false)
		if err != nil {
			t.Fatalf("GetIDFullResponse: %v", err)
		}
		if md.ID != id1 || md.Version != 1 || md.Subject != "orders-value" {
			t.Errorf("GetIDFullResponse: id %d version %d subject %q; want %d 1 orders-value", md.ID, md.Version, md.Subject, id1)
		}
		wantSameSchema(t, "GetIDFullResponse", md.Schema, orderV1)
		v, err := c.GetVersion("orders-value", info, false)
		if err != nil || v != 1 {
			t.Errorf("GetVersion: %d, %v; want 1", v, err)
		}
		_, err = newSRClient(t, s.URL).GetID("no-such-subject", info, false)
		wantRESTError(t, "GetID on an unknown subject", err, 40401)
		_, err = newSRClient(t, s.URL).GetID("orders-value", schemaregistry.SchemaInfo{Schema: orderV2}, false)
		wantRESTError(t, "GetID of an unregistered schema", err, 40403)
	})

	t.Run("fetch by ID", func(t *testing.T) {
		for _, subject := range []string{"orders-value", ""} {
			got, err := newSRClient(t, s.URL).GetBySubjectAndID(subject, id1)
			if err != nil {
				t.Fatalf("GetBySubjectAndID(%q, %d): %v", subject, id1, err)
			}
			wantSameSchema(t, "GetBySubjectAndID", got.Schema, orderV1)
			if got.SchemaType != "" && got.SchemaType != "AVRO" {
				t.Errorf("GetBySubjectAndID: schemaType %q, want AVRO or absent", got.SchemaType)
			}
		}
		svs, err := c.GetSubjectsAndVersionsByID(id1)
		if err != nil {
			t.Fatalf("GetSubjectsAndVersionsByID: %v", err)
		}
		want := []schemaregistry.SubjectAndVersion{{Subject: "orders-archive-value", Version: 1}, {Subject: "orders-value", Version: 1}}
		slices.SortFunc(svs, func(a, b schemaregistry.SubjectAndVersion) int {
			if a.Subject < b.Subject {
				return -1
			}
			if a.Subject > b.Subject {
				return 1
			}
			return a.Version - b.Version
		})
		if !reflect.DeepEqual(svs, want) {
			t.Errorf("GetSubjectsAndVersionsByID: %+v, want %+v", svs, want)
		}
		_, err = newSRClient(t, s.URL).GetBySubjectAndID("", id1+1000)
		wantRESTError(t, "GetBySubjectAndID of an unknown ID", err, 40403)
	})

	t.Run("latest and versions", func(t *testing.T) {
		md, err := c.GetLatestSchemaMetadata("orders-value")
		if err != nil {
			t.Fatalf("GetLatestSchemaMetadata: %v", err)
		}
		if md.ID != id1 || md.Version != 1 || md.Subject != "orders-value" {
			t.Errorf("GetLatestSchemaMetadata: id %d version %d subject %q; want %d 1 orders-value", md.ID, md.Version, md.Subject, id1)
		}
		wantSameSchema(t, "GetLatestSchemaMetadata", md.Schema, orderV1)
		md, err = c.GetSchemaMetadata("orders-value", 1)
		if err != nil || md.ID != id1 || md.Version != 1 {
			t.Errorf("GetSchemaMetadata(1): %+v, %v", md, err)
		}
		versions, err := c.GetAllVersions("orders-value")
		if err != nil || !reflect.DeepEqual(versions, []int{1}) {
			t.Errorf("GetAllVersions: %v, %v; want [1]", versions, err)
		}
		subjects, err := c.GetAllSubjects()
		slices.Sort(subjects)
		if err != nil || !reflect.DeepEqual(subjects, []string{"orders-archive-value", "orders-value"}) {
			t.Errorf("GetAllSubjects: %v, %v", subjects, err)
		}
		_, err = c.GetSchemaMetadata("orders-value", 7)
		wantRESTError(t, "GetSchemaMetadata of a missing version", err, 40402)
		_, err = c.GetLatestSchemaMetadata("no-such-subject")
		wantRESTError(t, "GetLatestSchemaMetadata of an unknown subject", err, 40401)
	})

	t.Run("compatibility", func(t *testing.T) {
		tests := []struct {
			name   string
			schema string
			want   bool
		}{
			{"field added with a default", orderV2, true},
			{"field added without a default", orderBad, false},
			{"same schema", orderV1, true},
		}
		for _, tt := range tests {
			si := schemaregistry.SchemaInfo{Schema: tt.schema}
			ok, err := c.TestCompatibility("orders-value", 1, si)
			if err != nil || ok != tt.want {
				t.Errorf("%s: TestCompatibility(version 1) = %v, %v; want %v", tt.name, ok, err, tt.want)
			}
			ok, err = c.TestSubjectCompatibility("orders-value", si)
			if err != nil || ok != tt.want {
				t.Errorf("%s: TestSubjectCompatibility = %v, %v; want %v", tt.name, ok, err, tt.want)
			}
		}
		_, err := c.Register("orders-value", schemaregistry.SchemaInfo{Schema: orderBad}, false)
		re := wantRESTError(t, "Register an incompatible schema", err, 409, 40901)
		if re.Message == "" {
			t.Errorf("Register an incompatible schema: empty message")
		}
		// As in Confluent: a named version of an unknown subject is 40402;
		// checking against all versions of an unknown subject passes.
		_, err = c.TestCompatibility("no-such-subject", 1, info)
		wantRESTError(t, "TestCompatibility on version 1 of an unknown subject", err, 40402)
		ok, err := c.TestSubjectCompatibility("no-such-subject", info)
		if err != nil || !ok {
			t.Errorf("TestSubjectCompatibility on an unknown subject = %v, %v; want true", ok, err)
		}
	})

	t.Run("deletes", func(t *testing.T) {
		const subject = "deletes-value"
		for _, schema := range []string{orderV1, orderV2} {
			if _, err := c.Register(subject, schemaregistry.SchemaInfo{Schema: schema}, false); err != nil {
				t.Fatalf("Register %s: %v", subject, err)
			}
		}
		n, err := c.DeleteSubjectVersion(subject, 2, false)
		if err != nil || n != 2 {
			t.Fatalf("DeleteSubjectVersion(2, soft) = %d, %v; want 2", n, err)
		}
		versions, err := c.GetAllVersions(subject)
		if err != nil || !reflect.DeepEqual(versions, []int{1}) {
			t.Errorf("GetAllVersions after a soft delete = %v, %v; want [1]", versions, err)
		}
		md, err := newSRClient(t, s.URL).GetSchemaMetadataIncludeDeleted(subject, 2, true)
		if err != nil || md.Version != 2 {
			t.Errorf("GetSchemaMetadataIncludeDeleted(2) = version %d, %v; want 2", md.Version, err)
		}
		if n, err := c.DeleteSubjectVersion(subject, 2, true); err != nil || n != 2 {
			t.Fatalf("DeleteSubjectVersion(2, permanent) = %d, %v; want 2", n, err)
		}
		_, err = newSRClient(t, s.URL).GetSchemaMetadataIncludeDeleted(subject, 2, true)
		wantRESTError(t, "GetSchemaMetadataIncludeDeleted after a permanent delete", err, 40402)
		_, err = c.DeleteSubject(subject, true)
		wantRESTError(t, "DeleteSubject(permanent) before a soft delete", err, 40405)
		deleted, err := c.DeleteSubject(subject, false)
		if err != nil || !reflect.DeepEqual(deleted, []int{1}) {
			t.Fatalf("DeleteSubject(soft) = %v, %v; want [1]", deleted, err)
		}
		if subjects, err := c.GetAllSubjects(); err != nil || slices.Contains(subjects, subject) {
			t.Errorf("GetAllSubjects after a soft delete = %v, %v; want no %s", subjects, err, subject)
		}
		if deleted, err := c.DeleteSubject(subject, true); err != nil || !reflect.DeepEqual(deleted, []int{1}) {
			t.Fatalf("DeleteSubject(permanent) = %v, %v; want [1]", deleted, err)
		}
		// IDs are stable: the schema is still orders-value's v1.
		id, err := newSRClient(t, s.URL).Register(subject, info, false)
		if err != nil || id != id1 {
			t.Errorf("Register after a permanent delete = %d, %v; want id %d", id, err, id1)
		}
	})

	t.Run("config", func(t *testing.T) {
		level, err := c.GetDefaultCompatibility()
		if err != nil || level != schemaregistry.Backward {
			t.Fatalf("GetDefaultCompatibility: %v, %v; want BACKWARD", level.String(), err)
		}
		_, err = c.GetCompatibility("orders-value")
		wantRESTError(t, "GetCompatibility with no subject config", err, 40408)
		cfg, err := c.GetConfig("orders-value", true)
		if err != nil || cfg.CompatibilityLevel != schemaregistry.Backward {
			t.Errorf("GetConfig(defaultToGlobal): %v, %v; want BACKWARD", cfg.CompatibilityLevel.String(), err)
		}
		level, err = c.UpdateCompatibility("orders-value", schemaregistry.Full)
		if err != nil || level != schemaregistry.Full {
			t.Fatalf("UpdateCompatibility(FULL): %v, %v", level.String(), err)
		}
		level, err = c.GetCompatibility("orders-value")
		if err != nil || level != schemaregistry.Full {
			t.Errorf("GetCompatibility after update: %v, %v; want FULL", level.String(), err)
		}
		upd, err := c.UpdateConfig("orders-value", schemaregistry.ServerConfig{CompatibilityUpdate: schemaregistry.None})
		if err != nil || upd.CompatibilityUpdate != schemaregistry.None {
			t.Fatalf("UpdateConfig(NONE): %v, %v", upd.CompatibilityUpdate.String(), err)
		}
		cfg, err = c.GetConfig("orders-value", false)
		if err != nil || cfg.CompatibilityLevel != schemaregistry.None {
			t.Errorf("GetConfig after UpdateConfig: %v, %v; want NONE", cfg.CompatibilityLevel.String(), err)
		}
		// Under NONE the schema refused above registers as version 2.
		md, err := c.RegisterFullResponse("orders-value", schemaregistry.SchemaInfo{Schema: orderBad}, false)
		if err != nil {
			t.Fatalf("Register under NONE: %v", err)
		}
		if md.ID == id1 {
			t.Errorf("Register under NONE: got the v1 ID %d for a different schema", md.ID)
		}
		latest, err := newSRClient(t, s.URL).GetLatestSchemaMetadata("orders-value")
		if err != nil || latest.Version != 2 || latest.ID != md.ID {
			t.Errorf("GetLatestSchemaMetadata after v2: version %d id %d, %v; want 2 %d", latest.Version, latest.ID, err, md.ID)
		}
		// The global level: set, read back, restore.
		level, err = c.UpdateDefaultCompatibility(schemaregistry.BackwardTransitive)
		if err != nil || level != schemaregistry.BackwardTransitive {
			t.Fatalf("UpdateDefaultCompatibility: %v, %v", level.String(), err)
		}
		gcfg, err := c.GetDefaultConfig()
		if err != nil || gcfg.CompatibilityLevel != schemaregistry.BackwardTransitive {
			t.Errorf("GetDefaultConfig: %v, %v; want BACKWARD_TRANSITIVE", gcfg.CompatibilityLevel.String(), err)
		}
		if _, err := c.UpdateDefaultCompatibility(schemaregistry.Backward); err != nil {
			t.Errorf("restore default BACKWARD: %v", err)
		}
	})
}

// Payment is serialised with the schema the serde derives from the struct.
type Payment struct {
	ID     int64   `avro:"id"`
	Amount float64 `avro:"amount"`
	Note   string  `avro:"note"`
}

const shipmentV1 = `{"type":"record","name":"Shipment","namespace":"com.example","fields":[` +
	`{"name":"id","type":"long"},{"name":"carrier","type":"string"}]}`

// shipmentV2 adds "priority" with default 3: BACKWARD compatible.
const shipmentV2 = `{"type":"record","name":"Shipment","namespace":"com.example","fields":[` +
	`{"name":"id","type":"long"},{"name":"carrier","type":"string"},` +
	`{"name":"priority","type":"int","default":3}]}`

// ShipmentV1 matches shipmentV1.
type ShipmentV1 struct {
	ID      int64  `avro:"id"`
	Carrier string `avro:"carrier"`
}

// ShipmentV2 matches shipmentV2.
type ShipmentV2 struct {
	ID       int64  `avro:"id"`
	Carrier  string `avro:"carrier"`
	Priority int32  `avro:"priority"`
}

// wireID returns the schema ID of a Confluent-framed message (magic byte 0,
// then the ID as 4 bytes big-endian).
func wireID(t *testing.T, msg []byte) int {
	t.Helper()
	if len(msg) < 5 || msg[0] != 0 {
		t.Fatalf("message % x is not in the Confluent wire format", msg)
	}
	return int(binary.BigEndian.Uint32(msg[1:5]))
}

// TestConfluentAvroSerde round-trips records through serde/avrov2 against
// charter serve: auto-registration from a Go struct, then a schema
// evolution read with use.latest.version.
func TestConfluentAvroSerde(t *testing.T) {
	s := startServer(t)

	t.Run("auto-register", func(t *testing.T) {
		ser, err := avrov2.NewSerializer(newSRClient(t, s.URL), serde.ValueSerde, avrov2.NewSerializerConfig())
		if err != nil {
			t.Fatalf("NewSerializer: %v", err)
		}
		in := Payment{ID: 42, Amount: 12.5, Note: "café ☕"}
		msg, err := ser.Serialize("payments", &in)
		if err != nil {
			t.Fatalf("Serialize: %v", err)
		}
		md, err := newSRClient(t, s.URL).GetLatestSchemaMetadata("payments-value")
		if err != nil {
			t.Fatalf("GetLatestSchemaMetadata(payments-value) after auto-register: %v", err)
		}
		if got := wireID(t, msg); got != md.ID {
			t.Errorf("wire schema ID %d, registry says %d", got, md.ID)
		}
		de, err := avrov2.NewDeserializer(newSRClient(t, s.URL), serde.ValueSerde, avrov2.NewDeserializerConfig())
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
	})

	t.Run("evolution", func(t *testing.T) {
		admin := newSRClient(t, s.URL)
		id1, err := admin.Register("shipments-value", schemaregistry.SchemaInfo{Schema: shipmentV1}, false)
		if err != nil {
			t.Fatalf("Register shipment v1: %v", err)
		}
		conf := avrov2.NewSerializerConfig()
		conf.AutoRegisterSchemas = false
		conf.UseLatestVersion = true
		ser, err := avrov2.NewSerializer(newSRClient(t, s.URL), serde.ValueSerde, conf)
		if err != nil {
			t.Fatalf("NewSerializer: %v", err)
		}
		in := ShipmentV1{ID: 7, Carrier: "DHL"}
		msg, err := ser.Serialize("shipments", &in)
		if err != nil {
			t.Fatalf("Serialize v1: %v", err)
		}
		if got := wireID(t, msg); got != id1 {
			t.Errorf("wire schema ID %d, want v1's %d", got, id1)
		}

		id2, err := admin.Register("shipments-value", schemaregistry.SchemaInfo{Schema: shipmentV2}, false)
		if err != nil {
			t.Fatalf("Register shipment v2 (adds a field with a default): %v", err)
		}
		if id2 == id1 {
			t.Fatalf("v2 got v1's ID %d", id1)
		}

		// A reader on v1 decodes with the writer schema.
		plain, err := avrov2.NewDeserializer(newSRClient(t, s.URL), serde.ValueSerde, avrov2.NewDeserializerConfig())
		if err != nil {
			t.Fatalf("NewDeserializer: %v", err)
		}
		var got1 ShipmentV1
		if err := plain.DeserializeInto("shipments", msg, &got1); err != nil {
			t.Fatalf("DeserializeInto v1: %v", err)
		}
		if got1 != in {
			t.Errorf("v1 round trip: got %+v, want %+v", got1, in)
		}

		// A reader on the latest version resolves v1 bytes to v2, filling
		// the default.
		dconf := avrov2.NewDeserializerConfig()
		dconf.UseLatestVersion = true
		latest, err := avrov2.NewDeserializer(newSRClient(t, s.URL), serde.ValueSerde, dconf)
		if err != nil {
			t.Fatalf("NewDeserializer(use latest): %v", err)
		}
		var got2 ShipmentV2
		if err := latest.DeserializeInto("shipments", msg, &got2); err != nil {
			t.Fatalf("DeserializeInto v2 from v1 bytes: %v", err)
		}
		if want := (ShipmentV2{ID: 7, Carrier: "DHL", Priority: 3}); got2 != want {
			t.Errorf("v1 bytes read as latest: got %+v, want %+v", got2, want)
		}

		// New messages are written with v2.
		ser2, err := avrov2.NewSerializer(newSRClient(t, s.URL), serde.ValueSerde, conf)
		if err != nil {
			t.Fatalf("NewSerializer: %v", err)
		}
		msg2, err := ser2.Serialize("shipments", &ShipmentV2{ID: 8, Carrier: "UPS", Priority: 1})
		if err != nil {
			t.Fatalf("Serialize v2: %v", err)
		}
		if got := wireID(t, msg2); got != id2 {
			t.Errorf("wire schema ID %d, want v2's %d", got, id2)
		}
		var got3 ShipmentV2
		if err := latest.DeserializeInto("shipments", msg2, &got3); err != nil {
			t.Fatalf("DeserializeInto v2: %v", err)
		}
		if want := (ShipmentV2{ID: 8, Carrier: "UPS", Priority: 1}); got3 != want {
			t.Errorf("v2 round trip: got %+v, want %+v", got3, want)
		}
	})
}

package protobuf_test

import (
	"path/filepath"
	"testing"

	"github.com/charter-dev/charter/compat/protobuf"
)

// bufDiffs pins every kind of change where Charter's default profile
// (Confluent's verdicts) and buf's WIRE category disagree, found by the buf
// cross-check (TestBufCrossCheck). Each testdata/bufdiff case reads
// reader.proto (the new version) against writer.proto (the previous one):
// want.json holds the default profile's violations, and ProfileWire must
// give buf's verdict. The default follows Confluent because Charter is a
// drop-in registry: a version Confluent accepts must be accepted.
var bufDiffs = []struct {
	dir         string
	bufBreaking bool
	reason      string
}{
	{"field_deleted_unreserved", true, "Confluent allows FIELD_REMOVED: the reader skips the unknown field. buf's FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED protects later versions from reusing the number; a transitive level catches reuse against the version that still had the field."},
	{"reserved_range_removed", true, "Confluent does not compare reserved ranges; buf's RESERVED_MESSAGE_NO_DELETE. Dropping a reservation breaks no data by itself."},
	{"enum_read_as_int32", true, "Confluent groups enums with int32/int64/uint32/uint64/bool (all varints; the enum number is read as the integer). buf puts enums in their own group because not every integer is a declared value."},
	{"bytes_read_as_string", true, "Confluent groups string and bytes (both length-delimited). buf allows string→bytes only, since bytes may hold invalid UTF-8 that a string field rejects."},
	{"field_into_new_oneof", true, "Confluent allows one field to move into a new oneof (ONEOF_ADDED): one member cannot conflict. buf's FIELD_SAME_ONEOF reports any oneof change (generated code changes)."},
	{"message_field_made_repeated", true, "Confluent allows singular↔repeated for messages, strings and bytes (a singular reader merges or keeps the last record). buf's FIELD_WIRE_COMPATIBLE_CARDINALITY reports it."},
	{"default_changed", true, "Confluent does not compare proto2 defaults; buf v2's FIELD_SAME_DEFAULT does. Absent values read differently, but every encoded value still decodes."},
	{"message_deleted", false, "Confluent's MESSAGE_REMOVED: a subject's data may be written with any message of the file (message indexes). buf's WIRE has no message deletion rule (MESSAGE_NO_DELETE is in FILE)."},
	{"map_read_as_repeated_entry", false, "Confluent's FIELD_KIND_CHANGED (map vs message). On the wire a map is a repeated entry message with key 1 and value 2, so buf allows it."},
	{"oneof_member_deleted_reserved", false, "Confluent's ONEOF_FIELD_REMOVED: a reader would see the oneof unset although the writer set it. buf accepts a deletion whose number is reserved."},
}

func TestBufDisagreements(t *testing.T) {
	for _, d := range bufDiffs {
		t.Run(d.dir, func(t *testing.T) {
			got := testCase(t, filepath.Join("bufdiff", d.dir), protobuf.ProfileRegistry)
			if (len(got) > 0) == d.bufBreaking {
				t.Errorf("the default profile agrees with buf (breaking=%v); this is no longer a disagreement", d.bufBreaking)
			}
			dir := filepath.Join("testdata", "bufdiff", d.dir)
			reader := mustParseFile(t, filepath.Join(dir, "reader.proto"))
			writer := mustParseFile(t, filepath.Join(dir, "writer.proto"))
			wire := protobuf.Format{Profile: protobuf.ProfileWire}.CheckRead(reader, writer)
			if (len(wire) > 0) != d.bufBreaking {
				t.Errorf("ProfileWire gives breaking=%v, buf %v: %v", len(wire) > 0, d.bufBreaking, wire)
			}
			if d.reason == "" {
				t.Error("every pinned disagreement needs its reason")
			}
		})
	}
}

package protobuf_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/charter-dev/charter/compat/protobuf"
)

// TestOneofFieldMovedToTopLevel pins the verdicts for a field that leaves
// its oneof but stays in the message with its number
// (testdata/compatible/oneof_field_moved_to_top_level, the AxonOps
// scenario modeling_protobuf_compatibility.feature:525):
//   - registry profiles, BACKWARD: compatible, as current Confluent
//     (ONEOF_FIELD_MOVED_TO_TOP_LEVEL is in its compatible set; the
//     fixture "Detect compatible move field out of a oneof to top level").
//     Confluent 8.1, which the AxonOps scenario was written against,
//     reported ONEOF_FIELD_REMOVED instead.
//   - registry profiles, FORWARD: the old reader's oneof gathers a field
//     the new writer sets beside the oneof (FIELD_MOVED_TO_EXISTING_ONEOF).
//   - buf WIRE and WIRE_JSON: FIELD_SAME_ONEOF both ways.
func TestOneofFieldMovedToTopLevel(t *testing.T) {
	dir := filepath.Join("testdata", "compatible", "oneof_field_moved_to_top_level")
	v1 := mustParseFile(t, filepath.Join(dir, "writer.proto"))
	v2 := mustParseFile(t, filepath.Join(dir, "reader.proto"))
	tests := []struct {
		profile           protobuf.Profile
		backward, forward []string
	}{
		{protobuf.ProfileRegistry, nil, []string{"PROTO_FIELD_MOVED_TO_EXISTING_ONEOF .Msg.choice"}},
		{protobuf.ProfileRegistryJSON, nil, []string{"PROTO_FIELD_MOVED_TO_EXISTING_ONEOF .Msg.choice"}},
		{protobuf.ProfileWire, []string{"PROTO_FIELD_SAME_ONEOF .Msg.id"}, []string{"PROTO_FIELD_SAME_ONEOF .Msg.id"}},
		{protobuf.ProfileWireJSON, []string{"PROTO_FIELD_SAME_ONEOF .Msg.id"}, []string{"PROTO_FIELD_SAME_ONEOF .Msg.id"}},
	}
	for _, tc := range tests {
		f := protobuf.Format{Profile: tc.profile}
		var backward, forward []string
		for _, v := range f.CheckRead(v2, v1) {
			backward = append(backward, v.RuleID+" "+v.Path)
		}
		for _, v := range f.CheckRead(v1, v2) {
			forward = append(forward, v.RuleID+" "+v.Path)
		}
		if !slices.Equal(backward, tc.backward) || !slices.Equal(forward, tc.forward) {
			t.Errorf("profile %q: backward %v, forward %v; want %v, %v", tc.profile, backward, forward, tc.backward, tc.forward)
		}
	}
}

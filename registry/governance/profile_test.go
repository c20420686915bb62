package governance_test

import (
	"testing"

	"github.com/charter-dev/charter/registry/governance"
)

// TestProtobufProfilePolicy: protobufProfile is validated with a message
// naming the valid profiles, upper-cased by Normalize, and a subject's
// profile wins over the global one.
func TestProtobufProfilePolicy(t *testing.T) {
	for _, tc := range []struct {
		profile, err, normalized string
	}{
		{"", "", ""},
		{"CONFLUENT", "", "CONFLUENT"},
		{"wire", "", "WIRE"},
		{"Wire_Json", "", "WIRE_JSON"},
		{"BUF", `invalid policy: protobufProfile: unknown Protobuf profile "BUF": want CONFLUENT, WIRE, WIRE_JSON`, ""},
	} {
		p := governance.PolicyConfig{ProtobufProfile: tc.profile}
		err := p.Validate()
		if (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("Validate(%q) = %v, want %q", tc.profile, err, tc.err)
		}
		if err == nil && p.Normalize().ProtobufProfile != tc.normalized {
			t.Errorf("Normalize(%q) = %q, want %q", tc.profile, p.Normalize().ProtobufProfile, tc.normalized)
		}
	}
	for _, tc := range []struct{ global, subject, want string }{
		{"", "", ""},
		{"WIRE", "", "WIRE"},
		{"", "WIRE_JSON", "WIRE_JSON"},
		{"WIRE", "CONFLUENT", "CONFLUENT"},
	} {
		got := governance.MergePolicy(governance.PolicyConfig{ProtobufProfile: tc.global}, governance.PolicyConfig{ProtobufProfile: tc.subject})
		if got.ProtobufProfile != tc.want {
			t.Errorf("MergePolicy(%q, %q).ProtobufProfile = %q, want %q", tc.global, tc.subject, got.ProtobufProfile, tc.want)
		}
	}
}

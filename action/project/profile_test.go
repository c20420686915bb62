package project_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat/protobuf"
)

// TestProtobufProfile checks testdata/profiles/head against base (a field
// deleted without reserving its number or name, which Confluent allows and
// buf's WIRE and WIRE_JSON refuse) under each charter.yaml that selects a
// profile, top-level or per mapping.
func TestProtobufProfile(t *testing.T) {
	t.Parallel()
	const (
		number = "error PROTO_FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED order-value order.proto:5 .Order.note BACKWARD\n"
		name   = "error PROTO_FIELD_NO_DELETE_UNLESS_NAME_RESERVED order-value order.proto:5 .Order.note BACKWARD\n"
	)
	base, err := filepath.Abs(filepath.Join("testdata", "profiles", "base"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, config, want string
	}{
		{"default", "schemas:\n  - files: \"*.proto\"\n", ""},
		{"CONFLUENT", "protobuf_profile: CONFLUENT\nschemas:\n  - files: \"*.proto\"\n", ""},
		{"WIRE", "protobuf_profile: WIRE\nschemas:\n  - files: \"*.proto\"\n", number},
		{"WIRE_JSON", "protobuf_profile: WIRE_JSON\nschemas:\n  - files: \"*.proto\"\n", name + number},
		{"mapping over top level", "protobuf_profile: WIRE\nschemas:\n  - files: \"*.proto\"\n    protobuf_profile: CONFLUENT\n", ""},
		{"mapping only", "schemas:\n  - files: \"*.proto\"\n    protobuf_profile: WIRE_JSON\n", name + number},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			text, err := os.ReadFile(filepath.Join("testdata", "profiles", "head", "order.proto"))
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "order.proto"), string(text))
			writeFile(t, filepath.Join(dir, "charter.yaml"), "version: 1\n"+tc.config)
			res, err := project.Check(context.Background(), mustFind(t, dir), project.Options{Baseline: project.DirBaseline(base)})
			if err != nil {
				t.Fatal(err)
			}
			if got := briefs(res.Findings); got != tc.want {
				t.Errorf("findings:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestProtobufProfileConfigErrors: an unknown profile is refused with the
// line it is on, top-level and in a mapping (names are upper case, as
// levels are).
func TestProtobufProfileConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ config, want string }{
		{"version: 1\nprotobuf_profile: BUF\n",
			"charter.yaml:2: at /protobuf_profile: value must be one of 'CONFLUENT', 'WIRE', 'WIRE_JSON'"},
		{"version: 1\nschemas:\n  - files: \"*.proto\"\n    protobuf_profile: wire\n",
			"charter.yaml:4: at /schemas/0/protobuf_profile: value must be one of 'CONFLUENT', 'WIRE', 'WIRE_JSON'"},
	} {
		_, err := project.ParseConfig("charter.yaml", []byte(tc.config))
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseConfig(%q): %v, want %q", tc.config, err, tc.want)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConfigSchemaProfiles: charter.schema.json accepts exactly the
// profile names compat/protobuf knows.
func TestConfigSchemaProfiles(t *testing.T) {
	t.Parallel()
	var doc struct {
		Defs map[string]struct {
			Enum []string `json:"enum"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(project.ConfigSchema, &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Defs["protobuf_profile"].Enum; !slices.Equal(got, protobuf.ProfileNames()) {
		t.Errorf("charter.schema.json protobuf_profile enum %v, want %v", got, protobuf.ProfileNames())
	}
}

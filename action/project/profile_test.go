package project_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/action/project/projecttest"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
	"github.com/charter-dev/charter/registry/client"
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
			res, err := project.Check(context.Background(), headProject(t, tc.config), project.Options{Baseline: project.DirBaseline(base)})
			if err != nil {
				t.Fatal(err)
			}
			if got := briefs(res.Findings); got != tc.want {
				t.Errorf("findings:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestProtobufProfileAgainstRegistry: against a registry, the subject's
// governance policy protobufProfile decides (its default CONFLUENT when
// unset), as registration judges with it: charter.yaml's protobuf_profile
// (its entry's, else its top-level one) applies only when it is stricter
// (WIRE_JSON over WIRE); one that differs otherwise is ignored with a
// CONFIG_PROFILE_IGNORED notice, as a weaker level is.
func TestProtobufProfileAgainstRegistry(t *testing.T) {
	t.Parallel()
	c, url := projecttest.Registry(t)
	ctx := t.Context()
	base, err := os.ReadFile(filepath.Join("testdata", "profiles", "base", "order.proto"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetPolicy(ctx, "", client.PolicyConfig{Rules: map[string]string{"OWNER_MISSING": "off", "SEMVER_MAJOR": "off"}}); err != nil {
		t.Fatal(err)
	}
	for _, subject := range []string{"order-value", "plain-value", "wire-value"} {
		if _, err := c.Register(ctx, subject, client.NewSchema{Type: compat.Protobuf, Text: string(base)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.SetPolicy(ctx, "order-value", client.PolicyConfig{ProtobufProfile: "WIRE_JSON"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetPolicy(ctx, "wire-value", client.PolicyConfig{ProtobufProfile: "WIRE"}); err != nil {
		t.Fatal(err)
	}
	const (
		number  = "error PROTO_FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED order-value order.proto:5 .Order.note BACKWARD\n"
		name    = "error PROTO_FIELD_NO_DELETE_UNLESS_NAME_RESERVED order-value order.proto:5 .Order.note BACKWARD\n"
		ignored = "notice CONFIG_PROFILE_IGNORED order-value charter.yaml:0\n"
	)
	for _, tc := range []struct {
		name, config, want string
	}{
		{"the registry's policy", "schemas:\n  - files: \"*.proto\"\n", name + number},
		{"over the top level", "protobuf_profile: CONFLUENT\nschemas:\n  - files: \"*.proto\"\n", name + number + ignored},
		{"a weaker entry is ignored", "schemas:\n  - files: \"*.proto\"\n    protobuf_profile: WIRE\n", name + number + ignored},
		{"the same profile", "schemas:\n  - files: \"*.proto\"\n    protobuf_profile: WIRE_JSON\n", name + number},
		{"no policy: CONFLUENT, the top level ignored", "protobuf_profile: WIRE\nschemas:\n  - files: \"*.proto\"\n    subject: plain-value\n",
			strings.ReplaceAll(ignored, "order-value", "plain-value")},
		{"no policy, no setting", "schemas:\n  - files: \"*.proto\"\n    subject: plain-value\n", ""},
		{"a stricter entry applies", "schemas:\n  - files: \"*.proto\"\n    subject: wire-value\n    protobuf_profile: WIRE_JSON\n",
			strings.ReplaceAll(name+number, "order-value", "wire-value")},
		{"CONFLUENT is not stricter than WIRE", "schemas:\n  - files: \"*.proto\"\n    subject: wire-value\n    protobuf_profile: CONFLUENT\n",
			strings.ReplaceAll(number+ignored, "order-value", "wire-value")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := project.Check(ctx, headProject(t, tc.config), project.Options{Baseline: project.RegistryBaseline(c, url)})
			if err != nil {
				t.Fatal(err)
			}
			if got := briefs(res.Findings); got != tc.want {
				t.Errorf("findings:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// headProject is testdata/profiles/head in a temporary directory with a
// charter.yaml of version 1 and config.
func headProject(t *testing.T, config string) *project.Project {
	t.Helper()
	dir := t.TempDir()
	text, err := os.ReadFile(filepath.Join("testdata", "profiles", "head", "order.proto"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "order.proto"), string(text))
	writeFile(t, filepath.Join(dir, "charter.yaml"), "version: 1\n"+config)
	return mustFind(t, dir)
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

// TestDiffProtobufProfile: charter diff judges Protobuf files with
// DiffOptions.ProtobufProfile, and refuses an unknown one.
func TestDiffProtobufProfile(t *testing.T) {
	t.Parallel()
	base := filepath.Join("testdata", "profiles", "base", "order.proto")
	head := filepath.Join("testdata", "profiles", "head", "order.proto")
	for profile, want := range map[string]string{
		"":          "",
		"CONFLUENT": "",
		"WIRE":      "error PROTO_FIELD_NO_DELETE_UNLESS_NUMBER_RESERVED order-value testdata/profiles/head/order.proto:5 .Order.note BACKWARD\n",
	} {
		res, err := project.DiffFiles(t.Context(), base, head, project.DiffOptions{Level: compat.Backward, ProtobufProfile: profile})
		if err != nil {
			t.Fatal(err)
		}
		if got := briefs(res.Findings); got != want {
			t.Errorf("profile %q: findings\n%s\nwant\n%s", profile, got, want)
		}
	}
	_, err := project.DiffFiles(t.Context(), base, head, project.DiffOptions{ProtobufProfile: "BUF"})
	if want := `diff: unknown Protobuf profile "BUF": want CONFLUENT, WIRE, WIRE_JSON`; err == nil || err.Error() != want {
		t.Errorf("unknown profile: %v, want %q", err, want)
	}
}

package project_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/sqlite"
)

// newRegistry runs the real registry handler over a fresh SQLite file and
// returns a client of it.
func newRegistry(t testing.TB) (*client.Client, string) {
	t.Helper()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var formats []compat.Format
	for _, f := range project.DefaultFormats() {
		formats = append(formats, f)
	}
	srv := httptest.NewServer(api.New(registry.NewService(store, formats, registry.WithLogger(log)), api.Options{Logger: log}))
	t.Cleanup(func() {
		srv.Close()
		store.Close()
	})
	c, err := client.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv.URL
}

// quietPolicy switches off, in the registry's global policy, the two
// rules that fire on every subject of these tests (no owner recorded, a
// breaking change numbered major), so that a test sees what it is about.
func quietPolicy(t testing.TB, c *client.Client) {
	t.Helper()
	if _, err := c.SetPolicy(t.Context(), "", client.PolicyConfig{Rules: map[string]string{"OWNER_MISSING": "off", "SEMVER_MAJOR": "off"}}); err != nil {
		t.Fatal(err)
	}
}

func register(t *testing.T, c *client.Client, subject string, s client.NewSchema) {
	t.Helper()
	if _, err := c.Register(t.Context(), subject, s); err != nil {
		t.Fatalf("register %s: %v", subject, err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCheckAgainstRegistry registers testdata/sample/base (with its
// references) in a real registry and checks the head against it.
func TestCheckAgainstRegistry(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	base := "testdata/sample/base/"
	register(t, c, "customer-value", client.NewSchema{Text: readFile(t, base+"schemas/avro/customer.avsc")})
	register(t, c, "orders-value", client.NewSchema{Text: readFile(t, base+"schemas/avro/orders.avsc"),
		References: []client.Reference{{Name: "acme.sales.Customer", Subject: "customer-value", Version: 1}}})
	register(t, c, "legacy-value", client.NewSchema{Text: readFile(t, base+"schemas/avro/legacy.avsc")})
	register(t, c, "acme.shipping.v1.Address", client.NewSchema{Type: compat.Protobuf, Text: readFile(t, base+"proto/acme/shipping/v1/address.proto")})
	register(t, c, "acme.shipping.v1.Shipment", client.NewSchema{Type: compat.Protobuf, Text: readFile(t, base+"proto/acme/shipping/v1/shipment.proto"),
		References: []client.Reference{{Name: "acme/shipping/v1/address.proto", Subject: "acme.shipping.v1.Address", Version: 1}}})
	register(t, c, "money", client.NewSchema{Type: compat.JSON, Text: readFile(t, base+"jsonschema/money.json")})
	register(t, c, "payment-value", client.NewSchema{Type: compat.JSON, Text: readFile(t, base+"jsonschema/payment.json"),
		References: []client.Reference{{Name: "money.json", Subject: "money", Version: 1}}})

	p := mustFind(t, "testdata/sample/head")
	res, err := project.Check(context.Background(), p, project.Options{Baseline: project.RegistryBaseline(c, url)})
	if err != nil {
		t.Fatal(err)
	}
	// As registering each schema would be judged: less SUBJECT_REMOVED
	// (the registry holds other projects' subjects too), with version
	// numbers, the registry's owners (none) and semantic versions, and
	// its policy's severities: charter.yaml's warning for
	// JSON_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL cannot lower a
	// compatibility error, which a notice says.
	const want = `error PROTO_FIELD_SCALAR_KIND_CHANGED acme.shipping.v1.Shipment proto/acme/shipping/v1/shipment.proto:9 .Shipment.carrier BACKWARD
warning OWNER_MISSING acme.shipping.v1.Shipment proto/acme/shipping/v1/shipment.proto:0
notice SEMVER_MAJOR acme.shipping.v1.Shipment proto/acme/shipping/v1/shipment.proto:0
error AVRO_TYPE_MISMATCH orders-value schemas/avro/orders.avsc:6 .id BACKWARD
error AVRO_READER_FIELD_MISSING_DEFAULT orders-value schemas/avro/orders.avsc:10 .email BACKWARD
warning OWNER_MISSING orders-value schemas/avro/orders.avsc:0
warning PII_UNTAGGED orders-value schemas/avro/orders.avsc:10 .email
notice SEMVER_MAJOR orders-value schemas/avro/orders.avsc:0
error JSON_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL payment-value jsonschema/payment.json:5 #/properties/reference BACKWARD
error JSON_COMBINED_TYPE_SUBSCHEMAS_CHANGED payment-value jsonschema/payment.json:8 #/properties/method BACKWARD
warning OWNER_MISSING payment-value jsonschema/payment.json:0
notice CONFIG_SEVERITY_IGNORED payment-value jsonschema/payment.json:0
notice SEMVER_MAJOR payment-value jsonschema/payment.json:0
warning OWNER_MISSING refunds-value schemas/avro/refunds.avsc:0
warning PII_UNTAGGED refunds-value schemas/avro/refunds.avsc:6 .order.customer.name
warning PII_UNTAGGED refunds-value schemas/avro/refunds.avsc:6 .order.email
notice SUBJECT_ADDED refunds-value schemas/avro/refunds.avsc:0
`
	if got := briefs(res.Findings); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	for _, f := range res.Findings {
		if f.RuleID == project.RuleSeverityIgnored && !strings.Contains(f.Message, "JSON_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL to warning") {
			t.Errorf("%s: message %q", brief(f), f.Message)
		}
		if f.Direction != "" && f.Version != 1 {
			t.Errorf("%s: version %d, want 1", brief(f), f.Version)
		}
	}
	if res.Against != "registry:"+url {
		t.Errorf("against %q", res.Against)
	}
}

func TestCheckAgainstRegistryTransitive(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	v := func(typ string) string {
		return `{"type":"record","name":"T","fields":[{"name":"x","type":"` + typ + `"}]}`
	}
	quietPolicy(t, c)
	register(t, c, "t-value", client.NewSchema{Text: v("int")})
	register(t, c, "t-value", client.NewSchema{Text: v("long")})
	// charter.yaml's level applies where it is at least as strict as the
	// registry's: FORWARD here, FORWARD_TRANSITIVE stricter.
	fwd := compat.Forward
	if _, err := c.SetConfig(t.Context(), "t-value", client.ConfigUpdate{Compatibility: &fwd}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ level, want string }{
		{"FORWARD", ""},
		{"FORWARD_TRANSITIVE", "error AVRO_TYPE_MISMATCH t-value t.avsc:1 .x FORWARD\n"},
	} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{
			"charter.yaml": "version: 1\nschemas: [{files: \"*.avsc\"}]\noverrides: [{subject: \"t-*\", level: " + tc.level + "}]\n",
			"t.avsc":       `{"type":"record","name":"T","fields":[{"name":"x","type":"long"},{"name":"y","type":"int","default":0}]}`,
		})
		res, err := project.Check(context.Background(), mustFind(t, dir), project.Options{Baseline: project.RegistryBaseline(c, url)})
		if err != nil {
			t.Fatal(err)
		}
		if got := briefs(res.Findings); got != tc.want {
			t.Errorf("%s: findings:\n%s\nwant:\n%s", tc.level, got, tc.want)
		}
		wantCompared := 1
		if strings.HasSuffix(tc.level, "TRANSITIVE") {
			wantCompared = 2
		}
		if res.Subjects[0].Compared != wantCompared {
			t.Errorf("%s: compared %d versions, want %d", tc.level, res.Subjects[0].Compared, wantCompared)
		}
		for _, f := range res.Findings {
			if f.Version != 1 {
				t.Errorf("%s: finding against version %d, want 1", tc.level, f.Version)
			}
		}
	}
}

// TestCheckUsesRegistryLevel: a subject is checked at the registry's
// level for it (its own config, else the global one), not at
// charter.yaml's default; a level charter.yaml's mappings or overrides set
// applies only when it is at least as strict, and a weaker one is ignored
// with a CONFIG_LEVEL_IGNORED notice.
func TestCheckUsesRegistryLevel(t *testing.T) {
	t.Parallel()
	c, url := newRegistry(t)
	v := func(typ string) string {
		return `{"type":"record","name":"T","fields":[{"name":"x","type":"` + typ + `"}]}`
	}
	quietPolicy(t, c)
	register(t, c, "t-value", client.NewSchema{Text: v("int")})
	register(t, c, "t-value", client.NewSchema{Text: v("long")})
	ft := compat.ForwardTransitive
	if _, err := c.SetConfig(t.Context(), "t-value", client.ConfigUpdate{Compatibility: &ft}); err != nil {
		t.Fatal(err)
	}
	full := compat.Full
	if _, err := c.SetConfig(t.Context(), "", client.ConfigUpdate{Compatibility: &full}); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"t.avsc":   `{"type":"record","name":"T","fields":[{"name":"x","type":"long"},{"name":"y","type":"int","default":0}]}`,
		"new.avsc": `{"type":"record","name":"N","fields":[{"name":"a","type":"string"}]}`,
	}
	for _, tc := range []struct {
		name, config string
		want         string
		levels       string
	}{
		{"registry level", "version: 1\ndefaults: {level: BACKWARD}\nschemas: [{files: \"*.avsc\"}]\n",
			"notice SUBJECT_ADDED new-value new.avsc:0\nerror AVRO_TYPE_MISMATCH t-value t.avsc:1 .x FORWARD\n", "new-value FULL, t-value FORWARD_TRANSITIVE"},
		{"weaker mapping level", "version: 1\nschemas: [{files: \"*.avsc\", level: BACKWARD}]\n",
			"notice CONFIG_LEVEL_IGNORED new-value charter.yaml:0\nnotice SUBJECT_ADDED new-value new.avsc:0\nerror AVRO_TYPE_MISMATCH t-value t.avsc:1 .x FORWARD\nnotice CONFIG_LEVEL_IGNORED t-value charter.yaml:0\n",
			"new-value FULL, t-value FORWARD_TRANSITIVE"},
		{"weaker override level", "version: 1\nschemas: [{files: \"*.avsc\"}]\noverrides: [{subject: \"t-*\", level: NONE}]\n",
			"notice SUBJECT_ADDED new-value new.avsc:0\nerror AVRO_TYPE_MISMATCH t-value t.avsc:1 .x FORWARD\nnotice CONFIG_LEVEL_IGNORED t-value charter.yaml:0\n",
			"new-value FULL, t-value FORWARD_TRANSITIVE"},
		{"stricter override level", "version: 1\nschemas: [{files: \"*.avsc\"}]\noverrides: [{subject: \"*\", level: FULL_TRANSITIVE}]\n",
			"notice SUBJECT_ADDED new-value new.avsc:0\nerror AVRO_TYPE_MISMATCH t-value t.avsc:1 .x FORWARD\n",
			"new-value FULL_TRANSITIVE, t-value FULL_TRANSITIVE"},
	} {
		dir := t.TempDir()
		files["charter.yaml"] = tc.config
		writeFiles(t, dir, files)
		res, err := project.Check(context.Background(), mustFind(t, dir), project.Options{Baseline: project.RegistryBaseline(c, url)})
		if err != nil {
			t.Fatal(err)
		}
		if got := briefs(res.Findings); got != tc.want {
			t.Errorf("%s: findings:\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
		var levels []string
		for _, s := range res.Subjects {
			levels = append(levels, s.Subject+" "+string(s.Level))
		}
		if got := strings.Join(levels, ", "); got != tc.levels {
			t.Errorf("%s: levels %s, want %s", tc.name, got, tc.levels)
		}
	}
}

func TestCheckRegistryUnreachable(t *testing.T) {
	t.Parallel()
	c, err := client.New("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = project.Check(context.Background(), mustFind(t, "testdata/sample/head"), project.Options{Baseline: project.RegistryBaseline(c, "http://127.0.0.1:1")})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the registry at http://127.0.0.1:1") ||
		!strings.Contains(err.Error(), "--against git:REF") || strings.Contains(err.Error(), "\n") {
		t.Errorf("unreachable registry: %v", err)
	}
}

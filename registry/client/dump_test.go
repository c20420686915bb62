package client_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/srerr"
)

// fillSource registers a registry with everything a dump holds: Avro,
// Protobuf and JSON Schema references, one schema under two subjects,
// metadata and a ruleSet, a soft-deleted version, a permanently deleted
// one (a gap in the IDs), subject configs and modes, a global config.
func fillSource(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := t.Context()
	must := func(subject string, s client.NewSchema) client.SubjectSchema {
		t.Helper()
		v, err := c.RegisterVersion(ctx, subject, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	must("customer", client.NewSchema{Text: customerV1, Metadata: &client.Metadata{
		Tags: map[string][]string{"**.id": {"PII"}}, Properties: map[string]string{"owner": "crm"}}})
	must("orders", client.NewSchema{Text: `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"customer","type":"acme.Customer"}]}`,
		References: []client.Reference{{Name: "acme.Customer", Subject: "customer", Version: 1}},
		RuleSet:    &client.RuleSet{MigrationRules: []client.Rule{{Name: "up", Kind: "TRANSFORM", Mode: "UPGRADE", Type: "JSONATA", Expr: "$"}}}})
	must("orders-copy", client.NewSchema{Text: orderV1})
	must("plain", client.NewSchema{Text: orderV1})
	must("plain", client.NewSchema{Text: orderV2})
	must("plain", client.NewSchema{Text: `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"note","type":"string","default":""},{"name":"n","type":"int","default":0}]}`})
	must("address.proto", client.NewSchema{Type: compat.Protobuf, Text: "syntax = \"proto3\";\npackage acme;\nmessage Address { string city = 1; }\n"})
	must("shipment-value", client.NewSchema{Type: compat.Protobuf,
		Text:       "syntax = \"proto3\";\npackage acme;\nimport \"address.proto\";\nmessage Shipment { string id = 1; Address to = 2; }\n",
		References: []client.Reference{{Name: "address.proto", Subject: "address.proto", Version: 1}}})
	must("money", client.NewSchema{Type: compat.JSON, Text: `{"type":"object","properties":{"amount":{"type":"number"}}}`})
	must("payment-value", client.NewSchema{Type: compat.JSON, Text: `{"type":"object","properties":{"total":{"$ref":"money.json"}}}`,
		References: []client.Reference{{Name: "money.json", Subject: "money", Version: 1}}})
	must("gone", client.NewSchema{Text: `{"type":"enum","name":"Gone","symbols":["A"]}`})

	if _, err := c.DeleteVersion(ctx, "plain", 2, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteSubject(ctx, "gone", false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteSubject(ctx, "gone", true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetConfig(ctx, "orders", client.ConfigUpdate{Compatibility: ptr(compat.FullTransitive), CompatibilityGroup: ptr("major"),
		DefaultMetadata: json.RawMessage(`{"properties":{"team":"sales"}}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetConfig(ctx, "orders-alias", client.ConfigUpdate{Alias: ptr("orders")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetConfig(ctx, "", client.ConfigUpdate{Compatibility: ptr(compat.Full)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetMode(ctx, "customer", client.ModeReadOnly, false); err != nil {
		t.Fatal(err)
	}
}

func TestExportImport(t *testing.T) {
	t.Parallel()
	src, _ := newClient(t)
	fillSource(t, src)
	ctx := t.Context()
	dump, err := src.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := dump.Counts()
	// 8 subjects ("gone" is hard-deleted; "orders-alias" has only a
	// config, which the REST API does not list) and 9 schemas (plain's v1
	// and orders-copy share one; gone's ID was freed).
	want := client.DumpCounts{Schemas: 9, Subjects: 8, Versions: 10, Deleted: 1, Configs: 1, Modes: 1}
	if n != want {
		t.Errorf("export counts = %+v, want %+v", n, want)
	}
	if dump.Config.Compatibility != compat.Full || dump.Mode != client.ModeReadWrite {
		t.Errorf("global config and mode = %+v, %q", dump.Config, dump.Mode)
	}

	// The dump survives JSON.
	raw, err := json.MarshalIndent(dump, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	read, err := client.ReadDump(raw)
	if err != nil {
		t.Fatal(err)
	}

	dst, _ := newClient(t)
	var progress []int
	got, err := dst.Import(ctx, read, client.ImportOptions{Progress: func(done, total int) {
		if total != 10 {
			t.Errorf("progress total %d, want 10", total)
		}
		progress = append(progress, done)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("import counts = %+v, want %+v", got, want)
	}
	if len(progress) != 10 || progress[9] != 10 {
		t.Errorf("progress calls %v", progress)
	}

	again, err := dst.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(dump)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Errorf("export of the imported registry differs:\n%s\nwant\n%s", b, a)
	}
	// Spot checks through other calls: IDs resolve to the same schemas,
	// the soft-deleted version stays hidden, modes apply.
	for _, s := range dump.Schemas {
		want, err := src.SchemaByID(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		have, err := dst.SchemaByID(ctx, s.ID)
		if err != nil || !reflect.DeepEqual(have, want) {
			t.Errorf("schema %d: %+v, %v; want %+v", s.ID, have, err, want)
		}
	}
	if vs, err := dst.Versions(ctx, "plain"); err != nil || !reflect.DeepEqual(vs, []int{1, 3}) {
		t.Errorf("live versions of plain = %v, %v; want [1 3]", vs, err)
	}
	// READONLY refuses a new schema; one the subject holds answers its
	// ID, as Confluent's registerOrForward.
	if _, err := dst.Register(ctx, "customer", client.NewSchema{Text: `"string"`}); !errors.Is(err, srerr.ErrOperationNotPermitted) {
		t.Errorf("customer is READONLY after import: err = %v", err)
	}
	if m, err := dst.Mode(ctx, "", false); err != nil || m != client.ModeReadWrite {
		t.Errorf("global mode after import = %q, %v", m, err)
	}
	// New registrations go on above the imported IDs.
	next, err := dst.Register(ctx, "fresh", client.NewSchema{Text: `{"type":"fixed","name":"F","size":4}`})
	if err != nil || next <= dump.Schemas[len(dump.Schemas)-1].ID {
		t.Errorf("next id %d, %v; want above %d", next, err, dump.Schemas[len(dump.Schemas)-1].ID)
	}

	// Importing again needs force, and then changes nothing.
	if _, err := dst.Import(ctx, read, client.ImportOptions{}); !errors.Is(err, client.ErrNotEmpty) {
		t.Errorf("import into a non-empty registry: err = %v, want ErrNotEmpty", err)
	}
	if _, err := dst.Import(ctx, read, client.ImportOptions{Force: true}); err != nil {
		t.Errorf("forced re-import: %v", err)
	}
	if m, err := dst.Mode(ctx, "customer", false); err != nil || m != client.ModeReadOnly {
		t.Errorf("customer mode after a forced re-import = %q, %v; want READONLY", m, err)
	}
}

// TestImportDependencyOrder imports a dump whose referenced schema has
// the higher ID: it must still be registered first.
func TestImportDependencyOrder(t *testing.T) {
	t.Parallel()
	d := &client.Dump{
		Format: client.DumpFormat, Config: client.Config{Compatibility: compat.Backward}, Mode: client.ModeReadWrite,
		Schemas: []client.DumpSchema{
			{ID: 3, Type: compat.Avro, Text: `{"type":"record","name":"Order","fields":[{"name":"c","type":"acme.Customer"}]}`,
				References: []client.Reference{{Name: "acme.Customer", Subject: "customer", Version: 4}}},
			{ID: 40, Type: compat.Avro, Text: customerV1},
		},
		Subjects: []client.DumpSubject{
			{Subject: "customer", Versions: []client.DumpVersion{{Version: 4, ID: 40}}},
			{Subject: "orders", Versions: []client.DumpVersion{{Version: 2, ID: 3}}},
		},
	}
	c, _ := newClient(t)
	if _, err := c.Import(t.Context(), d, client.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	v, err := c.Version(t.Context(), "orders", 2)
	if err != nil || v.ID != 3 || len(v.References) != 1 {
		t.Errorf("orders version 2 = %+v, %v", v, err)
	}
	if v, err := c.Version(t.Context(), "customer", 4); err != nil || v.ID != 40 {
		t.Errorf("customer version 4 = %+v, %v", v, err)
	}
}

// TestImportKeepsMetadataAsSent: a version without metadata after one
// with metadata is imported as it was dumped: in IMPORT mode the registry
// stores metadata and rule sets as sent, as Confluent's register skips
// maybePopulateFromPrevious there, so the import's verification passes
// and version 2 has no metadata (before, it inherited version 1's and the
// verification refused the import).
func TestImportKeepsMetadataAsSent(t *testing.T) {
	t.Parallel()
	d := &client.Dump{
		Format: client.DumpFormat, Mode: client.ModeReadWrite,
		Schemas: []client.DumpSchema{
			{ID: 1, Type: compat.Avro, Text: orderV1, Metadata: json.RawMessage(`{"properties":{"owner":"a"}}`)},
			{ID: 2, Type: compat.Avro, Text: orderV2},
		},
		Subjects: []client.DumpSubject{{Subject: "orders", Versions: []client.DumpVersion{{Version: 1, ID: 1}, {Version: 2, ID: 2}}}},
	}
	c, _ := newClient(t)
	if _, err := c.Import(t.Context(), d, client.ImportOptions{}); err != nil {
		t.Fatalf("import: %v", err)
	}
	for version, want := range map[int]string{1: `{"properties":{"owner":"a"}}`, 2: "null"} {
		v, err := c.Version(t.Context(), "orders", version)
		got, _ := json.Marshal(v.Metadata)
		if err != nil || v.ID != int64(version) || string(got) != want {
			t.Errorf("orders version %d = ID %d, metadata %s (%v); want ID %d, metadata %s", version, v.ID, got, err, version, want)
		}
	}
}

func TestReadDumpErrors(t *testing.T) {
	t.Parallel()
	avro := func(id int64, refs ...client.Reference) client.DumpSchema {
		return client.DumpSchema{ID: id, Type: compat.Avro, Text: orderV1, References: refs}
	}
	for _, tc := range []struct {
		name string
		dump client.Dump
		want string
	}{
		{"format", client.Dump{Format: "other"}, `format "other", want "charter-registry-dump/v2" (or "charter-registry-dump/v1")`},
		{"duplicate id", client.Dump{Schemas: []client.DumpSchema{avro(1), avro(1)}}, "schema id 1 is listed twice"},
		{"bad id", client.Dump{Schemas: []client.DumpSchema{avro(0)}}, "schema id 0: want a positive id"},
		{"missing schema", client.Dump{Subjects: []client.DumpSubject{{Subject: "a", Versions: []client.DumpVersion{{Version: 1, ID: 9}}}}},
			`subject "a" version 1 uses schema id 9, which the dump does not hold`},
		{"duplicate subject", client.Dump{Subjects: []client.DumpSubject{{Subject: "a"}, {Subject: "a"}}}, `subject "a" is listed twice`},
		{"missing reference", client.Dump{Schemas: []client.DumpSchema{avro(1, client.Reference{Name: "x", Subject: "b", Version: 1})},
			Subjects: []client.DumpSubject{{Subject: "a", Versions: []client.DumpVersion{{Version: 1, ID: 1}}}}},
			`schema 1 references subject "b" version 1, which the dump does not hold`},
		{"cycle", client.Dump{
			Schemas: []client.DumpSchema{avro(1, client.Reference{Name: "x", Subject: "b", Version: 1}), avro(2, client.Reference{Name: "y", Subject: "a", Version: 1})},
			Subjects: []client.DumpSubject{
				{Subject: "a", Versions: []client.DumpVersion{{Version: 1, ID: 1}}},
				{Subject: "b", Versions: []client.DumpVersion{{Version: 1, ID: 2}}},
			}}, "references form a cycle: a@1 → b@1 → a@1"},
	} {
		if tc.dump.Format == "" {
			tc.dump.Format = client.DumpFormat
		}
		raw, _ := json.Marshal(tc.dump)
		_, err := client.ReadDump(raw)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := client.ReadDump([]byte(`{"format":"charter-registry-dump/v1","extra":1}`)); err == nil || !strings.Contains(err.Error(), `unknown field "extra"`) {
		t.Errorf("unknown field: err = %v", err)
	}
}

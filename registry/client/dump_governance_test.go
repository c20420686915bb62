package client_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/api"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/sqlite"
)

// clockClient is newClient over a registry whose clock says now.
func clockClient(t *testing.T, now time.Time, opts ...client.Option) *client.Client {
	t.Helper()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "charter.db"))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc := registry.NewService(store, formats.Formats(), registry.WithLogger(log), registry.WithClock(func() time.Time { return now }))
	srv := httptest.NewServer(api.New(svc, api.Options{Logger: log}))
	t.Cleanup(func() {
		srv.Close()
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	c, err := client.New(srv.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var day0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// TestExportSharedSchemaOwned is fresh-user report 2's H1: one schema
// under two subjects, one of them owned. GET /subjects/a-value/versions/1
// shows the owner in its metadata and b-value's does not; the dump keeps
// the schema once, without the owner, and the owner in the governance
// data.
func TestExportSharedSchemaOwned(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	src := clockClient(t, day0, client.WithActor("alice"))
	for _, s := range []string{"a-value", "b-value"} {
		if _, err := src.Register(ctx, s, client.NewSchema{Text: orderV1, Metadata: &client.Metadata{Properties: map[string]string{"app": "x"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.SetOwner(ctx, "a-value", "t", "c", ""); err != nil {
		t.Fatal(err)
	}
	if v, err := src.Version(ctx, "a-value", 1); err != nil || v.Metadata.Properties["owner"] != "t" {
		t.Fatalf("a-value version 1 = %+v, %v; want the owner in its metadata", v.Metadata, err)
	}
	d, err := src.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Schemas) != 1 || string(d.Schemas[0].Metadata) != `{"properties":{"app":"x"}}` {
		t.Errorf("schemas = %+v, want one with its own metadata only", d.Schemas)
	}
	if d.Governance == nil || len(d.Governance.Subjects) != 1 || d.Governance.Subjects[0].Owner == nil ||
		d.Governance.Subjects[0].Subject != "a-value" || d.Governance.Subjects[0].Owner.Team != "t" {
		t.Fatalf("governance = %+v, want a-value's owner", d.Governance)
	}
	dst := clockClient(t, day0, client.WithActor("alice"))
	if _, err := dst.Import(ctx, d, client.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if v, err := dst.Version(ctx, "a-value", 1); err != nil || v.Metadata.Properties["owner"] != "t" || v.Metadata.Properties["app"] != "x" {
		t.Errorf("imported a-value version 1 metadata = %+v, %v", v.Metadata, err)
	}
	again, err := dst.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(d)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Errorf("round trip differs:\n%s\nwant\n%s", b, a)
	}
}

// fillGovernance sets every kind of governance record on fillSource's
// registry.
func fillGovernance(t *testing.T, c *client.Client) {
	t.Helper()
	ctx := t.Context()
	noErr(t, func() error { _, err := c.SetPolicy(ctx, "", client.PolicyConfig{DeprecationTTLDays: 60}); return err }())
	noErr(t, func() error {
		_, err := c.SetPolicy(ctx, "plain", client.PolicyConfig{Rules: map[string]string{"PII_UNTAGGED": "error"}})
		return err
	}())
	noErr(t, func() error { _, err := c.SetOwner(ctx, "plain", "sales", "#sales", "orders"); return err }())
	noErr(t, func() error { _, err := c.SetOwner(ctx, "orders-copy", "sales", "#sales", ""); return err }())
	// An owner of a subject without versions yet.
	noErr(t, func() error { _, err := c.SetOwner(ctx, "future-value", "ops", "ops@example.com", ""); return err }())
	noErr(t, func() error { _, err := c.SetTags(ctx, "plain", map[string][]string{".note": {"PII"}}); return err }())
	noErr(t, func() error { _, err := c.Dismiss(ctx, "plain", ".note", "", "free text, reviewed", false); return err }())
	noErr(t, func() error {
		_, err := c.Deprecate(ctx, "plain", client.DeprecateRequest{Path: ".note", Reason: "unused", Replacement: ".id", TTLDays: 30})
		return err
	}())
	noErr(t, func() error {
		_, err := c.Deprecate(ctx, "plain", client.DeprecateRequest{Version: 1, Reason: "old"})
		return err
	}())
	noErr(t, func() error {
		_, err := c.GrantExtension(ctx, "plain", "field:.note", client.ExtensionRequest{Consumer: "billing", Days: 45, Reason: "Q2", Approver: "bob"})
		return err
	}())
	noErr(t, func() error {
		_, err := c.GrantExtension(ctx, "plain", "field:.note", client.ExtensionRequest{Consumer: "audit", Days: 10, Reason: "Q1", Approver: "bob"})
		return err
	}())
}

// TestExportImportGovernanceRoundTrip: export → import → export is
// byte-equal with every kind of governance record (both registries on
// the same clock and actor: the import stamps records with its own).
func TestExportImportGovernanceRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	src := clockClient(t, day0, client.WithActor("alice"))
	fillSource(t, src)
	fillGovernance(t, src)
	d, err := src.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	// Policies 2, owners 3, tags 1, dismissals 1, deprecations 2,
	// extensions 2.
	if n := d.Counts(); n.Governance != 11 || d.Format != client.DumpFormat {
		t.Errorf("governance records = %d, format %s; want 11, v2\n%s", n.Governance, d.Format, raw)
	}
	var names []string
	for _, s := range d.Governance.Subjects {
		names = append(names, s.Subject)
	}
	if want := []string{"future-value", "orders-copy", "plain"}; !reflect.DeepEqual(names, want) {
		t.Errorf("governance subjects %v, want %v", names, want)
	}
	read, err := client.ReadDump(raw)
	if err != nil {
		t.Fatal(err)
	}
	dst := clockClient(t, day0, client.WithActor("alice"))
	var warnings []string
	n, err := dst.Import(ctx, read, client.ImportOptions{Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if n.Governance != 11 || len(warnings) != 0 {
		t.Errorf("imported %d governance records, warnings %q; want 11, none", n.Governance, warnings)
	}
	again, err := dst.Export(ctx)
	if err != nil {
		t.Fatal(err)
	}
	raw2, _ := json.MarshalIndent(again, "", "  ")
	if string(raw) != string(raw2) {
		t.Errorf("export of the imported registry differs:\n%s\nwant\n%s", raw2, raw)
	}
	// The subject policy is in force: PII_UNTAGGED refuses on plain.
	_, err = dst.Register(ctx, "plain", client.NewSchema{Text: `{"type":"record","name":"Order","fields":[{"name":"id","type":"string"},{"name":"note","type":"string","default":""},{"name":"n","type":"int","default":0},{"name":"customer_email","type":"string","default":""}]}`})
	if err == nil || !strings.Contains(err.Error(), "PII_UNTAGGED") {
		t.Errorf("register an untagged email on plain after import: err = %v, want PII_UNTAGGED", err)
	}

	// The audit log is exported on request, read-only.
	withAudit, err := src.Export(ctx, client.ExportOptions{Audit: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(withAudit.Governance.Audit) < 11 || withAudit.Governance.Audit[0].Actor != "alice" {
		t.Errorf("audit log %d entries, first %+v", len(withAudit.Governance.Audit), withAudit.Governance.Audit)
	}
}

// TestImportGovernanceLater: a dump imported 60 days later restarts the
// deprecation countdowns and skips, with a warning each, the extensions
// that have ended; a dump with an audit log says it is not imported.
func TestImportGovernanceLater(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	src := clockClient(t, day0)
	fillSource(t, src)
	fillGovernance(t, src)
	d, err := src.Export(ctx, client.ExportOptions{Audit: true})
	if err != nil {
		t.Fatal(err)
	}
	later := day0.Add(60 * 24 * time.Hour)
	dst := clockClient(t, later)
	var warnings []string
	n, err := dst.Import(ctx, d, client.ImportOptions{Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if n.Governance != 9 {
		t.Errorf("imported %d governance records, want 9 (both extensions ended)", n.Governance)
	}
	want := []string{
		`subject "plain": extension of field:.note for audit not restored: `,
		`subject "plain": extension of field:.note for billing not restored: `,
		`the dump's audit log (`,
	}
	if len(warnings) != len(want) {
		t.Fatalf("warnings %q", warnings)
	}
	for i, w := range want {
		if !strings.HasPrefix(warnings[i], w) {
			t.Errorf("warning %d = %q, want prefix %q", i, warnings[i], w)
		}
	}
	dep, err := dst.Deprecation(ctx, "plain", "field:.note")
	if err != nil || !dep.ExpiresAt.Equal(later.Add(30*24*time.Hour)) || dep.TTLDays != 30 {
		t.Errorf("deprecation after a later import = %+v, %v; want a 30-day TTL from the import", dep, err)
	}
}

// TestReadDumpV1: a v1 dump (no governance) still imports; a v1 dump
// with governance data is refused.
func TestReadDumpV1(t *testing.T) {
	t.Parallel()
	v1 := `{"format":"charter-registry-dump/v1","config":{"compatibilityLevel":"BACKWARD"},"mode":"READWRITE",
"schemas":[{"id":5,"schemaType":"AVRO","schema":` + jsonString(orderV1) + `}],
"subjects":[{"subject":"orders","versions":[{"version":2,"id":5}]}]}`
	d, err := client.ReadDump([]byte(v1))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := newClient(t)
	n, err := c.Import(t.Context(), d, client.ImportOptions{})
	if err != nil || n.Versions != 1 || n.Governance != 0 {
		t.Errorf("import v1: %+v, %v", n, err)
	}
	bad := strings.Replace(v1, `"mode":"READWRITE",`, `"mode":"READWRITE","governance":{"subjects":[]},`, 1)
	if _, err := client.ReadDump([]byte(bad)); err == nil || !strings.Contains(err.Error(), "has no governance data") {
		t.Errorf("v1 with governance: err = %v", err)
	}
	if _, err := client.ReadDump([]byte(" \n")); err == nil || err.Error() != "read dump: the dump is empty (0 bytes of JSON)" {
		t.Errorf("empty dump: err = %v", err)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

package registry_test

import (
	"encoding/json"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// TestImportCopyAgainWithLaterMetadata: in IMPORT mode a registration
// stores its metadata and ruleSet as sent, inheriting nothing from the
// latest version (Confluent skips maybePopulateFromPrevious there), so
// that v1 (no metadata) copied again after v2 (with metadata) is the
// same schema and answers its ID, as an exporter's re-copy does. It
// failed with 42205 (ID 7 holds a different schema) when the re-sent
// v1 inherited v2's metadata.
func TestImportCopyAgainWithLaterMetadata(t *testing.T) {
	ctx := t.Context()
	svc := newService(t)
	if _, err := svc.SetMode(ctx, "s", string(registry.ModeImport), true); err != nil {
		t.Fatal(err)
	}
	meta := json.RawMessage(`{"properties":{"owner":"team-a"}}`)
	v1 := registry.RegisterRequest{Schema: recA, ID: 7, Version: 1}
	if got := mustRegister(t, svc, "s", v1); got.Schema.ID != 7 || len(got.Schema.Metadata) != 0 {
		t.Fatalf("v1: id %d metadata %s, want 7 and none", got.Schema.ID, got.Schema.Metadata)
	}
	mustRegister(t, svc, "s", registry.RegisterRequest{Schema: recAb, ID: 15, Version: 2, Metadata: meta})
	again := mustRegister(t, svc, "s", v1)
	if again.Schema.ID != 7 || again.Version != 1 || len(again.Schema.Metadata) != 0 {
		t.Fatalf("v1 again: id %d version %d metadata %s, want 7, 1 and none", again.Schema.ID, again.Version, again.Schema.Metadata)
	}
	// A new version imported without metadata keeps none either.
	v3 := mustRegister(t, svc, "s", registry.RegisterRequest{Schema: `{"type":"record","name":"A","fields":[{"name":"a","type":"string"},{"name":"c","type":"int","default":0}]}`, ID: 20, Version: 3})
	if len(v3.Schema.Metadata) != 0 {
		t.Fatalf("v3 metadata %s, want none (nothing inherited in IMPORT)", v3.Schema.Metadata)
	}
}

package client_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/srerr"
)

func ptr[T any](v T) *T { return &v }

func TestConfig(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t)
	ctx := t.Context()

	g, err := c.Config(ctx, "", false)
	if err != nil || g.Compatibility != compat.Backward {
		t.Fatalf("global config = %+v, %v; want BACKWARD", g, err)
	}
	if _, err := c.Config(ctx, "orders", false); !errors.Is(err, srerr.ErrSubjectConfigNotFound) {
		t.Errorf("config of a subject without one: err = %v, want 40408", err)
	}
	if got, err := c.Config(ctx, "orders", true); err != nil || got.Compatibility != compat.Backward {
		t.Errorf("config of orders, defaultToGlobal = %+v, %v; want BACKWARD", got, err)
	}

	meta := json.RawMessage(`{"properties":{"owner":"sales"}}`)
	set, err := c.SetConfig(ctx, "orders", client.ConfigUpdate{
		Compatibility: ptr(compat.FullTransitive), Normalize: ptr(true), CompatibilityGroup: ptr("major"), DefaultMetadata: meta,
	})
	if err != nil {
		t.Fatal(err)
	}
	if set.Compatibility != compat.FullTransitive || set.Normalize == nil || !*set.Normalize || set.CompatibilityGroup != "major" {
		t.Errorf("SetConfig = %+v", set)
	}
	own, err := c.Config(ctx, "orders", false)
	if err != nil || own.Compatibility != compat.FullTransitive || string(own.DefaultMetadata) != `{"properties":{"owner":"sales"}}` {
		t.Errorf("config of orders = %+v (%s), %v", own, own.DefaultMetadata, err)
	}
	// A partial update keeps the other fields.
	if _, err := c.SetConfig(ctx, "orders", client.ConfigUpdate{Compatibility: ptr(compat.Forward)}); err != nil {
		t.Fatal(err)
	}
	own, _ = c.Config(ctx, "orders", false)
	if own.Compatibility != compat.Forward || own.CompatibilityGroup != "major" {
		t.Errorf("after a partial update: %+v", own)
	}
	// Update round-trips a config.
	other, err := c.SetConfig(ctx, "payments", own.Update())
	if err != nil {
		t.Fatal(err)
	}
	if other.Compatibility != own.Compatibility || other.CompatibilityGroup != own.CompatibilityGroup || string(other.DefaultMetadata) != string(own.DefaultMetadata) {
		t.Errorf("config set from Update = %+v, want %+v", other, own)
	}

	if _, err := c.SetConfig(ctx, "", client.ConfigUpdate{Compatibility: ptr(compat.Level("SIDEWAYS"))}); !errors.Is(err, srerr.ErrInvalidCompatibility) {
		t.Errorf("invalid level: err = %v, want 42203", err)
	}
	del, err := c.DeleteConfig(ctx, "orders")
	if err != nil || del.Compatibility != compat.Forward {
		t.Errorf("DeleteConfig = %+v, %v; want the FORWARD config back", del, err)
	}
	if _, err := c.DeleteConfig(ctx, "orders"); err == nil || !strings.HasPrefix(err.Error(), `delete config of subject "orders": `) {
		t.Errorf("second DeleteConfig: err = %v", err)
	}
}

func TestMode(t *testing.T) {
	t.Parallel()
	c, _ := newClient(t)
	ctx := t.Context()
	if m, err := c.Mode(ctx, "", false); err != nil || m != client.ModeReadWrite {
		t.Fatalf("global mode = %q, %v", m, err)
	}
	if _, err := c.Mode(ctx, "orders", false); !errors.Is(err, srerr.ErrSubjectModeNotFound) {
		t.Errorf("mode of a subject without one: err = %v, want 40409", err)
	}
	if m, err := c.Mode(ctx, "orders", true); err != nil || m != client.ModeReadWrite {
		t.Errorf("mode of orders, defaultToGlobal = %q, %v", m, err)
	}
	if _, err := c.Register(ctx, "orders", client.NewSchema{Text: orderV1}); err != nil {
		t.Fatal(err)
	}
	if m, err := c.SetMode(ctx, "orders", "readonly", false); err != nil || m != client.ModeReadOnly {
		t.Errorf("SetMode(readonly) = %q, %v", m, err)
	}
	if _, err := c.Register(ctx, "orders", client.NewSchema{Text: orderV2}); !errors.Is(err, srerr.ErrOperationNotPermitted) {
		t.Errorf("register in READONLY: err = %v, want 42205", err)
	}
	if _, err := c.SetMode(ctx, "", client.ModeImport, false); !errors.Is(err, srerr.ErrOperationNotPermitted) {
		t.Errorf("IMPORT over existing subjects without force: err = %v, want 42205", err)
	}
	if m, err := c.SetMode(ctx, "", client.ModeImport, true); err != nil || m != client.ModeImport {
		t.Errorf("IMPORT with force = %q, %v", m, err)
	}
	if _, err := c.SetMode(ctx, "", "SIDEWAYS", false); !errors.Is(err, srerr.ErrInvalidMode) {
		t.Errorf("invalid mode: err = %v, want 42204", err)
	}
	if m, err := c.DeleteMode(ctx, "orders"); err != nil || m != client.ModeReadOnly {
		t.Errorf("DeleteMode = %q, %v", m, err)
	}
	if m, err := c.DeleteMode(ctx, ""); err != nil || m != client.ModeImport {
		t.Errorf("DeleteMode(global) = %q, %v", m, err)
	}
	if m, _ := c.Mode(ctx, "", false); m != client.ModeReadWrite {
		t.Errorf("global mode after delete = %q", m)
	}
}

package storetest

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
)

func ptr[T any](v T) *T { return &v }

// fullConfig sets every field of registry.Config. Raw JSON is compact, the
// form a store may normalise to.
func fullConfig() registry.Config {
	return registry.Config{
		Compatibility:      compat.FullTransitive,
		Normalize:          ptr(true),
		ValidateFields:     ptr(false),
		ValidateNewSchemas: ptr(false),
		ValidateRules:      ptr(false),
		CompatibilityGroup: "application.major.version",
		Alias:              "orders-value",
		AliasForDeks:       "orders-keys",
		DefaultMetadata:    json.RawMessage(`{"properties":{"owner":"team-a"}}`),
		OverrideMetadata:   json.RawMessage(`{"tags":{"email":["PII"]}}`),
		DefaultRuleSet:     json.RawMessage(`{"domainRules":[{"name":"r","kind":"CONDITION","type":"CEL","expr":"true"}]}`),
		OverrideRuleSet:    json.RawMessage(`{"migrationRules":[]}`),
	}
}

// testConfigEveryField: a config with every field set comes back equal, and
// false booleans stay set (not dropped as zero). It fails when a field is
// added to registry.Config and fullConfig is not updated, so new fields get
// a round-trip check.
func testConfigEveryField(t *testing.T, s registry.Store) {
	want := fullConfig()
	v := reflect.ValueOf(want)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("fullConfig leaves registry.Config.%s unset: set it", v.Type().Field(i).Name)
		}
	}
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		return tx.SetConfig(ctx, "orders-value", want)
	})
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		got, err := tx.Config(ctx, "orders-value")
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Config\n got %#v\nwant %#v", got, want)
		}
		return nil
	})
}

// testConfig: global ("") and subject configs are independent records that
// are set, fully replaced and deleted, with ErrNotFound when absent.
func testConfig(t *testing.T, s registry.Store) {
	get := func(subject string) (registry.Config, error) {
		var c registry.Config
		err := s.View(t.Context(), func(tx registry.Tx) error {
			var err error
			c, err = tx.Config(t.Context(), subject)
			return err
		})
		return c, err
	}
	set := func(subject string, c registry.Config) {
		t.Helper()
		update(t, s, func(ctx context.Context, tx registry.Tx) error { return tx.SetConfig(ctx, subject, c) })
	}
	del := func(subject string) error {
		return s.Update(t.Context(), func(tx registry.Tx) error { return tx.DeleteConfig(t.Context(), subject) })
	}
	check := func(step, subject string, want registry.Config) {
		t.Helper()
		got, err := get(subject)
		if err != nil {
			t.Errorf("%s: Config(%q): %v", step, subject, err)
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Config(%q)\n got %#v\nwant %#v", step, subject, got, want)
		}
	}
	checkMissing := func(step, subject string) {
		t.Helper()
		_, err := get(subject)
		wantErrIs(t, step+": Config("+subject+")", err, registry.ErrNotFound)
	}

	checkMissing("empty store", "")
	checkMissing("empty store", "s")

	global := registry.Config{Compatibility: compat.Backward}
	set("", global)
	check("global set", "", global)
	checkMissing("global set", "s")

	subject := fullConfig()
	set("s", subject)
	check("subject set", "s", subject)
	check("subject set", "", global)

	// Replace, not merge: fields missing from the new config are gone.
	replaced := registry.Config{Compatibility: compat.None, Normalize: ptr(false)}
	set("s", replaced)
	check("subject replaced", "s", replaced)

	global2 := registry.Config{Compatibility: compat.Forward, ValidateFields: ptr(true)}
	set("", global2)
	check("global replaced", "", global2)
	check("global replaced", "s", replaced)

	if err := del("s"); err != nil {
		t.Fatalf("DeleteConfig(s): %v", err)
	}
	checkMissing("subject deleted", "s")
	check("subject deleted", "", global2)
	wantErrIs(t, "DeleteConfig(s) twice", del("s"), registry.ErrNotFound)
	wantErrIs(t, "DeleteConfig(unknown)", del("unknown"), registry.ErrNotFound)

	if err := del(""); err != nil {
		t.Fatalf("DeleteConfig(global): %v", err)
	}
	checkMissing("global deleted", "")
	wantErrIs(t, "DeleteConfig(global) twice", del(""), registry.ErrNotFound)
}

// testMode: as testConfig, for modes.
func testMode(t *testing.T, s registry.Store) {
	get := func(subject string) (registry.Mode, error) {
		var m registry.Mode
		err := s.View(t.Context(), func(tx registry.Tx) error {
			var err error
			m, err = tx.Mode(t.Context(), subject)
			return err
		})
		return m, err
	}
	set := func(subject string, m registry.Mode) {
		t.Helper()
		update(t, s, func(ctx context.Context, tx registry.Tx) error { return tx.SetMode(ctx, subject, m) })
	}
	del := func(subject string) error {
		return s.Update(t.Context(), func(tx registry.Tx) error { return tx.DeleteMode(t.Context(), subject) })
	}
	check := func(step, subject string, want registry.Mode) {
		t.Helper()
		got, err := get(subject)
		if err != nil || got != want {
			t.Errorf("%s: Mode(%q) = %q, %v; want %q", step, subject, got, err, want)
		}
	}
	checkMissing := func(step, subject string) {
		t.Helper()
		_, err := get(subject)
		wantErrIs(t, step+": Mode("+subject+")", err, registry.ErrNotFound)
	}

	checkMissing("empty store", "")
	checkMissing("empty store", "s")

	set("", registry.ModeReadWrite)
	check("global set", "", registry.ModeReadWrite)
	checkMissing("global set", "s")

	set("s", registry.ModeImport)
	check("subject set", "s", registry.ModeImport)
	check("subject set", "", registry.ModeReadWrite)

	set("s", registry.ModeReadOnlyOverride)
	check("subject replaced", "s", registry.ModeReadOnlyOverride)
	set("", registry.ModeReadOnly)
	check("global replaced", "", registry.ModeReadOnly)
	check("global replaced", "s", registry.ModeReadOnlyOverride)

	if err := del("s"); err != nil {
		t.Fatalf("DeleteMode(s): %v", err)
	}
	checkMissing("subject deleted", "s")
	check("subject deleted", "", registry.ModeReadOnly)
	wantErrIs(t, "DeleteMode(s) twice", del("s"), registry.ErrNotFound)
	wantErrIs(t, "DeleteMode(unknown)", del("unknown"), registry.ErrNotFound)

	if err := del(""); err != nil {
		t.Fatalf("DeleteMode(global): %v", err)
	}
	checkMissing("global deleted", "")
	wantErrIs(t, "DeleteMode(global) twice", del(""), registry.ErrNotFound)
}

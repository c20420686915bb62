package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/exporter"
)

// exporterTx returns tx's exporters part, failing the test when the
// store's transactions do not implement exporter.Tx (every store must).
func exporterTx(t *testing.T, tx registry.Tx) exporter.Tx {
	t.Helper()
	e, ok := tx.(exporter.Tx)
	if !ok {
		t.Fatalf("%T does not implement exporter.Tx", tx)
	}
	return e
}

// testExporters: exporters are put, read back field for field (the
// definition with its credentials, status and lease), replaced, listed
// by name; their progress is put, replaced, read by subject and
// cleared; deleting an exporter deletes its progress, and an absent one
// is not found, without an error.
func testExporters(t *testing.T, s registry.Store) {
	b := exporter.Stored{
		Exporter: exporter.Exporter{Name: "b-exp", ContextType: exporter.ContextCustom, Context: ".mirror",
			Subjects: []string{"orders-*", ":.ctx:x"}, SubjectRenameFormat: "dc_${subject}",
			Config: map[string]string{exporter.ConfigURL: "http://dest:8081", exporter.ConfigUserInfo: "u:é-secret"}},
		State: exporter.StateError, Offset: 1 << 40, Ts: 1700000000123, Trace: "POST /subjects/x/versions: 500",
		LeaseOwner: "abc", LeaseUntil: 1700000030000,
	}
	a := exporter.Stored{Exporter: exporter.Exporter{Name: "a-exp", ContextType: exporter.ContextAuto,
		Subjects: []string{"*"}, Config: map[string]string{}}, State: exporter.StateStarting}
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		x := exporterTx(t, tx)
		if err := x.PutExporter(ctx, b); err != nil {
			return err
		}
		if err := x.PutExporter(ctx, a); err != nil {
			return err
		}
		if err := x.PutExporterProgress(ctx, "b-exp", "orders-value", exporter.Progress{Version: 3, Settings: "h1/IMPORT", Imported: true}); err != nil {
			return err
		}
		if err := x.PutExporterProgress(ctx, "b-exp", "orders-value", exporter.Progress{Version: 4, Settings: "h2/READONLY", Imported: true}); err != nil {
			return err
		}
		if err := x.PutExporterProgress(ctx, "b-exp", "orders-key", exporter.Progress{Version: 1}); err != nil {
			return err
		}
		return x.PutExporterProgress(ctx, "a-exp", "orders-key", exporter.Progress{Version: 9})
	})
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		x := exporterTx(t, tx)
		if got, ok, err := x.Exporter(ctx, "b-exp"); err != nil || !ok || !reflect.DeepEqual(got, b) {
			t.Errorf("Exporter(b-exp) = %+v, %v, %v; want %+v", got, ok, err, b)
		}
		if got, ok, err := x.Exporter(ctx, "a-exp"); err != nil || !ok || !reflect.DeepEqual(got, a) {
			t.Errorf("Exporter(a-exp) = %+v, %v, %v; want %+v", got, ok, err, a)
		}
		if _, ok, err := x.Exporter(ctx, "none"); ok || err != nil {
			t.Errorf("Exporter(none) = %v, %v; want not found, no error", ok, err)
		}
		if es, err := x.Exporters(ctx); err != nil || len(es) != 2 || es[0].Name != "a-exp" || es[1].Name != "b-exp" {
			t.Errorf("Exporters = %+v, %v; want a-exp, b-exp", es, err)
		}
		want := map[string]exporter.Progress{"orders-value": {Version: 4, Settings: "h2/READONLY", Imported: true}, "orders-key": {Version: 1}}
		if got, err := x.ExporterProgress(ctx, "b-exp"); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ExporterProgress(b-exp) = %+v, %v; want %+v", got, err, want)
		}
		if got, err := x.ExporterProgress(ctx, "none"); err != nil || got == nil || len(got) != 0 {
			t.Errorf("ExporterProgress(none) = %#v, %v; want an empty map", got, err)
		}
		return nil
	})
	b.State, b.Offset, b.Trace, b.LeaseOwner, b.LeaseUntil = exporter.StatePaused, 5, "", "", 0
	b.Subjects = nil
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		x := exporterTx(t, tx)
		if err := x.PutExporter(ctx, b); err != nil {
			return err
		}
		if err := x.ClearExporterProgress(ctx, "a-exp"); err != nil {
			return err
		}
		return x.DeleteExporter(ctx, "b-exp")
	})
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		x := exporterTx(t, tx)
		if _, ok, err := x.Exporter(ctx, "b-exp"); ok || err != nil {
			t.Errorf("Exporter(b-exp) after delete = %v, %v; want not found", ok, err)
		}
		for _, name := range []string{"a-exp", "b-exp"} {
			if got, err := x.ExporterProgress(ctx, name); err != nil || len(got) != 0 {
				t.Errorf("ExporterProgress(%s) after clear/delete = %+v, %v; want none", name, got, err)
			}
		}
		if es, err := x.Exporters(ctx); err != nil || len(es) != 1 || es[0].Name != "a-exp" {
			t.Errorf("Exporters = %+v, %v; want a-exp", es, err)
		}
		return nil
	})
	// A failed Update leaves nothing behind.
	boom := errors.New("boom")
	err := s.Update(t.Context(), func(tx registry.Tx) error {
		x := exporterTx(t, tx)
		if err := x.PutExporter(t.Context(), exporter.Stored{Exporter: exporter.Exporter{Name: "c-exp"}, State: exporter.StateRunning}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want boom", err)
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		if _, ok, err := exporterTx(t, tx).Exporter(ctx, "c-exp"); ok || err != nil {
			t.Errorf("Exporter(c-exp) after a rolled back Update = %v, %v; want not found", ok, err)
		}
		return nil
	})
}

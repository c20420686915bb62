package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
)

// errRollback makes an Update roll back.
var errRollback = errors.New("roll back")

// backupTx returns tx's backup part, failing the test when the store's
// transactions do not implement registry.BackupTx (every store must).
func backupTx(t *testing.T, tx registry.Tx) registry.BackupTx {
	t.Helper()
	b, ok := tx.(registry.BackupTx)
	if !ok {
		t.Fatalf("%T does not implement registry.BackupTx", tx)
	}
	return b
}

// testBackupLists: Schemas lists every stored schema by ID with its
// content and fingerprint, held by a version or not, and not the deleted
// ones; Configs and Modes list every stored one by subject (byte order),
// the global one first; all three are empty, non-nil slices on an empty
// store.
func testBackupLists(t *testing.T, s registry.Store) {
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		b := backupTx(t, tx)
		ss, err := b.Schemas(ctx)
		if err != nil || ss == nil || len(ss) != 0 {
			t.Errorf("Schemas of an empty store = %v, %v; want an empty slice", ss, err)
		}
		cs, err := b.Configs(ctx)
		if err != nil || cs == nil || len(cs) != 0 {
			t.Errorf("Configs of an empty store = %v, %v; want an empty slice", cs, err)
		}
		ms, err := b.Modes(ctx)
		if err != nil || ms == nil || len(ms) != 0 {
			t.Errorf("Modes of an empty store = %v, %v; want an empty slice", ms, err)
		}
		return nil
	})
	rich := schema("rich")
	rich.ID = 7
	rich.References = []registry.Reference{{Name: "a.avsc", Subject: "a", Version: 1}, {Name: "b.avsc", Subject: "b", Version: 2}}
	rich.Metadata = json.RawMessage(`{"properties":{"owner":"x"}}`)
	rich.RuleSet = json.RawMessage(`{"domainRules":[]}`)
	createSchemas(t, s, schema("one"), rich, schema("orphan"), schema("gone"))
	putVersions(t, s, registry.SubjectVersion{Subject: "a", Version: 1, SchemaID: 1},
		registry.SubjectVersion{Subject: "b", Version: 2, SchemaID: 7, Deleted: true})
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		if err := tx.DeleteSchema(ctx, "", 9); err != nil { // "gone"
			return err
		}
		for _, sub := range []string{"b", "", "a\u00e9", "A", "a"} {
			lvl := "FULL"
			if sub == "" {
				lvl = "NONE"
			}
			if err := tx.SetConfig(ctx, sub, registry.Config{Compatibility: "BACKWARD", Alias: sub + lvl}); err != nil {
				return err
			}
			if err := tx.SetMode(ctx, sub, registry.Mode("READ"+lvl)); err != nil {
				return err
			}
		}
		return tx.DeleteMode(ctx, "A")
	})
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		b := backupTx(t, tx)
		ss, err := b.Schemas(ctx)
		if err != nil {
			return err
		}
		got := ""
		for _, sc := range ss {
			got += fmt.Sprintf("[%d %s %s %v %s %s]", sc.ID, sc.Type, sc.Fingerprint, sc.References, sc.Metadata, sc.RuleSet)
		}
		want := `[1 AVRO one []  ][7 AVRO rich [{a.avsc a 1} {b.avsc b 2}] {"properties":{"owner":"x"}} {"domainRules":[]}][8 AVRO orphan []  ]`
		if got != want {
			t.Errorf("Schemas = %s\nwant %s", got, want)
		}
		for _, sc := range ss {
			if one, err := tx.SchemaByID(ctx, "", sc.ID); err != nil || one.Text != sc.Text {
				t.Errorf("Schemas lists %d with text %q; SchemaByID has %q, %v", sc.ID, sc.Text, one.Text, err)
			}
		}
		cs, err := b.Configs(ctx)
		if err != nil {
			return err
		}
		got = ""
		for _, c := range cs {
			got += fmt.Sprintf("[%q %s %q]", c.Subject, c.Config.Compatibility, c.Config.Alias)
		}
		if want := `["" BACKWARD "NONE"]["A" BACKWARD "AFULL"]["a" BACKWARD "aFULL"]["aé" BACKWARD "aéFULL"]["b" BACKWARD "bFULL"]`; got != want {
			t.Errorf("Configs = %s\nwant %s", got, want)
		}
		ms, err := b.Modes(ctx)
		if err != nil {
			return err
		}
		got = ""
		for _, m := range ms {
			got += fmt.Sprintf("[%q %s]", m.Subject, m.Mode)
		}
		if want := `["" READNONE]["a" READFULL]["aé" READFULL]["b" READFULL]`; got != want {
			t.Errorf("Modes = %s\nwant %s", got, want)
		}
		return nil
	})
}

// testRaiseSchemaIDMark: the mark goes up to the ID given, never down,
// and allocation continues above it; a rolled-back raise is undone.
func testRaiseSchemaIDMark(t *testing.T, s registry.Store) {
	mark := func() int64 {
		var m int64
		view(t, s, func(ctx context.Context, tx registry.Tx) error {
			var err error
			m, err = tx.MaxSchemaID(ctx, "")
			return err
		})
		return m
	}
	createSchemas(t, s, schema("a"))
	update(t, s, func(ctx context.Context, tx registry.Tx) error { return backupTx(t, tx).RaiseSchemaIDMark(ctx, "", 40) })
	if m := mark(); m != 40 {
		t.Errorf("MaxSchemaID after raising to 40 = %d", m)
	}
	update(t, s, func(ctx context.Context, tx registry.Tx) error { return backupTx(t, tx).RaiseSchemaIDMark(ctx, "", 12) })
	if m := mark(); m != 40 {
		t.Errorf("MaxSchemaID after raising to 12 = %d, want 40 (it never goes down)", m)
	}
	if ids := createSchemas(t, s, schema("b")); ids[0] != 41 {
		t.Errorf("allocated %d after the mark 40, want 41", ids[0])
	}
	err := s.Update(t.Context(), func(tx registry.Tx) error {
		if err := backupTx(t, tx).RaiseSchemaIDMark(t.Context(), "", 90); err != nil {
			return err
		}
		return errRollback
	})
	wantErrIs(t, "a rolled back Update", err, errRollback)
	if m := mark(); m != 41 {
		t.Errorf("MaxSchemaID after a rolled back raise = %d, want 41", m)
	}
}

// testRestoreAudit: restored entries keep their IDs (gaps included) and
// their times to the nanosecond; an ID not above every stored one is
// ErrConflict; AppendAudit then allocates above the restored IDs; a
// restore in a rolled-back Update leaves nothing.
func testRestoreAudit(t *testing.T, s registry.Store) {
	t0 := time.Date(2025, 11, 2, 8, 0, 0, 987654321, time.UTC)
	restored := []governance.AuditEntry{
		{ID: 3, Time: t0, Actor: "alice", Action: "owner.set", Subject: "a", After: json.RawMessage(`{"team":"a"}`)},
		{ID: 4, Time: t0.Add(time.Minute), Actor: "bob", Action: "policy.set", Before: json.RawMessage(`null`)},
		{ID: 17, Time: t0.Add(time.Hour), Actor: "carol", Action: "deprecation.create", Subject: "a", Target: "field:.x"},
	}
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		for _, e := range restored {
			if err := backupTx(t, tx).RestoreAudit(ctx, e); err != nil {
				return err
			}
		}
		return nil
	})
	for _, id := range []int64{17, 5} {
		err := s.Update(t.Context(), func(tx registry.Tx) error {
			return backupTx(t, tx).RestoreAudit(t.Context(), governance.AuditEntry{ID: id, Time: t0, Actor: "x", Action: "owner.set"})
		})
		wantErrIs(t, fmt.Sprintf("RestoreAudit of id %d below the stored 17", id), err, registry.ErrConflict)
	}
	err := s.Update(t.Context(), func(tx registry.Tx) error {
		if err := backupTx(t, tx).RestoreAudit(t.Context(), governance.AuditEntry{ID: 30, Time: t0, Actor: "x", Action: "owner.set"}); err != nil {
			return err
		}
		return errRollback
	})
	wantErrIs(t, "a rolled back Update", err, errRollback)
	var next int64
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		var err error
		next, err = gov(t, tx).AppendAudit(ctx, governance.AuditEntry{Time: t0.Add(2 * time.Hour), Actor: "dave", Action: "tags.set"})
		return err
	})
	if next <= 17 {
		t.Errorf("AppendAudit after restoring up to 17 = %d, want more", next)
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		all, err := gov(t, tx).AuditEntries(ctx, registry.AuditQuery{})
		if err != nil {
			return err
		}
		if len(all) != 4 {
			t.Fatalf("%d entries, want 4: %+v", len(all), all)
		}
		for i, want := range restored {
			got := all[i]
			if got.ID != want.ID || !got.Time.Equal(want.Time) || got.Actor != want.Actor || got.Action != want.Action ||
				got.Subject != want.Subject || got.Target != want.Target || string(got.Before) != string(want.Before) ||
				string(got.After) != string(want.After) {
				t.Errorf("entry %d = %+v, want %+v", i, got, want)
			}
		}
		if all[3].ID != next || all[3].Actor != "dave" {
			t.Errorf("last entry %+v, want dave's under %d", all[3], next)
		}
		return nil
	})
}

// testIDAllocationRestored: IDAllocation reports the fallback floor and
// the retired IDs; RestoreIDAllocation into another store makes it
// allocate past an imported maximum exactly as the first one would.
func testIDAllocationRestored(t *testing.T, s registry.Store) {
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		b := backupTx(t, tx)
		a, err := b.IDAllocation(ctx, "")
		if err != nil {
			return err
		}
		if a.Floor != 0 || len(a.Retired) != 0 {
			t.Errorf("IDAllocation of an empty store = %+v, want zero", a)
		}
		if err := b.RaiseSchemaIDMark(ctx, "", registry.MaxID); err != nil {
			return err
		}
		return b.RestoreIDAllocation(ctx, "", registry.IDAllocation{Floor: 3, Retired: []int64{5, 4}})
	})
	// Past the mark: the smallest ID above the floor 3 that is not
	// retired (4, 5) is 6.
	if ids := createSchemas(t, s, schema("a")); ids[0] != 6 {
		t.Errorf("allocated %d, want 6 (above the floor 3, past the retired 4 and 5)", ids[0])
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		a, err := backupTx(t, tx).IDAllocation(ctx, "")
		if err != nil {
			return err
		}
		if a.Floor != 6 || len(a.Retired) != 2 || a.Retired[0] != 4 || a.Retired[1] != 5 {
			t.Errorf("IDAllocation = %+v, want floor 6 and retired [4 5]", a)
		}
		return nil
	})
	// A lower floor changes nothing; retiring again is harmless.
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		return backupTx(t, tx).RestoreIDAllocation(ctx, "", registry.IDAllocation{Floor: 1, Retired: []int64{4}})
	})
	if ids := createSchemas(t, s, schema("b")); ids[0] != 7 {
		t.Errorf("allocated %d, want 7", ids[0])
	}
}

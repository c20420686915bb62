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

// gov returns tx's governance part, failing the test when the store's
// transactions do not implement registry.GovernanceTx (every store must).
func gov(t *testing.T, tx registry.Tx) registry.GovernanceTx {
	t.Helper()
	g, ok := tx.(registry.GovernanceTx)
	if !ok {
		t.Fatalf("%T does not implement registry.GovernanceTx", tx)
	}
	return g
}

func keys(rs []registry.GovernanceRecord) string {
	out := ""
	for _, r := range rs {
		out += fmt.Sprintf("[%s %s %s %s]", r.Subject, r.Kind, r.Key, r.Body)
	}
	return out
}

// testGovernanceRecords: records are put, replaced, listed in (subject,
// kind, key) order with the query's filters, read back with their JSON,
// and deleted, with ErrNotFound when absent.
func testGovernanceRecords(t *testing.T, s registry.Store) {
	put := []registry.GovernanceRecord{
		{Kind: "owner", Subject: "b-value", Key: "", Body: json.RawMessage(`{"team":"b"}`)},
		{Kind: "deprecation", Subject: "a-value", Key: "field:.z", Body: json.RawMessage(`{"n":1}`)},
		{Kind: "deprecation", Subject: "a-value", Key: "field:.a", Body: json.RawMessage(`{"n":2}`)},
		{Kind: "owner", Subject: "a-value", Key: "", Body: json.RawMessage(`{"team":"a"}`)},
		{Kind: "policy", Subject: "", Key: "", Body: json.RawMessage(`{"rules":{}}`)},
	}
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		g := gov(t, tx)
		for _, r := range put {
			if err := g.PutGovernanceRecord(ctx, r); err != nil {
				return err
			}
		}
		// Replace one body.
		return g.PutGovernanceRecord(ctx, registry.GovernanceRecord{Kind: "owner", Subject: "b-value", Body: json.RawMessage(`{"team":"b2"}`)})
	})
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		g := gov(t, tx)
		r, err := g.GovernanceRecord(ctx, "owner", "b-value", "")
		if err != nil {
			return err
		}
		if string(r.Body) != `{"team":"b2"}` || r.Kind != "owner" || r.Subject != "b-value" {
			t.Errorf("GovernanceRecord = %+v (%s)", r, r.Body)
		}
		_, err = g.GovernanceRecord(ctx, "owner", "c-value", "")
		wantErrIs(t, "GovernanceRecord of a missing record", err, registry.ErrNotFound)

		for _, tc := range []struct {
			q    registry.RecordQuery
			want string
		}{
			{registry.RecordQuery{Subject: "a-value"},
				`[a-value deprecation field:.a {"n":2}][a-value deprecation field:.z {"n":1}][a-value owner  {"team":"a"}]`},
			{registry.RecordQuery{Kind: "owner", AllSubjects: true},
				`[a-value owner  {"team":"a"}][b-value owner  {"team":"b2"}]`},
			{registry.RecordQuery{Kind: "policy"}, `[ policy  {"rules":{}}]`},
			{registry.RecordQuery{Kind: "tags", AllSubjects: true}, ``},
		} {
			got, err := g.GovernanceRecords(ctx, tc.q)
			if err != nil {
				return err
			}
			if got == nil {
				t.Errorf("GovernanceRecords(%+v) = nil, want an empty slice", tc.q)
			}
			if keys(got) != tc.want {
				t.Errorf("GovernanceRecords(%+v)\n got %s\nwant %s", tc.q, keys(got), tc.want)
			}
		}
		return nil
	})
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		return gov(t, tx).DeleteGovernanceRecord(ctx, "deprecation", "a-value", "field:.z")
	})
	err := s.Update(t.Context(), func(tx registry.Tx) error {
		return gov(t, tx).DeleteGovernanceRecord(t.Context(), "deprecation", "a-value", "field:.z")
	})
	wantErrIs(t, "DeleteGovernanceRecord twice", err, registry.ErrNotFound)
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		got, err := gov(t, tx).GovernanceRecords(ctx, registry.RecordQuery{Kind: "deprecation", Subject: "a-value"})
		if err != nil {
			return err
		}
		if keys(got) != `[a-value deprecation field:.a {"n":2}]` {
			t.Errorf("after delete: %s", keys(got))
		}
		return nil
	})
}

// testAudit: entries get increasing IDs, keep their fields (time to the
// nanosecond, UTC), and are filtered by subject, action prefix, actor,
// time range, AfterID and Limit.
func testAudit(t *testing.T, s registry.Store) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))
	entries := []governance.AuditEntry{
		{ID: 99, Time: t0, Actor: "alice", Action: "owner.set", Subject: "a-value", After: json.RawMessage(`{"team":"a"}`)},
		{Time: t0.Add(time.Hour), Actor: "bob", Action: "deprecation.create", Subject: "a-value", Target: "field:.x",
			Before: json.RawMessage(`null`), After: json.RawMessage(`{"ttlDays":90}`)},
		{Time: t0.Add(2 * time.Hour), Actor: "alice", Action: "policy.set"},
		{Time: t0.Add(3 * time.Hour), Actor: "carol", Action: "deprecation.delete", Subject: "b-value", Target: "version:2"},
	}
	var ids []int64
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		for _, e := range entries {
			id, err := gov(t, tx).AppendAudit(ctx, e)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("audit IDs %v do not increase", ids)
		}
	}
	query := func(q registry.AuditQuery) []governance.AuditEntry {
		var out []governance.AuditEntry
		view(t, s, func(ctx context.Context, tx registry.Tx) error {
			var err error
			out, err = gov(t, tx).AuditEntries(ctx, q)
			return err
		})
		return out
	}
	all := query(registry.AuditQuery{})
	if len(all) != 4 {
		t.Fatalf("%d entries, want 4", len(all))
	}
	first := all[0]
	if first.ID != ids[0] || !first.Time.Equal(t0) || first.Time.Location() != time.UTC || first.Actor != "alice" ||
		first.Action != "owner.set" || first.Subject != "a-value" || string(first.After) != `{"team":"a"}` || first.Before != nil {
		t.Errorf("first entry %+v", first)
	}
	if string(all[1].Before) != "null" || all[1].Target != "field:.x" {
		t.Errorf("second entry %+v", all[1])
	}
	actions := func(es []governance.AuditEntry) string {
		out := ""
		for _, e := range es {
			out += e.Action + " "
		}
		return out
	}
	for _, tc := range []struct {
		name string
		q    registry.AuditQuery
		want string
	}{
		{"subject", registry.AuditQuery{Subject: "a-value"}, "owner.set deprecation.create "},
		{"action prefix", registry.AuditQuery{ActionPrefix: "deprecation."}, "deprecation.create deprecation.delete "},
		{"actor", registry.AuditQuery{Actor: "alice"}, "owner.set policy.set "},
		{"time range", registry.AuditQuery{Since: t0.Add(time.Hour), Until: t0.Add(3 * time.Hour)}, "deprecation.create policy.set "},
		{"after id and limit", registry.AuditQuery{AfterID: ids[0], Limit: 2}, "deprecation.create policy.set "},
		{"no match", registry.AuditQuery{Subject: "z"}, ""},
	} {
		if got := actions(query(tc.q)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// testGovernanceRollback: governance writes roll back with the rest of a
// failed Update.
func testGovernanceRollback(t *testing.T, s registry.Store) {
	errRollback := errors.New("roll back")
	err := s.Update(t.Context(), func(tx registry.Tx) error {
		g := gov(t, tx)
		if err := g.PutGovernanceRecord(t.Context(), registry.GovernanceRecord{Kind: "owner", Subject: "x", Body: json.RawMessage(`{}`)}); err != nil {
			return err
		}
		if _, err := g.AppendAudit(t.Context(), governance.AuditEntry{Time: time.Now(), Actor: "a", Action: "owner.set"}); err != nil {
			return err
		}
		return errRollback
	})
	if err != errRollback {
		t.Fatalf("Update = %v, want the fn's error", err)
	}
	view(t, s, func(ctx context.Context, tx registry.Tx) error {
		g := gov(t, tx)
		_, err := g.GovernanceRecord(ctx, "owner", "x", "")
		wantErrIs(t, "record of a rolled-back Update", err, registry.ErrNotFound)
		es, err := g.AuditEntries(ctx, registry.AuditQuery{})
		if err != nil {
			return err
		}
		if len(es) != 0 {
			t.Errorf("audit entries of a rolled-back Update: %v", es)
		}
		return nil
	})
}

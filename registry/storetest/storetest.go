// Package storetest is the conformance suite that every [registry.Store]
// backend must pass. A backend's tests call [RunConformance] with a
// constructor of empty stores:
//
//	func TestConformance(t *testing.T) {
//		storetest.RunConformance(t, func(t *testing.T) registry.Store {
//			s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "registry.db"))
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
//
// The suite checks behaviour promised by the [registry.Store],
// [registry.Tx], [registry.GovernanceTx], [registry.BackupTx], [dek.KeyTx] and [exporter.Tx] docs only
// (every store's transactions must implement GovernanceTx, BackupTx, dek.KeyTx and exporter.Tx); backend specifics (durability, concurrency of
// readers with a writer, query plans) belong to the backend's own tests.
package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// RunConformance runs the suite as named subtests of t. newStore is called
// once per subtest, one subtest at a time, and must return a new, empty
// store; the suite closes it (and checks Close's error) when the subtest
// ends.
//
// Subjects order by their bytes, as Go compares strings (a PostgreSQL
// backend needs COLLATE "C"). Each write that is expected to fail runs in
// its own Update, since some databases abort a transaction after a failed
// statement.
//
// On a panic inside Update's fn the suite accepts either behaviour: the
// panic propagates to the caller after the rollback, or Update returns a
// non-nil error. Either way nothing fn wrote may be visible, and the store
// must accept the next Update.
func RunConformance(t *testing.T, newStore func(t *testing.T) registry.Store) {
	tests := []struct {
		name string
		run  func(t *testing.T, s registry.Store)
	}{
		{"IDAllocation", testIDAllocation},
		{"IDAllocationWithinOneUpdate", testIDAllocationWithinOneUpdate},
		{"IDAllocationPastImportedMaximum", testIDAllocationPastImportedMaximum},
		{"CreateSchemaConflicts", testCreateSchemaConflicts},
		{"SchemaRoundTrip", testSchemaRoundTrip},
		{"SchemaNotFound", testSchemaNotFound},
		{"DeleteSchema", testDeleteSchema},
		{"VersionsFilters", testVersionsFilters},
		{"VersionsNumericOrder", testVersionsNumericOrder},
		{"PutVersionUpdates", testPutVersionUpdates},
		{"DeleteVersion", testDeleteVersion},
		{"ReferencedBy", testReferencedBy},
		{"Config", testConfig},
		{"ConfigEveryField", testConfigEveryField},
		{"Mode", testMode},
		{"UpdateSeesOwnWrites", testUpdateSeesOwnWrites},
		{"UpdateRollbackOnError", testUpdateRollbackOnError},
		{"UpdateRollbackOnPanic", testUpdateRollbackOnPanic},
		{"ViewReturnsFnError", testViewReturnsFnError},
		{"ConcurrentUpdates", testConcurrentUpdates},
		{"GovernanceRecords", testGovernanceRecords},
		{"Audit", testAudit},
		{"GovernanceRollback", testGovernanceRollback},
		{"BackupLists", testBackupLists},
		{"RaiseSchemaIDMark", testRaiseSchemaIDMark},
		{"IDAllocationRestored", testIDAllocationRestored},
		{"RestoreAudit", testRestoreAudit},
		{"Keks", testKeks},
		{"Deks", testDeks},
		{"DekRollback", testDekRollback},
		{"ContextIDSpaces", testContextIDSpaces},
		{"ContextReferences", testContextReferences},
		{"Contexts", testContexts},
		{"ContextBackup", testContextBackup},
		{"Exporters", testExporters},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.run(t, s)
		})
	}
}

// update runs fn in s.Update and fails the test on error.
func update(t *testing.T, s registry.Store, fn func(ctx context.Context, tx registry.Tx) error) {
	t.Helper()
	ctx := t.Context()
	if err := s.Update(ctx, func(tx registry.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

// view runs fn in s.View and fails the test on error.
func view(t *testing.T, s registry.Store, fn func(ctx context.Context, tx registry.Tx) error) {
	t.Helper()
	ctx := t.Context()
	if err := s.View(ctx, func(tx registry.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// createSchemas creates schemas in one Update and returns their IDs.
func createSchemas(t *testing.T, s registry.Store, schemas ...registry.Schema) []int64 {
	t.Helper()
	var ids []int64
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		for _, sc := range schemas {
			id, err := tx.CreateSchema(ctx, sc)
			if err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	return ids
}

// putVersions stores vs in one Update.
func putVersions(t *testing.T, s registry.Store, vs ...registry.SubjectVersion) {
	t.Helper()
	update(t, s, func(ctx context.Context, tx registry.Tx) error {
		for _, v := range vs {
			if err := tx.PutVersion(ctx, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// schema returns a minimal Avro schema with fingerprint fp.
func schema(fp string) registry.Schema {
	return registry.Schema{Type: "AVRO", Text: `{"type":"record","name":"` + fp + `","fields":[]}`, Fingerprint: fp}
}

// wantErrIs fails the test unless errors.Is(err, target).
func wantErrIs(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error = %v, want one wrapping %v", what, err, target)
	}
}

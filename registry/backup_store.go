package registry

import (
	"context"

	"github.com/charter-dev/charter/registry/governance"
)

// SubjectConfig is a stored config with its subject ("" for the global
// one).
type SubjectConfig struct {
	Subject string
	Config  Config
}

// SubjectMode is a stored mode with its subject ("" for the global one).
type SubjectMode struct {
	Subject string
	Mode    Mode
}

// BackupTx is the part of a store transaction that a lossless export and
// import need beyond Tx and GovernanceTx: listing everything, and
// restoring the two things the other methods allocate themselves (the
// schema ID mark and audit IDs). The Service finds it by type assertion;
// every Charter store implements it (registry/storetest checks it).
// Methods return errors wrapping ErrConflict as documented; any other
// error is a store failure.
type BackupTx interface {
	// Schemas returns every stored schema, by context ("" first), then ID
	// ascending (with its context and fingerprint), whether a version
	// holds it or not.
	Schemas(ctx context.Context) ([]Schema, error)
	// Configs returns every stored config, by subject (the global one,
	// subject "", first).
	Configs(ctx context.Context) ([]SubjectConfig, error)
	// Modes returns every stored mode, by subject (the global one first).
	Modes(ctx context.Context) ([]SubjectMode, error)
	// RaiseSchemaIDMark raises the mark MaxSchemaID reports for context
	// schemaCtx, and above which CreateSchema allocates there, to id when
	// id is greater; otherwise it changes nothing.
	RaiseSchemaIDMark(ctx context.Context, schemaCtx string, id int64) error
	// SchemaContexts returns the contexts that have an ID mark (a schema
	// was stored there once), "" (the default one) always first, then
	// sorted; those that Tx.DeleteContext removed too.
	SchemaContexts(ctx context.Context) ([]string, error)
	// RestoreAudit stores e under e.ID (> 0) with its time, actor and
	// records, so that a restored audit log keeps its IDs; a later
	// AppendAudit returns a greater ID. Returns ErrConflict when an entry
	// with an ID of e.ID or more is stored.
	RestoreAudit(ctx context.Context, e governance.AuditEntry) error
	// IDAllocation returns the state of allocation past MaxID in context
	// schemaCtx (see Tx.CreateSchema): the fallback floor and the retired
	// (deleted) IDs, ascending.
	IDAllocation(ctx context.Context, schemaCtx string) (IDAllocation, error)
	// RestoreIDAllocation raises the fallback floor of context schemaCtx
	// to a.Floor when it is greater and records a.Retired as retired there
	// (those already retired stay).
	RestoreIDAllocation(ctx context.Context, schemaCtx string, a IDAllocation) error
}

// IDAllocation is what allocation past MaxID depends on besides the
// stored schemas: IDs above Floor are handed out smallest first, never
// one in Retired.
type IDAllocation struct {
	Floor   int64
	Retired []int64
}

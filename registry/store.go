package registry

import (
	"context"
	"errors"
)

// ErrNotFound is returned by Tx methods when the asked-for record does not
// exist. The service turns it into the matching Confluent error.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned by Tx.CreateSchema when the ID or fingerprint is
// already taken.
var ErrConflict = errors.New("conflict")

// ErrIDsExhausted is returned by Tx.CreateSchema when every schema ID up to
// MaxID is held or was held.
var ErrIDsExhausted = errors.New("schema ids exhausted")

// Store persists the registry. Every read happens in View and every write in
// Update, so each registration, delete or config change is exactly one
// transaction: it happens completely or not at all.
type Store interface {
	// View runs fn in a read-only transaction.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction. Updates are serialised
	// with each other (across processes, for a store that several share):
	// what fn reads stays true until it returns. The transaction commits,
	// durably, iff fn returns nil. A store may run fn again after a
	// failure that rolled the transaction back and that a retry may get
	// past (registry/postgres: a serialization failure, a deadlock, a
	// connection lost before a statement was sent), so fn must start from
	// scratch on every call: assign its results, never accumulate them.
	Update(ctx context.Context, fn func(Tx) error) error
	// Close releases the store's resources.
	Close() error
}

// VersionQuery selects subject versions. Zero fields do not filter.
type VersionQuery struct {
	Subject       string // exact subject
	SubjectPrefix string // subjects starting with this prefix
	SchemaID      int64  // versions bound to this schema ID in Context
	// Context restricts a SchemaID query to the subjects of that context
	// ("" the default one, see ContextOf); without SchemaID it is unused.
	Context string
	// IncludeDeleted also returns soft-deleted versions.
	IncludeDeleted bool
}

// Tx is one transaction's view of the store. Methods return errors wrapping
// ErrNotFound or ErrConflict as documented; any other error is a store
// failure.
type Tx interface {
	// Schema IDs, fingerprints and the ID mark are per context (schemaCtx,
	// "" for the default one, see ContextOf): two contexts may each hold
	// ID 1, and the same content in two contexts is two schemas.

	// SchemaByID returns the schema with id in context schemaCtx, or
	// ErrNotFound.
	SchemaByID(ctx context.Context, schemaCtx string, id int64) (Schema, error)
	// SchemaByFingerprint returns the schema with fingerprint fp in
	// context schemaCtx, or ErrNotFound.
	SchemaByFingerprint(ctx context.Context, schemaCtx, fp string) (Schema, error)
	// CreateSchema stores s in context s.Context. With s.ID == 0 it allocates an ID that no
	// schema holds or ever held: one above every ID ever stored, deleted
	// ones and explicit ones included (Confluent's rule), while that is at
	// most MaxID; past MaxID (an IMPORT took the largest ID), the smallest
	// ID that no schema holds or held above the last one allocated that
	// way, so that one import cannot make the registry refuse every new
	// schema. Otherwise it uses s.ID (IMPORT mode), which may be an ID
	// deleted earlier. Returns the ID, ErrConflict if the ID or the
	// fingerprint is taken, or ErrIDsExhausted when no ID is left.
	CreateSchema(ctx context.Context, s Schema) (int64, error)
	// DeleteSchema removes schema id and its references, so that its
	// fingerprint is free again and its ID free for an explicit
	// (imported) ID; allocation never hands it out again. The service calls it once a permanent delete leaves the
	// schema without any subject version, because Confluent forgets such
	// IDs ("a hard delete removes all metadata, including schema IDs":
	// docs.confluent.io, schema-registry/schema-deletion-guidelines).
	// Returns ErrNotFound for an unknown id, and ErrConflict while a
	// subject version (soft-deleted included) still holds id.
	DeleteSchema(ctx context.Context, schemaCtx string, id int64) error
	// MaxSchemaID returns the largest schema ID ever stored in context
	// schemaCtx, deleted ones included (the mark CreateSchema allocates
	// above), 0 when none; as Confluent's fetchMaxId, which never goes
	// down.
	MaxSchemaID(ctx context.Context, schemaCtx string) (int64, error)

	// Contexts returns the schema contexts that exist: "" (the default
	// one) first, always, then each other context in which a schema was
	// stored and that DeleteContext has not removed since, sorted by
	// bytes.
	Contexts(ctx context.Context) ([]string, error)
	// DeleteContext removes context c (not "") from Contexts until a
	// schema is stored there again; its ID mark stays, so its IDs are
	// never handed out twice. The caller checks that c holds no subject
	// version. Returns ErrNotFound when c is not in Contexts.
	DeleteContext(ctx context.Context, c string) error

	// Versions returns the subject versions matching q, ordered by
	// subject, then version ascending. No match is an empty slice.
	Versions(ctx context.Context, q VersionQuery) ([]SubjectVersion, error)
	// PutVersion inserts v, or updates its SchemaID and Deleted flag if
	// (Subject, Version) exists. v.SchemaID must name a stored schema.
	PutVersion(ctx context.Context, v SubjectVersion) error
	// DeleteVersion removes (subject, version) permanently, or returns
	// ErrNotFound.
	DeleteVersion(ctx context.Context, subject string, version int) error
	// ReferencedBy returns the schemas, of every context, whose
	// references name (subject, version), ordered by ID, then context.
	// A reference names the subject as qualified in its referrer's
	// context (QualifyIn), so a referrer in another context (one that
	// named the subject qualified) is listed under its own context, as
	// Confluent's InMemoryCache records references.
	ReferencedBy(ctx context.Context, subject string, version int) ([]SchemaKey, error)

	// Config returns the config of subject ("" for global), or ErrNotFound.
	Config(ctx context.Context, subject string) (Config, error)
	// SetConfig replaces the config of subject ("" for global).
	SetConfig(ctx context.Context, subject string, c Config) error
	// DeleteConfig removes the config of subject, or returns ErrNotFound.
	DeleteConfig(ctx context.Context, subject string) error
	// Mode returns the mode of subject ("" for global), or ErrNotFound.
	Mode(ctx context.Context, subject string) (Mode, error)
	// SetMode replaces the mode of subject ("" for global).
	SetMode(ctx context.Context, subject string, m Mode) error
	// DeleteMode removes the mode of subject, or returns ErrNotFound.
	DeleteMode(ctx context.Context, subject string) error
}

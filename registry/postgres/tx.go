package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
)

// tx is a [registry.Tx] over one pgx transaction.
type tx struct {
	q pgx.Tx
	// forgotten collects the default context's IDs DeleteSchema removed,
	// announced to the other processes at commit; forgotOther says it
	// removed one of another context (announced as "drop everything").
	forgotten   []int64
	forgotOther bool
}

var _ registry.Tx = (*tx)(nil)

const (
	schemaColumns   = `context, id, type, text, refs, metadata, ruleset, fingerprint`
	querySchemaByID = `SELECT ` + schemaColumns + ` FROM schemas WHERE context = $1 AND id = $2`
	querySchemaByFP = `SELECT ` + schemaColumns + ` FROM schemas WHERE context = $1 AND fingerprint = $2`
)

// SchemaByID returns the schema with id in context schemaCtx, or an error
// wrapping registry.ErrNotFound.
func (t *tx) SchemaByID(ctx context.Context, schemaCtx string, id int64) (registry.Schema, error) {
	s, err := scanSchema(t.q.QueryRow(ctx, querySchemaByID, schemaCtx, id))
	if err != nil {
		return registry.Schema{}, fmt.Errorf("schema %d%s: %w", id, inContext(schemaCtx), notFound(err))
	}
	return s, nil
}

// SchemaByFingerprint returns the schema with fingerprint fp in context
// schemaCtx, or an error wrapping registry.ErrNotFound.
func (t *tx) SchemaByFingerprint(ctx context.Context, schemaCtx, fp string) (registry.Schema, error) {
	s, err := scanSchema(t.q.QueryRow(ctx, querySchemaByFP, schemaCtx, fp))
	if err != nil {
		return registry.Schema{}, fmt.Errorf("schema with fingerprint %q%s: %w", fp, inContext(schemaCtx), notFound(err))
	}
	return s, nil
}

// scanSchema reads one schemas row selected with schemaColumns. NULL JSON
// columns come back as nil.
func scanSchema(row pgx.Row) (registry.Schema, error) {
	var (
		s                    registry.Schema
		typ                  string
		refs, metadata, rule *string
	)
	if err := row.Scan(&s.Context, &s.ID, &typ, &s.Text, &refs, &metadata, &rule, &s.Fingerprint); err != nil {
		return registry.Schema{}, err
	}
	s.Type = compat.SchemaType(typ)
	if refs != nil {
		if err := json.Unmarshal([]byte(*refs), &s.References); err != nil {
			return registry.Schema{}, fmt.Errorf("decode references: %w", err)
		}
	}
	if metadata != nil {
		s.Metadata = json.RawMessage(*metadata)
	}
	if rule != nil {
		s.RuleSet = json.RawMessage(*rule)
	}
	return s, nil
}

// CreateSchema stores s and its references and returns its ID: s.ID if
// set, else one above the largest ID ever stored (schema_id_mark, which
// explicit IDs raise too and deletes never lower) while that is at most
// registry.MaxID, past it the smallest ID no schema holds or held (see
// allocateID). The mark's row lock
// serialises allocations even without the write lock. Errors wrap
// registry.ErrConflict when the ID or the fingerprint is taken (the
// primary key and the unique constraint decide). A negative ID or an empty
// fingerprint is rejected. Empty Metadata, RuleSet and References are
// stored as absent and read back as nil.
func (t *tx) CreateSchema(ctx context.Context, s registry.Schema) (int64, error) {
	if s.ID < 0 {
		return 0, fmt.Errorf("create schema: invalid id %d", s.ID)
	}
	if s.Fingerprint == "" {
		return 0, fmt.Errorf("create schema: empty fingerprint")
	}
	id, fallback := s.ID, false
	if id == 0 {
		var err error
		if id, fallback, err = t.allocateID(ctx, s.Context); err != nil {
			return 0, fmt.Errorf("create schema: allocate id: %w", err)
		}
	}
	var refs *string // NULL unless there are references
	if len(s.References) > 0 {
		b, err := json.Marshal(s.References)
		if err != nil {
			return 0, fmt.Errorf("create schema %d: encode references: %w", id, err)
		}
		str := string(b)
		refs = &str
	}
	_, err := t.q.Exec(ctx, `INSERT INTO schemas (`+schemaColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		s.Context, id, string(s.Type), s.Text, refs, rawJSON(s.Metadata), rawJSON(s.RuleSet), s.Fingerprint)
	if pe := pgError(err); pe != nil && pe.Code == codeUniqueViolation {
		if pe.ConstraintName == "schemas_pkey" {
			return 0, fmt.Errorf("create schema: id %d: %w", id, registry.ErrConflict)
		}
		return 0, fmt.Errorf("create schema: fingerprint %q: %w", s.Fingerprint, registry.ErrConflict)
	}
	if err != nil {
		return 0, fmt.Errorf("create schema %d: %w", id, err)
	}
	if len(s.References) > 0 {
		b := &pgx.Batch{}
		for i, r := range s.References {
			b.Queue(`INSERT INTO schema_references (schema_context, schema_id, position, name, subject, version) VALUES ($1, $2, $3, $4, $5, $6)`,
				s.Context, id, i, r.Name, registry.QualifyIn(s.Context, r.Subject), r.Version)
		}
		if err := t.q.SendBatch(ctx, b).Close(); err != nil {
			return 0, fmt.Errorf("create schema %d: references: %w", id, err)
		}
	}
	// Raised after the insert succeeded, so a conflict leaves it alone.
	floor := int64(0)
	if fallback {
		floor = id
	}
	if err := t.raiseMark(ctx, s.Context, id, floor); err != nil {
		return 0, fmt.Errorf("create schema %d: %w", id, err)
	}
	return id, nil
}

// rawJSON is the column value of a raw JSON field: NULL when empty, else
// the text as given, byte for byte.
func rawJSON(m json.RawMessage) *string {
	if len(m) == 0 {
		return nil
	}
	s := string(m)
	return &s
}

// DeleteSchema removes schema id and its reference rows. The ID mark
// stays, so later allocations go above id. Errors wrap
// registry.ErrNotFound for an unknown id and registry.ErrConflict while a
// subject version still holds id; both are found by queries, not by a
// failed statement, so the transaction stays usable (the Service goes on
// after ErrNotFound).
func (t *tx) DeleteSchema(ctx context.Context, schemaCtx string, id int64) error {
	var held bool
	if err := t.q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM subject_versions WHERE context = $1 AND schema_id = $2)`,
		schemaCtx, id).Scan(&held); err != nil {
		return fmt.Errorf("delete schema %d: %w", id, err)
	}
	if held {
		return fmt.Errorf("delete schema %d: a subject version still holds it: %w", id, registry.ErrConflict)
	}
	if _, err := t.q.Exec(ctx, `DELETE FROM schema_references WHERE schema_context = $1 AND schema_id = $2`, schemaCtx, id); err != nil {
		return fmt.Errorf("delete schema %d: references: %w", id, err)
	}
	tag, err := t.q.Exec(ctx, `DELETE FROM schemas WHERE context = $1 AND id = $2`, schemaCtx, id)
	if err != nil {
		return fmt.Errorf("delete schema %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete schema %d: %w", id, registry.ErrNotFound)
	}
	// Retired, so that allocation past the mark never hands it out again.
	if err := t.retire(ctx, schemaCtx, id); err != nil {
		return fmt.Errorf("delete schema %d: %w", id, err)
	}
	if schemaCtx == "" {
		t.forgotten = append(t.forgotten, id)
	} else {
		t.forgotOther = true
	}
	return nil
}

// MaxSchemaID returns the ID mark of context schemaCtx: the largest
// schema ID ever stored there, deleted ones included, 0 when none.
func (t *tx) MaxSchemaID(ctx context.Context, schemaCtx string) (int64, error) {
	mark, _, err := t.idMark(ctx, schemaCtx, false)
	if err != nil {
		return 0, fmt.Errorf("max schema id%s: %w", inContext(schemaCtx), err)
	}
	return mark, nil
}

// Versions returns the versions matching q ordered by subject (bytes),
// then version; an empty, non-nil slice when none match.
func (t *tx) Versions(ctx context.Context, q registry.VersionQuery) ([]registry.SubjectVersion, error) {
	query, args := versionsQuery(q)
	rows, err := t.q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("versions: %w", err)
	}
	defer rows.Close()
	vs := []registry.SubjectVersion{}
	v := registry.SubjectVersion{Subject: q.Subject} // Scan fills the rest
	dest := []any{&v.Version, &v.SchemaID, &v.Deleted}
	if q.Subject == "" {
		dest = append(dest, &v.Subject)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("versions: %w", err)
		}
		vs = append(vs, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("versions: %w", err)
	}
	return vs, nil
}

// versionsQuery builds the SELECT for q. A prefix is matched with
// starts_with, which takes '%' and '_' literally.
func versionsQuery(q registry.VersionQuery) (string, []any) {
	var (
		where []string
		args  []any
	)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if q.Subject != "" {
		where = append(where, "subject = "+arg(q.Subject))
	}
	if q.SubjectPrefix != "" {
		where = append(where, "starts_with(subject, "+arg(q.SubjectPrefix)+")")
	}
	if q.SchemaID != 0 {
		where = append(where, "context = "+arg(q.Context), "schema_id = "+arg(q.SchemaID))
	}
	if !q.IncludeDeleted {
		where = append(where, "NOT deleted")
	}
	// With a Subject filter every row's subject is q.Subject.
	query := `SELECT version, schema_id, deleted FROM subject_versions`
	if q.Subject == "" {
		query = `SELECT version, schema_id, deleted, subject FROM subject_versions`
	}
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	return query + " ORDER BY subject, version", args
}

// PutVersion inserts v, or updates the SchemaID and Deleted flag of an
// existing (Subject, Version). It never returns ErrConflict. The schema
// must exist (foreign key): if not, the error wraps registry.ErrNotFound.
// A version below 1 is rejected.
func (t *tx) PutVersion(ctx context.Context, v registry.SubjectVersion) error {
	if v.Version < 1 {
		return fmt.Errorf("put version %d of subject %q: versions start at 1", v.Version, v.Subject)
	}
	_, err := t.q.Exec(ctx,
		`INSERT INTO subject_versions (subject, version, context, schema_id, deleted) VALUES ($1, $2, $3, $4, $5)
		 ON CONFLICT (subject, version) DO UPDATE SET schema_id = excluded.schema_id, deleted = excluded.deleted`,
		v.Subject, v.Version, v.Context(), v.SchemaID, v.Deleted)
	if pe := pgError(err); pe != nil && pe.Code == codeForeignKeyViolation {
		return fmt.Errorf("put version %d of subject %q: schema %d: %w", v.Version, v.Subject, v.SchemaID, registry.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("put version %d of subject %q: %w", v.Version, v.Subject, err)
	}
	return nil
}

// DeleteVersion removes (subject, version), or returns an error wrapping
// registry.ErrNotFound. The schema it pointed to stays.
func (t *tx) DeleteVersion(ctx context.Context, subject string, version int) error {
	tag, err := t.q.Exec(ctx, `DELETE FROM subject_versions WHERE subject = $1 AND version = $2`, subject, version)
	if err := affectedOne(tag, err); err != nil {
		return fmt.Errorf("delete version %d of subject %q: %w", version, subject, err)
	}
	return nil
}

// ReferencedBy returns the schemas of every context whose references
// name (subject, version), by ID then context, each once; empty and
// non-nil when none.
func (t *tx) ReferencedBy(ctx context.Context, subject string, version int) ([]registry.SchemaKey, error) {
	rows, err := t.q.Query(ctx,
		`SELECT DISTINCT schema_context, schema_id FROM schema_references WHERE subject = $1 AND version = $2 ORDER BY schema_id, schema_context`,
		subject, version)
	if err != nil {
		return nil, fmt.Errorf("schemas referencing version %d of subject %q: %w", version, subject, err)
	}
	keys, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (registry.SchemaKey, error) {
		var k registry.SchemaKey
		err := row.Scan(&k.Context, &k.ID)
		return k, err
	})
	if err != nil {
		return nil, fmt.Errorf("schemas referencing version %d of subject %q: %w", version, subject, err)
	}
	if keys == nil {
		keys = []registry.SchemaKey{}
	}
	return keys, nil
}

// Config returns the config of subject ("" for global), or an error
// wrapping registry.ErrNotFound.
func (t *tx) Config(ctx context.Context, subject string) (registry.Config, error) {
	var body string
	if err := t.q.QueryRow(ctx, `SELECT body FROM configs WHERE subject = $1`, subject).Scan(&body); err != nil {
		return registry.Config{}, fmt.Errorf("config of subject %q: %w", subject, notFound(err))
	}
	var c registry.Config
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		return registry.Config{}, fmt.Errorf("config of subject %q: decode: %w", subject, err)
	}
	return c, nil
}

// SetConfig replaces the config of subject ("" for global), stored as the
// JSON of registry.Config (raw JSON fields come back compacted).
func (t *tx) SetConfig(ctx context.Context, subject string, c registry.Config) error {
	body, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("set config of subject %q: encode: %w", subject, err)
	}
	if _, err := t.q.Exec(ctx,
		`INSERT INTO configs (subject, body) VALUES ($1, $2) ON CONFLICT (subject) DO UPDATE SET body = excluded.body`,
		subject, string(body)); err != nil {
		return fmt.Errorf("set config of subject %q: %w", subject, err)
	}
	return nil
}

// DeleteConfig removes the config of subject, or returns an error wrapping
// registry.ErrNotFound.
func (t *tx) DeleteConfig(ctx context.Context, subject string) error {
	tag, err := t.q.Exec(ctx, `DELETE FROM configs WHERE subject = $1`, subject)
	if err := affectedOne(tag, err); err != nil {
		return fmt.Errorf("delete config of subject %q: %w", subject, err)
	}
	return nil
}

// Mode returns the mode of subject ("" for global), or an error wrapping
// registry.ErrNotFound.
func (t *tx) Mode(ctx context.Context, subject string) (registry.Mode, error) {
	var m string
	if err := t.q.QueryRow(ctx, `SELECT mode FROM modes WHERE subject = $1`, subject).Scan(&m); err != nil {
		return "", fmt.Errorf("mode of subject %q: %w", subject, notFound(err))
	}
	return registry.Mode(m), nil
}

// SetMode replaces the mode of subject ("" for global).
func (t *tx) SetMode(ctx context.Context, subject string, m registry.Mode) error {
	if _, err := t.q.Exec(ctx,
		`INSERT INTO modes (subject, mode) VALUES ($1, $2) ON CONFLICT (subject) DO UPDATE SET mode = excluded.mode`,
		subject, string(m)); err != nil {
		return fmt.Errorf("set mode of subject %q: %w", subject, err)
	}
	return nil
}

// DeleteMode removes the mode of subject, or returns an error wrapping
// registry.ErrNotFound.
func (t *tx) DeleteMode(ctx context.Context, subject string) error {
	tag, err := t.q.Exec(ctx, `DELETE FROM modes WHERE subject = $1`, subject)
	if err := affectedOne(tag, err); err != nil {
		return fmt.Errorf("delete mode of subject %q: %w", subject, err)
	}
	return nil
}

// SQLSTATE codes the store turns into registry errors
// (https://www.postgresql.org/docs/current/errcodes-appendix.html).
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
)

// pgError returns err's PostgreSQL error, or nil.
func pgError(err error) *pgconn.PgError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe
	}
	return nil
}

// notFound turns pgx.ErrNoRows into registry.ErrNotFound and leaves other
// errors as they are.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return registry.ErrNotFound
	}
	return err
}

// affectedOne checks that a DELETE by primary key removed its row.
func affectedOne(tag pgconn.CommandTag, err error) error {
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return registry.ErrNotFound
	}
	return nil
}

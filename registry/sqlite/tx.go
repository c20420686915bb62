package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
)

// tx is a [registry.Tx] over one database/sql transaction.
type tx struct {
	tx stmtTx
}

var _ registry.Tx = (*tx)(nil)

// Queries whose plans TestQueryPlans checks: each is an index search.
const (
	schemaColumns     = `context, id, type, text, refs, metadata, ruleset, fingerprint`
	querySchemaByFP   = `SELECT ` + schemaColumns + ` FROM schemas WHERE context = ? AND fingerprint = ?`
	queryReferencedBy = `SELECT DISTINCT schema_context, schema_id FROM schema_references WHERE subject = ? AND version = ? ORDER BY schema_id, schema_context`
	querySchemaByID   = `SELECT ` + schemaColumns + ` FROM schemas WHERE context = ? AND id = ?`
	queryHeld         = `SELECT 1 FROM subject_versions WHERE context = ? AND schema_id = ? LIMIT 1`
)

// SchemaByID returns the schema with id in context schemaCtx, or an error
// wrapping registry.ErrNotFound.
func (t *tx) SchemaByID(ctx context.Context, schemaCtx string, id int64) (registry.Schema, error) {
	row := t.tx.QueryRowContext(ctx, querySchemaByID, schemaCtx, id)
	s, err := scanSchema(row)
	if err != nil {
		return registry.Schema{}, fmt.Errorf("schema %d%s: %w", id, inContext(schemaCtx), notFound(err))
	}
	return s, nil
}

// SchemaByFingerprint returns the schema with fingerprint fp in context
// schemaCtx, or an error wrapping registry.ErrNotFound.
func (t *tx) SchemaByFingerprint(ctx context.Context, schemaCtx, fp string) (registry.Schema, error) {
	row := t.tx.QueryRowContext(ctx, querySchemaByFP, schemaCtx, fp)
	s, err := scanSchema(row)
	if err != nil {
		return registry.Schema{}, fmt.Errorf("schema with fingerprint %q%s: %w", fp, inContext(schemaCtx), notFound(err))
	}
	return s, nil
}

// scanSchema reads one schemas row selected with schemaColumns. Empty JSON
// columns are NULL and come back as nil.
func scanSchema(row interface{ Scan(...any) error }) (registry.Schema, error) {
	var (
		s        registry.Schema
		typ      string
		refs     []byte
		metadata []byte
		ruleSet  []byte
	)
	if err := row.Scan(&s.Context, &s.ID, &typ, &s.Text, &refs, &metadata, &ruleSet, &s.Fingerprint); err != nil {
		return registry.Schema{}, err
	}
	s.Type = compat.SchemaType(typ)
	if refs != nil {
		if err := json.Unmarshal(refs, &s.References); err != nil {
			return registry.Schema{}, fmt.Errorf("decode references: %w", err)
		}
	}
	if metadata != nil {
		s.Metadata = json.RawMessage(metadata)
	}
	if ruleSet != nil {
		s.RuleSet = json.RawMessage(ruleSet)
	}
	return s, nil
}

// CreateSchema stores s and its references and returns its ID: s.ID if set,
// else one above the largest ID ever stored (the schema_id_mark row, which
// deleted and explicit IDs also raise, so no ID is handed out twice), or,
// once that passes registry.MaxID, the smallest ID above the fallback
// floor that no schema holds or held (see allocateID). Errors wrap
// registry.ErrConflict when the ID or the fingerprint is taken, and
// registry.ErrIDsExhausted when no ID is left.
// A negative ID or an empty fingerprint is rejected. Metadata, RuleSet and
// References that are empty are stored as absent and read back as nil.
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
	var refs any // NULL unless there are references
	if len(s.References) > 0 {
		b, err := json.Marshal(s.References)
		if err != nil {
			return 0, fmt.Errorf("create schema %d: encode references: %w", id, err)
		}
		refs = string(b)
	}
	_, err := t.tx.ExecContext(ctx,
		`INSERT INTO schemas (`+schemaColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		s.Context, id, string(s.Type), s.Text, refs, rawJSON(s.Metadata), rawJSON(s.RuleSet), s.Fingerprint)
	switch code(err) {
	case 0:
	case codePrimaryKey:
		return 0, fmt.Errorf("create schema: id %d: %w", id, registry.ErrConflict)
	case codeUnique:
		return 0, fmt.Errorf("create schema: fingerprint %q: %w", s.Fingerprint, registry.ErrConflict)
	default:
		return 0, fmt.Errorf("create schema %d: %w", id, err)
	}
	for i, r := range s.References {
		if _, err := t.tx.ExecContext(ctx,
			`INSERT INTO schema_references (schema_context, schema_id, position, name, subject, version) VALUES (?, ?, ?, ?, ?, ?)`,
			s.Context, id, i, r.Name, registry.QualifyIn(s.Context, r.Subject), r.Version); err != nil {
			return 0, fmt.Errorf("create schema %d: reference %q: %w", id, r.Name, err)
		}
	}
	// Raised after the insert succeeded, so a conflict leaves it alone.
	if err := t.markAllocated(ctx, s.Context, id, fallback); err != nil {
		return 0, fmt.Errorf("create schema %d: %w", id, err)
	}
	return id, nil
}

// DeleteSchema removes schema id of context schemaCtx and its reference
// rows. The ID mark stays and id is retired, so allocation never hands it
// out again. Errors wrap registry.ErrNotFound for an unknown id and
// registry.ErrConflict while a subject version still holds id (the
// subject_versions foreign key).
func (t *tx) DeleteSchema(ctx context.Context, schemaCtx string, id int64) error {
	// Checked first, so that a refusal changes nothing.
	var one int
	switch err := t.tx.QueryRowContext(ctx, queryHeld, schemaCtx, id).Scan(&one); {
	case err == nil:
		return fmt.Errorf("delete schema %d: a subject version still holds it: %w", id, registry.ErrConflict)
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("delete schema %d: %w", id, err)
	}
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM schema_references WHERE schema_context = ? AND schema_id = ?`, schemaCtx, id); err != nil {
		return fmt.Errorf("delete schema %d: references: %w", id, err)
	}
	res, err := t.tx.ExecContext(ctx, `DELETE FROM schemas WHERE context = ? AND id = ?`, schemaCtx, id)
	if code(err) == codeForeignKey {
		return fmt.Errorf("delete schema %d: a subject version still holds it: %w", id, registry.ErrConflict)
	}
	if err := affectedOne(res, err); err != nil {
		return fmt.Errorf("delete schema %d: %w", id, err)
	}
	if err := t.retire(ctx, schemaCtx, id); err != nil {
		return fmt.Errorf("delete schema %d: %w", id, err)
	}
	return nil
}

// rawJSON is the column value of a raw JSON field: NULL when empty, else the
// text as given, byte for byte.
func rawJSON(m json.RawMessage) any {
	if len(m) == 0 {
		return nil
	}
	return string(m)
}

// MaxSchemaID returns the ID mark of context schemaCtx: the largest
// schema ID ever stored there, deleted ones included, 0 when none.
func (t *tx) MaxSchemaID(ctx context.Context, schemaCtx string) (int64, error) {
	mark, _, err := t.idMark(ctx, schemaCtx)
	if err != nil {
		return 0, fmt.Errorf("max schema id%s: %w", inContext(schemaCtx), err)
	}
	return mark, nil
}

// Versions returns the versions matching q ordered by subject, then version;
// an empty, non-nil slice when none match. Every filter is an index range:
// Subject and SubjectPrefix on the (subject, version) primary key, SchemaID
// on subject_versions_schema_id.
func (t *tx) Versions(ctx context.Context, q registry.VersionQuery) ([]registry.SubjectVersion, error) {
	query, args := versionsQuery(q)
	rows, err := t.tx.QueryContext(ctx, query, args...)
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

// versionsQuery builds the SELECT for q. A prefix p is the byte range
// [p, prefixEnd(p)): SQLite compares TEXT with memcmp, so the range holds
// exactly the subjects starting with p, '%' and '_' included, and is an
// index range unlike LIKE or substr.
func versionsQuery(q registry.VersionQuery) (string, []any) {
	var (
		where []string
		args  []any
	)
	if q.Subject != "" {
		where = append(where, "subject = ?")
		args = append(args, q.Subject)
	}
	if q.SubjectPrefix != "" {
		where = append(where, "subject >= ?")
		args = append(args, q.SubjectPrefix)
		if end, ok := prefixEnd(q.SubjectPrefix); ok {
			where = append(where, "subject < ?")
			args = append(args, end)
		}
	}
	if q.SchemaID != 0 {
		where = append(where, "context = ?", "schema_id = ?")
		args = append(args, q.Context, q.SchemaID)
	}
	if !q.IncludeDeleted {
		where = append(where, "deleted = 0")
	}
	// With a Subject filter every row's subject is q.Subject: not reading
	// it saves a string per row on the service's hot path.
	query := `SELECT version, schema_id, deleted FROM subject_versions`
	if q.Subject == "" {
		query = `SELECT version, schema_id, deleted, subject FROM subject_versions`
	}
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	return query + " ORDER BY subject, version", args
}

// prefixEnd returns the smallest string greater than every string with
// prefix p, comparing bytes: p without its trailing 0xff bytes, last byte
// plus one. ok is false when there is none (p is all 0xff bytes).
func prefixEnd(p string) (end string, ok bool) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// PutVersion inserts v, or updates the SchemaID and Deleted flag of an
// existing (Subject, Version). It never returns ErrConflict. The schema must
// exist (foreign key): if not, the error wraps registry.ErrNotFound. A
// version below 1 is rejected.
func (t *tx) PutVersion(ctx context.Context, v registry.SubjectVersion) error {
	if v.Version < 1 {
		return fmt.Errorf("put version %d of subject %q: versions start at 1", v.Version, v.Subject)
	}
	_, err := t.tx.ExecContext(ctx,
		`INSERT INTO subject_versions (subject, version, context, schema_id, deleted) VALUES (?, ?, ?, ?, ?)
		 ON CONFLICT (subject, version) DO UPDATE SET schema_id = excluded.schema_id, deleted = excluded.deleted`,
		v.Subject, v.Version, v.Context(), v.SchemaID, v.Deleted)
	switch code(err) {
	case 0:
		return nil
	case codeForeignKey:
		return fmt.Errorf("put version %d of subject %q: schema %d: %w", v.Version, v.Subject, v.SchemaID, registry.ErrNotFound)
	default:
		return fmt.Errorf("put version %d of subject %q: %w", v.Version, v.Subject, err)
	}
}

// DeleteVersion removes (subject, version), or returns an error wrapping
// registry.ErrNotFound. The schema it pointed to stays.
func (t *tx) DeleteVersion(ctx context.Context, subject string, version int) error {
	res, err := t.tx.ExecContext(ctx, `DELETE FROM subject_versions WHERE subject = ? AND version = ?`, subject, version)
	if err := affectedOne(res, err); err != nil {
		return fmt.Errorf("delete version %d of subject %q: %w", version, subject, err)
	}
	return nil
}

// ReferencedBy returns the schemas of every context whose references
// name (subject, version), by ID then context, each once; empty and
// non-nil when none.
func (t *tx) ReferencedBy(ctx context.Context, subject string, version int) ([]registry.SchemaKey, error) {
	rows, err := t.tx.QueryContext(ctx, queryReferencedBy, subject, version)
	if err != nil {
		return nil, fmt.Errorf("schemas referencing version %d of subject %q: %w", version, subject, err)
	}
	defer rows.Close()
	keys := []registry.SchemaKey{}
	for rows.Next() {
		var k registry.SchemaKey
		if err := rows.Scan(&k.Context, &k.ID); err != nil {
			return nil, fmt.Errorf("schemas referencing version %d of subject %q: %w", version, subject, err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("schemas referencing version %d of subject %q: %w", version, subject, err)
	}
	return keys, nil
}

// Config returns the config of subject ("" for global), or an error wrapping
// registry.ErrNotFound.
func (t *tx) Config(ctx context.Context, subject string) (registry.Config, error) {
	var body []byte
	err := t.tx.QueryRowContext(ctx, `SELECT body FROM configs WHERE subject = ?`, subject).Scan(&body)
	if err != nil {
		return registry.Config{}, fmt.Errorf("config of subject %q: %w", subject, notFound(err))
	}
	var c registry.Config
	if err := json.Unmarshal(body, &c); err != nil {
		return registry.Config{}, fmt.Errorf("config of subject %q: decode: %w", subject, err)
	}
	return c, nil
}

// SetConfig replaces the config of subject ("" for global). It is stored as
// the JSON of registry.Config, so its raw JSON fields come back compacted
// (the same JSON value, insignificant spaces removed).
func (t *tx) SetConfig(ctx context.Context, subject string, c registry.Config) error {
	body, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("set config of subject %q: encode: %w", subject, err)
	}
	if _, err := t.tx.ExecContext(ctx,
		`INSERT INTO configs (subject, body) VALUES (?, ?) ON CONFLICT (subject) DO UPDATE SET body = excluded.body`,
		subject, string(body)); err != nil {
		return fmt.Errorf("set config of subject %q: %w", subject, err)
	}
	return nil
}

// DeleteConfig removes the config of subject, or returns an error wrapping
// registry.ErrNotFound.
func (t *tx) DeleteConfig(ctx context.Context, subject string) error {
	res, err := t.tx.ExecContext(ctx, `DELETE FROM configs WHERE subject = ?`, subject)
	if err := affectedOne(res, err); err != nil {
		return fmt.Errorf("delete config of subject %q: %w", subject, err)
	}
	return nil
}

// Mode returns the mode of subject ("" for global), or an error wrapping
// registry.ErrNotFound.
func (t *tx) Mode(ctx context.Context, subject string) (registry.Mode, error) {
	var m string
	if err := t.tx.QueryRowContext(ctx, `SELECT mode FROM modes WHERE subject = ?`, subject).Scan(&m); err != nil {
		return "", fmt.Errorf("mode of subject %q: %w", subject, notFound(err))
	}
	return registry.Mode(m), nil
}

// SetMode replaces the mode of subject ("" for global).
func (t *tx) SetMode(ctx context.Context, subject string, m registry.Mode) error {
	if _, err := t.tx.ExecContext(ctx,
		`INSERT INTO modes (subject, mode) VALUES (?, ?) ON CONFLICT (subject) DO UPDATE SET mode = excluded.mode`,
		subject, string(m)); err != nil {
		return fmt.Errorf("set mode of subject %q: %w", subject, err)
	}
	return nil
}

// DeleteMode removes the mode of subject, or returns an error wrapping
// registry.ErrNotFound.
func (t *tx) DeleteMode(ctx context.Context, subject string) error {
	res, err := t.tx.ExecContext(ctx, `DELETE FROM modes WHERE subject = ?`, subject)
	if err := affectedOne(res, err); err != nil {
		return fmt.Errorf("delete mode of subject %q: %w", subject, err)
	}
	return nil
}

// notFound turns sql.ErrNoRows into registry.ErrNotFound and leaves other
// errors as they are.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return registry.ErrNotFound
	}
	return err
}

// affectedOne checks that a DELETE by primary key removed its row: the
// result of ExecContext in, nil or an error (registry.ErrNotFound when no
// row matched) out.
func affectedOne(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return registry.ErrNotFound
	}
	return nil
}

package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
)

var _ registry.BackupTx = (*tx)(nil)

// Schemas returns every stored schema, by context, then ID ascending.
func (t *tx) Schemas(ctx context.Context) ([]registry.Schema, error) {
	rows, err := t.q.Query(ctx, `SELECT `+schemaColumns+` FROM schemas ORDER BY context, id`)
	if err != nil {
		return nil, fmt.Errorf("schemas: %w", err)
	}
	defer rows.Close()
	out := []registry.Schema{}
	for rows.Next() {
		s, err := scanSchema(rows)
		if err != nil {
			return nil, fmt.Errorf("schemas: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("schemas: %w", err)
	}
	return out, nil
}

// Configs returns every stored config, by subject (byte order: the column
// is COLLATE "C").
func (t *tx) Configs(ctx context.Context) ([]registry.SubjectConfig, error) {
	rows, err := t.q.Query(ctx, `SELECT subject, body FROM configs ORDER BY subject`)
	if err != nil {
		return nil, fmt.Errorf("configs: %w", err)
	}
	defer rows.Close()
	out := []registry.SubjectConfig{}
	for rows.Next() {
		var (
			c    registry.SubjectConfig
			body string
		)
		if err := rows.Scan(&c.Subject, &body); err != nil {
			return nil, fmt.Errorf("configs: %w", err)
		}
		if err := json.Unmarshal([]byte(body), &c.Config); err != nil {
			return nil, fmt.Errorf("config of subject %q: decode: %w", c.Subject, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("configs: %w", err)
	}
	return out, nil
}

// Modes returns every stored mode, by subject.
func (t *tx) Modes(ctx context.Context) ([]registry.SubjectMode, error) {
	rows, err := t.q.Query(ctx, `SELECT subject, mode FROM modes ORDER BY subject`)
	if err != nil {
		return nil, fmt.Errorf("modes: %w", err)
	}
	defer rows.Close()
	out := []registry.SubjectMode{}
	for rows.Next() {
		var (
			m    registry.SubjectMode
			mode string
		)
		if err := rows.Scan(&m.Subject, &mode); err != nil {
			return nil, fmt.Errorf("modes: %w", err)
		}
		m.Mode = registry.Mode(mode)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("modes: %w", err)
	}
	return out, nil
}

// RaiseSchemaIDMark raises the ID mark of context schemaCtx to id when id
// is greater.
func (t *tx) RaiseSchemaIDMark(ctx context.Context, schemaCtx string, id int64) error {
	if id < 0 {
		return fmt.Errorf("raise the schema id mark: invalid id %d", id)
	}
	return t.raiseMark(ctx, schemaCtx, id, 0)
}

// RestoreAudit stores e under e.ID, which must be above every stored ID
// (else an error wrapping registry.ErrConflict), and moves the identity
// sequence up to it, so AppendAudit allocates above.
func (t *tx) RestoreAudit(ctx context.Context, e governance.AuditEntry) error {
	if e.ID <= 0 {
		return fmt.Errorf("restore audit entry: invalid id %d", e.ID)
	}
	var top int64
	if err := t.q.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM audit_log`).Scan(&top); err != nil {
		return fmt.Errorf("restore audit entry %d: %w", e.ID, err)
	}
	if top >= e.ID {
		return fmt.Errorf("restore audit entry %d: entry %d is stored: %w", e.ID, top, registry.ErrConflict)
	}
	if _, err := t.q.Exec(ctx,
		`INSERT INTO audit_log (id, at_ns, actor, action, subject, target, before, after) OVERRIDING SYSTEM VALUE
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		e.ID, e.Time.UTC().UnixNano(), e.Actor, e.Action, e.Subject, e.Target, rawJSON(e.Before), rawJSON(e.After)); err != nil {
		return fmt.Errorf("restore audit entry %d: %w", e.ID, err)
	}
	// The sequence never goes down: values handed out by transactions
	// that rolled back stay used.
	var seq string
	if err := t.q.QueryRow(ctx, `SELECT pg_get_serial_sequence('audit_log', 'id')`).Scan(&seq); err != nil {
		return fmt.Errorf("restore audit entry %d: find the id sequence: %w", e.ID, err)
	}
	if _, err := t.q.Exec(ctx,
		`SELECT setval($1::regclass, GREATEST($2::bigint, (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM `+seq+`)))`,
		seq, e.ID); err != nil {
		return fmt.Errorf("restore audit entry %d: move the id sequence: %w", e.ID, err)
	}
	return nil
}

// IDAllocation returns the fallback floor and the retired IDs of context
// schemaCtx.
func (t *tx) IDAllocation(ctx context.Context, schemaCtx string) (registry.IDAllocation, error) {
	var (
		a   registry.IDAllocation
		err error
	)
	if _, a.Floor, err = t.idMark(ctx, schemaCtx, false); err != nil {
		return a, err
	}
	rows, err := t.q.Query(ctx, `SELECT id FROM retired_schema_ids WHERE context = $1 ORDER BY id`, schemaCtx)
	if err != nil {
		return a, fmt.Errorf("list retired ids: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return a, fmt.Errorf("list retired ids: %w", err)
		}
		a.Retired = append(a.Retired, id)
	}
	if err := rows.Err(); err != nil {
		return a, fmt.Errorf("list retired ids: %w", err)
	}
	return a, nil
}

// RestoreIDAllocation raises the floor of context schemaCtx and retires
// a.Retired there.
func (t *tx) RestoreIDAllocation(ctx context.Context, schemaCtx string, a registry.IDAllocation) error {
	if a.Floor < 0 {
		return fmt.Errorf("restore id allocation: invalid floor %d", a.Floor)
	}
	if err := t.raiseMark(ctx, schemaCtx, 0, a.Floor); err != nil {
		return fmt.Errorf("restore the id fallback floor: %w", err)
	}
	for _, id := range a.Retired {
		if err := t.retire(ctx, schemaCtx, id); err != nil {
			return err
		}
	}
	return nil
}

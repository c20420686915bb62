package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
)

var _ registry.GovernanceTx = (*tx)(nil)

// GovernanceRecord returns record (kind, subject, key), or an error
// wrapping registry.ErrNotFound.
func (t *tx) GovernanceRecord(ctx context.Context, kind, subject, key string) (registry.GovernanceRecord, error) {
	r := registry.GovernanceRecord{Kind: kind, Subject: subject, Key: key}
	var body string
	err := t.tx.QueryRowContext(ctx,
		`SELECT body FROM governance_records WHERE subject = ? AND kind = ? AND key = ?`, subject, kind, key).Scan(&body)
	if err != nil {
		return registry.GovernanceRecord{}, fmt.Errorf("%s record %q of %q: %w", kind, key, subject, notFound(err))
	}
	r.Body = json.RawMessage(body)
	return r, nil
}

// GovernanceRecords returns the records q selects, ordered by subject,
// kind and key.
func (t *tx) GovernanceRecords(ctx context.Context, q registry.RecordQuery) ([]registry.GovernanceRecord, error) {
	var (
		where []string
		args  []any
	)
	if q.Kind != "" {
		where = append(where, "kind = ?")
		args = append(args, q.Kind)
	}
	if !q.AllSubjects {
		where = append(where, "subject = ?")
		args = append(args, q.Subject)
	}
	query := `SELECT subject, kind, key, body FROM governance_records`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY subject, kind, key"
	rows, err := t.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("governance records: %w", err)
	}
	defer rows.Close()
	out := []registry.GovernanceRecord{}
	for rows.Next() {
		var (
			r    registry.GovernanceRecord
			body string
		)
		if err := rows.Scan(&r.Subject, &r.Kind, &r.Key, &body); err != nil {
			return nil, fmt.Errorf("governance records: %w", err)
		}
		r.Body = json.RawMessage(body)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("governance records: %w", err)
	}
	return out, nil
}

// PutGovernanceRecord inserts or replaces r.
func (t *tx) PutGovernanceRecord(ctx context.Context, r registry.GovernanceRecord) error {
	if r.Kind == "" {
		return fmt.Errorf("put governance record: empty kind")
	}
	if !json.Valid(r.Body) {
		return fmt.Errorf("put %s record %q of %q: body is not JSON", r.Kind, r.Key, r.Subject)
	}
	_, err := t.tx.ExecContext(ctx,
		`INSERT INTO governance_records (subject, kind, key, body) VALUES (?, ?, ?, ?)
		 ON CONFLICT (subject, kind, key) DO UPDATE SET body = excluded.body`,
		r.Subject, r.Kind, r.Key, string(r.Body))
	if err != nil {
		return fmt.Errorf("put %s record %q of %q: %w", r.Kind, r.Key, r.Subject, err)
	}
	return nil
}

// DeleteGovernanceRecord removes (kind, subject, key), or returns an error
// wrapping registry.ErrNotFound.
func (t *tx) DeleteGovernanceRecord(ctx context.Context, kind, subject, key string) error {
	err := affectedOne(t.tx.ExecContext(ctx,
		`DELETE FROM governance_records WHERE subject = ? AND kind = ? AND key = ?`, subject, kind, key))
	if err != nil {
		return fmt.Errorf("delete %s record %q of %q: %w", kind, key, subject, err)
	}
	return nil
}

// AppendAudit stores e under the next ID and returns it.
func (t *tx) AppendAudit(ctx context.Context, e governance.AuditEntry) (int64, error) {
	res, err := t.tx.ExecContext(ctx,
		`INSERT INTO audit_log (at_ns, actor, action, subject, target, before, after) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		e.Time.UTC().UnixNano(), e.Actor, e.Action, e.Subject, e.Target, rawJSON(e.Before), rawJSON(e.After))
	if err != nil {
		return 0, fmt.Errorf("append audit entry %s: %w", e.Action, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("append audit entry %s: %w", e.Action, err)
	}
	return id, nil
}

// AuditEntries returns the entries q selects, by ID ascending.
func (t *tx) AuditEntries(ctx context.Context, q registry.AuditQuery) ([]governance.AuditEntry, error) {
	where := []string{"id > ?"}
	args := []any{q.AfterID}
	if q.Subject != "" {
		where = append(where, "subject = ?")
		args = append(args, q.Subject)
	}
	if q.ActionPrefix != "" {
		where = append(where, "substr(action, 1, ?) = ?")
		args = append(args, len(q.ActionPrefix), q.ActionPrefix)
	}
	if q.Actor != "" {
		where = append(where, "actor = ?")
		args = append(args, q.Actor)
	}
	if !q.Since.IsZero() {
		where = append(where, "at_ns >= ?")
		args = append(args, q.Since.UTC().UnixNano())
	}
	if !q.Until.IsZero() {
		where = append(where, "at_ns < ?")
		args = append(args, q.Until.UTC().UnixNano())
	}
	query := `SELECT id, at_ns, actor, action, subject, target, before, after FROM audit_log WHERE ` +
		strings.Join(where, " AND ") + ` ORDER BY id`
	if q.Limit > 0 {
		query += " LIMIT ?"
		args = append(args, q.Limit)
	}
	rows, err := t.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("audit entries: %w", err)
	}
	defer rows.Close()
	out := []governance.AuditEntry{}
	for rows.Next() {
		var (
			e             governance.AuditEntry
			at            int64
			before, after sql.NullString
		)
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Subject, &e.Target, &before, &after); err != nil {
			return nil, fmt.Errorf("audit entries: %w", err)
		}
		e.Time = time.Unix(0, at).UTC()
		if before.Valid {
			e.Before = json.RawMessage(before.String)
		}
		if after.Valid {
			e.After = json.RawMessage(after.String)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit entries: %w", err)
	}
	return out, nil
}

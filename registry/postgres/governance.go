package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/governance"
)

var _ registry.GovernanceTx = (*tx)(nil)

// GovernanceRecord returns record (kind, subject, key), or an error
// wrapping registry.ErrNotFound.
func (t *tx) GovernanceRecord(ctx context.Context, kind, subject, key string) (registry.GovernanceRecord, error) {
	var body string
	err := t.q.QueryRow(ctx,
		`SELECT body FROM governance_records WHERE subject = $1 AND kind = $2 AND key = $3`, subject, kind, key).Scan(&body)
	if err != nil {
		return registry.GovernanceRecord{}, fmt.Errorf("%s record %q of %q: %w", kind, key, subject, notFound(err))
	}
	return registry.GovernanceRecord{Kind: kind, Subject: subject, Key: key, Body: json.RawMessage(body)}, nil
}

// GovernanceRecords returns the records q selects, ordered by subject,
// kind and key (bytes).
func (t *tx) GovernanceRecords(ctx context.Context, q registry.RecordQuery) ([]registry.GovernanceRecord, error) {
	var (
		where []string
		args  []any
	)
	if q.Kind != "" {
		args = append(args, q.Kind)
		where = append(where, "kind = $"+strconv.Itoa(len(args)))
	}
	if !q.AllSubjects {
		args = append(args, q.Subject)
		where = append(where, "subject = $"+strconv.Itoa(len(args)))
	}
	query := `SELECT subject, kind, key, body FROM governance_records`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY subject, kind, key"
	rows, err := t.q.Query(ctx, query, args...)
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
	_, err := t.q.Exec(ctx,
		`INSERT INTO governance_records (subject, kind, key, body) VALUES ($1, $2, $3, $4)
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
	err := affectedOne(t.q.Exec(ctx,
		`DELETE FROM governance_records WHERE subject = $1 AND kind = $2 AND key = $3`, subject, kind, key))
	if err != nil {
		return fmt.Errorf("delete %s record %q of %q: %w", kind, key, subject, err)
	}
	return nil
}

// AppendAudit stores e under the next identity value and returns it.
// Identity values are never handed out twice; a rolled back transaction
// leaves a gap.
func (t *tx) AppendAudit(ctx context.Context, e governance.AuditEntry) (int64, error) {
	var id int64
	err := t.q.QueryRow(ctx,
		`INSERT INTO audit_log (at_ns, actor, action, subject, target, before, after) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		e.Time.UTC().UnixNano(), e.Actor, e.Action, e.Subject, e.Target, rawJSON(e.Before), rawJSON(e.After)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("append audit entry %s: %w", e.Action, err)
	}
	return id, nil
}

// AuditEntries returns the entries q selects, by ID ascending.
func (t *tx) AuditEntries(ctx context.Context, q registry.AuditQuery) ([]governance.AuditEntry, error) {
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	where := []string{"id > " + arg(q.AfterID)}
	if q.Subject != "" {
		where = append(where, "subject = "+arg(q.Subject))
	}
	if q.ActionPrefix != "" {
		where = append(where, "starts_with(action, "+arg(q.ActionPrefix)+")")
	}
	if q.Actor != "" {
		where = append(where, "actor = "+arg(q.Actor))
	}
	if !q.Since.IsZero() {
		where = append(where, "at_ns >= "+arg(q.Since.UTC().UnixNano()))
	}
	if !q.Until.IsZero() {
		where = append(where, "at_ns < "+arg(q.Until.UTC().UnixNano()))
	}
	query := `SELECT id, at_ns, actor, action, subject, target, before, after FROM audit_log WHERE ` +
		strings.Join(where, " AND ") + ` ORDER BY id`
	if q.Limit > 0 {
		query += " LIMIT " + arg(q.Limit)
	}
	rows, err := t.q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("audit entries: %w", err)
	}
	defer rows.Close()
	out := []governance.AuditEntry{}
	for rows.Next() {
		var (
			e             governance.AuditEntry
			at            int64
			before, after *string
		)
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Subject, &e.Target, &before, &after); err != nil {
			return nil, fmt.Errorf("audit entries: %w", err)
		}
		e.Time = time.Unix(0, at).UTC()
		if before != nil {
			e.Before = json.RawMessage(*before)
		}
		if after != nil {
			e.After = json.RawMessage(*after)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit entries: %w", err)
	}
	return out, nil
}

package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/charter-dev/charter/registry/dek"
)

var _ dek.KeyTx = (*tx)(nil)

const (
	kekColumns = `name, kms_type, kms_key_id, kms_props, doc, shared, ts, deleted`
	dekColumns = `kek_name, subject, algorithm, version, encrypted_key_material, ts, deleted`
)

type scanner interface{ Scan(dst ...any) error }

func scanKek(r scanner) (dek.Kek, error) {
	var (
		k     dek.Kek
		props string
	)
	if err := r.Scan(&k.Name, &k.KmsType, &k.KmsKeyID, &props, &k.Doc, &k.Shared, &k.Ts, &k.Deleted); err != nil {
		return dek.Kek{}, err
	}
	k.KmsProps = map[string]string{}
	if err := json.Unmarshal([]byte(props), &k.KmsProps); err != nil {
		return dek.Kek{}, fmt.Errorf("kek %q: kms_props: %w", k.Name, err)
	}
	return k, nil
}

func scanDek(r scanner) (dek.Dek, error) {
	var d dek.Dek
	err := r.Scan(&d.KekName, &d.Subject, &d.Algorithm, &d.Version, &d.EncryptedKeyMaterial, &d.Ts, &d.Deleted)
	return d, err
}

// Kek returns the KEK name, soft-deleted or not.
func (t *tx) Kek(ctx context.Context, name string) (dek.Kek, bool, error) {
	k, err := scanKek(t.tx.QueryRowContext(ctx, `SELECT `+kekColumns+` FROM keks WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return dek.Kek{}, false, nil
	}
	if err != nil {
		return dek.Kek{}, false, fmt.Errorf("kek %q: %w", name, err)
	}
	return k, true, nil
}

// Keks returns the KEKs by name.
func (t *tx) Keks(ctx context.Context, includeDeleted bool) ([]dek.Kek, error) {
	q := `SELECT ` + kekColumns + ` FROM keks`
	if !includeDeleted {
		q += ` WHERE deleted = 0`
	}
	rows, err := t.tx.QueryContext(ctx, q+` ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("keks: %w", err)
	}
	defer rows.Close()
	out := []dek.Kek{}
	for rows.Next() {
		k, err := scanKek(rows)
		if err != nil {
			return nil, fmt.Errorf("keks: %w", err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("keks: %w", err)
	}
	return out, nil
}

// PutKek inserts or replaces k.
func (t *tx) PutKek(ctx context.Context, k dek.Kek) error {
	props := k.KmsProps
	if props == nil {
		props = map[string]string{}
	}
	b, err := json.Marshal(props)
	if err != nil {
		return fmt.Errorf("put kek %q: %w", k.Name, err)
	}
	_, err = t.tx.ExecContext(ctx, `INSERT INTO keks (`+kekColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET kms_type = excluded.kms_type, kms_key_id = excluded.kms_key_id,
		kms_props = excluded.kms_props, doc = excluded.doc, shared = excluded.shared, ts = excluded.ts,
		deleted = excluded.deleted`,
		k.Name, k.KmsType, k.KmsKeyID, string(b), k.Doc, k.Shared, k.Ts, k.Deleted)
	if err != nil {
		return fmt.Errorf("put kek %q: %w", k.Name, err)
	}
	return nil
}

// DeleteKek removes the KEK name.
func (t *tx) DeleteKek(ctx context.Context, name string) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM keks WHERE name = ?`, name); err != nil {
		return fmt.Errorf("delete kek %q: %w", name, err)
	}
	return nil
}

// Dek returns one DEK version, soft-deleted or not.
func (t *tx) Dek(ctx context.Context, id dek.DekID) (dek.Dek, bool, error) {
	d, err := scanDek(t.tx.QueryRowContext(ctx, `SELECT `+dekColumns+` FROM deks
		WHERE kek_name = ? AND subject = ? AND algorithm = ? AND version = ?`,
		id.KekName, id.Subject, string(id.Algorithm), id.Version))
	if errors.Is(err, sql.ErrNoRows) {
		return dek.Dek{}, false, nil
	}
	if err != nil {
		return dek.Dek{}, false, fmt.Errorf("dek %v: %w", id, err)
	}
	return d, true, nil
}

// Deks returns the DEKs q selects, by KEK, subject, algorithm and version.
func (t *tx) Deks(ctx context.Context, q dek.DekQuery) ([]dek.Dek, error) {
	var (
		where []string
		args  []any
	)
	if q.KekName != "" {
		where, args = append(where, "kek_name = ?"), append(args, q.KekName)
	}
	if q.Subject != "" {
		where, args = append(where, "subject = ?"), append(args, q.Subject)
	}
	if q.Algorithm != "" {
		where, args = append(where, "algorithm = ?"), append(args, string(q.Algorithm))
	}
	if !q.IncludeDeleted {
		where = append(where, "deleted = 0")
	}
	query := `SELECT ` + dekColumns + ` FROM deks`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := t.tx.QueryContext(ctx, query+" ORDER BY kek_name, subject, algorithm, version", args...)
	if err != nil {
		return nil, fmt.Errorf("deks: %w", err)
	}
	defer rows.Close()
	out := []dek.Dek{}
	for rows.Next() {
		d, err := scanDek(rows)
		if err != nil {
			return nil, fmt.Errorf("deks: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("deks: %w", err)
	}
	return out, nil
}

// PutDek inserts or replaces d (its KeyMaterial is not stored).
func (t *tx) PutDek(ctx context.Context, d dek.Dek) error {
	_, err := t.tx.ExecContext(ctx, `INSERT INTO deks (`+dekColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (kek_name, subject, algorithm, version) DO UPDATE SET
		encrypted_key_material = excluded.encrypted_key_material, ts = excluded.ts, deleted = excluded.deleted`,
		d.KekName, d.Subject, string(d.Algorithm), d.Version, d.EncryptedKeyMaterial, d.Ts, d.Deleted)
	if err != nil {
		return fmt.Errorf("put dek %v: %w", d.ID(), err)
	}
	return nil
}

// DeleteDek removes one DEK version.
func (t *tx) DeleteDek(ctx context.Context, id dek.DekID) error {
	_, err := t.tx.ExecContext(ctx, `DELETE FROM deks WHERE kek_name = ? AND subject = ? AND algorithm = ? AND version = ?`,
		id.KekName, id.Subject, string(id.Algorithm), id.Version)
	if err != nil {
		return fmt.Errorf("delete dek %v: %w", id, err)
	}
	return nil
}

// CountKeys counts the stored KEKs and DEKs.
func (t *tx) CountKeys(ctx context.Context) (keks, deks int, err error) {
	err = t.tx.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM keks), (SELECT COUNT(*) FROM deks)`).Scan(&keks, &deks)
	if err != nil {
		return 0, 0, fmt.Errorf("count keys: %w", err)
	}
	return keks, deks, nil
}

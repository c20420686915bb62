package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/charter-dev/charter/registry/exporter"
)

var _ exporter.Tx = (*tx)(nil)

const exporterColumns = `name, definition, state, copied, ts, trace, lease_owner, lease_until`

func scanExporter(r scanner) (exporter.Stored, error) {
	var (
		e   exporter.Stored
		def string
	)
	if err := r.Scan(&e.Name, &def, (*string)(&e.State), &e.Offset, &e.Ts, &e.Trace, &e.LeaseOwner, &e.LeaseUntil); err != nil {
		return exporter.Stored{}, err
	}
	name := e.Name
	if err := json.Unmarshal([]byte(def), &e.Exporter); err != nil {
		return exporter.Stored{}, fmt.Errorf("exporter %q: definition: %w", name, err)
	}
	e.Name = name
	return e, nil
}

// Exporter returns the exporter name.
func (t *tx) Exporter(ctx context.Context, name string) (exporter.Stored, bool, error) {
	e, err := scanExporter(t.tx.QueryRowContext(ctx, `SELECT `+exporterColumns+` FROM exporters WHERE name = ?`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return exporter.Stored{}, false, nil
	}
	if err != nil {
		return exporter.Stored{}, false, fmt.Errorf("exporter %q: %w", name, err)
	}
	return e, true, nil
}

// Exporters returns every exporter by name.
func (t *tx) Exporters(ctx context.Context) ([]exporter.Stored, error) {
	rows, err := t.tx.QueryContext(ctx, `SELECT `+exporterColumns+` FROM exporters ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("exporters: %w", err)
	}
	defer rows.Close()
	out := []exporter.Stored{}
	for rows.Next() {
		e, err := scanExporter(rows)
		if err != nil {
			return nil, fmt.Errorf("exporters: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("exporters: %w", err)
	}
	return out, nil
}

// PutExporter inserts or replaces e.
func (t *tx) PutExporter(ctx context.Context, e exporter.Stored) error {
	def, err := json.Marshal(e.Exporter)
	if err != nil {
		return fmt.Errorf("put exporter %q: %w", e.Name, err)
	}
	_, err = t.tx.ExecContext(ctx, `INSERT INTO exporters (`+exporterColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET definition = excluded.definition, state = excluded.state,
		copied = excluded.copied, ts = excluded.ts, trace = excluded.trace, lease_owner = excluded.lease_owner,
		lease_until = excluded.lease_until`,
		e.Name, string(def), string(e.State), e.Offset, e.Ts, e.Trace, e.LeaseOwner, e.LeaseUntil)
	if err != nil {
		return fmt.Errorf("put exporter %q: %w", e.Name, err)
	}
	return nil
}

// DeleteExporter removes the exporter name and its progress.
func (t *tx) DeleteExporter(ctx context.Context, name string) error {
	if err := t.ClearExporterProgress(ctx, name); err != nil {
		return err
	}
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM exporters WHERE name = ?`, name); err != nil {
		return fmt.Errorf("delete exporter %q: %w", name, err)
	}
	return nil
}

// ExporterProgress returns the progress of exporter name by subject
// (the column config_hash holds Progress.Settings).
func (t *tx) ExporterProgress(ctx context.Context, name string) (map[string]exporter.Progress, error) {
	rows, err := t.tx.QueryContext(ctx, `SELECT subject, version, config_hash, imported FROM exporter_progress WHERE exporter = ?`, name)
	if err != nil {
		return nil, fmt.Errorf("progress of exporter %q: %w", name, err)
	}
	defer rows.Close()
	out := map[string]exporter.Progress{}
	for rows.Next() {
		var (
			s string
			p exporter.Progress
		)
		if err := rows.Scan(&s, &p.Version, &p.Settings, &p.Imported); err != nil {
			return nil, fmt.Errorf("progress of exporter %q: %w", name, err)
		}
		out[s] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("progress of exporter %q: %w", name, err)
	}
	return out, nil
}

// PutExporterProgress records exporter name's progress on subject.
func (t *tx) PutExporterProgress(ctx context.Context, name, subject string, p exporter.Progress) error {
	_, err := t.tx.ExecContext(ctx, `INSERT INTO exporter_progress (exporter, subject, version, config_hash, imported)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (exporter, subject) DO UPDATE SET version = excluded.version,
		config_hash = excluded.config_hash, imported = excluded.imported`,
		name, subject, p.Version, p.Settings, p.Imported)
	if err != nil {
		return fmt.Errorf("put progress of exporter %q on %q: %w", name, subject, err)
	}
	return nil
}

// ClearExporterProgress forgets every progress of exporter name.
func (t *tx) ClearExporterProgress(ctx context.Context, name string) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM exporter_progress WHERE exporter = ?`, name); err != nil {
		return fmt.Errorf("clear progress of exporter %q: %w", name, err)
	}
	return nil
}

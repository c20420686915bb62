package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
)

// afterMigration holds, by migration file, a step that SQL cannot do, run
// right after the file in the migration's transaction.
var afterMigration = map[string]func(context.Context, *sql.Tx) error{
	"0008_qualified_subjects.sql": upgradeFingerprints,
}

// upgradeFingerprints gives each schema that 0008 copied into a context
// with renamed references (":.:plain") the fingerprint a registration of
// it there computes (registry.UpgradedFingerprint), so that the same
// content registered again in the context finds its ID. A fingerprint
// the context already holds for another schema is left as it was.
func upgradeFingerprints(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx,
		`SELECT context, id, type, text, refs, metadata, ruleset, fingerprint FROM schemas WHERE context <> '' AND refs LIKE '%":.:%'`)
	if err != nil {
		return fmt.Errorf("upgrade fingerprints: %w", err)
	}
	var sts []registry.Schema
	for rows.Next() {
		var st registry.Schema
		var typ, refs string
		var meta, rules sql.NullString
		if err := rows.Scan(&st.Context, &st.ID, &typ, &st.Text, &refs, &meta, &rules, &st.Fingerprint); err != nil {
			rows.Close()
			return fmt.Errorf("upgrade fingerprints: %w", err)
		}
		st.Type = compat.SchemaType(typ)
		if err := json.Unmarshal([]byte(refs), &st.References); err != nil {
			rows.Close()
			return fmt.Errorf("upgrade fingerprints: references of schema %d of context %q: %w", st.ID, st.Context, err)
		}
		if meta.Valid {
			st.Metadata = json.RawMessage(meta.String)
		}
		if rules.Valid {
			st.RuleSet = json.RawMessage(rules.String)
		}
		sts = append(sts, st)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("upgrade fingerprints: %w", err)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("upgrade fingerprints: %w", err)
	}
	for _, st := range sts {
		fp, ok := registry.UpgradedFingerprint(st)
		if !ok {
			continue
		}
		if _, err := tx.ExecContext(ctx,
			`UPDATE schemas SET fingerprint = ? WHERE context = ? AND id = ?
			 AND NOT EXISTS (SELECT 1 FROM schemas WHERE context = ? AND fingerprint = ?)`,
			fp, st.Context, st.ID, st.Context, fp); err != nil {
			return fmt.Errorf("upgrade fingerprints: schema %d of context %q: %w", st.ID, st.Context, err)
		}
	}
	return nil
}

package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry"
)

// afterMigration holds, by migration file, a step that SQL cannot do, run
// right after the file in the migration's transaction.
var afterMigration = map[string]func(context.Context, pgx.Tx) error{
	"0007_qualified_subjects.sql": upgradeFingerprints,
}

// upgradeFingerprints gives each schema that 0007 copied into a context
// with renamed references (":.:plain") the fingerprint a registration of
// it there computes (registry.UpgradedFingerprint), so that the same
// content registered again in the context finds its ID. A fingerprint
// the context already holds for another schema is left as it was. As
// registry/sqlite's.
func upgradeFingerprints(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx,
		`SELECT context, id, type, text, refs, metadata, ruleset, fingerprint FROM schemas WHERE context <> '' AND refs LIKE '%":.:%'`)
	if err != nil {
		return fmt.Errorf("upgrade fingerprints: %w", err)
	}
	sts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (registry.Schema, error) {
		var st registry.Schema
		var typ, refs string
		var meta, rules *string
		if err := row.Scan(&st.Context, &st.ID, &typ, &st.Text, &refs, &meta, &rules, &st.Fingerprint); err != nil {
			return st, err
		}
		st.Type = compat.SchemaType(typ)
		if err := json.Unmarshal([]byte(refs), &st.References); err != nil {
			return st, fmt.Errorf("references of schema %d of context %q: %w", st.ID, st.Context, err)
		}
		if meta != nil {
			st.Metadata = json.RawMessage(*meta)
		}
		if rules != nil {
			st.RuleSet = json.RawMessage(*rules)
		}
		return st, nil
	})
	if err != nil {
		return fmt.Errorf("upgrade fingerprints: %w", err)
	}
	for _, st := range sts {
		fp, ok := registry.UpgradedFingerprint(st)
		if !ok {
			continue
		}
		if _, err := tx.Exec(ctx,
			`UPDATE schemas SET fingerprint = $1 WHERE context = $2 AND id = $3
			 AND NOT EXISTS (SELECT 1 FROM schemas WHERE context = $2 AND fingerprint = $1)`,
			fp, st.Context, st.ID); err != nil {
			return fmt.Errorf("upgrade fingerprints: schema %d of context %q: %w", st.ID, st.Context, err)
		}
	}
	return nil
}

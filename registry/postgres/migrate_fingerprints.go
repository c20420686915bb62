package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

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
	sts, err := schemasWhere(ctx, tx, `context <> '' AND refs LIKE '%":.:%'`)
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

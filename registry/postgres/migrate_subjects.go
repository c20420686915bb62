package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5"

	"github.com/charter-dev/charter/registry"
)

// beforeMigration holds, by migration file, a step that SQL cannot do, run
// right before the file in the migration's transaction.
var beforeMigration = map[string]func(context.Context, pgx.Tx) error{
	"0007_qualified_subjects.sql": renameUnnormalSubjects,
}

// subjectTables are the tables whose subject column names a subject: its
// versions, config, mode, governance records (lineage, contracts, …),
// audit entries, exporter progress, and the subject a reference names.
var subjectTables = []string{"subject_versions", "configs", "modes", "governance_records", "audit_log", "exporter_progress", "schema_references"}

// renameUnnormalSubjects renames every stored subject that
// registry.NormalizeSubject changes, as registry.UpgradeSubjectRenames
// decides, in every table naming subjects and every schema's references,
// and logs each rename. It runs before 0007, which then moves the
// renamed ":.ctx:" subjects into their context. As registry/sqlite's.
func renameUnnormalSubjects(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT subject FROM subject_versions UNION SELECT subject FROM configs
		UNION SELECT subject FROM modes UNION SELECT subject FROM governance_records UNION SELECT subject FROM exporter_progress`)
	if err != nil {
		return fmt.Errorf("rename subjects: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("rename subjects: %w", err)
	}
	renames := registry.UpgradeSubjectRenames(names)
	if len(renames) == 0 {
		return nil
	}
	byName := make(map[string]string, len(renames))
	for _, r := range renames {
		byName[r.From] = r.To
		for _, table := range subjectTables {
			if _, err := tx.Exec(ctx, `UPDATE `+table+` SET subject = $1 WHERE subject = $2`, r.To, r.From); err != nil {
				return fmt.Errorf("rename subjects: %s: %q to %q: %w", table, r.From, r.To, err)
			}
		}
		slog.Warn("upgrade: subject renamed", "from", r.From, "to", r.To, "collided", r.Collided)
	}

	// References are also held in each schema's refs.
	all, err := schemasWhere(ctx, tx, `refs IS NOT NULL`)
	if err != nil {
		return fmt.Errorf("rename subjects: %w", err)
	}
	for _, st := range all {
		renamed, ok := registry.RenameReferenceSubjects(st.References, byName)
		if !ok {
			continue
		}
		refs, err := json.Marshal(renamed)
		if err != nil {
			return fmt.Errorf("rename subjects: references of schema %d of context %q: %w", st.ID, st.Context, err)
		}
		if _, err := tx.Exec(ctx, `UPDATE schemas SET refs = $1 WHERE context = $2 AND id = $3`, string(refs), st.Context, st.ID); err != nil {
			return fmt.Errorf("rename subjects: schema %d of context %q: %w", st.ID, st.Context, err)
		}
		fp := registry.Fingerprint(st.Type, st.Text, renamed, st.Metadata, st.RuleSet)
		if _, err := tx.Exec(ctx,
			`UPDATE schemas SET fingerprint = $1 WHERE context = $2 AND id = $3
			 AND NOT EXISTS (SELECT 1 FROM schemas WHERE context = $2 AND fingerprint = $1)`,
			fp, st.Context, st.ID); err != nil {
			return fmt.Errorf("rename subjects: schema %d of context %q: %w", st.ID, st.Context, err)
		}
	}
	return nil
}

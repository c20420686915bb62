package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/charter-dev/charter/registry"
)

// beforeMigration holds, by migration file, a step that SQL cannot do, run
// right before the file in the migration's transaction.
var beforeMigration = map[string]func(context.Context, *sql.Tx) error{
	"0008_qualified_subjects.sql": renameUnnormalSubjects,
}

// subjectTables are the tables whose subject column names a subject: its
// versions, config, mode, governance records (lineage, contracts, …),
// audit entries, exporter progress, and the subject a reference names.
var subjectTables = []string{"subject_versions", "configs", "modes", "governance_records", "audit_log", "exporter_progress", "schema_references"}

// renameUnnormalSubjects renames every stored subject that
// registry.NormalizeSubject changes (a registry written before contexts
// could hold ":.foo", ":.:x", ":.:"), which the API, normalising every
// subject, no longer reaches, as registry.UpgradeSubjectRenames decides:
// to its normal form when free, else to a "~renamed-N" name beside it.
// Every table naming subjects and every schema's references follow; a
// schema whose references were renamed gets the fingerprint a
// registration of it computes, unless its context holds that
// fingerprint for another schema. Each rename is logged. It runs before
// 0008, which then moves the renamed ":.ctx:" subjects into their
// context.
func renameUnnormalSubjects(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT subject FROM subject_versions UNION SELECT subject FROM configs
		UNION SELECT subject FROM modes UNION SELECT subject FROM governance_records UNION SELECT subject FROM exporter_progress`)
	if err != nil {
		return fmt.Errorf("rename subjects: %w", err)
	}
	var names []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return fmt.Errorf("rename subjects: %w", err)
		}
		names = append(names, s)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("rename subjects: %w", err)
	}
	if err := rows.Err(); err != nil {
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
			if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET subject = ? WHERE subject = ?`, r.To, r.From); err != nil {
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
	var sts []registry.Schema
	for _, st := range all {
		renamed, ok := registry.RenameReferenceSubjects(st.References, byName)
		if !ok {
			continue
		}
		st.References = renamed
		sts = append(sts, st)
	}
	for _, st := range sts {
		refs, err := json.Marshal(st.References)
		if err != nil {
			return fmt.Errorf("rename subjects: references of schema %d of context %q: %w", st.ID, st.Context, err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE schemas SET refs = ? WHERE context = ? AND id = ?`, string(refs), st.Context, st.ID); err != nil {
			return fmt.Errorf("rename subjects: schema %d of context %q: %w", st.ID, st.Context, err)
		}
		fp := registry.Fingerprint(st.Type, st.Text, st.References, st.Metadata, st.RuleSet)
		if _, err := tx.ExecContext(ctx,
			`UPDATE schemas SET fingerprint = ? WHERE context = ? AND id = ?
			 AND NOT EXISTS (SELECT 1 FROM schemas WHERE context = ? AND fingerprint = ?)`,
			fp, st.Context, st.ID, st.Context, fp); err != nil {
			return fmt.Errorf("rename subjects: schema %d of context %q: %w", st.ID, st.Context, err)
		}
	}
	return nil
}

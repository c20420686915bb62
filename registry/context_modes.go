package registry

import (
	"context"
	"fmt"

	"github.com/charter-dev/charter/registry/governance"
)

// DeleteModeRecursive is DELETE /mode[/{ctx}]?recursive=true, as
// Confluent's deleteSubjectMode(subject, recursive): for a context level
// ("" for the default context, ":.ctx:") it removes the level's own mode
// and the mode of every subject of that context, and returns the level's
// old mode, "" when it had none (no error: there may have been subject
// modes to delete). For a subject, and for ":.__GLOBAL:", it is
// DeleteMode. Each removal is audited; a read-only mode does not refuse
// it, as it does not refuse DeleteMode.
func (s *Service) DeleteModeRecursive(ctx context.Context, subject string) (Mode, error) {
	level := levelKey(subject)
	if !IsContextLevel(level) || level == GlobalContextKey {
		return s.DeleteMode(ctx, subject)
	}
	var out Mode
	err := s.update(ctx, "delete modes recursively", func(tx Tx) error {
		out = ""
		b, ok := tx.(BackupTx)
		if !ok {
			return fmt.Errorf("delete modes recursively: the store cannot list modes")
		}
		modes, err := b.Modes(ctx)
		if err != nil {
			return fmt.Errorf("list modes: %w", err)
		}
		c := ContextOf(level)
		for _, m := range modes {
			inLevel := m.Subject == level
			inContext := m.Subject != "" && !IsContextLevel(m.Subject) && ContextOf(m.Subject) == c
			if !inLevel && !inContext {
				continue
			}
			if err := tx.DeleteMode(ctx, m.Subject); err != nil {
				return fmt.Errorf("delete mode of %q: %w", m.Subject, err)
			}
			if inLevel {
				out = m.Mode
			}
			if err := s.auditTx(ctx, tx, governance.ActionModeDelete, m.Subject, "", m.Mode, nil); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

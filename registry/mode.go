package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// Modes lists every mode in documentation order.
var Modes = []Mode{ModeReadWrite, ModeReadOnly, ModeReadOnlyOverride, ModeImport}

// ParseMode accepts a mode name in any letter case (Confluent upper-cases
// it); anything else, surrounding spaces included, is 42204 INVALID_MODE.
func ParseMode(s string) (Mode, error) {
	m := Mode(strings.ToUpper(s))
	for _, known := range Modes {
		if m == known {
			return m, nil
		}
	}
	return "", srerr.New(srerr.ErrInvalidMode,
		"Invalid mode %q. Valid values are READWRITE, READONLY, READONLY_OVERRIDE and IMPORT", compat.Clip(s))
}

// storedMode returns the mode of subject ("" global) and whether one is
// stored.
func storedMode(ctx context.Context, tx Tx, subject string) (Mode, bool, error) {
	m, err := tx.Mode(ctx, subject)
	if errors.Is(err, ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read mode of %q: %w", subject, err)
	}
	return m, true, nil
}

// globalMode returns the global mode, READWRITE when never set.
func globalMode(ctx context.Context, tx Tx) (Mode, error) {
	m, ok, err := storedMode(ctx, tx, "")
	if err != nil || !ok {
		return ModeReadWrite, err
	}
	return m, nil
}

// effectiveMode returns the mode that applies to subject: a global
// READONLY_OVERRIDE wins over everything (Confluent's kill switch), then
// the subject's own mode, then its context level's (the global mode ""
// for the default context), then the .__GLOBAL context's, READWRITE when
// none has one (inheritedMode).
func effectiveMode(ctx context.Context, tx Tx, subject string) (Mode, error) {
	subject = levelKey(subject)
	g, err := globalMode(ctx, tx)
	if err != nil || g == ModeReadOnlyOverride {
		return g, err
	}
	m, ok, err := storedMode(ctx, tx, subject)
	if err != nil || ok {
		return m, err
	}
	return inheritedMode(ctx, tx, subject)
}

// writable returns 42205 when mode refuses writes.
func writable(subject string, mode Mode) error {
	if mode != ModeReadOnly && mode != ModeReadOnlyOverride {
		return nil
	}
	if subject == "" {
		return srerr.New(srerr.ErrOperationNotPermitted, "The registry is in %s mode; set the mode to READWRITE first", mode)
	}
	return srerr.New(srerr.ErrOperationNotPermitted, "Subject %s is in read-only mode (%s)", subject, mode)
}

// checkWritable returns 42205 when the effective mode of subject refuses
// writes.
func checkWritable(ctx context.Context, tx Tx, subject string) error {
	m, err := effectiveMode(ctx, tx, subject)
	if err != nil {
		return err
	}
	return writable(subject, m)
}

// Mode returns the mode of subject (GET /mode/{s}), or the global mode
// when subject is "" (READWRITE when never set). A subject without its own
// mode answers 40409, unless defaultToGlobal asks for the global mode.
func (s *Service) Mode(ctx context.Context, subject string, defaultToGlobal bool) (Mode, error) {
	subject = levelKey(subject)
	var out Mode
	err := s.view(ctx, "get mode", func(tx Tx) error {
		m, ok, err := storedMode(ctx, tx, subject)
		if err != nil {
			return err
		}
		switch {
		case ok:
			out = m
		case defaultToGlobal:
			out, err = inheritedMode(ctx, tx, subject)
			return err
		case subject == "" || subject == GlobalContextKey:
			out = ModeReadWrite
		default:
			return srerr.New(srerr.ErrSubjectModeNotFound,
				"Subject '%s' does not have subject-level mode configured", subject)
		}
		return nil
	})
	return out, err
}

// SetMode sets the mode of subject ("" global) and returns it (PUT
// /mode[/{s}]). An unknown mode is 42204. Entering IMPORT while live
// subjects exist in scope (any subject for the global mode, the subject
// itself otherwise) needs force, as in Confluent; without it the answer is
// 42205.
func (s *Service) SetMode(ctx context.Context, subject, mode string, force bool) (Mode, error) {
	subject = levelKey(subject)
	m, err := ParseMode(mode)
	if err != nil {
		return "", err
	}
	if subject != "" {
		if err := ValidateSubject(subject); err != nil {
			return "", err
		}
		if err := checkQualifiedSubject(subject, true, false); err != nil {
			return "", err
		}
	}
	err = s.update(ctx, "set mode", func(tx Tx) error {
		if m == ModeImport && !force {
			cur, err := effectiveMode(ctx, tx, subject)
			if err != nil {
				return err
			}
			if cur != ModeImport {
				q := VersionQuery{Subject: subject}
				if IsContextLevel(subject) && subject != "" {
					q = VersionQuery{SubjectPrefix: subject} // the context's subjects
				}
				vs, err := tx.Versions(ctx, q)
				if err != nil {
					return fmt.Errorf("list versions: %w", err)
				}
				if len(vs) > 0 {
					return srerr.New(srerr.ErrOperationNotPermitted,
						"Cannot import since found existing subjects; set force=true to switch to IMPORT anyway")
				}
			}
		}
		before, had, err := storedMode(ctx, tx, subject)
		if err != nil {
			return err
		}
		if err := tx.SetMode(ctx, subject, m); err != nil {
			return fmt.Errorf("set mode of %q: %w", subject, err)
		}
		return s.auditTx(ctx, tx, governance.ActionModeSet, subject, "", nilIf(!had, before), m)
	})
	return m, err
}

// ClearMode removes the mode of subject ("" global) as PUT /mode[/{s}]
// with a null or absent mode does in Confluent (RestApiModeTest.testClearMode):
// unlike DeleteMode, a subject without its own mode is no error.
func (s *Service) ClearMode(ctx context.Context, subject string) error {
	subject = levelKey(subject)
	if subject != "" {
		if err := ValidateSubject(subject); err != nil {
			return err
		}
		if err := checkQualifiedSubject(subject, true, false); err != nil {
			return err
		}
	}
	return s.update(ctx, "clear mode", func(tx Tx) error {
		m, ok, err := storedMode(ctx, tx, subject)
		if err != nil || !ok {
			return err
		}
		if err := tx.DeleteMode(ctx, subject); err != nil {
			return fmt.Errorf("delete mode of %q: %w", subject, err)
		}
		return s.auditTx(ctx, tx, governance.ActionModeDelete, subject, "", m, nil)
	})
}

// DeleteMode removes the mode of subject ("" global, which falls back to
// READWRITE) and returns what it was (DELETE /mode[/{s}]). A subject
// without its own mode answers 40401 when it has no versions at all, 40409
// otherwise.
func (s *Service) DeleteMode(ctx context.Context, subject string) (Mode, error) {
	subject = levelKey(subject)
	var out Mode
	err := s.update(ctx, "delete mode", func(tx Tx) error {
		m, ok, err := storedMode(ctx, tx, subject)
		if err != nil {
			return err
		}
		if !ok {
			if subject == "" {
				out = ModeReadWrite
				return nil
			}
			vs, err := subjectVersions(ctx, tx, subject)
			if err != nil {
				return err
			}
			if len(vs) == 0 {
				return errSubjectNotFound(subject)
			}
			return srerr.New(srerr.ErrSubjectModeNotFound,
				"Subject '%s' does not have subject-level mode configured", subject)
		}
		if err := tx.DeleteMode(ctx, subject); err != nil {
			return fmt.Errorf("delete mode of %q: %w", subject, err)
		}
		out = m
		return s.auditTx(ctx, tx, governance.ActionModeDelete, subject, "", m, nil)
	})
	return out, err
}

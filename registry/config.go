package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/srerr"
)

// storedConfig returns the config of subject ("" global) and whether one
// is stored.
func storedConfig(ctx context.Context, tx Tx, subject string) (Config, bool, error) {
	c, err := tx.Config(ctx, subject)
	if errors.Is(err, ErrNotFound) {
		return Config{}, false, nil
	}
	if err != nil {
		return Config{}, false, fmt.Errorf("read config of %q: %w", subject, err)
	}
	return c, true, nil
}

// globalConfig returns the global config with the level defaulted to
// compat.DefaultLevel.
func globalConfig(ctx context.Context, tx Tx) (Config, error) {
	c, _, err := storedConfig(ctx, tx, "")
	if err != nil {
		return Config{}, err
	}
	if c.Compatibility == "" {
		c.Compatibility = compat.DefaultLevel
	}
	return c, nil
}

// effectiveConfig returns the config that applies to subject: its own
// fields where set, the global ones elsewhere, BACKWARD when neither sets
// a level.
func effectiveConfig(ctx context.Context, tx Tx, subject string) (Config, error) {
	g, err := globalConfig(ctx, tx)
	if err != nil {
		return Config{}, err
	}
	if subject == "" {
		return g, nil
	}
	c, ok, err := storedConfig(ctx, tx, subject)
	if err != nil || !ok {
		return g, err
	}
	return mergeConfig(g, c), nil
}

// mergeConfig returns base with every field set in over replacing it.
func mergeConfig(base, over Config) Config {
	if over.Compatibility != "" {
		base.Compatibility = over.Compatibility
	}
	if over.Normalize != nil {
		base.Normalize = over.Normalize
	}
	if over.ValidateFields != nil {
		base.ValidateFields = over.ValidateFields
	}
	if over.CompatibilityGroup != "" {
		base.CompatibilityGroup = over.CompatibilityGroup
	}
	if over.Alias != "" {
		base.Alias = over.Alias
	}
	if over.DefaultMetadata != nil {
		base.DefaultMetadata = over.DefaultMetadata
	}
	if over.OverrideMetadata != nil {
		base.OverrideMetadata = over.OverrideMetadata
	}
	if over.DefaultRuleSet != nil {
		base.DefaultRuleSet = over.DefaultRuleSet
	}
	if over.OverrideRuleSet != nil {
		base.OverrideRuleSet = over.OverrideRuleSet
	}
	return base
}

// Config returns the config of subject (GET /config/{s}), or the global
// config when subject is "" (GET /config; level BACKWARD when never set).
// A subject without its own config answers 40408, unless defaultToGlobal
// asks for the global config instead.
func (s *Service) Config(ctx context.Context, subject string, defaultToGlobal bool) (Config, error) {
	var out Config
	err := s.view(ctx, "get config", func(tx Tx) error {
		g, err := globalConfig(ctx, tx)
		if err != nil {
			return err
		}
		if subject == "" {
			out = g
			return nil
		}
		c, ok, err := storedConfig(ctx, tx, subject)
		if err != nil {
			return err
		}
		switch {
		case ok && defaultToGlobal:
			out = mergeConfig(g, c)
		case ok:
			out = c
		case defaultToGlobal:
			out = g
		default:
			return srerr.New(srerr.ErrSubjectConfigNotFound,
				"Subject '%s' does not have subject-level compatibility configured", subject)
		}
		return nil
	})
	return out, err
}

// SetConfig merges upd into the config of subject ("" global) and returns
// the stored result (PUT /config[/{s}]); fields not set in upd keep their
// value. A level outside the seven Confluent levels (any letter case) is
// 42203; a read-only mode refuses the change with 42205, as Confluent
// does. The global result always carries a level.
func (s *Service) SetConfig(ctx context.Context, subject string, upd Config) (Config, error) {
	if subject != "" {
		if err := ValidateSubject(subject); err != nil {
			return Config{}, err
		}
	}
	if upd.Compatibility != "" {
		l, err := compat.ParseLevel(string(upd.Compatibility))
		if err != nil {
			return Config{}, srerr.New(srerr.ErrInvalidCompatibility,
				"Invalid compatibility level %q. Valid values are NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL and FULL_TRANSITIVE", string(upd.Compatibility))
		}
		upd.Compatibility = l
	}
	for _, raw := range []*[]byte{
		(*[]byte)(&upd.DefaultMetadata), (*[]byte)(&upd.OverrideMetadata),
		(*[]byte)(&upd.DefaultRuleSet), (*[]byte)(&upd.OverrideRuleSet),
	} {
		*raw = compactJSON(*raw)
	}
	var out Config
	err := s.update(ctx, "set config", func(tx Tx) error {
		if err := checkWritable(ctx, tx, subject); err != nil {
			return err
		}
		cur, _, err := storedConfig(ctx, tx, subject)
		if err != nil {
			return err
		}
		next := mergeConfig(cur, upd)
		if err := tx.SetConfig(ctx, subject, next); err != nil {
			return fmt.Errorf("set config of %q: %w", subject, err)
		}
		out = next
		if subject == "" && out.Compatibility == "" {
			out.Compatibility = compat.DefaultLevel
		}
		return nil
	})
	return out, err
}

// DeleteConfig removes the config of subject ("" global, which falls back
// to BACKWARD) and returns what it was (DELETE /config[/{s}]). A subject
// without its own config answers 40401 when the subject has no versions
// at all, 40408 otherwise; a read-only mode refuses with 42205.
func (s *Service) DeleteConfig(ctx context.Context, subject string) (Config, error) {
	var out Config
	err := s.update(ctx, "delete config", func(tx Tx) error {
		if err := checkWritable(ctx, tx, subject); err != nil {
			return err
		}
		if subject == "" {
			g, err := globalConfig(ctx, tx)
			if err != nil {
				return err
			}
			if err := tx.DeleteConfig(ctx, ""); err != nil && !errors.Is(err, ErrNotFound) {
				return fmt.Errorf("delete global config: %w", err)
			}
			out = g
			return nil
		}
		c, ok, err := storedConfig(ctx, tx, subject)
		if err != nil {
			return err
		}
		if !ok {
			vs, err := subjectVersions(ctx, tx, subject)
			if err != nil {
				return err
			}
			if len(vs) == 0 {
				return errSubjectNotFound(subject)
			}
			return srerr.New(srerr.ErrSubjectConfigNotFound,
				"Subject '%s' does not have subject-level compatibility configured", subject)
		}
		if err := tx.DeleteConfig(ctx, subject); err != nil {
			return fmt.Errorf("delete config of %q: %w", subject, err)
		}
		out = c
		return nil
	})
	return out, err
}

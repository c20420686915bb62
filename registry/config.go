package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/governance"
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
// fields where set, its context level's elsewhere (the global config ""
// for the default context), then the .__GLOBAL context's, BACKWARD when
// none sets a level (inheritedConfig).
func effectiveConfig(ctx context.Context, tx Tx, subject string) (Config, error) {
	subject = levelKey(subject)
	base, err := inheritedConfig(ctx, tx, subject)
	if err != nil {
		return Config{}, err
	}
	c, ok, err := storedConfig(ctx, tx, subject)
	if err != nil || !ok {
		return base, err
	}
	return mergeConfig(base, c), nil
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
	if over.ValidateNewSchemas != nil {
		base.ValidateNewSchemas = over.ValidateNewSchemas
	}
	if over.ValidateRules != nil {
		base.ValidateRules = over.ValidateRules
	}
	if over.CompatibilityGroup != "" {
		base.CompatibilityGroup = over.CompatibilityGroup
	}
	if over.Alias != "" {
		base.Alias = over.Alias
	}
	if over.AliasForDeks != "" {
		base.AliasForDeks = over.AliasForDeks
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
// A context level (":.ctx:", GET /contexts/.ctx/config) is a subject here,
// and ":.__GLOBAL:" is like "". A subject without its own config answers
// 40408, unless defaultToGlobal asks for what it inherits instead (its
// context level's, then .__GLOBAL's: effectiveConfig).
func (s *Service) Config(ctx context.Context, subject string, defaultToGlobal bool) (Config, error) {
	subject = levelKey(subject)
	var out Config
	err := s.view(ctx, "get config", func(tx Tx) error {
		base, err := inheritedConfig(ctx, tx, subject)
		if err != nil {
			return err
		}
		c, ok, err := storedConfig(ctx, tx, subject)
		if err != nil {
			return err
		}
		top := subject == "" || subject == GlobalContextKey
		switch {
		case ok && defaultToGlobal:
			out = mergeConfig(base, c)
		case ok && top && c.Compatibility == "":
			c.Compatibility = compat.DefaultLevel
			out = c
		case ok:
			out = c
		case defaultToGlobal:
			out = base
		case top:
			out = Config{Compatibility: compat.DefaultLevel}
		default:
			return srerr.New(srerr.ErrSubjectConfigNotFound,
				"Subject '%s' does not have subject-level compatibility configured", subject)
		}
		return nil
	})
	return out, err
}

// ConfigUpdate is a partial config change (Confluent ConfigUpdateRequest,
// PUT /config[/{s}]). Nil fields keep their stored value; an empty
// CompatibilityGroup or Alias clears it; a JSON null metadata or ruleSet
// clears it.
type ConfigUpdate struct {
	Compatibility      *string
	Normalize          *bool
	ValidateFields     *bool
	ValidateNewSchemas *bool
	ValidateRules      *bool
	CompatibilityGroup *string
	Alias              *string
	AliasForDeks       *string
	DefaultMetadata    json.RawMessage
	OverrideMetadata   json.RawMessage
	DefaultRuleSet     json.RawMessage
	OverrideRuleSet    json.RawMessage
}

// apply returns c changed by u.
func (u ConfigUpdate) apply(c Config) Config {
	if u.Compatibility != nil && *u.Compatibility != "" {
		c.Compatibility = compat.Level(*u.Compatibility)
	}
	if u.Normalize != nil {
		c.Normalize = u.Normalize
	}
	if u.ValidateFields != nil {
		c.ValidateFields = u.ValidateFields
	}
	if u.ValidateNewSchemas != nil {
		c.ValidateNewSchemas = u.ValidateNewSchemas
	}
	if u.ValidateRules != nil {
		c.ValidateRules = u.ValidateRules
	}
	if u.CompatibilityGroup != nil {
		c.CompatibilityGroup = *u.CompatibilityGroup
	}
	if u.Alias != nil {
		c.Alias = *u.Alias
	}
	if u.AliasForDeks != nil {
		c.AliasForDeks = *u.AliasForDeks
	}
	for _, f := range []struct {
		upd json.RawMessage
		dst *json.RawMessage
	}{
		{u.DefaultMetadata, &c.DefaultMetadata}, {u.OverrideMetadata, &c.OverrideMetadata},
		{u.DefaultRuleSet, &c.DefaultRuleSet}, {u.OverrideRuleSet, &c.OverrideRuleSet},
	} {
		if f.upd != nil {
			*f.dst = compactJSON(f.upd)
		}
	}
	return c
}

// SetConfig applies upd to the config of subject ("" global) and returns
// the stored result (PUT /config[/{s}]). A level outside the seven
// Confluent levels (any letter case, no surrounding spaces) is 42203;
// metadata that is not a JSON object is 42201, a ruleSet 42210; a
// read-only mode refuses the change with 42205, as Confluent does. The
// global result always carries a level.
func (s *Service) SetConfig(ctx context.Context, subject string, upd ConfigUpdate) (Config, error) {
	subject = levelKey(subject)
	if subject != "" {
		if err := ValidateSubject(subject); err != nil {
			return Config{}, err
		}
		if err := checkQualifiedSubject(subject, true, false); err != nil {
			return Config{}, err
		}
	}
	if upd.Compatibility != nil && *upd.Compatibility != "" {
		// compat.ParseLevel forgives surrounding spaces; Confluent's
		// CompatibilityLevel.forName does not (42203), and neither does the
		// API, so that " FULL" is not stored as FULL behind a client's back.
		l, err := compat.ParseLevel(*upd.Compatibility)
		if err == nil && strings.TrimSpace(*upd.Compatibility) != *upd.Compatibility {
			err = errors.New("surrounding spaces")
		}
		if err != nil {
			return Config{}, srerr.New(srerr.ErrInvalidCompatibility,
				"Invalid compatibility level %q. Valid values are NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL and FULL_TRANSITIVE", compat.Clip(*upd.Compatibility))
		}
		name := string(l)
		upd.Compatibility = &name
	}
	for _, c := range []struct {
		raw      json.RawMessage
		sentinel *srerr.Error
		what     string
	}{
		{upd.DefaultMetadata, srerr.ErrInvalidSchema, "defaultMetadata"},
		{upd.OverrideMetadata, srerr.ErrInvalidSchema, "overrideMetadata"},
		{upd.DefaultRuleSet, srerr.ErrInvalidRuleSet, "defaultRuleSet"},
		{upd.OverrideRuleSet, srerr.ErrInvalidRuleSet, "overrideRuleSet"},
	} {
		if err := checkContract(c.raw, c.sentinel, c.what, srerr.ErrUnprocessableEntity); err != nil {
			return Config{}, err
		}
		if c.sentinel == srerr.ErrInvalidRuleSet {
			if err := validateRuleSet(c.raw, c.what); err != nil {
				return Config{}, err
			}
		}
	}
	var out Config
	err := s.update(ctx, "set config", func(tx Tx) error {
		if err := checkWritable(ctx, tx, subject); err != nil {
			return err
		}
		cur, had, err := storedConfig(ctx, tx, subject)
		if err != nil {
			return err
		}
		next := upd.apply(cur)
		if err := tx.SetConfig(ctx, subject, next); err != nil {
			return fmt.Errorf("set config of %q: %w", subject, err)
		}
		if err := s.auditTx(ctx, tx, governance.ActionConfigSet, subject, "", nilIf(!had, cur), next); err != nil {
			return err
		}
		// The stored config, as Confluent answers it: a global config
		// that never set a level answers without one (GET /config still
		// reads the default).
		out = next
		return nil
	})
	return out, err
}

// DekSubject returns the subject whose DEKs a DEK route naming subject
// uses, as Confluent's AliasFilter rewrites the segment after deks/: the
// aliasForDeks of subject's own config, else its alias, else subject.
func (s *Service) DekSubject(ctx context.Context, subject string) (string, error) {
	if subject == "" {
		return subject, nil
	}
	out := subject
	err := s.view(ctx, "resolve dek alias", func(tx Tx) error {
		c, ok, err := storedConfig(ctx, tx, subject)
		switch {
		case err != nil || !ok:
			return err
		case c.AliasForDeks != "":
			out = AliasTarget(subject, c.AliasForDeks)
		case c.Alias != "":
			out = AliasTarget(subject, c.Alias)
		}
		return nil
	})
	return out, err
}

// resolveAlias returns the subject that subject's own config names as its
// alias (in subject's context unless qualified: AliasTarget), or subject
// itself. Aliases resolve one level only, as in Confluent.
func resolveAlias(ctx context.Context, tx Tx, subject string) (string, error) {
	c, ok, err := storedConfig(ctx, tx, subject)
	if err != nil || !ok || c.Alias == "" {
		return subject, err
	}
	return AliasTarget(subject, c.Alias), nil
}

// DeleteConfig removes the config of subject ("" global, which falls back
// to BACKWARD) and returns what it was (DELETE /config[/{s}]). A subject
// without its own config answers 40401 when the subject has no versions
// at all, 40408 otherwise; a read-only mode refuses with 42205.
func (s *Service) DeleteConfig(ctx context.Context, subject string) (Config, error) {
	subject = levelKey(subject)
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
			return s.auditTx(ctx, tx, governance.ActionConfigDelete, "", "", g, nil)
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
		return s.auditTx(ctx, tx, governance.ActionConfigDelete, subject, "", c, nil)
	})
	return out, err
}

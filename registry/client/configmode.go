package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/charter-dev/charter/compat"
)

// Config is a compatibility configuration as GET /config[/{subject}]
// returns it (Confluent's Config entity). Empty and nil fields are not set
// at that scope. Metadata and rule sets stay raw JSON objects, as stored.
type Config struct {
	Compatibility      compat.Level    `json:"compatibilityLevel,omitempty"`
	Normalize          *bool           `json:"normalize,omitempty"`
	ValidateFields     *bool           `json:"validateFields,omitempty"`
	CompatibilityGroup string          `json:"compatibilityGroup,omitempty"`
	Alias              string          `json:"alias,omitempty"`
	DefaultMetadata    json.RawMessage `json:"defaultMetadata,omitempty"`
	OverrideMetadata   json.RawMessage `json:"overrideMetadata,omitempty"`
	DefaultRuleSet     json.RawMessage `json:"defaultRuleSet,omitempty"`
	OverrideRuleSet    json.RawMessage `json:"overrideRuleSet,omitempty"`
}

// ConfigUpdate is a partial config change (Confluent's
// ConfigUpdateRequest, PUT /config[/{subject}]): nil fields keep what is
// stored; an empty CompatibilityGroup or Alias clears it.
type ConfigUpdate struct {
	Compatibility      *compat.Level   `json:"compatibility,omitempty"`
	Normalize          *bool           `json:"normalize,omitempty"`
	ValidateFields     *bool           `json:"validateFields,omitempty"`
	CompatibilityGroup *string         `json:"compatibilityGroup,omitempty"`
	Alias              *string         `json:"alias,omitempty"`
	DefaultMetadata    json.RawMessage `json:"defaultMetadata,omitempty"`
	OverrideMetadata   json.RawMessage `json:"overrideMetadata,omitempty"`
	DefaultRuleSet     json.RawMessage `json:"defaultRuleSet,omitempty"`
	OverrideRuleSet    json.RawMessage `json:"overrideRuleSet,omitempty"`
}

// Update returns the ConfigUpdate that sets every field c sets: PUT
// with it makes a scope hold c (fields c leaves unset keep their stored
// value).
func (c Config) Update() ConfigUpdate {
	u := ConfigUpdate{
		Normalize:        c.Normalize,
		ValidateFields:   c.ValidateFields,
		DefaultMetadata:  c.DefaultMetadata,
		OverrideMetadata: c.OverrideMetadata,
		DefaultRuleSet:   c.DefaultRuleSet,
		OverrideRuleSet:  c.OverrideRuleSet,
	}
	if c.Compatibility != "" {
		l := c.Compatibility
		u.Compatibility = &l
	}
	if c.CompatibilityGroup != "" {
		g := c.CompatibilityGroup
		u.CompatibilityGroup = &g
	}
	if c.Alias != "" {
		a := c.Alias
		u.Alias = &a
	}
	return u
}

// scopePath is the path of a config or mode resource: the global one for
// subject "".
func scopePath(resource, subject string) []string {
	if subject == "" {
		return []string{resource}
	}
	return []string{resource, subject}
}

func scopeName(subject string) string {
	if subject == "" {
		return "the global scope"
	}
	return fmt.Sprintf("subject %q", subject)
}

func defaultToGlobalQuery(subject string, on bool) url.Values {
	if subject == "" || !on {
		return nil
	}
	return url.Values{"defaultToGlobal": {"true"}}
}

// Config returns the config of subject, or the global config for subject
// "" (GET /config[/{subject}]). A subject without its own config is an
// error matching srerr.ErrSubjectConfigNotFound, unless defaultToGlobal
// asks for what applies to it: its own fields over the global ones.
func (c *Client) Config(ctx context.Context, subject string, defaultToGlobal bool) (Config, error) {
	var out Config
	if err := c.do(ctx, "GET", scopePath("config", subject), defaultToGlobalQuery(subject, defaultToGlobal), nil, &out); err != nil {
		return Config{}, fmt.Errorf("get config of %s: %w", scopeName(subject), err)
	}
	return out, nil
}

// configAnswer is what PUT and DELETE /config answer: the level under
// "compatibility" (PUT, as Confluent echoes its request) or
// "compatibilityLevel" (DELETE).
type configAnswer struct {
	Config
	Compat compat.Level `json:"compatibility,omitempty"`
}

func (a configAnswer) config() Config {
	if a.Config.Compatibility == "" {
		a.Config.Compatibility = a.Compat
	}
	return a.Config
}

// SetConfig changes the config of subject ("" global) and returns what
// is stored (PUT /config[/{subject}]). Errors: srerr.ErrInvalidCompatibility
// for an unknown level, srerr.ErrOperationNotPermitted in a read-only mode.
func (c *Client) SetConfig(ctx context.Context, subject string, u ConfigUpdate) (Config, error) {
	var out configAnswer
	if err := c.do(ctx, "PUT", scopePath("config", subject), nil, u, &out); err != nil {
		return Config{}, fmt.Errorf("set config of %s: %w", scopeName(subject), err)
	}
	return out.config(), nil
}

// DeleteConfig removes the config of subject ("" global: back to the
// default BACKWARD) and returns what it was (DELETE /config[/{subject}]).
// Errors: srerr.ErrSubjectConfigNotFound when the subject has none.
func (c *Client) DeleteConfig(ctx context.Context, subject string) (Config, error) {
	var out configAnswer
	if err := c.do(ctx, "DELETE", scopePath("config", subject), nil, nil, &out); err != nil {
		return Config{}, fmt.Errorf("delete config of %s: %w", scopeName(subject), err)
	}
	return out.config(), nil
}

// The modes of Confluent Schema Registry (GET/PUT /mode).
const (
	ModeReadWrite        = "READWRITE"
	ModeReadOnly         = "READONLY"
	ModeReadOnlyOverride = "READONLY_OVERRIDE"
	ModeImport           = "IMPORT"
)

type modeBody struct {
	Mode string `json:"mode"`
}

// Mode returns the mode of subject, or the global mode for subject ""
// (GET /mode[/{subject}]; READWRITE when never set). A subject without
// its own mode is an error matching srerr.ErrSubjectModeNotFound, unless
// defaultToGlobal asks for the global mode instead.
func (c *Client) Mode(ctx context.Context, subject string, defaultToGlobal bool) (string, error) {
	var out modeBody
	if err := c.do(ctx, "GET", scopePath("mode", subject), defaultToGlobalQuery(subject, defaultToGlobal), nil, &out); err != nil {
		return "", fmt.Errorf("get mode of %s: %w", scopeName(subject), err)
	}
	return out.Mode, nil
}

// SetMode sets the mode of subject ("" global) and returns it (PUT
// /mode[/{subject}]). Entering IMPORT while the scope holds schemas needs
// force. Errors: srerr.ErrInvalidMode, srerr.ErrOperationNotPermitted.
func (c *Client) SetMode(ctx context.Context, subject, mode string, force bool) (string, error) {
	var q url.Values
	if force {
		q = url.Values{"force": {"true"}}
	}
	var out modeBody
	if err := c.do(ctx, "PUT", scopePath("mode", subject), q, modeBody{Mode: mode}, &out); err != nil {
		return "", fmt.Errorf("set mode of %s to %s: %w", scopeName(subject), mode, err)
	}
	return out.Mode, nil
}

// DeleteMode removes the mode of subject ("" global: back to READWRITE)
// and returns what it was (DELETE /mode[/{subject}]). Errors:
// srerr.ErrSubjectModeNotFound when the subject has none.
func (c *Client) DeleteMode(ctx context.Context, subject string) (string, error) {
	var out modeBody
	if err := c.do(ctx, "DELETE", scopePath("mode", subject), nil, nil, &out); err != nil {
		return "", fmt.Errorf("delete mode of %s: %w", scopeName(subject), err)
	}
	return out.Mode, nil
}

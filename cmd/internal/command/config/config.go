// Package config is the `charter config` command: the compatibility
// configuration of the registry or of one subject, read, set or removed.
package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/srerr"
)

// scope names a config's scope in output: "global", the context of
// --context (".ctx": its own level) or the subject.
func scope(cmd *cobra.Command, args []string) string {
	if len(args) > 0 {
		return args[0]
	}
	if name, ok := global.ContextScope(cmd); ok {
		return name
	}
	return "global"
}

func subject(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// NewCommand returns the config command with its get, set and delete
// sub-commands.
func NewCommand(name string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name,
		Short: "Read or change the compatibility config of the registry or a subject",
		Long: `Read, set or remove the compatibility configuration (GET, PUT and DELETE
/config[/{subject}]): the level new versions are checked at, normalization,
the compatibilityGroup, an alias, and the default and override data-contract
metadata and rules. Without SUBJECT, the global config.`,
		Example: `  # What applies to orders-value (its own fields over the global ones)
  charter config get orders-value

  # Check payments-value at FULL_TRANSITIVE from now on
  charter config set payments-value --level FULL_TRANSITIVE

  # Back to the global config
  charter config delete payments-value`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newGet("get"), newSet("set"), newDelete("delete"))
	return cmd
}

func newGet(name string) *cobra.Command {
	var own bool
	cmd := &cobra.Command{
		Use:   name + " [SUBJECT]",
		Short: "Print the config of the registry or of a subject",
		Long: `Print the config that applies to SUBJECT: its own fields over the global ones
(GET /config/{subject}?defaultToGlobal=true). With --own, only what the subject
sets itself (an error when it sets nothing). Without SUBJECT, the global config.`,
		Example: `  charter config get
  charter config get orders-value --own -o json`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: global.CompleteSubjects,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			c, err := global.Client(cmd)
			if err != nil {
				return err
			}
			if name, ok := global.ContextScope(cmd); ok && len(args) == 0 {
				return contextConfig(cmd, c, out, name, own)
			}
			cfg, err := c.Config(cmd.Context(), subject(args), !own)
			if err != nil {
				return err
			}
			return render.Config(cmd.OutOrStdout(), out, scope(cmd, args), cfg)
		},
	}
	cmd.Flags().BoolVar(&own, "own", false, "only the subject's own config, not the global fields it inherits")
	return cmd
}

// contextConfig prints the config of context name (--context without
// SUBJECT): the context's own level (GET /contexts/.ctx/config), else
// what applies in it, as the registry resolves a subject of it that sets
// none (the context's level over the global one: GET
// /config/:.ctx:?defaultToGlobal=true), scoped "global" with a notice on
// stderr saying the context sets none. With own, a context without a
// level of its own is an error naming it.
func contextConfig(cmd *cobra.Command, c *client.Client, out render.Format, name string, own bool) error {
	cfg, err := c.Config(cmd.Context(), "", false)
	switch {
	case err == nil:
		return render.Config(cmd.OutOrStdout(), out, name, cfg)
	case !errors.Is(err, srerr.ErrSubjectConfigNotFound):
		return err
	case own:
		return fmt.Errorf("context %s has no config of its own (--own); without --own, the global config applies in it", name)
	}
	if cfg, err = c.Config(cmd.Context(), ":"+name+":", true); err != nil {
		return fmt.Errorf("get config of context %s: %w", name, err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "charter: context %s has no config of its own: the global config applies in it\n", name)
	return render.Config(cmd.OutOrStdout(), out, "global", cfg)
}

type setFlags struct {
	level, group, alias         string
	normalize, validateFields   bool
	defaultMeta, overrideMeta   string
	defaultRules, overrideRules string
}

func newSet(name string) *cobra.Command {
	var f setFlags
	cmd := &cobra.Command{
		Use:   name + " [SUBJECT]",
		Short: "Change the config of the registry or of a subject",
		Long: `Change the config of SUBJECT, or the global config without one (PUT
/config[/{subject}]), and print what is stored. Only the flags given change;
--compatibility-group "" and --alias "" clear those fields. Metadata and rule
sets are read from files holding one JSON object.`,
		Example: `  # The global level
  charter config set --level FULL

  # Check new versions only against those with the same major version
  charter config set orders-value --compatibility-group application.major.version

  # Give every new version of orders-value an owner
  charter config set orders-value --default-metadata owner.json`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: global.CompleteSubjects,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			u, err := f.update(cmd)
			if err != nil {
				return err
			}
			c, err := global.Client(cmd)
			if err != nil {
				return err
			}
			cfg, err := c.SetConfig(cmd.Context(), subject(args), u)
			if err != nil {
				return err
			}
			return render.Config(cmd.OutOrStdout(), out, scope(cmd, args), cfg)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.level, "level", "", "compatibility level: NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL or FULL_TRANSITIVE")
	global.Enum(cmd, "level", global.LevelValues()...)
	fl.BoolVar(&f.normalize, "normalize", false, "normalize schemas before comparing and storing them")
	fl.BoolVar(&f.validateFields, "validate-fields", false, "validate field names")
	fl.StringVar(&f.group, "compatibility-group", "", "metadata property whose value splits versions into compatibility groups (\"\" clears it)")
	fl.StringVar(&f.alias, "alias", "", "subject this one is an alias of (\"\" clears it)")
	fl.StringVar(&f.defaultMeta, "default-metadata", "", "file with metadata new versions get where they set none")
	fl.StringVar(&f.overrideMeta, "override-metadata", "", "file with metadata that overrides what new versions set")
	fl.StringVar(&f.defaultRules, "default-rule-set", "", "file with the ruleSet new versions get where they set none")
	fl.StringVar(&f.overrideRules, "override-rule-set", "", "file with the ruleSet that overrides what new versions set")
	global.AddActorFlag(cmd)
	return cmd
}

// update builds the change from the flags given.
func (f setFlags) update(cmd *cobra.Command) (client.ConfigUpdate, error) {
	var u client.ConfigUpdate
	changed := cmd.Flags().Changed
	if changed("level") {
		l, err := compat.ParseLevel(strings.TrimSpace(f.level))
		if err != nil {
			return u, errors.New("invalid --level " + `"` + f.level + `"` + ": want NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL or FULL_TRANSITIVE")
		}
		u.Compatibility = &l
	}
	if changed("normalize") {
		u.Normalize = &f.normalize
	}
	if changed("validate-fields") {
		u.ValidateFields = &f.validateFields
	}
	if changed("compatibility-group") {
		u.CompatibilityGroup = &f.group
	}
	if changed("alias") {
		u.Alias = &f.alias
	}
	for _, m := range []struct {
		flag, path string
		dst        *[]byte
	}{
		{"default-metadata", f.defaultMeta, (*[]byte)(&u.DefaultMetadata)},
		{"override-metadata", f.overrideMeta, (*[]byte)(&u.OverrideMetadata)},
		{"default-rule-set", f.defaultRules, (*[]byte)(&u.DefaultRuleSet)},
		{"override-rule-set", f.overrideRules, (*[]byte)(&u.OverrideRuleSet)},
	} {
		if !changed(m.flag) {
			continue
		}
		raw, err := global.ReadRawJSONObject(m.path, "--"+m.flag)
		if err != nil {
			return u, err
		}
		*m.dst = raw
	}
	if !anyChanged(cmd) {
		return u, errors.New("nothing to set: pass --level, --normalize, --validate-fields, --compatibility-group, --alias or a metadata or rule-set file")
	}
	return u, nil
}

func anyChanged(cmd *cobra.Command) bool {
	for _, n := range []string{"level", "normalize", "validate-fields", "compatibility-group", "alias",
		"default-metadata", "override-metadata", "default-rule-set", "override-rule-set"} {
		if cmd.Flags().Changed(n) {
			return true
		}
	}
	return false
}

func newDelete(name string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name + " [SUBJECT]",
		Short: "Remove the config of a subject (or reset the global one)",
		Long: `Remove SUBJECT's own config, so that the global one applies (DELETE
/config/{subject}); without SUBJECT, reset the global config to its default
(BACKWARD). Prints the config removed.`,
		Example:           `  charter config delete orders-value`,
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: global.CompleteSubjects,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			c, err := global.Client(cmd)
			if err != nil {
				return err
			}
			cfg, err := c.DeleteConfig(cmd.Context(), subject(args))
			if err != nil {
				return err
			}
			return render.Config(cmd.OutOrStdout(), out, scope(cmd, args), cfg)
		},
	}
	global.AddActorFlag(cmd)
	return cmd
}

// Package mode is the `charter mode` command: the mode (READWRITE,
// READONLY, READONLY_OVERRIDE, IMPORT) of the registry or of one subject.
package mode

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/srerr"
)

// Modes are the modes `charter mode set` takes (in any letter case).
var Modes = []string{"READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT"}

// scope names a mode's scope in output: "global", the context of
// --context (".ctx": its own mode) or the subject.
func scope(cmd *cobra.Command, subject string) string {
	if subject != "" {
		return subject
	}
	if name, ok := global.ContextScope(cmd); ok {
		return name
	}
	return "global"
}

// NewCommand returns the mode command with its get, set and delete
// sub-commands.
func NewCommand(name string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name,
		Short: "Read or change the mode of the registry or a subject",
		Long: `Read, set or remove the mode (GET, PUT and DELETE /mode[/{subject}]): READWRITE,
READONLY (no writes), READONLY_OVERRIDE (global only: no writes anywhere,
whatever the subjects say) or IMPORT (writes keep the given IDs; see charter
import). Without SUBJECT, the global mode.`,
		Example: `  # Freeze orders-value
  charter mode set orders-value READONLY

  # The mode that applies to orders-value
  charter mode get orders-value`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newGet("get"), newSet("set"), newDelete("delete"))
	return cmd
}

func newGet(name string) *cobra.Command {
	var own bool
	cmd := &cobra.Command{
		Use:   name + " [SUBJECT]",
		Short: "Print the mode of the registry or of a subject",
		Long: `Print the mode that applies to SUBJECT (its own, else the global one); with
--own, only the subject's own mode (an error when it has none). Without
SUBJECT, the global mode.`,
		Example: `  charter mode get
  charter mode get orders-value --own -o json`,
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
			subject := ""
			if len(args) == 1 {
				subject = args[0]
			}
			if name, ok := global.ContextScope(cmd); ok && subject == "" {
				return contextMode(cmd, c, out, name, own)
			}
			m, err := c.Mode(cmd.Context(), subject, !own)
			if err != nil {
				return err
			}
			return render.Mode(cmd.OutOrStdout(), out, scope(cmd, subject), m)
		},
	}
	cmd.Flags().BoolVar(&own, "own", false, "only the subject's own mode, not the global one it inherits")
	return cmd
}

// contextMode prints the mode of context name (--context without
// SUBJECT): the context's own (GET /contexts/.ctx/mode), else the one
// that applies in it, as the registry resolves a subject of it that has
// none (GET /mode/:.ctx:?defaultToGlobal=true), scoped "global" with a
// notice on stderr. With own, a context without a mode of its own is an
// error naming it.
func contextMode(cmd *cobra.Command, c *client.Client, out render.Format, name string, own bool) error {
	m, err := c.Mode(cmd.Context(), "", false)
	switch {
	case err == nil:
		return render.Mode(cmd.OutOrStdout(), out, name, m)
	case !errors.Is(err, srerr.ErrSubjectModeNotFound):
		return err
	case own:
		return fmt.Errorf("context %s has no mode of its own (--own); without --own, the global mode applies in it", name)
	}
	if m, err = c.Mode(cmd.Context(), ":"+name+":", true); err != nil {
		return fmt.Errorf("get mode of context %s: %w", name, err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "charter: context %s has no mode of its own: the global mode applies in it\n", name)
	return render.Mode(cmd.OutOrStdout(), out, "global", m)
}

func newSet(name string) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   name + " [SUBJECT] MODE",
		Short: "Set the mode of the registry or of a subject",
		Long: `Set the mode of SUBJECT, or the global mode when only MODE is given (PUT
/mode[/{subject}]). MODE is READWRITE, READONLY, READONLY_OVERRIDE or IMPORT, in
any letter case. Entering IMPORT while the scope holds schemas needs --force.`,
		Example: `  charter mode set READONLY
  charter mode set orders-value readwrite`,
		Args: cobra.RangeArgs(1, 2),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			// [SUBJECT] MODE: the modes, and the subjects first.
			switch len(args) {
			case 0:
				subjects, _ := global.CompleteSubjects(cmd, args, toComplete)
				return append(slices.Clone(Modes), subjects...), cobra.ShellCompDirectiveNoFileComp
			case 1:
				if !slices.Contains(Modes, strings.ToUpper(args[0])) {
					return Modes, cobra.ShellCompDirectiveNoFileComp
				}
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			c, err := global.Client(cmd)
			if err != nil {
				return err
			}
			subject, mode := "", args[0]
			if len(args) == 2 {
				subject, mode = args[0], args[1]
			}
			m, err := c.SetMode(cmd.Context(), subject, mode, force)
			if err != nil {
				return err
			}
			return render.Mode(cmd.OutOrStdout(), out, scope(cmd, subject), m)
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "enter IMPORT even though the scope holds schemas")
	global.AddActorFlag(cmd)
	return cmd
}

func newDelete(name string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name + " [SUBJECT]",
		Short: "Remove the mode of a subject (or reset the global one)",
		Long: `Remove SUBJECT's own mode, so that the global one applies (DELETE
/mode/{subject}); without SUBJECT, reset the global mode to READWRITE. Prints
the mode removed.`,
		Example:           `  charter mode delete orders-value`,
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
			subject := ""
			if len(args) == 1 {
				subject = args[0]
			}
			m, err := c.DeleteMode(cmd.Context(), subject)
			if err != nil {
				return err
			}
			return render.Mode(cmd.OutOrStdout(), out, scope(cmd, subject), m)
		},
	}
	global.AddActorFlag(cmd)
	return cmd
}

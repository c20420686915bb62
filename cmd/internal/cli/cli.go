// Package cli builds Charter's command tree: the whole tree is visible in
// NewRootCommand, each verb lives in its own package under
// cmd/internal/command.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/audit"
	authcmd "github.com/charter-dev/charter/cmd/internal/command/auth"
	"github.com/charter-dev/charter/cmd/internal/command/changelog"
	"github.com/charter-dev/charter/cmd/internal/command/check"
	"github.com/charter-dev/charter/cmd/internal/command/completion"
	"github.com/charter-dev/charter/cmd/internal/command/config"
	"github.com/charter-dev/charter/cmd/internal/command/contracts"
	deletecmd "github.com/charter-dev/charter/cmd/internal/command/delete"
	"github.com/charter-dev/charter/cmd/internal/command/deprecate"
	"github.com/charter-dev/charter/cmd/internal/command/diff"
	"github.com/charter-dev/charter/cmd/internal/command/dismiss"
	"github.com/charter-dev/charter/cmd/internal/command/export"
	"github.com/charter-dev/charter/cmd/internal/command/extend"
	"github.com/charter-dev/charter/cmd/internal/command/get"
	"github.com/charter-dev/charter/cmd/internal/command/global"
	importcmd "github.com/charter-dev/charter/cmd/internal/command/import"
	initcmd "github.com/charter-dev/charter/cmd/internal/command/init"
	lineagecmd "github.com/charter-dev/charter/cmd/internal/command/lineage"
	"github.com/charter-dev/charter/cmd/internal/command/lookup"
	"github.com/charter-dev/charter/cmd/internal/command/migrate"
	"github.com/charter-dev/charter/cmd/internal/command/mode"
	"github.com/charter-dev/charter/cmd/internal/command/owners"
	"github.com/charter-dev/charter/cmd/internal/command/register"
	"github.com/charter-dev/charter/cmd/internal/command/rules"
	"github.com/charter-dev/charter/cmd/internal/command/serve"
	"github.com/charter-dev/charter/cmd/internal/command/subjects"
	"github.com/charter-dev/charter/cmd/internal/command/tags"
	upcastcmd "github.com/charter-dev/charter/cmd/internal/command/upcast"
	"github.com/charter-dev/charter/cmd/internal/command/version"
	"github.com/charter-dev/charter/cmd/internal/command/versions"
	"github.com/charter-dev/charter/compat/rule"
)

// Exit codes, as in STYLE: 1 when a command found violations, 2 for any
// other failure (usage, configuration, I/O such as a port in use).
const (
	ExitOK         = 0
	ExitViolations = 1
	ExitError      = 2
)

// ErrViolations is returned by commands that printed findings (compat
// checks, policy checks); the process then exits 1. It is
// rule.ErrFailed, which the gate commands return.
var ErrViolations = rule.ErrFailed

// Env is what the command tree talks to.
type Env struct {
	Stdout, Stderr io.Writer
	// Stdin, when set, replaces os.Stdin (`charter auth hash-password`
	// reads it).
	Stdin io.Reader
	// Ready, when set, receives the address `charter serve` listens on.
	Ready func(addr string)
}

// NewRootCommand returns the `charter` command with every sub-command.
func NewRootCommand(env Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "charter",
		Short:         "Charter is a schema registry compatible with Confluent Schema Registry clients",
		SilenceErrors: true,
		SilenceUsage:  true,
		// A mistyped command names the closest ones; Run makes cobra's
		// "Did you mean this?" block one line.
		SuggestionsMinimumDistance: 2,
	}
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	if env.Stdin != nil {
		root.SetIn(env.Stdin)
	}
	global.AddFlags(root.PersistentFlags())
	if err := root.RegisterFlagCompletionFunc(global.FlagOutput, global.CompleteOutput); err != nil {
		panic(err) // the flag was just added
	}
	root.CompletionOptions.DisableDefaultCmd = true // `charter completion` below
	versionCmd := version.NewCommand("version")
	addVersionFlag(root, versionCmd)
	root.SetHelpCommand(newHelpCommand())
	root.AddCommand(
		serve.NewCommand("serve", serve.Deps{Stderr: env.Stderr, Ready: env.Ready}),
		versionCmd,
		authcmd.NewCommand("auth"),
		upcastcmd.NewCommand("upcast", upcastcmd.Deps{ErrViolations: ErrViolations}),
		contracts.NewCommand("contracts", contracts.Deps{ErrViolations: ErrViolations}),
		initcmd.NewCommand("init"),
		check.NewCommand("check"),
		diff.NewCommand("diff"),
		rules.NewCommand("rules"),
		subjects.NewCommand("subjects"),
		versions.NewCommand("versions"),
		get.NewCommand("get"),
		register.NewCommand("register"),
		lookup.NewCommand("lookup"),
		config.NewCommand("config"),
		mode.NewCommand("mode"),
		deletecmd.NewCommand("delete"),
		export.NewCommand("export"),
		importcmd.NewCommand("import"),
		migrate.NewCommand("migrate"),
		completion.NewCommand("completion"),
		owners.NewCommand("owners", owners.Deps{}),
		deprecate.NewCommand("deprecate", deprecate.Deps{}),
		extend.NewCommand("extend", extend.Deps{}),
		tags.NewCommand("tags", tags.Deps{}),
		dismiss.NewCommand("dismiss", dismiss.Deps{}),
		changelog.NewCommand("changelog", changelog.Deps{}),
		audit.NewCommand("audit", audit.Deps{}),
		lineagecmd.NewCommand("lineage", lineagecmd.Deps{}),
	)
	completeCheck(root)
	refuseUnknownSubcommands(root)
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		defer global.HideGlobalFlags(c)()
		help(c, args)
	})
	addRuntimeDefaults(root)
	refuseEmptyArgs(root)
	return root
}

// flagInUse matches a flag and its value in a command's Use line
// ("--subject SUBJECT", "[--field PATH]"), which are not arguments.
var flagInUse = regexp.MustCompile(`\[?--?[a-z][a-z-]*(?:[ =][A-Z][A-Z_,.]*)?\]?`)

// argNames returns the names of c's arguments as its Use line gives them,
// each with whether it is optional: "mode set [SUBJECT] MODE" is SUBJECT
// (optional) and MODE.
func argNames(c *cobra.Command) (names []string, optional []bool) {
	_, use, _ := strings.Cut(c.Use, " ")
	for _, tok := range strings.Fields(flagInUse.ReplaceAllString(use, " ")) {
		opt := strings.HasPrefix(tok, "[")
		names = append(names, strings.TrimSuffix(strings.Trim(tok, "[]"), "..."))
		optional = append(optional, opt)
	}
	return names, optional
}

// argName names args[i] of c: by position, or, when an optional argument
// was left out (mode set MODE), among the required ones.
func argName(c *cobra.Command, args []string, i int) string {
	names, optional := argNames(c)
	var required []string
	for j, n := range names {
		if !optional[j] {
			required = append(required, n)
		}
	}
	switch {
	case len(names) == 0:
		return fmt.Sprintf("argument %d", i+1)
	case len(args) == len(required) && len(required) < len(names):
		return required[i]
	case i < len(names):
		return names[i]
	}
	return names[len(names)-1] // PACT_FILE...
}

// refuseEmptyArgs makes every command that takes arguments refuse an
// empty one (`charter lineage producers set S ""`) before it runs, as one
// line naming the argument and exit 2, instead of sending the registry a
// request with an empty path segment (which answered 404 Not Found). No
// command gives "" a meaning.
func refuseEmptyArgs(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseEmptyArgs(sub)
	}
	if !c.HasParent() || c.HasSubCommands() {
		return // the root and the groups name commands, not values
	}
	check := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		if check != nil {
			if err := check(cmd, args); err != nil {
				return err
			}
		}
		for i, a := range args {
			if strings.TrimSpace(a) == "" {
				path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
				return fmt.Errorf("%s: the %s argument is empty", path, argName(cmd, args, i))
			}
		}
		return nil
	}
}

// addRuntimeDefaults adds to every command what cobra would add when it runs (the
// -h/--help flags, the help command), so that the tree NewRootCommand
// returns is the one `charter` runs: the reference pages (Docs) are
// generated from it and show what --help shows.
func addRuntimeDefaults(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// addVersionFlag gives the root -v/--version, which runs the version
// command: the same line, or JSON with -o json, wherever -o is given.
// (cobra's own version flag prints a template that cannot see -o, and is
// added only when the command runs, so a flag after it was taken for its
// value: `charter --version -o json` was the unknown command "json".)
func addVersionFlag(root, versionCmd *cobra.Command) {
	root.Flags().BoolP("version", "v", false, "print Charter's version, as charter version does (-o json for JSON)")
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if on, _ := cmd.Flags().GetBool("version"); on {
			return versionCmd.RunE(cmd, args)
		}
		return cmd.Help()
	}
}

// newHelpCommand is `charter help [command]`: the help of the command
// named; a topic that names none is an error (exit 2) with the closest
// commands, as a mistyped command is, not the root's usage and exit 0.
func newHelpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help prints the help of any command: charter help COMMAND [SUBCOMMAND].",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			cmd, rest, err := root.Find(args)
			if err == nil && len(rest) == 0 {
				return cmd.Help()
			}
			if cmd == nil {
				cmd = root
			}
			topic := strings.Join(args, " ")
			name := args[len(args)-1]
			if len(rest) > 0 {
				name = rest[0]
			}
			if cmd.SuggestionsMinimumDistance <= 0 {
				cmd.SuggestionsMinimumDistance = 2 // as at the root
			}
			if sugg := cmd.SuggestionsFor(name); len(sugg) > 0 {
				return fmt.Errorf("unknown help topic %q: did you mean %s? (see %s --help)", topic, strings.Join(prefixed(cmd, sugg), " or "), cmd.CommandPath())
			}
			return fmt.Errorf("unknown help topic %q (see %s --help)", topic, cmd.CommandPath())
		},
	}
}

// prefixed returns the names of cmd's sub-commands in sugg as `charter
// help` takes them: "lineage graph" below the root.
func prefixed(cmd *cobra.Command, sugg []string) []string {
	path := strings.TrimPrefix(strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()), " ")
	out := make([]string, len(sugg))
	for i, s := range sugg {
		out[i] = strings.TrimSpace(path + " " + s)
	}
	return out
}

// completeCheck gives the flags of `charter check` with a fixed set of
// values their completion, unless the check package registered one.
func completeCheck(root *cobra.Command) {
	c, _, err := root.Find([]string{"check"})
	if err != nil || c == root {
		return
	}
	for flag, values := range map[string][]string{
		"format":  global.FormatValues(),
		"color":   global.ColorModes,
		"fail-on": {"error", "warning"},
	} {
		if c.Flags().Lookup(flag) == nil {
			continue
		}
		if _, ok := c.GetFlagCompletionFunc(flag); !ok {
			global.Enum(c, flag, values...)
		}
	}
}

// refuseUnknownSubcommands makes every command that only groups others
// (`charter config`, `charter contracts` …) fail on an argument that names
// none of them, with the usage error's exit code, instead of printing its
// help and exiting 0 (cobra does so below the root): `charter config S
// FULL` must not look like a change that worked. Without arguments such a
// command still prints its help.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if c.Runnable() || !c.HasSubCommands() || !c.HasParent() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		var names []string
		for _, s := range cmd.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2 // as cobra's default at the root
		}
		if sugg := cmd.SuggestionsFor(args[0]); len(sugg) > 0 {
			return fmt.Errorf("unknown command %q for %q: did you mean %s? (see %s --help)",
				args[0], cmd.CommandPath(), strings.Join(sugg, " or "), cmd.CommandPath())
		}
		return fmt.Errorf("unknown command %q for %q: want one of %s (see %s --help)",
			args[0], cmd.CommandPath(), strings.Join(names, ", "), cmd.CommandPath())
	}
}

// Run runs the command line args and returns the process exit code.
// Errors print as one line on stderr: `charter: <error>`; a registry's
// 401 or 403, or its certificate not trusted, as the line global.Explain
// makes, naming the registry.
func Run(ctx context.Context, args []string, env Env) int {
	root := NewRootCommand(env)
	root.SetArgs(args)
	ctx = global.WithTrail(ctx)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	if !errors.Is(err, ErrViolations) {
		msg := oneLine(err.Error())
		if line, ok := global.Explain(ctx, err); ok {
			msg = line
		}
		fmt.Fprintf(env.Stderr, "charter: %s\n", msg)
	}
	return exitCode(err)
}

// oneLine folds cobra's multi-line "unknown command" error, "unknown
// command \"chek\" for \"charter\"\n\nDid you mean this?\n\tcheck\n", into
// one line: `unknown command "chek" for "charter": did you mean check?`.
func oneLine(msg string) string {
	head, sugg, ok := strings.Cut(msg, "\n\nDid you mean this?\n")
	if !ok {
		return msg
	}
	names := strings.Fields(sugg)
	return head + ": did you mean " + strings.Join(names, " or ") + "? (see charter --help)"
}

// exitCode maps a command's error to the process exit code.
func exitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrViolations):
		return ExitViolations
	}
	return ExitError
}

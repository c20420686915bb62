// Package completion is the `charter completion` command: shell
// completion scripts.
package completion

import (
	"fmt"

	"github.com/spf13/cobra"
)

// NewCommand returns the completion command; it completes the command
// tree it is added to.
func NewCommand(name string) *cobra.Command {
	var noDesc bool
	cmd := &cobra.Command{
		Use:   name + " bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script of charter for a shell. Commands, flags and their
values complete; load the script in the shell's start-up file.`,
		Example: `  # Bash, for the current shell
  source <(charter completion bash)

  # Zsh, for every new shell
  charter completion zsh > "${fpath[1]}/_charter"

  # Fish
  charter completion fish > ~/.config/fish/completions/charter.fish`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		RunE: func(cmd *cobra.Command, args []string) error {
			root, w := cmd.Root(), cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(w, !noDesc)
			case "zsh":
				if noDesc {
					return root.GenZshCompletionNoDesc(w)
				}
				return root.GenZshCompletion(w)
			case "fish":
				return root.GenFishCompletion(w, !noDesc)
			case "powershell":
				if noDesc {
					return root.GenPowerShellCompletion(w)
				}
				return root.GenPowerShellCompletionWithDesc(w)
			}
			return fmt.Errorf("unknown shell %q: want bash, zsh, fish or powershell", args[0])
		},
	}
	cmd.Flags().BoolVar(&noDesc, "no-descriptions", false, "leave the descriptions out of the completions")
	return cmd
}

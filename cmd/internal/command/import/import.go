// Package importcmd is the `charter import` command: a dump written by
// `charter export` restored with its IDs and versions.
package importcmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/registry/client"
)

// NewCommand returns the import command.
func NewCommand(name string) *cobra.Command {
	var o client.ImportOptions
	cmd := &cobra.Command{
		Use:   name + " FILE",
		Short: "Restore a dump written by charter export, keeping IDs and versions",
		Long: `Restore a registry dump (FILE, or - for stdin) through the REST API: the global
mode goes to IMPORT, every version is registered with its schema ID and version
number (referenced schemas first), soft-deleted versions are deleted again,
then the configs, the governance data (policies, owners, tags, dismissals,
deprecations and their extensions) and the modes are set, and every version is
read back and compared with the dump. Dumps of format v1 (no governance data)
are read too.

Governance records get the import's time and actor: deprecation countdowns
start again from the import (same TTL), and an extension that has ended by
then is skipped. Each thing not restored as it is in the dump is printed on
stderr as a warning: deprecations declared by a schema's own mark, ended
extensions, removed fields and the audit log (both read-only).

The registry must be empty unless --force is given; then versions it already
holds with the same ID are kept (a stopped import can be resumed) and any other
difference fails the import. When a step fails, the global mode is put back.`,
		Example: `  # Restore a backup into a fresh registry
  charter import backup.json --registry http://127.0.0.1:8081

  # Copy one registry into another
  charter export --registry http://old:8081 | charter import - --registry http://new:8081`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			var data []byte
			if args[0] == "-" {
				data, err = io.ReadAll(cmd.InOrStdin())
			} else {
				data, err = os.ReadFile(args[0])
			}
			if err != nil {
				return fmt.Errorf("import: %w", err)
			}
			if len(bytes.TrimSpace(data)) == 0 {
				return fmt.Errorf("import: %s is empty; want a dump written by charter export", args[0])
			}
			d, err := client.ReadDump(data)
			if err != nil {
				return err
			}
			c, err := global.Client(cmd)
			if err != nil {
				return err
			}
			o.Warn = func(msg string) { fmt.Fprintf(cmd.ErrOrStderr(), "charter: warning: %s\n", msg) }
			n, err := c.Import(cmd.Context(), d, o)
			if errors.Is(err, client.ErrNotEmpty) {
				return fmt.Errorf("%w; import into an empty registry, or pass --force to add the dump to what it holds", err)
			}
			if err != nil {
				return err
			}
			return render.DumpCounts(cmd.OutOrStdout(), out, "imported", n)
		},
	}
	cmd.Flags().BoolVar(&o.Force, "force", false, "import into a registry that already holds subjects")
	cmd.Flags().BoolVar(&o.NoVerify, "no-verify", false, "do not read every version back after the import")
	global.AddActorFlag(cmd)
	return cmd
}

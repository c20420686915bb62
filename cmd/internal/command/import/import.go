// Package importcmd is the `charter import` command: a dump written by
// `charter export` restored with everything it holds.
package importcmd

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/progress"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/registry/client"
	"github.com/charter-dev/charter/registry/dump"
	"github.com/charter-dev/charter/registry/srerr"
)

// NewCommand returns the import command.
func NewCommand(name string) *cobra.Command {
	var (
		o          client.ImportDumpOptions
		force      bool
		noVerify   bool
		noProgress bool
	)
	cmd := &cobra.Command{
		Use:   name + " FILE",
		Short: "Restore a dump written by charter export, losing nothing",
		Long: `Restore a registry dump (FILE, or - for stdin) in one transaction of the
registry (POST /admin/import; admins only): nothing is written when the
import fails.

Into an empty registry the dump is restored exactly: every schema and ID,
version, soft delete, config and mode, every governance record with the
dates and actors it holds (deprecation countdowns go on from their original
dates; owners and extensions stay set by whom they were), contracts, lineage
and the audit log with its IDs. The import adds one audit entry of its own
(registry.import, naming who imported) after the restored history. The
registry is then read back and compared with the dump.

A registry that holds anything is refused, listing what it holds and the
conflicts a merge would meet. With --merge the dump is added to it: what it
lacks is added, what it holds alike is kept, lineage changes whose revisions
it uses are renumbered after its own and the dump's audit entries are
appended to its history; anything it holds otherwise (a schema ID with
other content, a version bound to another schema, another owner…) is a
conflict, and the import is refused, listing each. --dry-run reports what
would happen and writes nothing.

Dumps of the older formats v1 and v2 (written through the REST API) are
read too, with what they hold; a dump written by a newer Charter is refused.

While the dump uploads, stderr shows a progress bar (bytes, rate, elapsed
time, time left) when it is a terminal; otherwise one summary line at the
end when the upload and the registry's answer took a second or more
(--no-progress: neither). The registry restores the dump once it has it
all: the time after the bar is full is the registry's.`,
		Example: `  # Restore a backup into a fresh registry
  charter import backup.json --registry http://127.0.0.1:8081

  # What would a merge into a registry in use add, and what conflicts?
  charter import backup.json --merge --dry-run

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
			d, err := dump.Read(data)
			if err != nil {
				if isEmpty(data) {
					return fmt.Errorf("import: %s is empty; want a dump written by charter export", args[0])
				}
				return fmt.Errorf("import %s: %w", args[0], err)
			}
			// A dump is the whole registry's: --context does not narrow
			// it (the request goes under the context all the same).
			global.NoticeWholeRegistry(cmd, "restores the dump as it is")
			var bar *progress.Bar
			t := global.Target{}
			if !noProgress {
				bar = progress.New(cmd.ErrOrStderr(), progress.Options{Label: "import", Bytes: true, Total: int64(len(data)), QuietUnder: time.Second})
				t.Transport = func(next http.RoundTripper) http.RoundTripper { return progress.Upload(bar, next) }
			}
			c, err := global.Connect(cmd, t)
			if err != nil {
				return err
			}
			o.Merge = o.Merge || force
			rep, err := c.ImportDump(cmd.Context(), data, o)
			bar.Finish()
			if err != nil {
				if errors.Is(err, srerr.ErrNotFound) {
					return fmt.Errorf("%w: the registry at %s has no import endpoint (POST /admin/import): it is not a Charter registry, or an older one", err, c.URL())
				}
				return err
			}
			if err := render.ImportReport(cmd.OutOrStdout(), out, rep); err != nil {
				return err
			}
			// A merge adds to what was there; a dump of an older format is
			// re-encoded as the registry writes its records.
			if o.DryRun || o.Merge || noVerify || d.ReadFrom != "" {
				return nil
			}
			return verify(cmd, c, d, rep)
		},
	}
	cmd.Flags().BoolVar(&o.Merge, "merge", false, "add the dump to a registry that is not empty (conflicts still refuse it)")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "report what the import would add, keep and meet as conflicts; write nothing")
	cmd.Flags().BoolVar(&noVerify, "no-verify", false, "do not read the registry back and compare it with the dump")
	cmd.Flags().BoolVar(&noProgress, "no-progress", false, "show no progress on stderr")
	cmd.Flags().BoolVar(&force, "force", false, "the old name of --merge")
	_ = cmd.Flags().MarkDeprecated("force", "use --merge")
	global.AddActorFlag(cmd)
	return cmd
}

func isEmpty(data []byte) bool {
	for _, c := range data {
		if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// verify reads the registry back and compares it with d: the same dump,
// plus the import's own audit entry.
func verify(cmd *cobra.Command, c *client.Client, d *dump.Dump, rep client.ImportReport) error {
	b, err := c.ExportDump(cmd.Context())
	if err != nil {
		return fmt.Errorf("import: verify: %w", err)
	}
	got, err := dump.Read(b)
	if err != nil {
		return fmt.Errorf("import: verify: %w", err)
	}
	if diff := dump.Diff(d, got, rep.AuditID); diff != "" {
		return fmt.Errorf("import: verify: the registry does not export the dump imported: %s", diff)
	}
	return nil
}

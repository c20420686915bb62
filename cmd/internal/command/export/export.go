// Package export is the `charter export` command: the whole registry as
// one JSON dump that `charter import` restores.
package export

import (
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/progress"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/registry/dump"
)

// NewCommand returns the export command.
func NewCommand(name string) *cobra.Command {
	var (
		file       string
		audit      bool
		noProgress bool
	)
	cmd := &cobra.Command{
		Use:   name,
		Short: "Back up the whole registry as one JSON dump (restore it with charter import)",
		Long: `Write the whole registry as one JSON document (format "` + dump.Format + `"),
read by the registry in one transaction (GET /admin/export; admins only):

  - every schema by its global ID, and the largest ID ever handed out;
  - every subject version, soft-deleted ones included;
  - every stored config and mode, global or a subject's (also of subjects
    that have no version);
  - every governance record as stored, with the dates and actors it carries:
    owners (who set them, when), policies, tags, deprecations (declared when,
    by whom, expiring when) with their extensions (granted by whom, until
    when), PII dismissals, removed fields, version records (semantic
    versions, changelog), published contracts (consumer version, branch,
    pact) and the lineage history (producers, declared consumers);
  - the audit log, with its IDs.

Lists are sorted, so two dumps of equal registries are equal bytes. The dump
is every context's: --context does not narrow it (a notice on stderr says so).
charter import restores the dump into an empty registry exactly; charter
migrate copies one database into another without a server.

The dump goes to stdout, or to --file, in which case a summary is printed.
It holds the audit log and every record's actors: keep it as you keep the
database.

While the dump downloads, stderr shows a progress bar (bytes, rate, elapsed
time, time left) when it is a terminal; otherwise one summary line at the
end when the download took a second or more (--no-progress: neither).`,
		Example: `  # Back up a registry
  charter export --registry https://sr.example.com --file backup.json

  # Copy one registry into a fresh one
  charter export --registry http://old:8081 | charter import - --registry http://new:8081`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			// A dump is the whole registry's: --context does not narrow
			// it (the request goes under the context all the same).
			global.NoticeWholeRegistry(cmd, "dumps the whole registry")
			var bar *progress.Bar
			t := global.Target{}
			if !noProgress {
				bar = progress.New(cmd.ErrOrStderr(), progress.Options{Label: "export", Bytes: true, QuietUnder: time.Second})
				t.Transport = func(next http.RoundTripper) http.RoundTripper { return progress.Download(bar, next) }
			}
			c, err := global.Connect(cmd, t)
			if err != nil {
				return err
			}
			b, err := c.ExportDump(cmd.Context())
			bar.Finish()
			if err != nil {
				return err
			}
			d, err := dump.Read(b)
			if err != nil {
				return fmt.Errorf("export: the registry answered a dump that does not read: %w", err)
			}
			if file == "" || file == "-" {
				_, err := cmd.OutOrStdout().Write(b)
				return err
			}
			if err := os.WriteFile(file, b, 0o600); err != nil {
				return fmt.Errorf("export: %w", err)
			}
			return render.Dump(cmd.OutOrStdout(), out, "exported", d.Counts())
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "write the dump to this file instead of stdout")
	cmd.Flags().BoolVar(&noProgress, "no-progress", false, "show no progress on stderr")
	cmd.Flags().BoolVar(&audit, "audit", false, "(the dump always holds the audit log)")
	_ = cmd.Flags().MarkDeprecated("audit", "the dump always holds the audit log")
	return cmd
}

// Package export is the `charter export` command: the whole registry as
// one JSON dump that `charter import` restores.
package export

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/registry/client"
)

// NewCommand returns the export command.
func NewCommand(name string) *cobra.Command {
	var file string
	var opts client.ExportOptions
	cmd := &cobra.Command{
		Use:   name,
		Short: "Dump the whole registry to JSON (restore it with charter import)",
		Long: `Read the whole registry through its REST API and write it as one JSON document
(format "` + client.DumpFormat + `"): every schema once by its global ID, every
subject with its versions (soft-deleted ones included), the global and subject
configs and modes, and the governance data: the global and subject policies,
owners, governance tags, PII dismissals, deprecations with their extensions,
and the removed fields (for the record). With --audit the audit log is added
(read-only: charter import does not write it). charter import restores the
dump into another registry with the same IDs and versions.

The dump goes to stdout, or to --file, in which case a summary is printed.
Not in a dump: hard-deleted versions, configs or modes of subjects that have no
version at all (the REST API does not list them), and the policies, tags and
dismissals of subjects that have no version, owner or deprecation. Writes made
during the export may or may not be in it.`,
		Example: `  # Back up a registry
  charter export --registry https://sr.example.com --file backup.json

  # Back up with the governance audit log
  charter export --audit --file backup.json

  # Copy one registry into a fresh one
  charter export --registry http://old:8081 | charter import - --registry http://new:8081`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			c, err := global.Client(cmd)
			if err != nil {
				return err
			}
			d, err := c.Export(cmd.Context(), opts)
			if err != nil {
				return err
			}
			b, err := json.MarshalIndent(d, "", "  ")
			if err != nil {
				return fmt.Errorf("export: encode the dump: %w", err)
			}
			b = append(b, '\n')
			if file == "" || file == "-" {
				_, err := cmd.OutOrStdout().Write(b)
				return err
			}
			if err := os.WriteFile(file, b, 0o600); err != nil {
				return fmt.Errorf("export: %w", err)
			}
			return render.DumpCounts(cmd.OutOrStdout(), out, "exported", d.Counts())
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "write the dump to this file instead of stdout")
	cmd.Flags().BoolVar(&opts.Audit, "audit", false, "add the governance audit log to the dump (read-only)")
	return cmd
}

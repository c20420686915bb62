// Package diff is the `charter diff` command: two schema files compared
// rule by rule.
package diff

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/policy"
	"github.com/charter-dev/charter/registry/project"
)

// NewCommand returns the diff command.
func NewCommand(name string) *cobra.Command {
	var format, level, schemaType, subject string
	var importPaths []string
	cmd := &cobra.Command{
		Use:   name + " PREVIOUS NEXT",
		Short: "Compare two schema files rule by rule (NEXT as a new version of PREVIOUS)",
		Long: `Compare two schema files of one format rule by rule: NEXT as a new version of
PREVIOUS, at --level (default FULL, so both reading directions are reported).
References resolve next to each file. Exit code 1 when NEXT is incompatible at
the level, 2 on usage or I/O errors.`,
		Example: `  # Every rule that an Avro change breaks, in both directions
  charter diff old/order.avsc new/order.avsc

  # Only what stops new consumers from reading old data
  charter diff --level BACKWARD v1.proto v2.proto --format json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := render.ParseFormat(global.Format(cmd, format))
			if err != nil {
				return err
			}
			lvl, err := compat.ParseLevel(level)
			if err != nil {
				return fmt.Errorf("--level: %w", err)
			}
			var t compat.SchemaType
			if schemaType != "" {
				t = compat.SchemaType(strings.ToUpper(schemaType))
				if t != compat.Avro && t != compat.Protobuf && t != compat.JSON {
					return fmt.Errorf("invalid --type %q: want avro, protobuf or json", schemaType)
				}
			}
			res, err := project.DiffFiles(cmd.Context(), args[0], args[1], project.DiffOptions{
				Level: lvl, Format: t, Subject: subject, ImportPaths: importPaths,
			})
			if err != nil {
				return err
			}
			version, _ := buildinfo.Get()
			if err := render.Check(cmd.OutOrStdout(), f, res, render.Options{Title: "Charter schema diff", ToolVersion: version}); err != nil {
				return err
			}
			if res.Failed() {
				return policy.ErrFailed
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "text", "output format: "+render.FormatNames())
	fl.StringVar(&level, "level", "FULL", "compatibility level to judge at")
	fl.StringVar(&schemaType, "type", "", "schema format of both files: avro, protobuf or json (default: by extension)")
	fl.StringVar(&subject, "subject", "", "subject name shown in the output (default: <NEXT's name>-value)")
	fl.StringSliceVar(&importPaths, "import-path", nil, "Protobuf import path, relative to each file's directory (repeatable)")
	return cmd
}

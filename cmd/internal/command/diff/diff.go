// Package diff is the `charter diff` command: two schemas compared rule by
// rule, each a file or a registered version.
package diff

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/action/project"
	"github.com/charter-dev/charter/cmd/internal/buildinfo"
	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/rule"
)

// NewCommand returns the diff command.
func NewCommand(name string) *cobra.Command {
	var format, level, schemaType, subject, profile string
	var importPaths, refs []string
	var color *string
	cmd := &cobra.Command{
		Use:   name + " PREVIOUS NEXT",
		Short: "Compare two schemas rule by rule (NEXT as a new version of PREVIOUS)",
		Long: `Compare two schemas of one format rule by rule: NEXT as a new version of
PREVIOUS, at --level (default FULL, so both reading directions are reported).
Each side is a schema file or a registered version, registry:SUBJECT@VERSION
(VERSION a number or latest; registry:SUBJECT means the latest), read from the
registry of --registry. References of registered versions resolve in the
registry; those of files next to each file, or in the registry with --ref.
The text format is coloured on a terminal, as charter check's (--color,
NO_COLOR). Exit code 1 when NEXT is incompatible at the level, 2 on usage,
I/O or registry errors.`,
		Example: `  # Every rule that an Avro change breaks, in both directions
  charter diff old/order.avsc new/order.avsc

  # Only what stops new consumers from reading old data
  charter diff --level BACKWARD v1.proto v2.proto --format json

  # The working tree's file against the registered latest version
  charter diff registry:orders-value schemas/orders.avsc

  # Two registered versions
  charter diff registry:orders-value@1 registry:orders-value@3

  # A Protobuf change judged by buf's WIRE rules
  charter diff --protobuf-profile WIRE v1.proto v2.proto`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := global.Format(cmd, format)
			if err != nil {
				return err
			}
			useColor, err := global.Color(*color, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			lvl, err := compat.ParseLevel(level)
			if err != nil {
				return fmt.Errorf("--level: %w", err)
			}
			var t compat.SchemaType
			if schemaType != "" {
				var ok bool
				if t, ok = formats.ParseType(schemaType); !ok {
					return fmt.Errorf("invalid --type %q: want avro, protobuf or json", schemaType)
				}
			}
			prev, err := project.ParseDiffSide(args[0])
			if err != nil {
				return err
			}
			next, err := project.ParseDiffSide(args[1])
			if err != nil {
				return err
			}
			opts := project.DiffOptions{Level: lvl, Format: t, Subject: subject, ImportPaths: importPaths, ProtobufProfile: profile}
			for _, r := range refs {
				ref, err := global.ParseRef(r)
				if err != nil {
					return err
				}
				opts.References = append(opts.References, ref)
			}
			var src project.RegistrySource
			if prev.Registry() || next.Registry() || len(refs) > 0 {
				c, err := global.Client(cmd)
				if err != nil {
					return err
				}
				src = c
			}
			res, err := project.Diff(cmd.Context(), src, prev, next, opts)
			if err != nil {
				return err
			}
			version, _ := buildinfo.Get()
			ro := render.Options{Title: "Charter schema diff", ToolVersion: version, Color: useColor}
			if err := render.Check(cmd.OutOrStdout(), f, res, ro); err != nil {
				return err
			}
			if res.Failed() {
				return rule.ErrFailed
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "text", "output format: "+render.FormatNames()+" (default --output)")
	fl.StringVar(&level, "level", "FULL", "compatibility level to judge at")
	fl.StringVar(&schemaType, "type", "", "schema format of the files: avro, protobuf or json (default: by extension)")
	fl.StringVar(&subject, "subject", "", "subject name shown in the output (default: the registry side's subject, else <NEXT's name>-value)")
	fl.StringSliceVar(&importPaths, "import-path", nil, "Protobuf import path, relative to each file's directory (repeatable)")
	fl.StringArrayVar(&refs, "ref", nil, "registered schema the files use, NAME=SUBJECT:VERSION (repeatable)")
	fl.StringVar(&profile, "protobuf-profile", "", "Protobuf rule profile: CONFLUENT (default), WIRE or WIRE_JSON (buf's categories)")
	color = global.AddColorFlag(cmd)
	global.Enum(cmd, "format", global.FormatValues()...)
	global.Enum(cmd, "level", global.LevelValues()...)
	global.Enum(cmd, "type", "avro", "protobuf", "json")
	global.Enum(cmd, "protobuf-profile", "CONFLUENT", "WIRE", "WIRE_JSON")
	return cmd
}

// Package rules is the `charter rules` command: it lists every rule a
// check can report, from the same tables the checks use.
package rules

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/action/rules"
	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/rule"
)

// NewCommand returns the rules command.
func NewCommand(name string) *cobra.Command {
	var format, schemaType, category string
	cmd := &cobra.Command{
		Use:   name,
		Short: "List every rule: compatibility rules per format and policy rules",
		Long: `List every rule that charter check and charter diff can report, with its ID (as
findings and charter.yaml severity keys name it), format, category, default
severity and purpose. Compatibility rules come from the formats (Avro, Protobuf,
JSON Schema); policy rules from the project checks and the governance packages.
A Protobuf rule runs only in the profiles it lists (PROFILES): CONFLUENT, the
default, WIRE or WIRE_JSON, chosen by protobuf_profile in charter.yaml and by the
protobufProfile governance policy in the registry.`,
		Example: `  # Every rule
  charter rules

  # The Protobuf rules, as a Markdown table
  charter rules --type protobuf --format markdown`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := global.Format(cmd, format)
			if err != nil {
				return err
			}
			var want compat.SchemaType
			if schemaType != "" {
				var ok bool
				if want, ok = formats.ParseType(schemaType); !ok {
					return fmt.Errorf("invalid --type %q: want avro, protobuf or json", schemaType)
				}
			}
			var rs []rule.Rule
			for _, r := range rules.All() {
				if (want == "" || r.Format == want) && (category == "" || strings.EqualFold(r.Category, category)) {
					rs = append(rs, r)
				}
			}
			return render.Rules(cmd.OutOrStdout(), f, rs, render.Options{})
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json or markdown")
	cmd.Flags().StringVar(&schemaType, "type", "", "only the compatibility rules of one format: avro, protobuf or json")
	cmd.Flags().StringVar(&category, "category", "", "only one category: compatibility, project, …")
	return cmd
}

// Package rules is the `charter rules` command: it lists every rule a
// check can report, from the same tables the checks use.
package rules

import (
	"fmt"
	"slices"
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
	var color *string
	cmd := &cobra.Command{
		Use:   name + " [RULE_ID...]",
		Short: "List every rule: compatibility rules per format and policy rules",
		Long: `List every rule that charter check and charter diff can report, with its ID (as
findings and charter.yaml severity keys name it), format, category, default
severity and purpose. Compatibility rules come from the formats (Avro, Protobuf,
JSON Schema); policy rules from the project checks and the governance packages.
A Protobuf rule runs only in the profiles it lists (PROFILES): CONFLUENT, the
default, WIRE or WIRE_JSON, chosen by protobuf_profile in charter.yaml and by the
protobufProfile governance policy in the registry. RULE_ID arguments list only
those rules. The text format is coloured on a terminal, as charter check's
(--color, NO_COLOR). Formats: text, json and markdown (github and sarif
report findings, which a rule table has none of).`,
		Example: `  # Every rule
  charter rules

  # Two rules, as JSON
  charter rules AVRO_READER_FIELD_MISSING_DEFAULT PII_UNTAGGED -o json

  # The Protobuf rules, as a Markdown table
  charter rules --type protobuf --format markdown`,
		Args: cobra.ArbitraryArgs,
		ValidArgsFunction: func(_ *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
			return ruleIDs(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := global.Format(cmd, format)
			if err != nil {
				return err
			}
			switch f {
			case render.Text, render.JSON, render.Markdown:
			default:
				return fmt.Errorf("invalid %s %q for rules: want text, json or markdown", global.FormatFlagName(cmd), f)
			}
			useColor, err := global.Color(*color, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			ids := map[string]bool{}
			for _, a := range args {
				id := strings.ToUpper(strings.TrimSpace(a))
				if _, ok := rules.Lookup(id); !ok {
					return fmt.Errorf("unknown rule %q (charter rules lists them all)", a)
				}
				ids[id] = true
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
				if (want == "" || r.Format == want) && (category == "" || strings.EqualFold(r.Category, category)) && (len(ids) == 0 || ids[r.ID]) {
					rs = append(rs, r)
				}
			}
			return render.Rules(cmd.OutOrStdout(), f, rs, render.Options{Color: useColor})
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json or markdown (-o/--output sets it too; --format wins)")
	cmd.Flags().StringVar(&schemaType, "type", "", "only the compatibility rules of one format: avro, protobuf or json")
	cmd.Flags().StringVar(&category, "category", "", "only one category: "+strings.Join(categories(), ", "))
	color = global.AddColorFlag(cmd)
	global.Enum(cmd, "format", "text", "json", "markdown")
	global.Enum(cmd, "type", "avro", "protobuf", "json")
	global.Enum(cmd, "category", categories()...)
	return cmd
}

// ruleIDs lists the ID of every rule, for completion.
func ruleIDs() []string {
	var ids []string
	for _, r := range rules.All() {
		ids = append(ids, r.ID)
	}
	return ids
}

// categories lists the rules' categories, in catalogue order.
func categories() []string {
	var cs []string
	for _, r := range rules.All() {
		if !slices.Contains(cs, r.Category) {
			cs = append(cs, r.Category)
		}
	}
	return cs
}

// Package register is the `charter register` command: a schema file
// registered under a subject.
package register

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/registry/srerr"
)

// NewCommand returns the register command.
func NewCommand(name string) *cobra.Command {
	var in global.SchemaInput
	cmd := &cobra.Command{
		Use:   name + " SUBJECT FILE",
		Short: "Register a schema file under a subject",
		Long: `Register the schema in FILE under SUBJECT (POST /subjects/{subject}/versions) and
print the version it became and its global ID. A schema the subject already has
returns that version. The registry checks compatibility at the subject's level
and refuses an incompatible schema (run charter check or charter diff first to
see every finding).`,
		Example: `  # Register an Avro schema
  charter register orders-value schemas/orders.avsc

  # A Protobuf schema that imports another subject's file
  charter register shipment-value proto/shipment.proto \
    --ref acme/address.proto=acme.Address:latest

  # With data-contract metadata and rules
  charter register orders-value orders.avsc --metadata orders.meta.json --rule-set orders.rules.json`,
		Args:              cobra.ExactArgs(2),
		ValidArgsFunction: global.CompleteSubjects,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := global.RegistryOutput(cmd)
			if err != nil {
				return err
			}
			s, err := in.Read(args[1])
			if err != nil {
				return err
			}
			c, err := global.Client(cmd)
			if err != nil {
				return err
			}
			v, err := c.RegisterVersion(cmd.Context(), args[0], s, in.ReadOptions()...)
			if errors.Is(err, srerr.ErrIncompatibleSchema) {
				diff := "charter diff registry:" + args[0] + " " + args[1]
				for _, r := range in.Refs {
					diff += " --ref " + r
				}
				return fmt.Errorf("%w; `%s` lists each finding with its fix", err, diff)
			}
			if err != nil {
				return err
			}
			return render.Registered(cmd.OutOrStdout(), out, v)
		},
	}
	in.AddFlags(cmd.Flags())
	return cmd
}

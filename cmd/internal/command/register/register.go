// Package register is the `charter register` command: a schema file
// registered under a subject.
package register

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/cmd/internal/render"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/client"
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
see every finding).

The governance warnings and notices the registry reports (deprecated fields
still in use, untagged personal data, a missing owner …) follow on stderr, one
line each, then the version's semantic version; with -o json they are the
"findings" and "semver" members of the answer. Exit code 1 when the registry
refuses the schema as incompatible or against its governance policy, 2 for
other errors.`,
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
			v, err := c.RegisterVersionReport(cmd.Context(), args[0], s, in.ReadOptions()...)
			if errors.Is(err, srerr.ErrIncompatibleSchema) {
				diff := "charter diff registry:" + args[0] + " " + args[1]
				for _, r := range in.Refs {
					diff += " --ref " + r
				}
				err = fmt.Errorf("%w; `%s` lists each finding with its fix", err, diff)
			}
			if refused(err) {
				// A refusal is a finding, not a usage error: exit 1; with
				// -o json it is also the document on stdout.
				fmt.Fprintf(cmd.ErrOrStderr(), "charter: %v\n", err)
				if out == render.JSON {
					doc := struct {
						Subject   string `json:"subject"`
						Refused   bool   `json:"refused"`
						ErrorCode int    `json:"error_code,omitempty"`
						Message   string `json:"message"`
					}{Subject: args[0], Refused: true, Message: err.Error()}
					var api *srerr.APIError
					if errors.As(err, &api) && api.Err != nil {
						doc.ErrorCode = api.Err.Code
					}
					if werr := global.WriteJSON(cmd.OutOrStdout(), doc); werr != nil {
						return werr
					}
				}
				return rule.ErrFailed
			}
			if err != nil {
				return err
			}
			if out == render.JSON {
				return writeJSON(cmd.OutOrStdout(), v)
			}
			if err := render.Registered(cmd.OutOrStdout(), out, v.SubjectSchema); err != nil {
				return err
			}
			return writeFindings(cmd.ErrOrStderr(), v)
		},
	}
	in.AddFlags(cmd.Flags())
	global.Enum(cmd, "type", global.SchemaTypeValues...)
	global.AddActorFlag(cmd)
	return cmd
}

// refused reports the registry's refusals of a schema's content:
// incompatible, or against the governance policy.
func refused(err error) bool {
	return errors.Is(err, srerr.ErrIncompatibleSchema) || errors.Is(err, srerr.ErrPolicyViolation) ||
		errors.Is(err, srerr.ErrDeprecationExpired) || errors.Is(err, srerr.ErrRemovedFieldReused)
}

// writeFindings prints the registration's findings, one line each as
// charter check's text output heads them ("  warning  RULE  path:
// message"), then the semantic version.
func writeFindings(w io.Writer, v client.Registration) error {
	const sevW = 7 // "warning"
	ruleW := 0
	for _, f := range v.Findings {
		ruleW = max(ruleW, len(f.RuleID))
	}
	var b strings.Builder
	for _, f := range v.Findings {
		if f.RuleID == "" {
			fmt.Fprintf(&b, "  %s\n", f.Message)
			continue
		}
		fmt.Fprintf(&b, "  %-*s  %-*s  ", sevW, f.Severity, ruleW, f.RuleID)
		if f.Path != "" {
			b.WriteString(f.Path + ": ")
		}
		b.WriteString(f.Message + "\n")
	}
	if v.SemVer != "" {
		fmt.Fprintf(&b, "semver %s\n", v.SemVer)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeJSON writes the registration as render.Registered's json form plus
// its semantic version and findings.
func writeJSON(w io.Writer, v client.Registration) error {
	type doc struct {
		Subject  string                 `json:"subject"`
		Version  int                    `json:"version"`
		ID       int64                  `json:"id"`
		Type     compat.SchemaType      `json:"schemaType"`
		SemVer   string                 `json:"semver,omitempty"`
		Findings []client.HeaderFinding `json:"findings"`
	}
	d := doc{Subject: v.Subject, Version: v.Version, ID: v.ID, Type: v.Type, SemVer: v.SemVer, Findings: v.Findings}
	if d.Type == "" {
		d.Type = compat.Avro
	}
	if d.Findings == nil {
		d.Findings = []client.HeaderFinding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return fmt.Errorf("write json output: %w", err)
	}
	return nil
}

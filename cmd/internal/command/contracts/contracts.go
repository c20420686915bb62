// Package contracts is the `charter contracts` command: offline
// verification of consumer Pact message pacts against a proposed schema
// (`charter contracts verify`).
package contracts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
)

// Deps are the command's connections to the rest of the CLI.
type Deps struct {
	// ErrViolations is the error returned when a contract breaks; the
	// root command maps it to exit code 1.
	ErrViolations error
	// Now is the clock for deprecation TTLs (default time.Now).
	Now func() time.Time
}

// NewCommand returns the `contracts` command and its sub-commands.
func NewCommand(name string, deps Deps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name,
		Short: "Verify consumer contracts (Pact message pacts) against schemas",
		Example: `  # Check every consumer's pact against the proposed schema
  charter contracts verify pacts/*.json --schema schemas/orders.avsc

  # Publish a consumer's pact to the registry
  charter contracts publish pacts/billing.json --subject orders-value --consumer-version 1.4.0`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newVerifyCommand("verify", deps), newPublishCommand("publish", deps)) // publish.go
	return cmd
}

type verifyFlags struct {
	schema, typ, format, baseline, message, deprecations string
}

func newVerifyCommand(name string, deps Deps) *cobra.Command {
	var fl verifyFlags
	cmd := &cobra.Command{
		Use:   name + " PACT_FILE... --schema FILE",
		Short: "Check Pact message pacts against a proposed schema, offline",
		Example: `  # Check the pacts of two consumers against a proposed Avro schema
  charter contracts verify pacts/billing.json pacts/shipping.json --schema schemas/orders.avsc

  # Against a baseline (what consumers read today), as JSON for CI
  charter contracts verify pacts/*.json --schema orders-v2.avsc --baseline orders-v1.avsc --format json

  # A Protobuf schema whose subject carries a message other than the file's first
  charter contracts verify pacts/billing.json --schema proto/orders.proto --message acme.Order`,
		Long: `Check that every consumer whose pact file is given can still read messages
written with the proposed schema: each field its examples read exists with a type
its matchers accept, required-ness and enum values it relies on survive, and every
example decodes with the schema (Avro JSON form, Protobuf JSON mapping, JSON Schema).

Pact files: V3 message pacts ("messages") and V4 asynchronous message
interactions. The schema type comes from --type or the file extension
(.avsc AVRO, .proto PROTOBUF, .json JSON).

Exit status: 0 when every contract holds, 1 when one breaks, 2 on a usage or
input error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := global.FormatOrOutput(cmd, "text", "json")
			if err != nil {
				return fmt.Errorf("contracts verify: %w", err)
			}
			fl.format = format
			return runVerify(cmd.OutOrStdout(), args, fl, deps)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.schema, "schema", "", "proposed schema file (required)")
	f.StringVar(&fl.typ, "type", "", "schema type: AVRO, PROTOBUF or JSON (default: from the file extension)")
	f.StringVar(&fl.format, "format", "text", "output format: text or json (-o/--output sets it too; --format wins)")
	global.Enum(cmd, "format", "text", "json")
	global.Enum(cmd, "type", "AVRO", "PROTOBUF", "JSON")
	f.StringVar(&fl.baseline, "baseline", "", "schema consumers read today; dropping a guarantee it made becomes an error")
	f.StringVar(&fl.message, "message", "", "Protobuf message the subject carries (default: the file's first message)")
	f.StringVar(&fl.deprecations, "deprecations", "", `JSON file of deprecation records by field path: {".f": {"state": "DEPRECATED", "expires": "2025-06-01T00:00:00Z"}}`)
	return cmd
}

func runVerify(out io.Writer, pacts []string, fl verifyFlags, deps Deps) error {
	if fl.schema == "" {
		return errors.New("contracts verify: --schema is required")
	}
	if fl.format != "text" && fl.format != "json" {
		return fmt.Errorf("contracts verify: unknown --format %q (want text or json)", fl.format)
	}
	var typ compat.SchemaType
	if fl.typ != "" {
		var err error
		if typ, err = contracts.ParseSchemaType(fl.typ); err != nil {
			return fmt.Errorf("contracts verify: %w", err)
		}
	}
	schema, err := contracts.ReadSchemaFile(fl.schema, typ)
	if err != nil {
		return err
	}
	opts := contracts.Options{Message: fl.message}
	if deps.Now != nil {
		opts.Now = deps.Now()
	}
	if fl.baseline != "" {
		if opts.Baseline, err = contracts.ReadSchemaFile(fl.baseline, schema.Type()); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
	}
	if fl.deprecations != "" {
		raw, err := os.ReadFile(fl.deprecations)
		if err != nil {
			return fmt.Errorf("read deprecations: %w", err)
		}
		var m contracts.DeprecationMap
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("deprecations %s: %v", fl.deprecations, err)
		}
		opts.Deprecations = m
	}
	cs := make([]*contracts.Contract, 0, len(pacts))
	for _, p := range pacts {
		c, err := contracts.ReadContract(p)
		if err != nil {
			return err
		}
		cs = append(cs, c)
	}
	rep, err := contracts.Verify(cs, schema, opts)
	if err != nil {
		return err
	}
	switch fl.format {
	case "json":
		err = writeJSON(out, fl.schema, schema.Type(), pacts, rep)
	default:
		err = writeText(out, fl.schema, pacts, rep)
	}
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if rep.Broken() {
		if deps.ErrViolations != nil {
			return deps.ErrViolations
		}
		return errors.New("a contract breaks")
	}
	return nil
}

// jsonReport is the --format json output.
type jsonReport struct {
	Schema    string         `json:"schema"`
	Type      string         `json:"type"`
	Broken    bool           `json:"broken"`
	Contracts []jsonContract `json:"contracts"`
}

type jsonContract struct {
	Pact   string `json:"pact"`
	Broken bool   `json:"broken"`
	contracts.ContractResult
}

func writeJSON(w io.Writer, schemaPath string, t compat.SchemaType, pacts []string, rep *contracts.Report) error {
	out := jsonReport{Schema: schemaPath, Type: string(t), Broken: rep.Broken(), Contracts: []jsonContract{}}
	for i, c := range rep.Contracts {
		out.Contracts = append(out.Contracts, jsonContract{Pact: pacts[i], Broken: c.Broken(), ContractResult: c})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func writeText(w io.Writer, schemaPath string, pacts []string, rep *contracts.Report) error {
	var b strings.Builder
	broken := 0
	for i, c := range rep.Contracts {
		counts := map[rule.Severity]int{}
		for _, f := range c.Findings {
			counts[f.Severity]++
		}
		verdict := "PASS"
		if c.Broken() {
			verdict = "FAIL"
			broken++
		}
		fmt.Fprintf(&b, "%s %s → %s (%s, %s): %s\n", verdict, c.Consumer, c.Provider, pacts[i],
			rule.Plural(c.Interactions, "interaction"), summary(counts))
		for _, f := range c.Findings {
			pending := ""
			if f.Pending {
				pending = " (pending)"
			}
			fmt.Fprintf(&b, "  %-7s %s %s in %q%s: %s\n", f.Severity, f.RuleID, f.Path, f.Interaction, pending, f.Message)
		}
	}
	if broken > 0 {
		fmt.Fprintf(&b, "%d of %s broken by %s\n", broken, rule.Plural(len(rep.Contracts), "contract"), schemaPath)
	} else {
		verb := "hold"
		if len(rep.Contracts) == 1 {
			verb = "holds"
		}
		fmt.Fprintf(&b, "%s %s with %s\n", rule.Plural(len(rep.Contracts), "contract"), verb, schemaPath)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func summary(counts map[rule.Severity]int) string {
	var parts []string
	for _, s := range []rule.Severity{rule.Error, rule.Warning, rule.Notice} {
		if n := counts[s]; n > 0 {
			parts = append(parts, rule.Plural(n, s.String()))
		}
	}
	if len(parts) == 0 {
		return "no findings"
	}
	return strings.Join(parts, ", ")
}

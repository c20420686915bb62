package contracts

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/charter-dev/charter/cmd/internal/command/global"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/client"
)

type publishFlags struct {
	subject, consumer, consumerVersion, branch, actor string
}

// newPublishCommand returns `contracts publish`: one pact file to the
// registry (POST /governance/subjects/{s}/contracts).
func newPublishCommand(name string, deps Deps) *cobra.Command {
	var fl publishFlags
	cmd := &cobra.Command{
		Use:   name + " PACT_FILE --subject SUBJECT --consumer-version VERSION",
		Short: "Publish a consumer's Pact message pact to the registry",
		Long: `Publish the pact file of a consumer for the subject it reads. The registry
checks the pact (V3 "messages" or V4 asynchronous message interactions),
verifies it against the subject's latest version, stores it and records the
fields it reads as the consumer's lineage; every later registration of the
subject is verified against it.

The consumer is the pact's consumer name unless --consumer is given. A
contract the latest version breaks is stored all the same (the consumer may be
ahead of the producer): the command prints FAIL with the findings and exits 0;
use 'charter contracts verify' or the registry's gate to fail a build.`,
		Example: `  charter contracts publish pacts/billing-fulfillment.json --subject shipments-value \
    --consumer-version 1.4.2 --branch main`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPublish(cmd, args[0], fl)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.subject, "subject", "", "subject the consumer reads (required)")
	f.StringVar(&fl.consumerVersion, "consumer-version", "", "the consumer application's version, e.g. a release or a commit (required)")
	f.StringVar(&fl.branch, "branch", "", "the consumer's branch")
	f.StringVar(&fl.consumer, "consumer", "", "consumer name (default: the pact's consumer)")
	f.StringVar(&fl.actor, "actor", "", global.ActorUsage)
	global.CompleteSubjectFlag(cmd, "subject")
	return cmd
}

func runPublish(cmd *cobra.Command, file string, fl publishFlags) error {
	if strings.TrimSpace(fl.subject) == "" {
		return errors.New("contracts publish: --subject is required")
	}
	if strings.TrimSpace(fl.consumerVersion) == "" {
		return errors.New("contracts publish: --consumer-version is required")
	}
	format, err := global.Output(cmd, "text", "json")
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read pact: %w", err)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return fmt.Errorf("pact %s: not a JSON object: %v", file, err)
	}
	cl, err := registryClient(cmd, fl.actor)
	if err != nil {
		return err
	}
	rec, err := cl.PublishContract(cmd.Context(), fl.subject, client.PublishContract{
		Consumer: fl.consumer, ConsumerVersion: fl.consumerVersion, Branch: fl.branch, Pact: raw})
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if format == "json" {
		rec.Pact = nil
		enc := json.NewEncoder(out)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(rec)
	}
	return writePublished(out, rec)
}

func writePublished(w io.Writer, r client.ContractRecord) error {
	var b strings.Builder
	verdict := "PASS"
	if r.Verification.Broken() {
		verdict = "FAIL"
	}
	who := r.Consumer + " " + r.ConsumerVersion
	if r.Branch != "" {
		who += " (" + r.Branch + ")"
	}
	fmt.Fprintf(&b, "published contract of %s for %s: %s, %s\n", who, r.Subject, r.Spec, rule.Plural(r.Interactions, "interaction"))
	fmt.Fprintf(&b, "%s against %s version %d\n", verdict, r.Subject, r.Version)
	for _, f := range r.Verification.Findings {
		pending := ""
		if f.Pending {
			pending = " (pending)"
		}
		fmt.Fprintf(&b, "  %-7s %s %s in %q%s: %s\n", f.Severity, f.RuleID, f.Path, f.Interaction, pending, f.Message)
	}
	fmt.Fprintf(&b, "reads %s\n", strings.Join(r.Reads, ", "))
	_, err := io.WriteString(w, b.String())
	return err
}

// registryClient returns the client of the global --registry (see
// global.Connect) with who acts.
func registryClient(cmd *cobra.Command, actor string) (*client.Client, error) {
	return global.Connect(cmd, global.Target{Actor: strings.TrimSpace(actor)})
}

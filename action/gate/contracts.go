package gate

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/registry/governance"
)

// consumerOnly are the contract rules about the consumer's own use of
// deprecated fields. They fail the consumer's verification (publish,
// `charter contracts verify`, can-i-deploy, and `charter check` of the
// consumer's own repository: Input.Verifying), never a producer's
// registration: the deprecation table (DEPRECATION_*) judges the
// producer's side of the same fields, and keeps one path open.
var consumerOnly = map[string]bool{
	contracts.RuleFieldDeprecated: true,
	contracts.RuleFieldExpired:    true,
	contracts.RuleFieldExtended:   true,
}

// contractFindings verifies the published contracts of in.State against
// the candidate, with the latest version as baseline, and returns the
// producer-side findings at the policy's severities, and the
// consumer-only ones of the consumers in.Verifying names.
func contractFindings(in Input) ([]rule.Finding, error) {
	if len(in.State.Contracts) == 0 {
		return nil, nil
	}
	rep, err := VerifyContracts(in)
	if err != nil {
		return nil, err
	}
	var out []rule.Finding
	for _, f := range ContractPolicyFindings(in.Subject, in.State.Policy, rep) {
		if !consumerOnly[f.RuleID] || slices.Contains(in.Verifying, f.Consumer) {
			out = append(out, f)
		}
	}
	return out, nil
}

// ConsumerVerification is the own verification of the consumers
// in.Verifying names: their contracts among in.State's, verified against
// the candidate as contractFindings does, every finding kept (the
// consumer-only ones included). Evaluate includes them for a new
// version; `charter check` calls it for a schema the subject already has
// (Existing), which a consumer's repository usually holds: its pacts
// must still pass against it.
func ConsumerVerification(in Input) ([]rule.Finding, error) {
	var cs []governance.PublishedContract
	for _, pc := range in.State.Contracts {
		if slices.Contains(in.Verifying, pc.Consumer) {
			cs = append(cs, pc)
		}
	}
	if len(cs) == 0 {
		return nil, nil
	}
	in.State.Contracts = cs
	rep, err := VerifyContracts(in)
	if err != nil {
		return nil, err
	}
	return ContractPolicyFindings(in.Subject, in.State.Policy, rep), nil
}

// VerifyContracts verifies every contract of in.State against
// in.Candidate (in.Latest as the baseline when it has the candidate's
// type), with the deprecations of in.State at in.Now.
func VerifyContracts(in Input) (*contracts.Report, error) {
	rep := &contracts.Report{Contracts: []contracts.ContractResult{}}
	if len(in.State.Contracts) == 0 {
		return rep, nil
	}
	opts := contracts.Options{References: in.References, Deprecations: Deprecations(in.State.Deprecations), Now: in.Now}
	if l := in.Latest; l != nil && l.Schema != nil && l.Schema.Type() == in.Candidate.Schema.Type() {
		opts.Baseline = l.Schema
	}
	vf, err := contracts.NewVerifier(in.Candidate.Schema, opts)
	if ue := (*contracts.UnverifiableError)(nil); errors.As(err, &ue) && ue.Baseline {
		// A latest version that no contract can read (a .proto file
		// without a message) guarantees no field: verify without it.
		opts.Baseline = nil
		vf, err = contracts.NewVerifier(in.Candidate.Schema, opts)
	}
	if err != nil {
		return nil, fmt.Errorf("verify contracts of %q: %w", in.Subject, err)
	}
	for _, pc := range in.State.Contracts {
		p, err := contracts.ParsePact(pc.Pact)
		if err != nil {
			return nil, fmt.Errorf("contract of %s for %s: %w", pc.Consumer, in.Subject, err)
		}
		c := &contracts.Contract{Consumer: pc.Consumer, ConsumerVersion: pc.ConsumerVersion, Branch: pc.Branch, Subject: in.Subject, Pact: p}
		rep.Contracts = append(rep.Contracts, vf.Verify(c))
	}
	return rep, nil
}

// Deprecations is the governance deprecations of fields as the contract
// verifier reads them: expiry, replacement and, per consumer, the end of
// its latest extension.
func Deprecations(ds []governance.Deprecation) contracts.DeprecationMap {
	m := contracts.DeprecationMap{}
	for _, d := range ds {
		if d.Kind != governance.ItemField {
			continue
		}
		cd := contracts.Deprecation{State: contracts.StateDeprecated, Expires: d.ExpiresAt, Replacement: d.Replacement}
		for _, x := range d.Extensions {
			if cd.Extensions == nil {
				cd.Extensions = map[string]time.Time{}
			}
			if x.Until.After(cd.Extensions[x.Consumer]) {
				cd.Extensions[x.Consumer] = x.Until
			}
		}
		m[d.Path] = cd
	}
	return m
}

// ContractPolicyFindings groups the findings of a contract report by
// rule, consumer and path, names the interactions, and gives each group
// the policy's severity for its rule (a group of pending interactions is
// at most a warning).
func ContractPolicyFindings(subject string, pol governance.PolicyConfig, rep *contracts.Report) []rule.Finding {
	type key struct{ ruleID, consumer, path string }
	type group struct {
		f            contracts.Finding
		interactions []string
		pending      bool
	}
	groups := map[key]*group{}
	var order []key
	for _, cr := range rep.Contracts {
		for _, f := range cr.Findings {
			k := key{f.RuleID, f.Consumer, f.Path}
			gr := groups[k]
			if gr == nil {
				gr = &group{f: f, pending: true}
				groups[k] = gr
				order = append(order, k)
			}
			gr.interactions = append(gr.interactions, f.Interaction)
			gr.pending = gr.pending && f.Pending
		}
	}
	var out []rule.Finding
	for _, k := range order {
		gr := groups[k]
		sev, on := pol.Severity(k.ruleID)
		if !on {
			continue
		}
		if gr.pending && sev == rule.Error {
			sev = rule.Warning
		}
		f := gr.f
		where := fmt.Sprintf("interaction %q", gr.interactions[0])
		if n := len(gr.interactions); n > 1 {
			where = fmt.Sprintf("%d interactions (%q, …)", n, gr.interactions[0])
		}
		msg := fmt.Sprintf("contract of consumer %s", f.Consumer)
		if f.ConsumerVersion != "" {
			msg += " " + f.ConsumerVersion
		}
		msg += fmt.Sprintf(", %s: %s", where, f.Message)
		hint := contractHints[k.ruleID]
		if f.Expires != nil {
			hint = fmt.Sprintf("ends on %s; %s", f.Expires.UTC().Format("2006-01-02"), hint)
		}
		out = append(out, rule.Finding{RuleID: k.ruleID, Severity: sev, Subject: subject, Path: k.path, Message: msg, Hint: hint, Consumer: k.consumer})
	}
	Sort(out)
	return out
}

// contractHints are the fixes of contract findings, by rule.
var contractHints = map[string]string{
	contracts.RuleFieldMissing:       "keep the field (deprecate it first and give consumers time), or agree with the consumer that it stops reading it and update its pact",
	contracts.RuleTypeMismatch:       "keep a type the consumer's matcher accepts, or change the consumer and its pact first",
	contracts.RuleRequiredDropped:    "keep the field required, or change the consumer to cope without it and update its pact first",
	contracts.RuleFieldOptional:      "make the field required, or let the consumer's pact accept null",
	contracts.RuleEnumValueRemoved:   "keep the enum value the consumer's examples use",
	contracts.RuleEnumValueUnmatched: "make the consumer's matcher accept the schema's enum values, or narrow the enum",
	contracts.RuleExampleUndecodable: "make the schema accept the consumer's example message, or fix the example in its pact",
	contracts.RuleFieldDeprecated:    "move the consumer to the replacement before the field's deprecation ends",
	contracts.RuleFieldExpired:       "the field's deprecation has ended: the consumer must stop reading it, or needs an extension",
	contracts.RuleFieldExtended:      "the consumer's extension ends soon: move it to the replacement",
}

package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charter-dev/charter/action/gate"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/contracts"
	"github.com/charter-dev/charter/lineage"
	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/srerr"
)

// Consumer contracts (Charter issue 5): a consumer publishes a Pact
// message pact for the subject it reads; the registry validates it,
// verifies it against the subject's latest schema, stores it (governance
// record kind "contract", key the consumer) and records the fields it
// reads as the consumer's lineage (source "contract"), with an audit
// entry, in one transaction. Every registration of the subject is then
// verified against the published contracts (evaluate), and the findings
// go through the policy engine: the CONTRACT_* rules at their own
// severities by default (package contracts' declarations), raised or
// lowered per rule by the operator's policy.

const kindContract = "contract" // key consumer: ContractRecord

// Audit actions of contracts.
const (
	ActionContractPublish = "contract.publish"
	ActionContractDelete  = "contract.delete"
)

// PublishContractRequest publishes a consumer contract (POST
// /contracts/subjects/{s}/consumers): the pact file as the Pact
// ecosystem writes it (V3 "messages" or V4 asynchronous message
// interactions), the consumer's name (default: the pact's consumer), its
// application version and branch, and the subject it reads.
type PublishContractRequest struct {
	Subject         string          `json:"subject"`
	Consumer        string          `json:"consumer,omitempty"`
	ConsumerVersion string          `json:"consumerVersion"`
	Branch          string          `json:"branch,omitempty"`
	Pact            json.RawMessage `json:"pact"`
}

// ContractRecord is a published contract as stored: who published which
// pact when, and its verification against the subject's latest version at
// publication.
type ContractRecord struct {
	Subject         string          `json:"subject"`
	Consumer        string          `json:"consumer"`
	ConsumerVersion string          `json:"consumerVersion"`
	Branch          string          `json:"branch,omitempty"`
	Provider        string          `json:"provider,omitempty"`
	Spec            string          `json:"spec"`
	Interactions    int             `json:"interactions"`
	Pact            json.RawMessage `json:"pact"`
	PublishedAt     time.Time       `json:"publishedAt"`
	By              string          `json:"by,omitempty"`
	// Version is the subject version the contract was verified against
	// at publication; Verification the result.
	Version      int                      `json:"version"`
	Verification contracts.ContractResult `json:"verification"`
	// Reads are the fields the contract reads (schema paths): its
	// lineage "consumes" edge.
	Reads []string `json:"reads"`
	// Revision is the lineage revision that recorded the reads.
	Revision int64 `json:"revision"`
}

// Contract returns the record as a contracts.Contract, its pact parsed.
func (r ContractRecord) Contract() (*contracts.Contract, error) {
	p, err := contracts.ParsePact(r.Pact)
	if err != nil {
		return nil, fmt.Errorf("stored contract of %s for %s: %w", r.Consumer, r.Subject, err)
	}
	return &contracts.Contract{Consumer: r.Consumer, ConsumerVersion: r.ConsumerVersion, Branch: r.Branch, Subject: r.Subject, Pact: p}, nil
}

// PublishContract validates, verifies and stores a consumer contract and
// records its reads as lineage. Errors, with nothing stored: 42283 for a
// malformed pact, an unknown pact specification version, no consumer
// version or no subject; 40401 for a subject with no live version. A
// contract that the latest schema breaks is stored all the same (the
// consumer may be ahead of the producer): its Verification says so.
func (cr *ContractRegistry) PublishContract(ctx context.Context, req PublishContractRequest) (ContractRecord, error) {
	s := cr.s
	p, err := contracts.ParsePact(req.Pact)
	if err != nil {
		return ContractRecord{}, errInvalidGovernance("Invalid contract: %v", err)
	}
	c := &contracts.Contract{Consumer: strings.TrimSpace(req.Consumer), ConsumerVersion: strings.TrimSpace(req.ConsumerVersion),
		Branch: strings.TrimSpace(req.Branch), Subject: req.Subject, Pact: p}
	if c.Consumer == "" {
		c.Consumer = p.Consumer
	}
	if err := c.Validate(); err != nil {
		return ContractRecord{}, errInvalidGovernance("Invalid contract: %v", err)
	}
	if err := ValidateSubject(req.Subject); err != nil {
		return ContractRecord{}, err
	}
	var out ContractRecord
	err = s.gupdate(ctx, "publish contract", func(tx Tx, g GovernanceTx) error {
		latest, st, parsed, ok, err := s.latestParsed(ctx, tx, req.Subject)
		if err != nil {
			return err
		}
		if !ok {
			return errSubjectNotFound(req.Subject)
		}
		deps, err := s.resolveReferences(ctx, tx, st.Context, st.References)
		if err != nil {
			return err
		}
		state, err := listRecords[governance.Deprecation](ctx, g, kindDeprecation, req.Subject, false)
		if err != nil {
			return err
		}
		vf, err := contracts.NewVerifier(parsed, contracts.Options{References: deps, Deprecations: gate.Deprecations(state), Now: s.now()})
		if ue := (*contracts.UnverifiableError)(nil); errors.As(err, &ue) {
			return errInvalidGovernance("Invalid contract: no contract can be verified against version %d of subject '%s': %s",
				latest.Version, req.Subject, strings.TrimPrefix(ue.Err.Error(), "contracts: "))
		}
		if err != nil {
			return fmt.Errorf("verify contract against %s version %d: %w", req.Subject, latest.Version, err)
		}
		res := vf.Verify(c)
		var before ContractRecord
		had, err := getRecord(ctx, g, kindContract, req.Subject, c.Consumer, &before)
		if err != nil {
			return err
		}
		rec := ContractRecord{Subject: req.Subject, Consumer: c.Consumer, ConsumerVersion: c.ConsumerVersion, Branch: c.Branch,
			Provider: p.Provider, Spec: p.Spec, Interactions: len(p.Interactions), Pact: compactJSON(req.Pact),
			PublishedAt: s.now(), By: ActorFrom(ctx), Version: latest.Version, Verification: res, Reads: res.Reads}
		since, err := consumerSince(ctx, g, req.Subject, c.Consumer)
		if err != nil {
			return err
		}
		if since.IsZero() {
			since = rec.PublishedAt
		}
		ch, err := s.appendLineage(ctx, tx, g, lineage.Change{Kind: lineage.ChangeSetConsumer, Consumer: &lineage.Consumer{
			Service: c.Consumer, Subject: req.Subject, Fields: res.Reads, Range: lineage.VersionRange{From: latest.Version},
			Source: lineage.SourceContract, ContractVersion: c.ConsumerVersion, Branch: c.Branch, Since: since}})
		if err != nil {
			return err
		}
		rec.Revision = ch.Revision
		if err := putRecord(ctx, g, kindContract, req.Subject, c.Consumer, rec); err != nil {
			return err
		}
		out = rec
		return s.audit(ctx, g, ActionContractPublish, req.Subject, c.Consumer, nilIf(!had, contractSummary(before)), contractSummary(rec))
	})
	return out, err
}

// unverifiable answers a proposed schema that the contracts of subject
// cannot be verified against (a .proto file without a message) as 42201;
// other errors pass as they are.
func unverifiable(subject string, err error) error {
	if ue := (*contracts.UnverifiableError)(nil); errors.As(err, &ue) {
		return srerr.New(srerr.ErrInvalidSchema, "Invalid schema: the contracts published for subject '%s' cannot be verified against it: %s",
			subject, strings.TrimPrefix(ue.Error(), "contracts: "))
	}
	return err
}

// contractSummary is what the audit log keeps of a contract: who, which
// version, what it reads (the pact itself is in the record).
func contractSummary(r ContractRecord) any {
	return struct {
		Consumer        string   `json:"consumer"`
		ConsumerVersion string   `json:"consumerVersion"`
		Branch          string   `json:"branch,omitempty"`
		Version         int      `json:"version"`
		Broken          bool     `json:"broken"`
		Reads           []string `json:"reads"`
	}{r.Consumer, r.ConsumerVersion, r.Branch, r.Version, r.Verification.Broken(), r.Reads}
}

// Contracts returns the contracts published for subject ("" for every
// subject), by subject and consumer.
func (cr *ContractRegistry) Contracts(ctx context.Context, subject string) ([]ContractRecord, error) {
	s := cr.s
	var out []ContractRecord
	err := s.gview(ctx, "list contracts", func(_ Tx, g GovernanceTx) error {
		var err error
		out, err = listRecords[ContractRecord](ctx, g, kindContract, subject, subject == "")
		return err
	})
	return out, err
}

// Contract returns the contract consumer published for subject. Errors:
// 40480 none.
func (cr *ContractRegistry) Contract(ctx context.Context, subject, consumer string) (ContractRecord, error) {
	s := cr.s
	var out ContractRecord
	err := s.gview(ctx, "get contract", func(_ Tx, g GovernanceTx) error {
		return getContract(ctx, g, subject, consumer, &out)
	})
	return out, err
}

func getContract(ctx context.Context, g GovernanceTx, subject, consumer string, r *ContractRecord) error {
	ok, err := getRecord(ctx, g, kindContract, subject, consumer, r)
	if err == nil && !ok {
		err = errGovernanceNotFound("Consumer '%s' has published no contract for subject '%s'", consumer, subject)
	}
	return err
}

// DeleteContract withdraws consumer's contract for subject and removes the
// consumer from the subject's lineage. Errors: 40480 none.
func (cr *ContractRegistry) DeleteContract(ctx context.Context, subject, consumer string) (ContractRecord, error) {
	s := cr.s
	var out ContractRecord
	err := s.gupdate(ctx, "delete contract", func(tx Tx, g GovernanceTx) error {
		if err := getContract(ctx, g, subject, consumer, &out); err != nil {
			return err
		}
		if err := g.DeleteGovernanceRecord(ctx, kindContract, subject, consumer); err != nil {
			return fmt.Errorf("delete contract of %s for %q: %w", consumer, subject, err)
		}
		if _, err := s.appendLineage(ctx, tx, g, lineage.Change{Kind: lineage.ChangeRemoveConsumer,
			Consumer: &lineage.Consumer{Service: consumer, Subject: subject}}); err != nil {
			return err
		}
		return s.audit(ctx, g, ActionContractDelete, subject, consumer, contractSummary(out), nil)
	})
	return out, err
}

// ContractVerification is the verdict of the published contracts of a
// subject against a proposed schema (POST
// /contracts/subjects/{s}/verify): per contract, per interaction and
// field, with the policy findings a registration would get.
type ContractVerification struct {
	Subject string `json:"subject"`
	// Baseline is the subject's latest version the proposal is compared
	// with (required-ness), 0 for a new subject.
	Baseline int `json:"baseline,omitempty"`
	// Broken is true when a contract finding is an error (contract
	// semantics, whatever the policy severity).
	Broken bool `json:"broken"`
	// Allowed is false when a policy finding is an error.
	Allowed   bool                       `json:"allowed"`
	Contracts []contracts.ContractResult `json:"contracts"`
	Findings  []rule.Finding             `json:"findings"`
}

// VerifyContracts verifies the contracts published for subject against the
// proposed schema of req, as the next registration would, without
// registering it. Errors: as Register's for invalid input (42201, 42208,
// 42209); 40401 when the subject has no live version.
func (cr *ContractRegistry) VerifyContracts(ctx context.Context, subject string, req RegisterRequest) (ContractVerification, error) {
	s := cr.s
	if err := ValidateSubject(subject); err != nil {
		return ContractVerification{}, err
	}
	out := ContractVerification{Subject: subject}
	err := s.gview(ctx, "verify contracts", func(tx Tx, g GovernanceTx) error {
		versions, err := subjectVersions(ctx, tx, subject)
		if err != nil {
			return err
		}
		lv := live(versions)
		if len(lv) == 0 {
			return errSubjectNotFound(subject)
		}
		f, err := s.checkRequest(&req)
		if err != nil {
			return err
		}
		cand, err := s.newCandidate(ctx, tx, f, subject, req, req.Normalize)
		if err != nil {
			return err
		}
		now := s.now()
		st, err := s.loadState(ctx, tx, g, subject, now)
		if err != nil {
			return err
		}
		prev, err := storedSchema(ctx, tx, lv[len(lv)-1].Key())
		if err != nil {
			return err
		}
		pp, err := s.parseStored(ctx, tx, prev)
		if err != nil {
			return err
		}
		deps, err := s.resolveReferences(ctx, tx, cand.schema.Context, cand.schema.References)
		if err != nil {
			return err
		}
		out.Baseline = lv[len(lv)-1].Version
		in := gate.Input{Subject: subject, Now: now, Format: f, State: st, References: deps,
			Candidate: governance.Version{Version: out.Baseline + 1, Schema: cand.parsed, Metadata: cand.schema.Metadata, RuleSet: cand.schema.RuleSet},
			Latest:    &governance.Version{Version: out.Baseline, Schema: pp, Metadata: prev.Metadata, RuleSet: prev.RuleSet}}
		rep, err := gate.VerifyContracts(in)
		if err != nil {
			return unverifiable(subject, err)
		}
		fs := gate.ContractPolicyFindings(subject, st.Policy, rep)
		out.Contracts, out.Findings = rep.Contracts, fs
		out.Broken = rep.Broken()
		out.Allowed = !rule.Report{Findings: fs}.Failed()
		return nil
	})
	if out.Contracts == nil {
		out.Contracts = []contracts.ContractResult{}
	}
	if out.Findings == nil {
		out.Findings = []rule.Finding{}
	}
	return out, err
}

// errGovernanceNotFound is 40480 with a message.
func errGovernanceNotFound(format string, args ...any) error {
	return srerr.New(srerr.ErrGovernanceNotFound, format, args...)
}

// AddState adds the contracts published for subject to st.
func (cr *ContractRegistry) AddState(ctx context.Context, _ Tx, g GovernanceTx, subject string, _ time.Time, st *governance.SubjectState) error {
	recs, err := listRecords[ContractRecord](ctx, g, kindContract, subject, false)
	if err != nil {
		return err
	}
	for _, r := range recs {
		st.Contracts = append(st.Contracts, governance.PublishedContract{Consumer: r.Consumer, ConsumerVersion: r.ConsumerVersion, Branch: r.Branch, Pact: r.Pact})
	}
	return nil
}

// Registered records nothing: contracts change through their own calls.
func (cr *ContractRegistry) Registered(context.Context, GovernanceTx, Registered) error { return nil }

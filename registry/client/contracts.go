package client

import (
	"context"
	"fmt"
)

// Consumer contracts (Charter issue 5; GET /openapi.json on the server
// describes the routes, tag "lineage"). Errors decode to srerr sentinels:
// srerr.ErrInvalidGovernance (42283) for a malformed pact or an unknown
// pact specification, srerr.ErrSubjectNotFound (40401) for a subject with
// no live version, srerr.ErrGovernanceNotFound (40480) for a consumer with
// no contract.

// PublishContract publishes consumer contract p for subject (POST
// /governance/subjects/{s}/contracts) and returns the stored record with
// its verification against the subject's latest version. A contract the
// latest version breaks is stored all the same; its Verification says so.
func (c *Client) PublishContract(ctx context.Context, subject string, p PublishContract) (ContractRecord, error) {
	var out ContractRecord
	if err := c.do(ctx, "POST", subjectPath(subject, "contracts"), nil, p, &out); err != nil {
		return ContractRecord{}, fmt.Errorf("publish contract for subject %q: %w", subject, err)
	}
	return out, nil
}

// Contracts lists the contracts published for subject, or for every
// subject when subject is "", by subject and consumer.
func (c *Client) Contracts(ctx context.Context, subject string) ([]ContractRecord, error) {
	path := []string{"governance", "contracts"}
	if subject != "" {
		path = subjectPath(subject, "contracts")
	}
	out := []ContractRecord{}
	if err := c.do(ctx, "GET", path, nil, nil, &out); err != nil {
		return nil, fmt.Errorf("list contracts of subject %q: %w", subject, err)
	}
	return out, nil
}

// Contract returns the contract consumer published for subject.
func (c *Client) Contract(ctx context.Context, subject, consumer string) (ContractRecord, error) {
	var out ContractRecord
	if err := c.do(ctx, "GET", subjectPath(subject, "contracts", consumer), nil, nil, &out); err != nil {
		return ContractRecord{}, fmt.Errorf("get contract of %q for subject %q: %w", consumer, subject, err)
	}
	return out, nil
}

// WithdrawContract deletes consumer's contract for subject, removes the
// consumer from the subject's lineage, and returns the withdrawn record.
func (c *Client) WithdrawContract(ctx context.Context, subject, consumer string) (ContractRecord, error) {
	var out ContractRecord
	if err := c.do(ctx, "DELETE", subjectPath(subject, "contracts", consumer), nil, nil, &out); err != nil {
		return ContractRecord{}, fmt.Errorf("withdraw contract of %q for subject %q: %w", consumer, subject, err)
	}
	return out, nil
}

// VerifyContracts verifies the contracts published for subject against a
// proposed schema without registering it (POST
// /governance/subjects/{s}/contracts/verify). Errors: as Register's for an
// invalid schema (srerr.ErrInvalidSchema); srerr.ErrSubjectNotFound.
func (c *Client) VerifyContracts(ctx context.Context, subject string, s NewSchema) (ContractVerification, error) {
	var out ContractVerification
	if err := c.do(ctx, "POST", subjectPath(subject, "contracts", "verify"), nil, s, &out); err != nil {
		return ContractVerification{}, fmt.Errorf("verify contracts of subject %q: %w", subject, err)
	}
	return out, nil
}

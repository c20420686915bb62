package client

import (
	"encoding/json"
	"time"
)

// The contract and lineage API's JSON shapes (Charter issue 5), as the
// client decodes them. They mirror registry.ContractRecord,
// registry.ContractVerification, contracts.ContractResult and the types of
// package lineage field for field; the client imports none of them.

// PublishContract is what a consumer publishes for a subject (POST
// /governance/subjects/{s}/contracts): the pact file as the Pact ecosystem
// writes it (V3 "messages" or V4 asynchronous message interactions), the
// consumer's name (default: the pact's consumer), its application version
// (required) and branch.
type PublishContract struct {
	Consumer        string          `json:"consumer,omitempty"`
	ConsumerVersion string          `json:"consumerVersion"`
	Branch          string          `json:"branch,omitempty"`
	Pact            json.RawMessage `json:"pact"`
}

// ContractRecord is a published contract as stored, with its verification
// against the subject version that was latest at publication (Version).
// Reads are the schema paths the contract reads (".carrier_code");
// Revision is the lineage revision that recorded them. Pact is the pact
// file as published (omitted when encoding a record with none).
type ContractRecord struct {
	Subject         string          `json:"subject"`
	Consumer        string          `json:"consumer"`
	ConsumerVersion string          `json:"consumerVersion"`
	Branch          string          `json:"branch,omitempty"`
	Provider        string          `json:"provider,omitempty"`
	Spec            string          `json:"spec"`
	Interactions    int             `json:"interactions"`
	Pact            json.RawMessage `json:"pact,omitempty"`
	PublishedAt     time.Time       `json:"publishedAt"`
	By              string          `json:"by,omitempty"`
	Version         int             `json:"version"`
	Verification    ContractResult  `json:"verification"`
	Reads           []string        `json:"reads"`
	Revision        int64           `json:"revision"`
}

// ContractResult is the verdict for one contract: its findings in
// interaction order.
type ContractResult struct {
	Consumer        string            `json:"consumer"`
	ConsumerVersion string            `json:"consumerVersion,omitempty"`
	Branch          string            `json:"branch,omitempty"`
	Subject         string            `json:"subject,omitempty"`
	Provider        string            `json:"provider"`
	Interactions    int               `json:"interactions"`
	Reads           []string          `json:"reads"`
	Findings        []ContractFinding `json:"findings"`
}

// Broken reports whether a finding breaks the contract: an error
// ("error" severity) of an interaction that is not pending.
func (r ContractResult) Broken() bool {
	for _, f := range r.Findings {
		if f.Severity == "error" && !f.Pending {
			return true
		}
	}
	return false
}

// ContractFinding is one finding of a contract verification: the rule
// (CONTRACT_…), the field path, severity "error", "warning" or "notice",
// the interaction, and for deprecation findings the end of the TTL or of
// the consumer's extension.
type ContractFinding struct {
	RuleID          string     `json:"ruleId"`
	Path            string     `json:"path"`
	Message         string     `json:"message"`
	Severity        string     `json:"severity"`
	Consumer        string     `json:"consumer"`
	ConsumerVersion string     `json:"consumerVersion,omitempty"`
	Branch          string     `json:"branch,omitempty"`
	Subject         string     `json:"subject,omitempty"`
	Interaction     string     `json:"interaction"`
	Pending         bool       `json:"pending,omitempty"`
	Expires         *time.Time `json:"expires,omitempty"`
}

// ContractVerification is the verdict of a subject's published contracts
// against a proposed schema: Broken when a contract breaks, Allowed false
// when a policy finding is an error; Baseline is the latest version
// compared with.
type ContractVerification struct {
	Subject   string           `json:"subject"`
	Baseline  int              `json:"baseline,omitempty"`
	Broken    bool             `json:"broken"`
	Allowed   bool             `json:"allowed"`
	Contracts []ContractResult `json:"contracts"`
	Findings  []Finding        `json:"findings"`
}

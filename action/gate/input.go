package gate

import (
	"context"
	"time"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/registry/governance"
)

// Input is one judgement: a candidate version of a subject and all that
// the verdict depends on. Nothing in it is read from anywhere else.
type Input struct {
	// Context, when set, stops the compatibility comparisons once it
	// ends (the registry's request was abandoned): Evaluate and
	// CheckCompatibilityContext then return its error and no verdict.
	// nil never stops.
	Context context.Context
	Subject string
	// Now is the moment judged: the registry's clock, or --at.
	Now time.Time
	// Format parses the candidate and compares it (the subject's
	// Protobuf profile included).
	Format compat.Format
	// Level is the subject's effective compatibility level.
	Level compat.Level
	// Candidate is the schema judged. Its Version is the number it gets
	// (or has, when Existing).
	Candidate governance.Version
	// References are the candidate's references, resolved, in
	// dependency order (contract verification of JSON Schema needs them).
	References []compat.Dependency
	// Against are the earlier versions the level compares with, oldest
	// first (the registry limits them to the candidate's compatibility
	// group); non-transitive levels use the last one only. A version of
	// another schema type is reported as RuleSchemaTypeChanged.
	Against []compat.Previous
	// Compat, when set, is the compatibility verdict of Candidate
	// against the earlier versions at Level, already computed (the
	// registry's incremental transitive check, which holds no parsed
	// earlier versions): Evaluate and CheckCompatibilityContext use it
	// instead of comparing with Against. Against then serves the
	// deprecation rules only, and may be nil when State has no
	// deprecations.
	Compat *compat.Result
	// Latest is the subject's latest live version, the baseline of the
	// governance rules and the contracts; nil for a first version.
	Latest *governance.Version
	// Existing marks the re-registration of a version the subject
	// already has: only the deprecation rules run.
	Existing bool
	// State is the subject's governance state.
	State governance.SubjectState
	// Verifying names the consumers whose own verification this is:
	// their contracts (among State.Contracts) also get the findings
	// about their own use of deprecated fields (CONTRACT_FIELD_DEPRECATED,
	// _EXPIRED, _EXTENDED), which never fail a producer's registration.
	// `charter check` sets it to the consumers of the pacts charter.yaml
	// lists (the repository's own); the registry never does.
	Verifying []string
}

// Result is what Evaluate finds.
type Result struct {
	// Findings are every finding, sorted by severity (errors first),
	// rule ID, path and consumer, at their configured severities.
	Findings []rule.Finding
	// Compat is the compatibility verdict alone (the registry answers
	// 409 from it, in Confluent's format).
	Compat compat.Result
	// Governance carries what a registration records: the semantic
	// version, the classification, new inline deprecations, removed and
	// restored fields. Its Findings are part of Findings.
	Governance governance.Result
}

// Failed reports whether a finding is an error: the change is refused.
func (r Result) Failed() bool { return rule.Report{Findings: r.Findings}.Failed() }

// Incompatible reports whether the compatibility check failed.
func (r Result) Incompatible() bool { return !r.Compat.Compatible() }

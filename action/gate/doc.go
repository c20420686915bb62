// Package gate is Charter's one judge of a schema change. [Evaluate] is a
// pure function of its [Input]: a candidate version of a subject, the
// earlier versions it is compared with, the subject's governance state
// (owner, policy, deprecations and extensions, removed fields, published
// contracts, readers, tags, dismissals) and a clock. It returns every
// [rule.Finding]: compatibility at the subject's level, the governance
// rules (package registry/governance), the consumer contracts (package
// contracts) and the PII policy (package pii).
//
// The registry calls it inside the registration transaction, and for its
// dry run; `charter check --against registry` fetches the same state from
// the registry (GET /governance/subjects/{s}/state) and calls it too;
// offline, charter.yaml provides the state. A change that passes one
// passes the other.
package gate

// Package governance is Charter's governance model and policy engine
// (Charter issue 4): subject ownership, deprecations with TTLs and
// extensions, removed-means-reserved field names, PII policy, event-design
// rules, semantic versions and the changelog.
//
// It is pure: no I/O, no clock, no storage. The registry (package
// registry) loads a subject's [SubjectState] from its store, reads the
// time from its injected clock and calls [Evaluate] on every
// registration; the CLI gate (action/project) calls the same function
// with the state it reads from the registry's governance API
// (GET /governance/subjects/{s}/state), so both sides report the same
// findings for the same change.
//
// # Rules
//
// Every rule has a stable ID, a category and a default severity
// ([Rules]); the table is registered in package compat/rule, so
// `charter rules` lists it. Severities are configured per rule, globally
// and per subject ([PolicyConfig.Rules]): "error" refuses a registration
// (HTTP 422), "warning" and "notice" are reported with it, "off" skips the
// rule. The defaults never refuse a registration that an unmodified
// Confluent client sends, unless the operator has opted in: the only rule
// that is an error by default, DEPRECATION_EXPIRED, fires only for a
// deprecation someone declared through the governance API.
//
// # Deprecation states
//
// A deprecated item (a field path or a whole version) is "deprecated"
// from DeprecatedAt until ExpiresAt (DeprecatedAt + TTLDays × 24 h), then
// "expired"; an item without a deprecation is "active". Day 0 is the day of
// the deprecation, so with the default TTL of 90 days the item is
// deprecated on days 0 to 89 and expired from day 90 on.
//
// # Semantic versions
//
// [Classify] compares a new version with the previous one: a change that
// compat reports in a direction the subject's level checks is major (NONE
// is classified as BACKWARD, the Confluent default); any other structural
// change (fields added or removed, types, required/default, enum symbols,
// a field marked deprecated, as SemVer 2.0.0 §7 asks) is minor; what
// leaves the structure alone (docs, field order, tags, annotations,
// metadata, rules) is patch. Version 1 is 1.0.0.
package governance

package governance

import "github.com/charter-dev/charter/compat/rule"

// The answers of the governance API that are not records: one shape for
// the server (package registry) and the client (registry/client).

// FieldTags are the tags of one field of a subject's latest version, by
// where they come from.
type FieldTags struct {
	Path     string `json:"path"`
	FullName string `json:"fullName,omitempty"`
	// Tags is the union of the three sources, sorted.
	Tags []string `json:"tags"`
	// Inline are the schema's own tags (confluent:tags,
	// confluent.field_meta); Metadata those of the version's
	// metadata.tags globs; Governance those of the subject's governance
	// tags.
	Inline     []string `json:"inline,omitempty"`
	Metadata   []string `json:"metadata,omitempty"`
	Governance []string `json:"governance,omitempty"`
}

// TagsView is a subject's governance tags and the resulting tags of its
// latest version's fields (GET /governance/subjects/{s}/tags).
type TagsView struct {
	Subject string `json:"subject"`
	// Tags are the subject's governance tags: path glob → tags, matched as
	// Confluent metadata.tags globs are (against the field's full name).
	Tags map[string][]string `json:"tags"`
	// Version is the latest live version the fields come from, 0 when the
	// subject has none.
	Version int         `json:"version,omitempty"`
	Fields  []FieldTags `json:"fields"`
}

// Changelog is a subject's history (GET
// /governance/subjects/{s}/changelog): per live version, oldest first, its
// semantic version, class and changes, with the deprecations and
// extensions declared through the API under the version that was latest
// then (as changes of Bump none).
type Changelog struct {
	Subject string          `json:"subject"`
	Entries []VersionRecord `json:"entries"`
}

// CheckResult is the verdict on a schema not registered yet (POST
// /governance/subjects/{s}/check): the findings a registration would
// report (compatibility findings first, as errors with their compat rule
// IDs, then governance), with the semantic version and changes it would
// get.
type CheckResult struct {
	Subject string `json:"subject"`
	// Version is the version number the schema would get, or has when it
	// is already registered (Existing).
	Version  int            `json:"version"`
	Existing bool           `json:"existing,omitempty"`
	Allowed  bool           `json:"allowed"`
	Findings []rule.Finding `json:"findings"`
	SemVer   string         `json:"semver,omitempty"`
	Bump     Bump           `json:"bump,omitempty"`
	Changes  []Change       `json:"changes,omitempty"`
}

// RuleStatus is a governance rule with its severity under a policy (GET
// /governance/rules).
type RuleStatus struct {
	rule.Rule
	// DefaultSeverity repeats Rule.Severity under a clearer name.
	DefaultSeverity rule.Severity `json:"defaultSeverity"`
	// Effective is the severity under the policy asked for, "off" when
	// the rule is off.
	Effective string `json:"effective"`
}

// RuleStatuses returns every rule a policy configures (PolicyRules) with
// its severity under p.
func RuleStatuses(p PolicyConfig) []RuleStatus {
	var out []RuleStatus
	for _, r := range PolicyRules() {
		v := RuleStatus{Rule: r, DefaultSeverity: r.Severity, Effective: "off"}
		if sev, on := p.Severity(r.ID); on {
			v.Effective = sev.String()
		}
		out = append(out, v)
	}
	return out
}

package client

import (
	"context"
	"strings"
)

// Response headers by which Charter's registry reports a registration's
// governance warnings and notices and the version's semantic version
// (registry/api; Confluent clients ignore them).
const (
	FindingHeader = "Charter-Finding"
	SemVerHeader  = "Charter-Semver"
)

// Registration is the result of RegisterVersionReport: the version, and
// what the registry said about it.
type Registration struct {
	SubjectSchema
	// Findings are the governance warnings and notices, as the
	// Charter-Finding headers carry them: "warning DEPRECATION_ACTIVE
	// .carrier_code: field carrier_code is deprecated …".
	Findings []HeaderFinding
	// SemVer is the version's semantic version ("" from a registry that
	// does not send one).
	SemVer string
}

// HeaderFinding is one Charter-Finding header, split: "<severity>
// <rule> [<path>]: <message>".
type HeaderFinding struct {
	Severity string `json:"severity"`
	RuleID   string `json:"ruleId"`
	Path     string `json:"path,omitempty"`
	Message  string `json:"message"`
}

// ParseFindingHeader splits a Charter-Finding header value. A value
// that does not have the shape is kept whole as the message.
func ParseFindingHeader(v string) HeaderFinding {
	head, msg, ok := strings.Cut(v, ": ")
	if !ok {
		return HeaderFinding{Message: v}
	}
	parts := strings.Fields(head)
	switch len(parts) {
	case 2:
		return HeaderFinding{Severity: parts[0], RuleID: parts[1], Message: msg}
	case 3:
		return HeaderFinding{Severity: parts[0], RuleID: parts[1], Path: parts[2], Message: msg}
	}
	// A path with spaces, or something else: keep it readable.
	if len(parts) > 3 {
		return HeaderFinding{Severity: parts[0], RuleID: parts[1], Path: strings.Join(parts[2:], " "), Message: msg}
	}
	return HeaderFinding{Message: v}
}

// RegisterVersionReport is RegisterVersion that also returns the
// registration's Charter-Finding and Charter-Semver headers.
func (c *Client) RegisterVersionReport(ctx context.Context, subject string, s NewSchema, opts ...ReadOption) (Registration, error) {
	v, h, err := c.registerVersion(ctx, subject, s, opts)
	out := Registration{SubjectSchema: v}
	for _, f := range h.Values(FindingHeader) {
		out.Findings = append(out.Findings, ParseFindingHeader(f))
	}
	out.SemVer = h.Get(SemVerHeader)
	return out, err
}

package client

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"time"
)

// Charter's governance API (/governance/...; GET /openapi.json on the
// server describes it). The answers are this package's mirrors of package
// registry/governance's types. Errors decode to srerr sentinels as the
// Confluent calls' do, Charter's own codes included
// (srerr.ErrGovernanceNotFound, srerr.ErrInvalidGovernance …).

// ActorHeader is the header that tells the server who makes a change; its
// audit log records it.
const ActorHeader = "X-Charter-Actor"

// WithActor names who makes the changes sent through the client (the
// X-Charter-Actor header). Default: none, and the server records the
// basic-auth user or "anonymous".
func WithActor(name string) Option {
	return func(c *Client) {
		if name != "" {
			c.header.Set(ActorHeader, name)
		}
	}
}

func subjectPath(subject string, rest ...string) []string {
	return append([]string{"governance", "subjects", subject}, rest...)
}

// Owner returns the owner of subject (srerr.ErrGovernanceNotFound when it
// has none).
func (c *Client) Owner(ctx context.Context, subject string) (Owner, error) {
	var out Owner
	err := c.do(ctx, "GET", subjectPath(subject, "owner"), nil, nil, &out)
	return out, err
}

// SetOwner records the owner of subject: its team, contact channel and
// description, all three replaced ("" clears the description).
func (c *Client) SetOwner(ctx context.Context, subject, team, contact, description string) (Owner, error) {
	var out Owner
	in := map[string]string{"team": team, "contact": contact, "description": description}
	err := c.do(ctx, "PUT", subjectPath(subject, "owner"), nil, in, &out)
	return out, err
}

// OwnerUpdate changes an owner: a nil member keeps the stored value, a
// non-nil one replaces it ("" clears the description).
type OwnerUpdate struct {
	Team        *string `json:"team,omitempty"`
	Contact     *string `json:"contact,omitempty"`
	Description *string `json:"description,omitempty"`
}

// UpdateOwner applies u to the owner of subject (recording one when it has
// none, which needs a team and a contact) and returns the owner stored.
func (c *Client) UpdateOwner(ctx context.Context, subject string, u OwnerUpdate) (Owner, error) {
	var out Owner
	err := c.do(ctx, "PUT", subjectPath(subject, "owner"), nil, u, &out)
	return out, err
}

// DeleteOwner removes the owner of subject and returns it.
func (c *Client) DeleteOwner(ctx context.Context, subject string) (Owner, error) {
	var out Owner
	err := c.do(ctx, "DELETE", subjectPath(subject, "owner"), nil, nil, &out)
	return out, err
}

// Owners returns every ownership record, or team's only when team is not
// "".
func (c *Client) Owners(ctx context.Context, team string) ([]Owner, error) {
	var out []Owner
	q := url.Values{}
	if team != "" {
		q.Set("team", team)
	}
	err := c.do(ctx, "GET", []string{"governance", "owners"}, q, nil, &out)
	return out, err
}

func policyPath(subject string) []string {
	if subject == "" {
		return []string{"governance", "policy"}
	}
	return subjectPath(subject, "policy")
}

// Policy returns the stored policy of subject ("" for the global one).
func (c *Client) Policy(ctx context.Context, subject string) (PolicyConfig, error) {
	var out PolicyConfig
	err := c.do(ctx, "GET", policyPath(subject), nil, nil, &out)
	return out, err
}

// EffectivePolicy returns the policy that applies to subject.
func (c *Client) EffectivePolicy(ctx context.Context, subject string) (PolicyConfig, error) {
	var out PolicyConfig
	err := c.do(ctx, "GET", subjectPath(subject, "policy", "effective"), nil, nil, &out)
	return out, err
}

// SetPolicy replaces the policy of subject ("" global).
func (c *Client) SetPolicy(ctx context.Context, subject string, p PolicyConfig) (PolicyConfig, error) {
	var out PolicyConfig
	err := c.do(ctx, "PUT", policyPath(subject), nil, p, &out)
	return out, err
}

// DeletePolicy removes the policy of subject ("" global) and returns it.
func (c *Client) DeletePolicy(ctx context.Context, subject string) (PolicyConfig, error) {
	var out PolicyConfig
	err := c.do(ctx, "DELETE", policyPath(subject), nil, nil, &out)
	return out, err
}

// PolicyRules returns every governance rule with its default severity and
// its effective one (globally, or for subject).
func (c *Client) PolicyRules(ctx context.Context, subject string) ([]RuleStatus, error) {
	var out []RuleStatus
	q := url.Values{}
	if subject != "" {
		q.Set("subject", subject)
	}
	err := c.do(ctx, "GET", []string{"governance", "rules"}, q, nil, &out)
	return out, err
}

// DeprecateRequest deprecates a field path (Path) or a version (Version)
// of a subject. TTLDays 0 takes the policy's TTL.
type DeprecateRequest struct {
	Path        string `json:"path,omitempty"`
	Version     int    `json:"version,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Replacement string `json:"replacement,omitempty"`
	TTLDays     int    `json:"ttlDays,omitempty"`
}

// Deprecate deprecates a field or version of subject from now on.
func (c *Client) Deprecate(ctx context.Context, subject string, req DeprecateRequest) (DeprecationStatus, error) {
	var out DeprecationStatus
	err := c.do(ctx, "POST", subjectPath(subject, "deprecations"), nil, req, &out)
	return out, err
}

// Deprecations returns the deprecations of subject with their state now;
// with all, the latest version's other fields too, as active.
func (c *Client) Deprecations(ctx context.Context, subject string, all bool) ([]DeprecationStatus, error) {
	var out []DeprecationStatus
	q := url.Values{}
	if all {
		q.Set("all", "true")
	}
	err := c.do(ctx, "GET", subjectPath(subject, "deprecations"), q, nil, &out)
	return out, err
}

// AllDeprecations returns the deprecations of every subject.
func (c *Client) AllDeprecations(ctx context.Context) ([]DeprecationStatus, error) {
	var out []DeprecationStatus
	err := c.do(ctx, "GET", []string{"governance", "deprecations"}, nil, nil, &out)
	return out, err
}

// Deprecation returns the deprecation of item ("field:.a", ".a",
// "version:3").
func (c *Client) Deprecation(ctx context.Context, subject, item string) (DeprecationStatus, error) {
	var out DeprecationStatus
	err := c.do(ctx, "GET", subjectPath(subject, "deprecations", item), nil, nil, &out)
	return out, err
}

// Undeprecate removes the deprecation of item and returns it.
func (c *Client) Undeprecate(ctx context.Context, subject, item string) (Deprecation, error) {
	var out Deprecation
	err := c.do(ctx, "DELETE", subjectPath(subject, "deprecations", item), nil, nil, &out)
	return out, err
}

// ExtensionRequest grants a consumer team more time with a deprecated
// item: until Until, or for Days from now.
type ExtensionRequest struct {
	Consumer string    `json:"consumer"`
	Until    time.Time `json:"until,omitzero"`
	Days     int       `json:"days,omitempty"`
	Reason   string    `json:"reason"`
	Approver string    `json:"approver"`
}

// GrantExtension lets a consumer keep using item after its expiry.
func (c *Client) GrantExtension(ctx context.Context, subject, item string, req ExtensionRequest) (DeprecationStatus, error) {
	var out DeprecationStatus
	err := c.do(ctx, "POST", subjectPath(subject, "deprecations", item, "extensions"), nil, req, &out)
	return out, err
}

// RevokeExtension removes consumer's extension of item.
func (c *Client) RevokeExtension(ctx context.Context, subject, item, consumer string) (DeprecationStatus, error) {
	var out DeprecationStatus
	err := c.do(ctx, "DELETE", subjectPath(subject, "deprecations", item, "extensions", consumer), nil, nil, &out)
	return out, err
}

// Tags returns the governance tags of subject and the tags of its latest
// version's fields.
func (c *Client) Tags(ctx context.Context, subject string) (TagsView, error) {
	var out TagsView
	err := c.do(ctx, "GET", subjectPath(subject, "tags"), nil, nil, &out)
	return out, err
}

// SetTags replaces the governance tags of subject: path glob → tags.
func (c *Client) SetTags(ctx context.Context, subject string, tags map[string][]string) (TagsView, error) {
	var out TagsView
	err := c.do(ctx, "PUT", subjectPath(subject, "tags"), nil, map[string]any{"tags": tags}, &out)
	return out, err
}

// DeleteTags removes the governance tags of subject and returns them.
func (c *Client) DeleteTags(ctx context.Context, subject string) (map[string][]string, error) {
	var out struct {
		Tags map[string][]string `json:"tags"`
	}
	err := c.do(ctx, "DELETE", subjectPath(subject, "tags"), nil, nil, &out)
	return out.Tags, err
}

// Dismissals returns the PII dismissals of subject.
func (c *Client) Dismissals(ctx context.Context, subject string) ([]Dismissal, error) {
	var out []Dismissal
	err := c.do(ctx, "GET", subjectPath(subject, "dismissals"), nil, nil, &out)
	return out, err
}

// Dismiss records a reviewed PII false positive of field (for one detector
// pattern, or all with pattern ""). The registry refuses a field that no
// registered version has unless proposed is set (a field of a schema not
// registered yet).
func (c *Client) Dismiss(ctx context.Context, subject, field, pattern, reason string, proposed bool) (Dismissal, error) {
	var out Dismissal
	in := map[string]any{"field": field, "patternId": pattern, "reason": reason}
	if proposed {
		in["proposed"] = true
	}
	err := c.do(ctx, "POST", subjectPath(subject, "dismissals"), nil, in, &out)
	return out, err
}

// DeleteDismissal removes a dismissal and returns it.
func (c *Client) DeleteDismissal(ctx context.Context, subject, field, pattern string) (Dismissal, error) {
	var out Dismissal
	q := url.Values{}
	if pattern != "" {
		q.Set("patternId", pattern)
	}
	err := c.do(ctx, "DELETE", subjectPath(subject, "dismissals", field), q, nil, &out)
	return out, err
}

// RemovedFields returns the fields removed from subject that stay
// reserved.
func (c *Client) RemovedFields(ctx context.Context, subject string) ([]RemovedField, error) {
	var out []RemovedField
	err := c.do(ctx, "GET", subjectPath(subject, "removed"), nil, nil, &out)
	return out, err
}

// Changelog returns the changelog of subject.
func (c *Client) Changelog(ctx context.Context, subject string) (Changelog, error) {
	var out Changelog
	err := c.do(ctx, "GET", subjectPath(subject, "changelog"), nil, nil, &out)
	return out, err
}

// GovernanceState returns the governance state of subject.
func (c *Client) GovernanceState(ctx context.Context, subject string) (SubjectState, error) {
	var out SubjectState
	err := c.do(ctx, "GET", subjectPath(subject, "state"), nil, nil, &out)
	return out, err
}

// GovernanceStateJSON returns the governance state of subject as of at
// (zero: the registry's now) as the server sent it: decode it into
// governance.SubjectState to run the gate (action/gate) as registration
// does; `charter check --against registry` does.
func (c *Client) GovernanceStateJSON(ctx context.Context, subject string, at time.Time) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.do(ctx, "GET", subjectPath(subject, "state"), atQuery(at), nil, &out)
	return out, err
}

// atQuery is ?at=RFC3339 for a non-zero at, no query otherwise.
func atQuery(at time.Time) url.Values {
	if at.IsZero() {
		return nil
	}
	return url.Values{"at": {at.UTC().Format(time.RFC3339Nano)}}
}

// CheckGovernance evaluates s against subject as a registration would,
// without registering it.
func (c *Client) CheckGovernance(ctx context.Context, subject string, s NewSchema) (CheckResult, error) {
	return c.CheckGovernanceAt(ctx, subject, s, time.Time{})
}

// CheckGovernanceAt is CheckGovernance as of at (zero: the registry's
// now): what will the gate say when the TTLs run out?
func (c *Client) CheckGovernanceAt(ctx context.Context, subject string, s NewSchema, at time.Time) (CheckResult, error) {
	var out CheckResult
	err := c.do(ctx, "POST", subjectPath(subject, "check"), atQuery(at), s, &out)
	return out, err
}

// AuditQuery selects audit entries; zero fields do not filter.
type AuditQuery struct {
	Subject string
	// Action keeps actions starting with it ("deprecation.").
	Action       string
	Actor        string
	Since, Until time.Time
	// After keeps entries with a greater ID (paging); Limit caps the
	// answer (the server's default is 1000).
	After int64
	Limit int
}

// Audit returns the audit entries q selects, oldest first.
func (c *Client) Audit(ctx context.Context, q AuditQuery) ([]AuditEntry, error) {
	v := url.Values{}
	for k, s := range map[string]string{"subject": q.Subject, "action": q.Action, "actor": q.Actor} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339Nano))
	}
	if !q.Until.IsZero() {
		v.Set("until", q.Until.UTC().Format(time.RFC3339Nano))
	}
	if q.After > 0 {
		v.Set("after", strconv.FormatInt(q.After, 10))
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var out []AuditEntry
	err := c.do(ctx, "GET", []string{"governance", "audit"}, v, nil, &out)
	return out, err
}

// LatestWithMetadata returns the latest version of subject whose metadata
// properties hold every pair of want (Confluent's GET
// /subjects/{s}/metadata, use.latest.with.metadata).
func (c *Client) LatestWithMetadata(ctx context.Context, subject string, want map[string]string, opts ...ReadOption) (SubjectSchema, error) {
	q := readQuery(opts)
	for k, v := range want {
		q.Add("key", k)
		q.Add("value", v)
	}
	var out SubjectSchema
	err := c.do(ctx, "GET", []string{"subjects", subject, "metadata"}, q, nil, &out)
	defaultType(&out.Schema)
	return out, err
}

package client

import (
	"encoding/json"
	"time"
)

// The governance API's JSON shapes, as the client decodes them. They
// mirror package registry/governance's types field for field (the client
// imports no Charter package but srerr and compat); a tool that runs the
// policy engine itself decodes GovernanceStateJSON straight into
// governance.SubjectState.

// Owner is the owner of a subject: one team, a contact channel and a
// description.
type Owner struct {
	Subject     string    `json:"subject"`
	Team        string    `json:"team"`
	Contact     string    `json:"contact"`
	Description string    `json:"description,omitempty"`
	UpdatedAt   time.Time `json:"updatedAt"`
	UpdatedBy   string    `json:"updatedBy,omitempty"`
}

// PolicyConfig is a governance policy, global or a subject's settings
// over it. Rules maps rule IDs to "error", "warning", "notice" or "off".
type PolicyConfig struct {
	Rules              map[string]string `json:"rules,omitempty"`
	DeprecationTTLDays int               `json:"deprecationTtlDays,omitempty"`
	Envelope           *Envelope         `json:"envelope,omitempty"`
	PII                *PIIPolicy        `json:"pii,omitempty"`
	// ProtobufProfile selects the rules of Protobuf subjects: CONFLUENT
	// (the default), WIRE or WIRE_JSON.
	ProtobufProfile string `json:"protobufProfile,omitempty"`
}

// Envelope configures EVENT_ENVELOPE_INCOMPLETE: the names accepted per
// role and the path of the envelope record ("" for the top level).
type Envelope struct {
	Path          string   `json:"path,omitempty"`
	EventID       []string `json:"eventId,omitempty"`
	EventType     []string `json:"eventType,omitempty"`
	SchemaVersion []string `json:"schemaVersion,omitempty"`
	OccurredAt    []string `json:"occurredAt,omitempty"`
}

// PIIPolicy configures the PII rules.
type PIIPolicy struct {
	PIITags       []string `json:"piiTags,omitempty"`
	MaskTags      []string `json:"maskTags,omitempty"`
	MinConfidence string   `json:"minConfidence,omitempty"`
	AllowList     []string `json:"allowList,omitempty"`
}

// RuleStatus is a governance rule with its default and effective
// severity ("off" when off): the wire form of the server's
// governance.RuleStatus (a rule.Rule with DefaultSeverity and Effective),
// with severities as their names. TestRuleStatusMirrorsServer decodes the
// server's JSON into it strictly.
type RuleStatus struct {
	ID              string `json:"id"`
	Purpose         string `json:"purpose"`
	Category        string `json:"category"`
	Severity        string `json:"severity"`
	Source          string `json:"source,omitempty"`
	Off             bool   `json:"off,omitempty"`
	DefaultSeverity string `json:"defaultSeverity"`
	Effective       string `json:"effective"`
}

// Finding is one thing a gate reports: the wire form of compat/rule.Finding
// (the client imports neither it nor the server), with the severity as its
// name ("error", "warning", "notice"). TestFindingMirrorsServer decodes
// the server's JSON into it strictly.
type Finding struct {
	RuleID    string `json:"ruleId"`
	Severity  string `json:"severity"`
	Subject   string `json:"subject"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Path      string `json:"path,omitempty"`
	Message   string `json:"message"`
	Hint      string `json:"hint,omitempty"`
	Consumer  string `json:"consumer,omitempty"`
	Version   int    `json:"version,omitempty"`
	Direction string `json:"direction,omitempty"`
}

// Extension lets a consumer keep a deprecated item until Until.
type Extension struct {
	Consumer  string    `json:"consumer"`
	Until     time.Time `json:"until"`
	Reason    string    `json:"reason"`
	Approver  string    `json:"approver"`
	GrantedAt time.Time `json:"grantedAt"`
	GrantedBy string    `json:"grantedBy,omitempty"`
}

// Deprecation is a deprecated field path (Kind "field") or version (Kind
// "version") with its countdown and extensions.
type Deprecation struct {
	Subject      string      `json:"subject"`
	Kind         string      `json:"kind"`
	Path         string      `json:"path,omitempty"`
	Version      int         `json:"version,omitempty"`
	Reason       string      `json:"reason,omitempty"`
	Replacement  string      `json:"replacement,omitempty"`
	TTLDays      int         `json:"ttlDays,omitempty"`
	DeprecatedAt time.Time   `json:"deprecatedAt,omitzero"`
	ExpiresAt    time.Time   `json:"expiresAt,omitzero"`
	Source       string      `json:"source,omitempty"`
	SinceVersion int         `json:"sinceVersion,omitempty"`
	By           string      `json:"by,omitempty"`
	Extensions   []Extension `json:"extensions,omitempty"`
}

// DeprecationStatus is a deprecation with its state now: "deprecated"
// (counting down DaysLeft), "expired", or "active" (an item that is not
// deprecated, listed with all).
type DeprecationStatus struct {
	Deprecation
	State         string     `json:"state"`
	DaysLeft      int        `json:"daysLeft"`
	ExtendedUntil *time.Time `json:"extendedUntil,omitempty"`
	Consumers     []string   `json:"consumers,omitempty"`
}

// FieldTags are the tags of one field of a subject's latest version, by
// source.
type FieldTags struct {
	Path       string   `json:"path"`
	FullName   string   `json:"fullName,omitempty"`
	Tags       []string `json:"tags"`
	Inline     []string `json:"inline,omitempty"`
	Metadata   []string `json:"metadata,omitempty"`
	Governance []string `json:"governance,omitempty"`
}

// TagsView is a subject's governance tags and its fields' tags.
type TagsView struct {
	Subject string              `json:"subject"`
	Tags    map[string][]string `json:"tags"`
	Version int                 `json:"version,omitempty"`
	Fields  []FieldTags         `json:"fields"`
}

// Dismissal is a reviewed PII false positive.
type Dismissal struct {
	Subject   string    `json:"subject"`
	Field     string    `json:"field"`
	PatternID string    `json:"patternId,omitempty"`
	By        string    `json:"by"`
	Reason    string    `json:"reason"`
	At        time.Time `json:"at"`
}

// RemovedField is a field a version removed, reserved since.
type RemovedField struct {
	Subject          string    `json:"subject"`
	Path             string    `json:"path"`
	Name             string    `json:"name"`
	Type             string    `json:"type"`
	Number           int       `json:"number,omitempty"`
	Parent           string    `json:"parent,omitempty"`
	RemovedInVersion int       `json:"removedInVersion"`
	RemovedAt        time.Time `json:"removedAt"`
}

// Change is one difference between two versions as a sentence, with its
// semantic-version class: "none", "patch", "minor" or "major".
type Change struct {
	Kind string `json:"kind"`
	Path string `json:"path,omitempty"`
	Text string `json:"text"`
	Bump string `json:"bump"`
}

// VersionRecord is one version's semantic version and changes.
type VersionRecord struct {
	Subject      string    `json:"subject"`
	Version      int       `json:"version"`
	SchemaID     int64     `json:"schemaId"`
	SemVer       string    `json:"semver"`
	Bump         string    `json:"bump"`
	Changes      []Change  `json:"changes"`
	RegisteredAt time.Time `json:"registeredAt,omitzero"`
	By           string    `json:"by,omitempty"`
}

// Changelog is a subject's history, oldest version first.
type Changelog struct {
	Subject string          `json:"subject"`
	Entries []VersionRecord `json:"entries"`
}

// CheckResult is the verdict a registration would get.
type CheckResult struct {
	Subject  string    `json:"subject"`
	Version  int       `json:"version"`
	Existing bool      `json:"existing,omitempty"`
	Allowed  bool      `json:"allowed"`
	Findings []Finding `json:"findings"`
	SemVer   string    `json:"semver,omitempty"`
	Bump     string    `json:"bump,omitempty"`
	Changes  []Change  `json:"changes,omitempty"`
}

// SubjectState is a subject's governance state.
type SubjectState struct {
	Subject      string              `json:"subject"`
	Owner        *Owner              `json:"owner,omitempty"`
	Deprecations []Deprecation       `json:"deprecations"`
	Removed      []RemovedField      `json:"removed"`
	Dismissals   []Dismissal         `json:"dismissals"`
	Tags         map[string][]string `json:"tags,omitempty"`
	Policy       PolicyConfig        `json:"policy"`
	LatestSemVer string              `json:"latestSemver,omitempty"`
	Consumers    []string            `json:"consumers,omitempty"`
	// Readers maps each consumer reading the subject to the fields it
	// reads; Contracts are the published contracts; Compatibility is
	// the subject's effective level.
	Readers       map[string][]string `json:"readers,omitempty"`
	Contracts     []PublishedContract `json:"contracts,omitempty"`
	Compatibility string              `json:"compatibility,omitempty"`
	// ValidateFields, Normalize and CompatibilityGroup are the
	// subject's effective config; NextVersion the number its next new
	// version gets (the highest ever used, soft-deleted included, + 1).
	ValidateFields     bool   `json:"validateFields,omitempty"`
	Normalize          bool   `json:"normalize,omitempty"`
	CompatibilityGroup string `json:"compatibilityGroup,omitempty"`
	NextVersion        int    `json:"nextVersion,omitempty"`
}

// PublishedContract is a consumer's published pact as the gate reads it.
type PublishedContract struct {
	Consumer        string          `json:"consumer"`
	ConsumerVersion string          `json:"consumerVersion,omitempty"`
	Branch          string          `json:"branch,omitempty"`
	Pact            json.RawMessage `json:"pact"`
}

// AuditEntry is one governance change: who, when, what. Before and After
// are the changed record as JSON.
type AuditEntry struct {
	ID      int64           `json:"id"`
	Time    time.Time       `json:"time"`
	Actor   string          `json:"actor"`
	Action  string          `json:"action"`
	Subject string          `json:"subject,omitempty"`
	Target  string          `json:"target,omitempty"`
	Before  json.RawMessage `json:"before,omitempty"`
	After   json.RawMessage `json:"after,omitempty"`
}

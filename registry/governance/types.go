package governance

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Metadata property keys under which the registry exposes a subject's
// ownership in the Confluent `metadata.properties` of the versions it
// returns (GET /subjects/{s}/versions/{v}, /subjects/{s}/metadata, lookup),
// so that Confluent clients reading `metadata` see it. A version whose
// own metadata sets one of these keys keeps its value. A subject without
// an ownership record whose latest metadata sets PropOwner counts as
// owned by that team (OWNER_MISSING does not fire).
const (
	PropOwner            = "owner"
	PropOwnerContact     = "owner.contact"
	PropOwnerDescription = "owner.description"
)

// Owner is the ownership record of a subject: exactly one owning team, a
// contact channel (a chat channel, a mailing list, an on-call alias) and a
// description of what the subject carries.
type Owner struct {
	Subject     string    `json:"subject"`
	Team        string    `json:"team"`
	Contact     string    `json:"contact"`
	Description string    `json:"description,omitempty"`
	UpdatedAt   time.Time `json:"updatedAt"`
	UpdatedBy   string    `json:"updatedBy,omitempty"`
}

// Validate reports a missing team or contact.
func (o Owner) Validate() error {
	var missing []string
	if strings.TrimSpace(o.Team) == "" {
		missing = append(missing, "team")
	}
	if strings.TrimSpace(o.Contact) == "" {
		missing = append(missing, "contact")
	}
	if len(missing) > 0 {
		return fmt.Errorf("an owner needs a %s", strings.Join(missing, " and a "))
	}
	return nil
}

// ItemKind says what a deprecation is about.
type ItemKind string

// Deprecatable items.
const (
	ItemField   ItemKind = "field"
	ItemVersion ItemKind = "version"
)

// Item names a deprecatable thing of a subject: a field path
// (".carrier_code", as compat.Field.Path spells it) or a version number.
type Item struct {
	Kind    ItemKind `json:"kind"`
	Path    string   `json:"path,omitempty"`
	Version int      `json:"version,omitempty"`
}

// FieldItem returns the item of the field at path.
func FieldItem(path string) Item { return Item{Kind: ItemField, Path: path} }

// VersionItem returns the item of version v.
func VersionItem(v int) Item { return Item{Kind: ItemVersion, Version: v} }

// Key is the item's stable key: "field:" + path, or "version:" + n.
func (it Item) Key() string {
	if it.Kind == ItemVersion {
		return "version:" + strconv.Itoa(it.Version)
	}
	return "field:" + it.Path
}

// String names the item for a person: "field carrier_code", "version 3".
func (it Item) String() string {
	if it.Kind == ItemVersion {
		return "version " + strconv.Itoa(it.Version)
	}
	return "field " + Display(it.Path)
}

// ParseItem parses an item key: "version:3", "field:.a.b", or a bare
// field path (".a.b" or "a.b"; a leading dot is added).
func ParseItem(s string) (Item, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "version:"):
		n, err := strconv.Atoi(strings.TrimPrefix(s, "version:"))
		if err != nil || n < 1 {
			return Item{}, fmt.Errorf("invalid item %q: want version:N with N >= 1", s)
		}
		return VersionItem(n), nil
	case strings.HasPrefix(s, "field:"):
		s = strings.TrimPrefix(s, "field:")
	}
	if s == "" || s == "." {
		return Item{}, fmt.Errorf("invalid item: want a field path such as .carrier_code, or version:N")
	}
	if !strings.HasPrefix(s, ".") {
		s = "." + s
	}
	return FieldItem(s), nil
}

// Display spells a field path for sentences: without its leading dot
// ("carrier.code").
func Display(path string) string {
	if path == "." {
		return path
	}
	return strings.TrimPrefix(path, ".")
}

// Source says where a deprecation comes from.
type Source string

// Deprecation sources.
const (
	// SourceAPI: declared through the governance API (or the CLI).
	SourceAPI Source = "api"
	// SourceSchema: read from the schema text (Avro "deprecated",
	// JSON Schema "deprecated": true, the Protobuf deprecated option)
	// when the version was registered.
	SourceSchema Source = "schema"
)

// DefaultTTLDays is the deprecation TTL when neither the request, the
// subject's policy nor the global policy sets one.
const DefaultTTLDays = 90

// MaxTTLDays bounds TTLs and extensions (ten years).
const MaxTTLDays = 3650

// Day is the length of a TTL day: 24 hours of the clock, time zones
// aside.
const Day = 24 * time.Hour

// Deprecation is a deprecated field or version of a subject, with its
// countdown and the extensions granted to consumers that still need it.
type Deprecation struct {
	Subject string `json:"subject"`
	Item
	Reason string `json:"reason,omitempty"`
	// Replacement names what to use instead (a field path, a subject).
	Replacement  string    `json:"replacement,omitempty"`
	TTLDays      int       `json:"ttlDays,omitempty"`
	DeprecatedAt time.Time `json:"deprecatedAt,omitzero"`
	// ExpiresAt is DeprecatedAt + TTLDays days.
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	Source    Source    `json:"source,omitempty"`
	// SinceVersion is the subject's latest version when the item was
	// deprecated (the version that marked it, for SourceSchema).
	SinceVersion int         `json:"sinceVersion,omitempty"`
	By           string      `json:"by,omitempty"`
	Extensions   []Extension `json:"extensions,omitempty"`
}

// NewDeprecation returns a deprecation of item made at now with ttlDays
// (DefaultTTLDays when <= 0).
func NewDeprecation(subject string, item Item, now time.Time, ttlDays int, src Source) Deprecation {
	if ttlDays <= 0 {
		ttlDays = DefaultTTLDays
	}
	now = now.UTC()
	return Deprecation{
		Subject: subject, Item: item, TTLDays: ttlDays, Source: src,
		DeprecatedAt: now, ExpiresAt: now.Add(time.Duration(ttlDays) * Day),
	}
}

// Extension lets the deprecated item live on after its expiry, until
// Until, because a consumer team still needs it.
type Extension struct {
	Consumer  string    `json:"consumer"`
	Until     time.Time `json:"until"`
	Reason    string    `json:"reason"`
	Approver  string    `json:"approver"`
	GrantedAt time.Time `json:"grantedAt"`
	GrantedBy string    `json:"grantedBy,omitempty"`
}

// Validate reports a missing consumer, reason or approver, and an Until
// that is not after now or more than MaxTTLDays away.
func (e Extension) Validate(now time.Time) error {
	var missing []string
	for _, f := range []struct{ name, v string }{{"consumer", e.Consumer}, {"reason", e.Reason}, {"approver", e.Approver}} {
		if strings.TrimSpace(f.v) == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("an extension needs a consumer, a reason and an approver; missing: %s", strings.Join(missing, ", "))
	}
	if !e.Until.After(now) {
		return fmt.Errorf("extension end %s is not in the future", e.Until.UTC().Format(time.RFC3339))
	}
	if e.Until.After(now.Add(MaxTTLDays * Day)) {
		return fmt.Errorf("extension end %s is more than %d days away", e.Until.UTC().Format(time.RFC3339), MaxTTLDays)
	}
	return nil
}

// State is where a deprecatable item stands.
type State string

// Deprecation states: active → deprecated (countdown) → expired.
const (
	StateActive     State = "active"
	StateDeprecated State = "deprecated"
	StateExpired    State = "expired"
)

// StateAt returns the state of d at now.
func (d Deprecation) StateAt(now time.Time) State {
	if now.Before(d.ExpiresAt) {
		return StateDeprecated
	}
	return StateExpired
}

// DaysLeft returns the whole days until expiry at now, rounded up (1 on
// the last day), 0 once expired.
func (d Deprecation) DaysLeft(now time.Time) int {
	left := d.ExpiresAt.Sub(now)
	if left <= 0 {
		return 0
	}
	return int((left + Day - 1) / Day)
}

// ActiveExtensions returns the extensions that still run at now, latest
// end first.
func (d Deprecation) ActiveExtensions(now time.Time) []Extension {
	var out []Extension
	for _, e := range d.Extensions {
		if now.Before(e.Until) {
			out = append(out, e)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Until.After(out[j-1].Until); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// DeprecationStatus is a deprecation with its state at a given time: the
// read API of deprecation state (GET /governance/subjects/{s}/deprecations).
type DeprecationStatus struct {
	Deprecation
	State    State `json:"state"`
	DaysLeft int   `json:"daysLeft"`
	// ExtendedUntil is the end of the latest running extension, when one
	// runs; an expired item is allowed until then.
	ExtendedUntil *time.Time `json:"extendedUntil,omitempty"`
	// Consumers are the consumers known to rely on the item: those with a
	// running extension.
	Consumers []string `json:"consumers,omitempty"`
}

// Status returns d's status at now.
func (d Deprecation) Status(now time.Time) DeprecationStatus {
	st := DeprecationStatus{Deprecation: d, State: d.StateAt(now), DaysLeft: d.DaysLeft(now)}
	if act := d.ActiveExtensions(now); len(act) > 0 {
		until := act[0].Until
		st.ExtendedUntil = &until
		for _, e := range act {
			st.Consumers = append(st.Consumers, e.Consumer)
		}
	}
	return st
}

// RemovedField is a field that a version of the subject removed: its name
// stays reserved, so bringing it back with another type (or, in Protobuf,
// reusing its number for another field) is reported.
type RemovedField struct {
	Subject string `json:"subject"`
	Path    string `json:"path"`
	Name    string `json:"name"`
	Type    string `json:"type"`
	// Number is the Protobuf field number (0 in other formats), Parent
	// the path of its message (".Order").
	Number           int       `json:"number,omitempty"`
	Parent           string    `json:"parent,omitempty"`
	RemovedInVersion int       `json:"removedInVersion"`
	RemovedAt        time.Time `json:"removedAt"`
}

// Dismissal is a reviewed PII false positive: the field (its path, or its
// Confluent full name) is not personal data, for one detector pattern or
// for all of them (PatternID ""). The same finding never comes back.
type Dismissal struct {
	Subject   string    `json:"subject"`
	Field     string    `json:"field"`
	PatternID string    `json:"patternId,omitempty"`
	By        string    `json:"by"`
	Reason    string    `json:"reason"`
	At        time.Time `json:"at"`
	// Proposed, in a request only, dismisses a field that no registered
	// version has yet (one of a schema about to be registered); without
	// it such a field is refused as a likely typo.
	Proposed bool `json:"-"`
}

// Key is the dismissal's key within its subject.
func (d Dismissal) Key() string { return d.Field + "#" + d.PatternID }

// Validate reports a missing field or reason.
func (d Dismissal) Validate() error {
	if strings.TrimSpace(d.Field) == "" {
		return fmt.Errorf("a dismissal needs the field it is about")
	}
	if strings.TrimSpace(d.Reason) == "" {
		return fmt.Errorf("a dismissal needs a reason")
	}
	return nil
}

// AuditEntry is one governance change: who, when, what.
type AuditEntry struct {
	ID     int64     `json:"id"`
	Time   time.Time `json:"time"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"`
	// Subject is the subject changed, "" for global changes.
	Subject string `json:"subject,omitempty"`
	// Target names what changed within the subject: an item key, a rule
	// ID, a version.
	Target string `json:"target,omitempty"`
	// Before and After are the record before and after the change (JSON),
	// absent when there was none.
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// Audit actions.
const (
	ActionOwnerSet          = "owner.set"
	ActionOwnerDelete       = "owner.delete"
	ActionConfigSet         = "config.set"
	ActionConfigDelete      = "config.delete"
	ActionModeSet           = "mode.set"
	ActionModeDelete        = "mode.delete"
	ActionPolicySet         = "policy.set"
	ActionPolicyDelete      = "policy.delete"
	ActionDeprecationCreate = "deprecation.create"
	ActionDeprecationDelete = "deprecation.delete"
	ActionExtensionGrant    = "extension.grant"
	ActionExtensionRevoke   = "extension.revoke"
	ActionTagsSet           = "tags.set"
	ActionTagsDelete        = "tags.delete"
	ActionDismissalCreate   = "dismissal.create"
	ActionDismissalDelete   = "dismissal.delete"
	ActionSchemaRegister    = "schema.register"
	ActionSubjectDelete     = "subject.delete"
	ActionVersionDelete     = "version.delete"
	ActionFieldRemoved      = "field.removed"
	ActionContextDelete     = "context.delete"
)

// Bump is the semantic-version class of a change.
type Bump string

// Bumps, from the least to the most significant. None marks changelog
// entries that do not change the schema (a deprecation declared through
// the API, an extension).
const (
	BumpNone  Bump = "none"
	BumpPatch Bump = "patch"
	BumpMinor Bump = "minor"
	BumpMajor Bump = "major"
)

func (b Bump) rank() int {
	switch b {
	case BumpPatch:
		return 1
	case BumpMinor:
		return 2
	case BumpMajor:
		return 3
	}
	return 0
}

// Max returns the more significant of b and o.
func (b Bump) Max(o Bump) Bump {
	if o.rank() > b.rank() {
		return o
	}
	return b
}

// SemVer is a semantic version MAJOR.MINOR.PATCH.
type SemVer struct{ Major, Minor, Patch int }

// InitialSemVer is the semantic version of a subject's first version.
var InitialSemVer = SemVer{1, 0, 0}

func (v SemVer) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Next returns v bumped by b (unchanged for BumpNone).
func (v SemVer) Next(b Bump) SemVer {
	switch b {
	case BumpMajor:
		return SemVer{v.Major + 1, 0, 0}
	case BumpMinor:
		return SemVer{v.Major, v.Minor + 1, 0}
	case BumpPatch:
		return SemVer{v.Major, v.Minor, v.Patch + 1}
	}
	return v
}

// ParseSemVer parses "MAJOR.MINOR.PATCH".
func ParseSemVer(s string) (SemVer, error) {
	var v SemVer
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("invalid semantic version %q: want MAJOR.MINOR.PATCH", s)
	}
	for i, dst := range []*int{&v.Major, &v.Minor, &v.Patch} {
		n, err := strconv.Atoi(parts[i])
		if err != nil || n < 0 {
			return SemVer{}, fmt.Errorf("invalid semantic version %q: want MAJOR.MINOR.PATCH", s)
		}
		*dst = n
	}
	return v, nil
}

// Change is one difference between two versions, as a sentence a person
// reads, with its semantic-version class.
type Change struct {
	// Kind is a stable SCREAMING_SNAKE name (FIELD_ADDED,
	// FIELD_TYPE_CHANGED …) or, for a compatibility finding no field
	// change explains, the compat rule ID.
	Kind string `json:"kind"`
	Path string `json:"path,omitempty"`
	Text string `json:"text"`
	Bump Bump   `json:"bump"`
}

// VersionRecord is the governance record of one registered version: its
// semantic version and its changes from the previous live version.
type VersionRecord struct {
	Subject      string    `json:"subject"`
	Version      int       `json:"version"`
	SchemaID     int64     `json:"schemaId"`
	SemVer       string    `json:"semver"`
	Bump         Bump      `json:"bump"`
	Changes      []Change  `json:"changes"`
	RegisteredAt time.Time `json:"registeredAt,omitzero"`
	By           string    `json:"by,omitempty"`
}

package governance

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/charter-dev/charter/compat/formats"
	"github.com/charter-dev/charter/compat/protobuf"
	"github.com/charter-dev/charter/compat/rule"
	"github.com/charter-dev/charter/pii"
)

// PolicyConfig is the governance policy of the registry (global) or of
// one subject. A subject's effective policy is the global one with the
// subject's set fields over it ([MergePolicy]). The zero value is the
// default policy.
type PolicyConfig struct {
	// Rules sets rule severities by rule ID: "error", "warning" (or
	// "warn"), "notice" or "off". Rules not listed keep their default
	// ([Rules]).
	Rules map[string]string `json:"rules,omitempty"`
	// DeprecationTTLDays is the TTL of new deprecations that do not give
	// one, in days (default DefaultTTLDays).
	DeprecationTTLDays int `json:"deprecationTtlDays,omitempty"`
	// Envelope configures EVENT_ENVELOPE_INCOMPLETE.
	Envelope *Envelope `json:"envelope,omitempty"`
	// PII configures the PII rules.
	PII *PIIPolicy `json:"pii,omitempty"`
	// ProtobufProfile selects the compatibility rules of Protobuf
	// subjects: CONFLUENT (the default: Confluent Schema Registry's
	// verdicts), WIRE or WIRE_JSON (buf's categories); see
	// protobuf.ProfileNames.
	ProtobufProfile string `json:"protobufProfile,omitempty"`
}

// Envelope names the fields an event envelope must carry
// (EVENT_ENVELOPE_INCOMPLETE). Each role lists the names accepted for it,
// compared without regard to case, "_" and "-"; an empty list keeps the
// default. Path is the path of the record that holds the envelope fields:
// "" for the schema's top-level record (Protobuf: its first message), or
// a field path such as ".header".
type Envelope struct {
	Path          string   `json:"path,omitempty"`
	EventID       []string `json:"eventId,omitempty"`
	EventType     []string `json:"eventType,omitempty"`
	SchemaVersion []string `json:"schemaVersion,omitempty"`
	OccurredAt    []string `json:"occurredAt,omitempty"`
}

// Default envelope field names (CloudEvents' id, type, specversion/
// dataschema and time included).
var (
	DefaultEventIDNames       = []string{"event_id", "id", "message_id", "event_uuid"}
	DefaultEventTypeNames     = []string{"event_type", "type", "event_name"}
	DefaultSchemaVersionNames = []string{"schema_version", "event_version", "version", "specversion", "dataschema"}
	DefaultOccurredAtNames    = []string{"occurred_at", "occurrence_time", "event_time", "time", "timestamp"}
)

// PIIPolicy configures the PII rules (package pii). Empty fields keep
// pii's defaults.
type PIIPolicy struct {
	// PIITags are the tags that mark personal data (default PII,
	// SENSITIVE).
	PIITags []string `json:"piiTags,omitempty"`
	// MaskTags are the tags whose fields must carry a masking marker
	// (PII_UNMASKED); empty: none must.
	MaskTags []string `json:"maskTags,omitempty"`
	// MinConfidence is the least detector confidence that counts
	// ("low", "medium", "high"; default medium).
	MinConfidence string `json:"minConfidence,omitempty"`
	// AllowList adds field names the detector never flags.
	AllowList []string `json:"allowList,omitempty"`
}

// MergePolicy returns global with every field that subject sets over it:
// rule severities key by key, the TTL and the Protobuf profile when set,
// envelope and PII settings field by field.
func MergePolicy(global, subject PolicyConfig) PolicyConfig {
	out := global
	out.Rules = maps.Clone(global.Rules)
	if len(subject.Rules) > 0 {
		if out.Rules == nil {
			out.Rules = map[string]string{}
		}
		maps.Copy(out.Rules, subject.Rules)
	}
	if subject.DeprecationTTLDays > 0 {
		out.DeprecationTTLDays = subject.DeprecationTTLDays
	}
	if subject.ProtobufProfile != "" {
		out.ProtobufProfile = subject.ProtobufProfile
	}
	if subject.Envelope != nil {
		e := Envelope{}
		if global.Envelope != nil {
			e = *global.Envelope
		}
		s := subject.Envelope
		if s.Path != "" {
			e.Path = s.Path
		}
		for _, f := range []struct{ dst, src *[]string }{
			{&e.EventID, &s.EventID}, {&e.EventType, &s.EventType},
			{&e.SchemaVersion, &s.SchemaVersion}, {&e.OccurredAt, &s.OccurredAt},
		} {
			if len(*f.src) > 0 {
				*f.dst = *f.src
			}
		}
		out.Envelope = &e
	}
	if subject.PII != nil {
		p := PIIPolicy{}
		if global.PII != nil {
			p = *global.PII
		}
		s := subject.PII
		if len(s.PIITags) > 0 {
			p.PIITags = s.PIITags
		}
		if len(s.MaskTags) > 0 {
			p.MaskTags = s.MaskTags
		}
		if s.MinConfidence != "" {
			p.MinConfidence = s.MinConfidence
		}
		if len(s.AllowList) > 0 {
			p.AllowList = s.AllowList
		}
		out.PII = &p
	}
	return out
}

// TTLDays returns the deprecation TTL of c: DeprecationTTLDays, or
// DefaultTTLDays.
func (c PolicyConfig) TTLDays() int {
	if c.DeprecationTTLDays > 0 {
		return c.DeprecationTTLDays
	}
	return DefaultTTLDays
}

// Severity returns the severity rule id reports at under c and whether it
// is on: the configured severity, else the rule's default. Unknown rules
// are off.
func (c PolicyConfig) Severity(id string) (rule.Severity, bool) {
	if s, ok := c.Rules[id]; ok {
		sev, on, err := rule.ParseSeverity(s)
		if err == nil {
			return sev, on
		}
	}
	r, ok := LookupPolicyRule(id)
	if !ok {
		return rule.Notice, false
	}
	return r.Severity, !r.Off
}

// Validate reports unknown rule IDs (a compatibility rule's with a
// message saying that the subject's level sets it), unknown severities, a
// TTL out of range, an unknown Protobuf profile and an unknown PII
// confidence. Configs are validated before they are stored, so an
// evaluation never meets a bad one.
func (c PolicyConfig) Validate() error {
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(c.Rules)) {
		if _, ok := LookupPolicyRule(id); !ok {
			if compatRules()[id] {
				errs = append(errs, fmt.Errorf("rule %s is a compatibility rule: compatibility rules are set by the subject's compatibility level, not by the policy (PUT /config/{subject} {\"compatibility\": ...}, or charter config set SUBJECT --level ...)", id))
				continue
			}
			errs = append(errs, fmt.Errorf("unknown rule %q (GET /governance/rules lists them)", id))
			continue
		}
		if _, _, err := rule.ParseSeverity(c.Rules[id]); err != nil {
			errs = append(errs, fmt.Errorf("rule %s: %w", id, err))
		}
	}
	if c.DeprecationTTLDays < 0 || c.DeprecationTTLDays > MaxTTLDays {
		errs = append(errs, fmt.Errorf("deprecationTtlDays %d is out of range: want 1 to %d", c.DeprecationTTLDays, MaxTTLDays))
	}
	if c.Envelope != nil && c.Envelope.Path != "" && !strings.HasPrefix(c.Envelope.Path, ".") {
		errs = append(errs, fmt.Errorf("envelope path %q must be a field path starting with '.'", c.Envelope.Path))
	}
	if _, err := protobuf.ProfileByName(c.ProtobufProfile); err != nil {
		errs = append(errs, fmt.Errorf("protobufProfile: %w", err))
	}
	if c.PII != nil && c.PII.MinConfidence != "" {
		var conf pii.Confidence
		if err := conf.UnmarshalText([]byte(c.PII.MinConfidence)); err != nil {
			errs = append(errs, fmt.Errorf("pii.minConfidence: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("invalid policy: %w", err)
	}
	return nil
}

// compatRules are the IDs of the compatibility rules (every format's,
// and action/gate's SCHEMA_TYPE_CHANGED, which this package cannot
// import): the subject's level decides them, so a policy that names one
// is refused with a message that says so.
var compatRules = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{"SCHEMA_TYPE_CHANGED": true}
	for _, e := range formats.All() {
		for _, r := range e.Rules() {
			m[r.ID] = true
		}
	}
	return m
})

// Normalize returns c with severity names lower-cased and spelled as
// rule.Severity does ("warn" becomes "warning"), and the Protobuf profile
// upper-cased.
func (c PolicyConfig) Normalize() PolicyConfig {
	c.ProtobufProfile = strings.ToUpper(c.ProtobufProfile)
	if len(c.Rules) == 0 {
		return c
	}
	rules := make(map[string]string, len(c.Rules))
	for id, s := range c.Rules {
		sev, on, err := rule.ParseSeverity(s)
		switch {
		case err != nil:
			rules[id] = s
		case !on:
			rules[id] = "off"
		default:
			rules[id] = sev.String()
		}
	}
	c.Rules = rules
	return c
}

package project

import (
	"fmt"
	"net/url"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/protobuf"
	"github.com/charter-dev/charter/compat/rule"
)

// RuleProfileIgnored is the notice Check gives, against a registry, for a
// Protobuf rule profile charter.yaml sets (protobuf_profile) that differs
// from the registry's policy (protobufProfile) and is not stricter: the
// registry's profile decides, as registration judges the change.
const RuleProfileIgnored = "CONFIG_PROFILE_IGNORED"

// checker returns the Format that checks s against its baseline: its
// format, with a Protobuf rule profile for a Protobuf schema. Offline,
// the profile of s's schemas entry (protobuf_profile) wins, then the one
// the baseline applies (given as baseline), then charter.yaml's top-level
// protobuf_profile, then CONFLUENT. Against a registry with Charter's
// governance API (regPolicy: the policy's protobufProfile is the
// registry's, "" its default CONFLUENT) the registry's profile decides,
// as levels do: charter.yaml's (its schemas entry's, else its top-level
// one) applies only when it is stricter (WIRE_JSON over WIRE); one that
// differs otherwise (CONFLUENT and the WIRE profiles are not comparable)
// is ignored, and checker returns the RuleProfileIgnored notice.
func (p *Project) checker(s *Schema, baseline string, regPolicy bool) (compat.Format, *rule.Finding, error) {
	f := p.Formats[s.Format]
	if s.Format != compat.Protobuf {
		return f, nil, nil
	}
	local := p.Config.ProtobufProfile
	if s.mapping != nil && s.mapping.ProtobufProfile != "" {
		local = s.mapping.ProtobufProfile
	}
	if !regPolicy {
		profile := p.Config.ProtobufProfile
		if baseline != "" {
			profile = baseline
		}
		if s.mapping != nil && s.mapping.ProtobufProfile != "" {
			profile = s.mapping.ProtobufProfile
		}
		pf, err := compat.WithProfile(f, profile)
		return pf, nil, err
	}
	profile := baseline
	var notice *rule.Finding
	lp, lerr := protobuf.ProfileByName(local)
	rp, rerr := protobuf.ProfileByName(baseline)
	if local != "" && lerr == nil && rerr == nil && lp != rp {
		if lp == protobuf.ProfileWireJSON && rp == protobuf.ProfileWire {
			profile = local
		} else {
			notice = &rule.Finding{RuleID: RuleProfileIgnored, Severity: rule.Notice, Subject: s.Subject,
				Message: fmt.Sprintf("charter.yaml sets protobuf_profile %s for subject %s, but the registry's policy applies %s: registration is judged with %s, so check is too", profileName(local), s.Subject, profileName(baseline), profileName(baseline)),
				Hint:    fmt.Sprintf("charter.yaml may only make the registry's profile stricter (WIRE_JSON over WIRE); to change it, set protobufProfile in the registry's policy (PUT /governance/subjects/%s/policy) if every producer and consumer may, or remove protobuf_profile from charter.yaml", url.PathEscape(s.Subject))}
		}
	} else if lerr != nil {
		profile = local // reported as SCHEMA_INVALID, as offline
	}
	pf, err := compat.WithProfile(f, profile)
	return pf, notice, err
}

// profileName is a profile's name as charter.yaml and the policy spell
// it ("" is CONFLUENT).
func profileName(name string) string {
	if p, err := protobuf.ProfileByName(name); err == nil {
		for _, n := range protobuf.ProfileNames() {
			if q, _ := protobuf.ProfileByName(n); q == p {
				return n
			}
		}
	}
	return name
}

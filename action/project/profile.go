package project

import "github.com/charter-dev/charter/compat"

// checker returns the Format that checks s against its baseline: its
// format, with a Protobuf rule profile for a Protobuf schema. As with
// levels, the profile of s's schemas entry (protobuf_profile) wins, then
// the one the baseline applies (the registry's policy, given as
// baseline), then charter.yaml's top-level protobuf_profile, then
// CONFLUENT.
func (p *Project) checker(s *Schema, baseline string) (compat.Format, error) {
	f := p.Formats[s.Format]
	if s.Format != compat.Protobuf {
		return f, nil
	}
	profile := p.Config.ProtobufProfile
	if baseline != "" {
		profile = baseline
	}
	if s.mapping != nil && s.mapping.ProtobufProfile != "" {
		profile = s.mapping.ProtobufProfile
	}
	return compat.WithProfile(f, profile)
}

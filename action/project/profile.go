package project

import "github.com/charter-dev/charter/compat"

// checker returns the Format that checks s against its baseline: its
// format, with the Protobuf rule profile that charter.yaml gives its
// mapping (protobuf_profile) for a Protobuf schema.
func (p *Project) checker(s *Schema) (compat.Format, error) {
	f := p.Formats[s.Format]
	if s.Format != compat.Protobuf {
		return f, nil
	}
	return compat.WithProfile(f, p.Config.ProtobufProfileFor(s.mapping))
}

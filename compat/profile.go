package compat

import "fmt"

// Profiled is an optional capability of a Format whose rules come in named
// profiles that a subject selects (Protobuf: CONFLUENT, WIRE, WIRE_JSON).
type Profiled interface {
	// Profiles lists the profile names, the default first.
	Profiles() []string
	// WithProfile returns the Format that checks with the named profile
	// ("" is the default). The error names the valid profiles.
	WithProfile(name string) (Format, error)
}

// WithProfile returns f checking with the named rule profile: f itself for
// "", else f's [Profiled.WithProfile]. It fails for an unknown name and for
// a format without profiles.
func WithProfile(f Format, name string) (Format, error) {
	if name == "" {
		return f, nil
	}
	p, ok := f.(Profiled)
	if !ok {
		return nil, fmt.Errorf("%s has no rule profiles (asked for %q)", f.Type(), name)
	}
	return p.WithProfile(name)
}

package contracts

import (
	"math"
	"time"
)

// DeprecationState is where a deprecated field stands in its TTL.
type DeprecationState string

// Deprecation states. A deprecated field whose Expires has passed is
// expired whatever State says.
const (
	StateDeprecated DeprecationState = "DEPRECATED"
	StateExpired    DeprecationState = "EXPIRED"
)

// Deprecation is the governance record of one deprecated field: its state,
// when its TTL ends, what replaces it, and the extensions granted to
// consumers that still read it (consumer name → end of the extension).
type Deprecation struct {
	State       DeprecationState     `json:"state"`
	Expires     time.Time            `json:"expires,omitzero"`
	Replacement string               `json:"replacement,omitempty"`
	Extensions  map[string]time.Time `json:"extensions,omitempty"`
}

// Deprecations gives the deprecation record of a field of the schema being
// verified, by field path (".carrier_code"). Governance implements it;
// DeprecationMap is the in-memory form.
type Deprecations interface {
	// Deprecation returns the record of the field at path, ok false when
	// the field is not deprecated.
	Deprecation(path string) (d Deprecation, ok bool)
}

// DeprecationMap is a Deprecations held in a map from field path.
type DeprecationMap map[string]Deprecation

// Deprecation implements Deprecations.
func (m DeprecationMap) Deprecation(path string) (Deprecation, bool) {
	d, ok := m[path]
	return d, ok
}

// Expired reports whether the deprecation's TTL has ended at now.
func (d Deprecation) Expired(now time.Time) bool {
	return d.State == StateExpired || (!d.Expires.IsZero() && !now.Before(d.Expires))
}

// Extension returns the end of consumer's live extension at now, ok false
// when it holds none or it has ended.
func (d Deprecation) Extension(consumer string, now time.Time) (time.Time, bool) {
	end, ok := d.Extensions[consumer]
	if !ok || !now.Before(end) {
		return time.Time{}, false
	}
	return end, true
}

// daysLeft counts the started days from now until t (0 when t has passed).
func daysLeft(now, t time.Time) int {
	if !now.Before(t) {
		return 0
	}
	return int(math.Ceil(t.Sub(now).Hours() / 24))
}

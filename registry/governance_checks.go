package registry

import (
	"context"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/pii"
)

// knownPattern reports whether id names one of the PII detector's patterns.
func knownPattern(id string) bool {
	for _, p := range pii.Patterns() {
		if p.ID == id {
			return true
		}
	}
	return false
}

// dismissedField returns nil when a live version of subject, newest first,
// has field as a field path or Confluent full name; 40401 when the subject
// has no live version; 42283 otherwise, naming some of the latest
// version's fields.
func (s *Service) dismissedField(ctx context.Context, tx Tx, subject, field string) error {
	vs, err := subjectVersions(ctx, tx, subject)
	if err != nil {
		return err
	}
	lv := live(vs)
	if len(lv) == 0 {
		return errSubjectNotFound(subject)
	}
	var some []string
	for i := len(lv) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return err
		}
		st, err := storedSchema(ctx, tx, lv[i].Key())
		if err != nil {
			return err
		}
		p, err := s.parseStored(ctx, tx, st)
		if err != nil {
			return err
		}
		for _, f := range compat.Fields(p) {
			if f.Path == field || f.FullName == field {
				return nil
			}
			if i == len(lv)-1 && len(some) < 10 {
				some = append(some, f.Path)
			}
		}
	}
	return errInvalidGovernance("Invalid dismissal: no version of subject '%s' has a field %q (its latest fields include %s); "+
		"for a field of a schema not registered yet, dismiss it as proposed (\"proposed\": true; charter dismiss --proposed)", subject, field, strings.Join(some, ", "))
}

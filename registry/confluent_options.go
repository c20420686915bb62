package registry

import (
	"context"
	"strings"

	"github.com/charter-dev/charter/registry/srerr"
)

// serverSettings are Confluent server settings that are off by default
// there and here.
type serverSettings struct {
	// rejectEmptySubject refuses to register under the empty subject of
	// a context (":.:", ":.ctx:") and under "*" (Confluent's
	// schema.reject.empty.subject).
	rejectEmptySubject bool
	// strictReferenceVersions refuses a reference graph that holds one
	// reference name at two versions (Confluent's
	// schema.providers.reference.versions.strict).
	strictReferenceVersions bool
}

// WithRejectEmptySubject makes registration refuse (42208) the subject
// "*" and a subject that is only a context prefix, such as ":.:", as
// Confluent's schema.reject.empty.subject does
// (RestApiRejectEmptySubjectTest). Default off: both are subjects like
// any other, as in Confluent.
func WithRejectEmptySubject(on bool) Option {
	return func(s *Service) { s.settings.rejectEmptySubject = on }
}

// WithReferenceVersionsStrict makes a schema whose references, followed
// transitively, name one reference at two different subject versions
// invalid (42201 "Conflicting reference versions"), as Confluent's
// schema.providers.reference.versions.strict does
// (RestApiReferenceVersionsStrictTest); the versions compared are the
// resolved ones ("latest" counts as the version it names), and a name at
// two subjects conflicts too. Default off: the first version of a name
// met, depth first, is the one used, as in Confluent.
func WithReferenceVersionsStrict(on bool) Option {
	return func(s *Service) { s.settings.strictReferenceVersions = on }
}

// checkEmptySubject refuses subject under WithRejectEmptySubject.
func (s *Service) checkEmptySubject(subject string) error {
	if !s.settings.rejectEmptySubject {
		return nil
	}
	name := subject
	// A context prefix is ":.ctx:"; what follows it is the subject.
	if strings.HasPrefix(name, ":.") {
		if i := strings.Index(name[2:], ":"); i >= 0 {
			name = name[2+i+1:]
		}
	}
	if name == "" || name == "*" {
		return srerr.New(srerr.ErrInvalidSubject, "Invalid subject %q: the server refuses an empty or wildcard subject", subject)
	}
	return nil
}

// checkReferenceVersion refuses, under WithReferenceVersionsStrict, a
// reference r whose name was first met (first) at another subject
// version than the one r resolves to.
func (s *Service) checkReferenceVersion(ctx context.Context, tx Tx, first SubjectVersion, r Reference, stored bool) error {
	if !s.settings.strictReferenceVersions {
		return nil
	}
	if r.Subject == first.Subject && r.Version == first.Version {
		return nil
	}
	v, err := resolveRefVersion(ctx, tx, r, stored)
	if err != nil {
		return err
	}
	if v.Subject == first.Subject && v.Version == first.Version {
		return nil
	}
	return srerr.New(srerr.ErrInvalidSchema,
		"Invalid schema: Conflicting reference versions for %q: subject %q version %d and subject %q version %d",
		r.Name, first.Subject, first.Version, v.Subject, v.Version)
}

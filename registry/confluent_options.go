package registry

import (
	"context"

	"github.com/charter-dev/charter/registry/qualified"
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

// checkEmptySubject refuses, as Confluent's
// QualifiedSubject.isValidSubject on register, a subject whose name is
// __GLOBAL or __EMPTY (its reserved names) or that is in the .__GLOBAL
// context (for config and mode only), and, under WithRejectEmptySubject,
// one whose name is empty or the wildcard *: 42208.
func (s *Service) checkEmptySubject(subject string) error {
	return checkQualifiedSubject(subject, false, s.settings.rejectEmptySubject)
}

// checkQualifiedSubject is Confluent's QualifiedSubject.isValidSubject
// (isConfigOrMode, !allowEmptyOrWildcard as rejectEmpty): 42208.
func checkQualifiedSubject(subject string, configOrMode, rejectEmpty bool) error {
	ctx, name := qualified.Split(subject)
	switch {
	case name == "__GLOBAL" || name == "__EMPTY":
		return srerr.New(srerr.ErrInvalidSubject, "Invalid subject %q: %s is a reserved subject name", subject, name)
	case rejectEmpty && (name == "" || name == "*"):
		return srerr.New(srerr.ErrInvalidSubject, "Invalid subject %q: the server refuses an empty or wildcard subject", subject)
	case !configOrMode && ctx == ".__GLOBAL":
		return srerr.New(srerr.ErrInvalidSubject, "Invalid subject %q: the .__GLOBAL context is only for config and mode", subject)
	}
	return nil
}

// checkReferenceVersion refuses, under WithReferenceVersionsStrict, a
// reference r whose name was first met (first) at another subject
// version than the one r resolves to.
func (s *Service) checkReferenceVersion(ctx context.Context, tx Tx, schemaCtx string, first SubjectVersion, r Reference, stored bool) error {
	if !s.settings.strictReferenceVersions {
		return nil
	}
	if QualifyIn(schemaCtx, r.Subject) == first.Subject && r.Version == first.Version {
		return nil
	}
	v, err := resolveRefVersion(ctx, tx, schemaCtx, r, stored)
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

package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charter-dev/charter/registry/governance"
	"github.com/charter-dev/charter/registry/qualified"
	"github.com/charter-dev/charter/registry/srerr"
)

// Contexts returns the names of the schema contexts that exist (GET
// /contexts), as the API names them: "." (the default one) first, always,
// then every context in which a schema was registered and that
// DeleteContext has not removed since, sorted.
func (s *Service) Contexts(ctx context.Context) ([]string, error) {
	var out []string
	err := s.view(ctx, "list contexts", func(tx Tx) error {
		cs, err := tx.Contexts(ctx)
		if err != nil {
			return fmt.Errorf("list contexts: %w", err)
		}
		out = make([]string, len(cs))
		for i, c := range cs {
			out[i] = ContextName(c)
		}
		return nil
	})
	return out, err
}

// DeleteContext removes context name (".ctx"; DELETE /contexts/{ctx}), as
// Confluent's deleteContext: only once no subject version of it is left,
// soft-deleted ones included (42211 otherwise). Its ID mark stays, so a
// schema registered there later gets an ID above every one it held.
// Errors: 40401 for an unknown context and for the default one, which
// cannot be deleted; 42205 in a read-only mode.
func (s *Service) DeleteContext(ctx context.Context, name string) error {
	c := StoreContext(NormalizeContextName(name))
	if c == "" {
		return srerr.New(srerr.ErrSubjectNotFound, "Context '%s' cannot be deleted: it is the default context", name)
	}
	level := ":" + c + ":"
	return s.update(ctx, "delete context", func(tx Tx) error {
		if err := checkWritable(ctx, tx, level); err != nil {
			return err
		}
		vs, err := tx.Versions(ctx, VersionQuery{SubjectPrefix: level, IncludeDeleted: true})
		if err != nil {
			return fmt.Errorf("list versions of context %s: %w", c, err)
		}
		if len(vs) > 0 {
			return srerr.New(srerr.ErrContextNotEmpty, "Context '%s' is not empty: subject '%s' has versions", c, vs[0].Subject)
		}
		err = tx.DeleteContext(ctx, c)
		if errors.Is(err, ErrNotFound) {
			return srerr.New(srerr.ErrSubjectNotFound, "Context '%s' not found", c)
		}
		if err != nil {
			return fmt.Errorf("delete context %s: %w", c, err)
		}
		return s.auditTx(ctx, tx, governance.ActionContextDelete, level, "", nil, nil)
	})
}

// NormalizeContextName returns a context named in a URL or a request as
// the API names it: ".ctx" for ".ctx", "ctx" and ":.ctx:", "." for "",
// "." and ":.:".
func NormalizeContextName(name string) string {
	name = strings.TrimSuffix(strings.TrimPrefix(name, ":"), ":")
	if name == "" || name == DefaultContext {
		return DefaultContext
	}
	if !strings.HasPrefix(name, ".") {
		name = "." + name
	}
	return name
}

// ParseContextName returns the context that name names in a
// /contexts/{ctx}/ URL prefix (and the CLI's --context), as the API names
// it: ".ctx" for ".ctx", "ctx", ":.ctx:" and ":.ctx"; "." for "." and
// ":.:". It is the rule of a qualified subject's context
// (ValidateContextName): an empty name, colons alone (":", "::") and the
// wildcard ("*", ":*:", ".*") name no context a subject can be in, and
// are 42208 INVALID_SUBJECT, as is a name ValidateContextName refuses.
func ParseContextName(name string) (string, error) {
	if name == "" || strings.TrimSuffix(strings.TrimPrefix(name, ":"), ":") == "" {
		return "", srerr.New(srerr.ErrInvalidSubject, "Invalid context %q: the context name must not be empty", name)
	}
	n := NormalizeContextName(name)
	if n == DefaultContext {
		return n, nil
	}
	if err := ValidateContextName(n); err != nil {
		return "", err
	}
	return n, nil
}

// IDContext returns the context in which GET /schemas/ids/{id}?subject=
// finds schema id, as Confluent's getSchemaKeyUsingContexts: without a
// subject, or with a context alone (":.ctx:"), that context ("" the
// default one) without a store read; with a qualified subject, its
// context when the subject holds id; with an unqualified one, the
// default context when the subject holds id there, else the first
// context (in name order) whose subject of that name holds id, else the
// default context. Soft-deleted versions count. Errors: 40403 when a
// qualified subject does not hold id.
func (s *Service) IDContext(ctx context.Context, id int64, subject string) (string, error) {
	subject = NormalizeSubject(subject)
	c, name := ContextOf(subject), ""
	if _, n := qualified.Split(subject); subject != "" {
		name = n
	}
	if name == "" {
		return c, nil
	}
	var out string
	err := s.view(ctx, "find the context of a schema id", func(tx Tx) error {
		holds := func(c, subject string) (bool, error) {
			vs, err := tx.Versions(ctx, VersionQuery{Subject: subject, SchemaID: id, Context: c, IncludeDeleted: true})
			if err != nil {
				return false, fmt.Errorf("list versions of %q: %w", subject, err)
			}
			return len(vs) > 0, nil
		}
		ok, err := holds(c, subject)
		if err != nil || ok {
			out = c
			return err
		}
		if c != "" {
			return errSchemaNotFound(id)
		}
		cs, err := tx.Contexts(ctx)
		if err != nil {
			return fmt.Errorf("list contexts: %w", err)
		}
		for _, other := range cs[1:] {
			if ok, err := holds(other, QualifyIn(other, name)); err != nil || ok {
				out = other
				return err
			}
		}
		out = ""
		return nil
	})
	return out, err
}

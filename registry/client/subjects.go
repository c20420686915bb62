package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Normalize makes a lookup or RegisterVersion compare and store the
// normalized form of the schema (Confluent `normalize=true`).
func Normalize() ReadOption {
	return func(q url.Values) { q.Set("normalize", "true") }
}

// versionSegment is the path segment of version n ("latest" for Latest).
func versionSegment(n int) string {
	if n == Latest {
		return "latest"
	}
	return itoa(n)
}

// Lookup finds s among the versions of subject (POST /subjects/{subject})
// and returns the newest version holding it. With IncludeDeleted,
// soft-deleted versions count too; with Normalize, schemas are compared
// normalized. Errors: srerr.ErrSubjectNotFound, srerr.ErrSchemaNotFound
// (no version holds s), srerr.ErrInvalidSchema.
func (c *Client) Lookup(ctx context.Context, subject string, s NewSchema, opts ...ReadOption) (SubjectSchema, error) {
	var out SubjectSchema
	if err := c.do(ctx, "POST", []string{"subjects", subject}, readQuery(opts), s, &out); err != nil {
		return SubjectSchema{}, fmt.Errorf("look up schema under subject %q: %w", subject, err)
	}
	defaultType(&out.Schema)
	return out, nil
}

// RegisterVersion registers s under subject as Register does and returns
// the version it created or found, with its ID and what the registry
// stored (metadata and ruleSet inherited or merged from the subject's
// config included). With Normalize, the registry stores and compares the
// normalized form. Under an alias, the version is the aliased subject's.
// Errors: those of Register; srerr.ErrVersionNotFound if the version was
// deleted in between.
func (c *Client) RegisterVersion(ctx context.Context, subject string, s NewSchema, opts ...ReadOption) (SubjectSchema, error) {
	v, _, err := c.registerVersion(ctx, subject, s, opts)
	return v, err
}

// registerVersion is RegisterVersion that also returns the headers of the
// registration's answer (nil when it failed).
func (c *Client) registerVersion(ctx context.Context, subject string, s NewSchema, opts []ReadOption) (SubjectSchema, http.Header, error) {
	var id struct {
		ID int64 `json:"id"`
	}
	h, err := c.doHeader(ctx, "POST", []string{"subjects", subject, "versions"}, readQuery(opts), s, &id)
	if err != nil {
		return SubjectSchema{}, nil, fmt.Errorf("register schema under subject %q: %w", subject, err)
	}
	v, err := c.registeredVersion(ctx, subject, id.ID)
	return v, h, err
}

// registeredVersion finds the version of subject that a registration
// answered with schema ID id.
func (c *Client) registeredVersion(ctx context.Context, subject string, id int64) (SubjectSchema, error) {
	uses, err := c.VersionsOfID(ctx, id)
	if err != nil {
		return SubjectSchema{}, err
	}
	// The version is the subject's newest one holding the ID; an alias
	// registers under the one subject the ID's versions name.
	// Under a context (a base URL ending in /contexts/.ctx) the registry
	// names the versions' subjects qualified, ":.ctx:subject".
	best := SubjectVersion{}
	subjects := map[string]bool{}
	qualified := c.Qualified(subject)
	for _, u := range uses {
		subjects[u.Subject] = true
		if (u.Subject == subject || u.Subject == qualified) && u.Version > best.Version {
			best = u
		}
	}
	if best.Version == 0 && len(subjects) == 1 {
		for _, u := range uses {
			if u.Version > best.Version {
				best = u
			}
		}
	}
	if best.Version == 0 {
		return SubjectSchema{}, fmt.Errorf("register schema under subject %q: schema %d is registered, but no version of the subject holds it", subject, id)
	}
	return c.Version(ctx, best.Subject, best.Version)
}

// Qualified returns subject as the registry names it in its answers in
// the context of the client's base URL (".../contexts/.ctx":
// ":.ctx:subject", ".../contexts/.a%2Fb": ":.a/b:subject"); subject
// itself outside a context, in the default one, or qualified already.
// A command that looks for a subject it was given in what the registry
// answers compares it with this.
func (c *Client) Qualified(subject string) string {
	_, name, ok := strings.Cut(c.base.EscapedPath(), "/contexts/")
	if !ok || strings.Contains(strings.TrimSuffix(name, "/"), "/") || strings.HasPrefix(subject, ":") {
		return subject
	}
	name, err := url.PathUnescape(strings.TrimSuffix(name, "/"))
	if err != nil || name == "" || name == "." || name == ":.:" {
		return subject
	}
	if strings.HasPrefix(name, ":.") && strings.HasSuffix(name, ":") {
		name = name[1 : len(name)-1]
	}
	if !strings.HasPrefix(name, ".") {
		name = "." + name
	}
	return ":" + name + ":" + subject
}

// VersionState is one version number of a subject and whether it is
// soft-deleted.
type VersionState struct {
	Version int  `json:"version"`
	Deleted bool `json:"deleted,omitempty"`
}

// VersionStates lists the versions of subject in ascending order; with
// includeDeleted, soft-deleted versions too, marked Deleted (GET
// /subjects/{subject}/versions?deletedAsNegative=true). Errors:
// srerr.ErrSubjectNotFound.
func (c *Client) VersionStates(ctx context.Context, subject string, includeDeleted bool) ([]VersionState, error) {
	var q url.Values
	if includeDeleted {
		q = url.Values{"deletedAsNegative": {"true"}}
	}
	var nums []int
	if err := c.do(ctx, "GET", []string{"subjects", subject, "versions"}, q, nil, &nums); err != nil {
		return nil, fmt.Errorf("list versions of subject %q: %w", subject, err)
	}
	out := make([]VersionState, len(nums))
	for i, n := range nums {
		if n < 0 {
			out[i] = VersionState{Version: -n, Deleted: true}
		} else {
			out[i] = VersionState{Version: n}
		}
	}
	return out, nil
}

// DeleteSubject deletes every version of subject and returns their
// numbers (DELETE /subjects/{subject}). A soft delete hides them; a
// permanent delete (after a soft one) removes them and frees IDs no other
// version uses. Errors: srerr.ErrSubjectNotFound,
// srerr.ErrSubjectNotSoftDeleted (permanent before soft),
// srerr.ErrReferenceExists, srerr.ErrOperationNotPermitted.
func (c *Client) DeleteSubject(ctx context.Context, subject string, permanent bool) ([]int, error) {
	var out []int
	if err := c.do(ctx, "DELETE", []string{"subjects", subject}, permanentQuery(permanent), nil, &out); err != nil {
		return nil, fmt.Errorf("delete subject %q: %w", subject, err)
	}
	return out, nil
}

// DeleteVersion deletes version n of subject (n may be Latest) and
// returns its number (DELETE /subjects/{subject}/versions/{n}), softly or
// permanently as DeleteSubject. Errors: srerr.ErrSubjectNotFound,
// srerr.ErrVersionNotFound, srerr.ErrVersionNotSoftDeleted,
// srerr.ErrReferenceExists, srerr.ErrOperationNotPermitted.
func (c *Client) DeleteVersion(ctx context.Context, subject string, n int, permanent bool) (int, error) {
	var out int
	if err := c.do(ctx, "DELETE", []string{"subjects", subject, "versions", versionSegment(n)}, permanentQuery(permanent), nil, &out); err != nil {
		return 0, fmt.Errorf("delete version %s of subject %q: %w", versionSegment(n), subject, err)
	}
	return out, nil
}

func permanentQuery(permanent bool) url.Values {
	if !permanent {
		return nil
	}
	return url.Values{"permanent": {"true"}}
}

// ReferencedBy returns the IDs of the schemas that reference version n of
// subject (GET /subjects/{subject}/versions/{n}/referencedby).
func (c *Client) ReferencedBy(ctx context.Context, subject string, n int) ([]int64, error) {
	var out []int64
	if err := c.do(ctx, "GET", []string{"subjects", subject, "versions", versionSegment(n), "referencedby"}, nil, nil, &out); err != nil {
		return nil, fmt.Errorf("list schemas referencing version %s of subject %q: %w", versionSegment(n), subject, err)
	}
	return out, nil
}

// WithSubjectPrefix makes Subjects list only the subjects whose names
// start with prefix (Confluent `subjectPrefix`).
func WithSubjectPrefix(prefix string) ReadOption {
	return func(q url.Values) {
		if prefix != "" {
			q.Set("subjectPrefix", prefix)
		}
	}
}

package registry

import "github.com/charter-dev/charter/registry/qualified"

// Schema contexts (Confluent's multi-tenancy namespaces).
//
// A subject ":.ctx:name" is in context ".ctx"; any other subject is in the
// default context, Confluent's ".". Each context has its own schema ID
// space: IDs, fingerprints (identity), the ID mark and IMPORT with explicit
// IDs are per context. The store names the default context "" (the zero
// value, so a Schema or a call that says nothing is in it, and every
// registry written before contexts stays as it was); the API names it ".".

// DefaultContext is the API's name of the default context.
const DefaultContext = qualified.DefaultContext

// ContextOf returns the context of a stored subject as the store names it:
// ".ctx" for ":.ctx:name" (and ":.ctx"), "" for every other subject (the
// default context; ":.:name" is normalised to "name" before it is
// stored, see NormalizeSubject).
func ContextOf(subject string) string {
	c, _ := qualified.Split(subject)
	if c == "." || c == "*" {
		return ""
	}
	return c
}

// ContextName returns the API's name of store context c: "." for "".
func ContextName(c string) string {
	if c == "" {
		return DefaultContext
	}
	return c
}

// StoreContext returns the store's name of API context name c: "" for "."
// (and for ""), c otherwise.
func StoreContext(c string) string {
	if c == DefaultContext {
		return ""
	}
	return c
}

// NormalizeSubject returns subject as Confluent's QualifiedSubject.normalize
// has it (qualified.Normalize): ":.:name" is "name", ":.:" and ":." are
// "", ":.ctx" is ":.ctx:"; other subjects are returned as they are. The
// API normalises every subject it is given with it before anything else
// reads it.
func NormalizeSubject(subject string) string { return qualified.Normalize(subject) }

// QualifyIn returns subject as it is stored when a schema in context c
// names it (qualified.In): a qualified subject is itself, normalised; an
// unqualified one is in c.
func QualifyIn(c, subject string) string { return qualified.In(c, subject) }

// AliasTarget returns the subject that subject's config alias names: an
// unqualified alias is in subject's context, as Confluent's
// QualifiedSubject.qualifySubjectWithParent has it.
func AliasTarget(subject, alias string) string {
	return QualifyIn(ContextOf(subject), alias)
}

// Context returns the store context of v's subject.
func (v SubjectVersion) Context() string { return ContextOf(v.Subject) }

// SchemaKey identifies a stored schema: its ID in its context's ID space.
// The in-memory caches are keyed by it.
type SchemaKey struct {
	Context string // "" for the default context
	ID      int64
}

// Key returns st's identity: its context and ID.
func (st Schema) Key() SchemaKey { return SchemaKey{Context: st.Context, ID: st.ID} }

// Key returns the identity of the schema v binds: its subject's context
// and its schema ID.
func (v SubjectVersion) Key() SchemaKey { return SchemaKey{Context: v.Context(), ID: v.SchemaID} }

// SubjectName returns subject without its context: "name" for
// ":.ctx:name" and for "name", "" for a context alone (":.ctx:", ":.ctx").
func SubjectName(subject string) string {
	_, n := qualified.Split(subject)
	return n
}

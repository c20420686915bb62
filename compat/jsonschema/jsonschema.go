// Package jsonschema is Charter's JSON Schema format for package compat: it
// parses JSON Schema documents (drafts 4, 6, 7, 2019-09 and 2020-12), renders
// their stored (Canonical) and normalized text, and checks whether a reader
// schema accepts every document a writer schema accepts, following
// Confluent Schema Registry's JSON Schema compatibility semantics.
//
// # Parsing
//
// Parse compiles and validates the schema against its draft's meta-schema
// with github.com/santhosh-tekuri/jsonschema/v6. The draft is picked by
// "$schema" as Confluent's SpecificationVersion does; a schema without
// "$schema", or with one Confluent does not know, is draft-07. Unknown
// keywords (Confluent's "confluent:tags", "connect.type", vendor keywords)
// are accepted. References are [compat.Dependency] values whose Name is the
// "$ref" URL the referring schema uses (e.g. "address.json"); they are
// registered as resources under that name resolved against the root's base,
// and nothing is ever fetched over the network: a "$ref" to anything else
// fails with an error naming it. Patterns that Go's RE2 engine cannot
// compile but that are well-formed ECMA-262 (lookaround, backreferences)
// are accepted; they never match a property name when the checker looks for
// the patternProperties that cover a property.
//
// # Compatibility
//
// [Format.CheckRead] reports every reason why data valid under the writer
// schema may be rejected by the reader schema. It is a port of the
// semantics of Confluent's JSON Schema differ (io.confluent.kafka.
// schemaregistry.json.diff.SchemaDiff, Confluent Schema Registry 8.x), not
// of its code: the schema is split into typed parts as the Everit loader
// (drafts 4-7) and Confluent's SchemaTranslator (2019-09, 2020-12) do, the
// two schemas are compared part by part, and every difference Confluent
// would report as incompatible becomes a [compat.Violation] whose rule ID is
// Confluent's Difference.Type with a JSON_ prefix
// (JSON_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL, JSON_TYPE_NARROWED …).
//
// Confluent's "compatible" verdict for (original, update) is BACKWARD: the
// update can read every document valid under the original. CheckRead(reader,
// writer) is that check with original = writer and update = reader, so
// compat.Check's BACKWARD (reader = new schema) asks exactly Confluent's
// question, and FORWARD asks it with the versions swapped.
//
// # Cost
//
// A pair of subschemas is compared once however many paths reach it: the
// pairs that involve a "$ref" target are memoised, and their results are
// shared, so a definition used three times by a definition used three
// times (and so on n levels deep) costs n comparisons, not 3^n. Where
// Confluent lists a difference inside such a definition once per path,
// CheckRead reports it once, at the first path, and says how many other
// paths reach it, naming two of them and the definition ([Diff] still
// lists every path, up to [MaxListedChanges]). The subschemas of two
// allOf/anyOf/oneOf are matched lazily (a maximum bipartite matching that
// compares a pair only when it needs its verdict, tries the textually equal
// and then the same-shaped partner first, and stops comparing a pair for
// its verdict at its first incompatible change), so alternatives that are
// reordered or nested cost about as much as their number. What remains
// quadratic (many alternatives whose partners share no property names) is
// bounded by a work budget, [Format.MaxComparisons]: past it CheckRead
// reports JSON_SCHEMA_TOO_COMPLEX instead of running on.
//
// Violation paths are the JSON pointers Confluent prints ("#/properties/
// shipment/properties/code", "#/" for the root), with RFC 6901 escaping of
// "~" and "/" in property names. Like Confluent's, they name the keywords of
// its model: "dependencies" for dependentRequired/dependentSchemas,
// "items/N" for a tuple item (prefixItems in 2020-12), "additionalItems" for
// the items after a tuple, "allOf/N" for the parts of a schema that mixes
// keywords of several kinds (e.g. "type" and "enum").
//
// Like Confluent, the checker does not compare "format", "contentEncoding",
// "contentMediaType", "propertyNames", the "contains" schema, the schemas
// of "patternProperties" (only whether they cover an added or removed
// property), if/then/else, or "required" entries for properties that either
// version leaves undeclared; changes to those are compatible.
//
// Where Charter deliberately differs from Confluent, it accepts more only
// when the reader provably accepts every writer document, or reads a
// keyword as its draft defines it:
//   - minimum/exclusiveMinimum (and the maximum pair) are compared by the
//     effective limit they make together, so exclusiveMinimum 10 → minimum
//     10 is compatible (Confluent: MINIMUM_ADDED);
//   - a "const" and an "enum" are compared as value sets, so const "a" →
//     enum ["a", "b"] is compatible (Confluent: TYPE_CHANGED);
//   - draft-04's boolean exclusiveMinimum/exclusiveMaximum make minimum/
//     maximum exclusive (Confluent ignores the booleans);
//   - a decreased exclusiveMaximum is compared with the writer's
//     exclusiveMaximum (Confluent compares it with maximum and fails when
//     there is none);
//   - chains of "$ref" are followed to the schema they end at;
//   - a pattern rewritten as the same regular expression ("^a$" and
//     "(?:^a$)": equal simplified syntax trees) is unchanged (Confluent
//     compares the text: PATTERN_CHANGED).
//
// Every schema is validated against its draft's meta-schema, which Confluent
// (Everit) does not do: a schema Confluent registers but that breaks its
// meta-schema, such as "enum": [] in draft-07, is rejected here.
package jsonschema

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	js "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/charter-dev/charter/compat"
)

// Policy selects which Confluent change types count as compatible
// (Confluent's compatibilityPolicy).
type Policy string

// The two policies. Strict is the default.
const (
	// Strict is Confluent's default policy (SchemaDiff.COMPATIBLE_CHANGES_STRICT).
	Strict Policy = "STRICT"
	// Lenient also accepts changes to open content models and additional
	// properties that Strict rejects (SchemaDiff.COMPATIBLE_CHANGES_LENIENT):
	// properties added to or removed from open or closed content models,
	// additionalProperties/unevaluatedProperties narrowed or removed.
	Lenient Policy = "LENIENT"
)

// Format is the JSON Schema [compat.Format]. The zero value uses the Strict
// policy. It is safe for concurrent use.
type Format struct {
	// Policy selects the compatible change set; "" means Strict.
	Policy Policy
	// MaxComparisons is the work budget of one CheckRead, in subschema
	// pair comparisons and matching probes; 0 means
	// DefaultMaxComparisons.
	MaxComparisons int
}

var _ compat.Format = Format{}

// Type returns compat.JSON.
func (Format) Type() compat.SchemaType { return compat.JSON }

// Schema is a parsed JSON Schema. It is immutable and safe for concurrent
// use.
type Schema struct {
	draft      int
	root       *node
	canonical  string
	normalized string

	// The validator is compiled again on the first Validate (evidence
	// only): keeping the one Parse compiled would add about 40% to every
	// parsed schema the registry's cache holds (registry's
	// TestParsedSizeFactor).
	deps      []compat.Dependency
	compile   sync.Once
	compiled  *js.Schema
	compileEr error
}

var _ compat.Schema = (*Schema)(nil)

// Type returns compat.JSON.
func (*Schema) Type() compat.SchemaType { return compat.JSON }

// Canonical returns the schema as Confluent stores it (Jackson's compact
// form of the parsed JSON): no whitespace, object keys in the order given,
// strings escaped as Jackson does, non-integer numbers as
// java.math.BigDecimal prints them (1.50 stays 1.50, 1e3 becomes 1E+3).
func (s *Schema) Canonical() string { return s.canonical }

// Normalized returns Canonical with meaning-preserving differences removed,
// so semantically equal schemas get one ID under normalize=true:
//   - object keys sorted recursively (Java String order, as Confluent's
//     normalize does);
//   - numbers written by value: 10, 10.0 and 1e1 all become 10 (JSON Schema
//     compares numbers mathematically);
//   - the string sets "required", "type" (when an array), the arrays of
//     "dependentRequired" and the array form of "dependencies" sorted and
//     deduplicated (their order and repetitions carry no meaning);
//   - "$comment" removed (JSON Schema 2020-12 §8.3: implementations MAY
//     strip it; it must not affect validation).
//
// Only keywords in schema positions are rewritten: a property named
// "required", or a "type" inside an enum value, is data and stays as given.
// Enum order, allOf/anyOf/oneOf order, annotations and unknown keywords are
// kept.
func (s *Schema) Normalized() string { return s.normalized }

// Validate validates a JSON document under the schema as Parse compiled
// it (references resolved, no network, formats as annotations). doc is
// the document as santhosh-tekuri/jsonschema's UnmarshalJSON decodes it
// (numbers as json.Number). A failure is that package's
// *ValidationError.
func (s *Schema) Validate(doc any) error {
	s.compile.Do(func() {
		var again *Schema
		again, s.compileEr = parse(s.canonical, s.deps, true)
		if s.compileEr == nil {
			s.compiled = again.compiled
		}
	})
	if s.compileEr != nil {
		return fmt.Errorf("compiling the schema's validator: %w", s.compileEr)
	}
	return s.compiled.Validate(doc)
}

// Draft returns the JSON Schema draft the schema was read with: 4, 6, 7,
// 2019 (2019-09) or 2020 (2020-12).
func (s *Schema) Draft() int { return s.draft }

// Parse parses JSON Schema text. deps are the schemas its "$ref"s name
// (Confluent schema references), in dependency order. The error is one
// line: invalid JSON (with line and column), a document that is not an
// object or boolean, a keyword invalid for the draft (with its JSON
// pointer), an invalid regular expression, or an unresolved reference.
func (Format) Parse(text string, deps []compat.Dependency) (compat.Schema, error) {
	s, err := Parse(text, deps)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Parse is Format.Parse returning the concrete *Schema.
func Parse(text string, deps []compat.Dependency) (*Schema, error) {
	return parse(text, deps, false)
}

// parse is Parse; keepValidator keeps the compiled validator in the result.
func parse(text string, deps []compat.Dependency, keepValidator bool) (s *Schema, err error) {
	defer func() {
		// The meta-schema validator and the model builder work on any
		// valid JSON; this only turns an unforeseen bug into an error
		// instead of taking the registry down.
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("invalid JSON schema: internal error while reading it: %v", r)
		}
	}()
	raw, err := parseJSON(text)
	if err != nil {
		return nil, err
	}
	if raw.kind != jObject && raw.kind != jBool {
		return nil, fmt.Errorf("invalid JSON schema: the document must be an object or a boolean, not %s", kindName(raw.kind))
	}
	draft := draftOf(raw)
	subschemas := countSubschemas(raw)
	if err := checkSubschemas(subschemas); err != nil {
		return nil, err
	}

	c := js.NewCompiler()
	c.DefaultDraft(jsDraft(draft))
	c.UseRegexpEngine(lenientRegexp)
	ld := &refLoader{docs: map[string]any{}}
	c.UseLoader(ld)

	docs := map[string]*jval{rootURL: raw}
	if err := c.AddResource(rootURL, compileDoc(raw)); err != nil {
		return nil, fmt.Errorf("invalid JSON schema: %w", err)
	}
	base, _ := url.Parse(rootURL)
	idBase := rootIDBase(raw, draft)
	for _, d := range deps {
		dv, err := parseJSON(d.Text)
		if err != nil {
			return nil, fmt.Errorf("reference %q: %w", d.Name, err)
		}
		if dv.kind != jObject && dv.kind != jBool {
			return nil, fmt.Errorf("reference %q: invalid JSON schema: the document must be an object or a boolean, not %s", d.Name, kindName(dv.kind))
		}
		subschemas += countSubschemas(dv)
		if err := checkSubschemas(subschemas); err != nil {
			return nil, err
		}
		ref, err := url.Parse(d.Name)
		if err != nil || d.Name == "" {
			return nil, fmt.Errorf("reference %q: the name is not a valid $ref URL", d.Name)
		}
		u := stripFragment(base.ResolveReference(ref).String())
		if _, dup := docs[u]; dup {
			return nil, fmt.Errorf("reference %q: given twice", d.Name)
		}
		docs[u] = dv
		if err := c.AddResource(u, compileDoc(dv)); err != nil {
			return nil, fmt.Errorf("reference %q: %w", d.Name, err)
		}
		// The root's $id changes the base its $refs resolve against;
		// Confluent registers references against it too.
		if idBase != nil {
			if alt := stripFragment(idBase.ResolveReference(ref).String()); alt != u {
				ld.docs[alt] = compileDoc(dv)
				docs[alt] = dv
			}
		}
		if ref.IsAbs() {
			if abs := stripFragment(ref.String()); abs != u {
				ld.docs[abs] = compileDoc(dv)
				docs[abs] = dv
			}
		}
	}
	compiled, err := c.Compile(rootURL)
	if err != nil {
		return nil, compileError(err)
	}
	b := newBuilder(docs, compiled)
	root, err := b.build()
	if err != nil {
		return nil, err
	}
	s = &Schema{
		draft:      draft,
		root:       root,
		canonical:  compact(raw),
		normalized: normalizedText(raw),
		deps:       deps,
	}
	if keepValidator {
		s.compiled = compiled
	}
	return s, nil
}

// CheckRead reports every reason why a document valid under writer may be
// invalid under reader: the incompatible differences Confluent's differ
// finds with original = writer and update = reader, under f's policy.
// Both schemas must come from this package's Parse.
//
// Confluent lists a difference inside a definition once per path that
// reaches it; CheckRead reports it once, at the first such path, and its
// message names the definition and the number of paths (a definition
// nested n levels deep, each using the one below three times, is reached
// by 3^n paths). When the comparison needs more than f's work budget
// (MaxComparisons), the only violation is JSON_SCHEMA_TOO_COMPLEX.
func (f Format) CheckRead(reader, writer compat.Schema) []compat.Violation {
	vs, _ := f.CheckReadContext(context.Background(), reader, writer)
	return vs
}

var _ compat.ContextChecker = Format{}

// CheckReadContext is CheckRead that stops when ctx ends, with ctx's
// error and no violations.
func (f Format) CheckReadContext(ctx context.Context, reader, writer compat.Schema) ([]compat.Violation, error) {
	r, ok1 := reader.(*Schema)
	w, ok2 := writer.(*Schema)
	if !ok1 || !ok2 || r == nil || w == nil || r.root == nil || w.root == nil {
		return []compat.Violation{{
			RuleID:  RuleTypeChanged,
			Path:    "#/",
			Message: "both schemas must be JSON schemas parsed by compat/jsonschema",
		}}, nil
	}
	set := compatibleSet(f.Policy)
	root, _, err := diffContext(ctx, set, w.root, r.root, f.budget(), false)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return []compat.Violation{{RuleID: RuleTooComplex, Path: "#/", Message: tooComplexMessage(err), Undecided: true}}, nil
	}
	var out []compat.Violation
	for _, fd := range incompatible(root, set) {
		v := fd.c.violation()
		v.Message += fd.sharedNote()
		out = append(out, v)
	}
	return out, nil
}

func (f Format) budget() int {
	if f.MaxComparisons > 0 {
		return f.MaxComparisons
	}
	return DefaultMaxComparisons
}

// Change is one difference Confluent's JSON Schema differ reports between an
// original and an updated schema, compatible or not.
type Change struct {
	// Type is Confluent's Difference.Type name, e.g. "TYPE_NARROWED".
	Type string
	// Path is the JSON pointer Confluent prints, e.g. "#/properties/foo".
	Path string
	// Compatible reports whether the policy accepts this change.
	Compatible bool
}

// Diff lists every difference between original and update (both non-nil,
// from Parse), in the order Confluent's differ finds them (properties in
// declaration order where Confluent iterates a hash set), each marked
// compatible or not under policy ("" means Strict). update is compatible
// with original (BACKWARD) when no change is incompatible. Like
// Confluent's, the list has one change per path: a difference inside a
// definition used at several places is listed at each. The error wraps
// ErrTooComplex when the comparison exceeds DefaultMaxComparisons or the
// list would exceed MaxListedChanges.
func Diff(policy Policy, original, update *Schema) ([]Change, error) {
	set := compatibleSet(policy)
	root, _, err := diff(set, original.root, update.root, DefaultMaxComparisons, true)
	if err != nil {
		return nil, fmt.Errorf("diff JSON schemas: %w", err)
	}
	changes, err := expand(root, "", nil, MaxListedChanges)
	if err != nil {
		return nil, fmt.Errorf("diff JSON schemas: %w", err)
	}
	out := make([]Change, 0, len(changes))
	for _, ch := range changes {
		out = append(out, Change{Type: ch.typ, Path: ch.pointer(), Compatible: set[ch.typ]})
	}
	return out, nil
}

// rootURL is the retrieval URL of the schema being parsed; references
// resolve against it as they do against Confluent's "mem://input".
const rootURL = "mem://input"

// draftOf returns the draft Confluent picks for a document: the draft its
// "$schema" names (SpecificationVersion.getFromUrl, where the unversioned
// "http://json-schema.org/schema" means draft-04), else draft-07.
func draftOf(raw *jval) int {
	s, ok := raw.str("$schema")
	if !ok {
		return 7
	}
	if d, ok := knownDraft(s); ok {
		return d
	}
	return 7
}

func knownDraft(s string) (int, bool) {
	s = strings.TrimSuffix(s, "#")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "http://"), "https://")
	switch s {
	case "json-schema.org/draft-04/schema", "json-schema.org/schema":
		return 4, true
	case "json-schema.org/draft-06/schema":
		return 6, true
	case "json-schema.org/draft-07/schema":
		return 7, true
	case "json-schema.org/draft/2019-09/schema":
		return 2019, true
	case "json-schema.org/draft/2020-12/schema":
		return 2020, true
	}
	return 0, false
}

func jsDraft(d int) *js.Draft {
	switch d {
	case 4:
		return js.Draft4
	case 6:
		return js.Draft6
	case 2019:
		return js.Draft2019
	case 2020:
		return js.Draft2020
	}
	return js.Draft7
}

// compileDoc is the document handed to the compiler: the parsed value with
// a root "$schema" string removed, so that the draft comes from DefaultDraft
// (set from Confluent's reading of "$schema") and an unknown meta-schema URL
// is never fetched.
func compileDoc(v *jval) any {
	if _, ok := v.str("$schema"); ok {
		cp := &jval{kind: jObject}
		for _, m := range v.obj {
			if m.key != "$schema" {
				cp.add(m)
			}
		}
		return cp.toAny()
	}
	return v.toAny()
}

// rootIDBase returns the absolute base URL the root's $id (id in draft-04)
// sets, or nil.
func rootIDBase(raw *jval, draft int) *url.URL {
	key := "$id"
	if draft == 4 {
		key = "id"
	}
	id, ok := raw.str(key)
	if !ok {
		return nil
	}
	u, err := url.Parse(id)
	if err != nil {
		return nil
	}
	base, _ := url.Parse(rootURL)
	u = base.ResolveReference(u)
	if u.String() == rootURL {
		return nil
	}
	return u
}

func stripFragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}

func kindName(k jkind) string {
	switch k {
	case jNull:
		return "null"
	case jBool:
		return "a boolean"
	case jNumber:
		return "a number"
	case jString:
		return "a string"
	case jArray:
		return "an array"
	}
	return "an object"
}

// errRemote is returned for every URL that is not one of the given
// references: Charter never loads schemas over the network.
var errRemote = errors.New("no schema reference with that URL was given, and Charter never loads schemas over the network")

// refLoader serves the alternative URLs of references and refuses anything
// else. Meta-schemas of the supported drafts are built into the compiler.
type refLoader struct {
	docs map[string]any
}

func (l *refLoader) Load(u string) (any, error) {
	if d, ok := l.docs[u]; ok {
		return d, nil
	}
	return nil, errRemote
}

// compileError turns a compiler error into one line with the JSON pointer
// of the offending keyword where the library gives it.
func compileError(err error) error {
	var sve *js.SchemaValidationError
	if errors.As(err, &sve) {
		var ve *js.ValidationError
		if errors.As(sve.Err, &ve) {
			return fmt.Errorf("invalid JSON schema%s: %s", docName(sve.URL), strings.Join(leafErrors(ve), "; "))
		}
	}
	var le *js.LoadURLError
	if errors.As(err, &le) {
		name := strings.TrimPrefix(le.URL, rootURL+"/")
		return fmt.Errorf("unresolved reference %q: %v", name, errRemote)
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	msg = strings.ReplaceAll(msg, rootURL+"#", "#")
	return fmt.Errorf("invalid JSON schema: %s", msg)
}

// docName names a reference document in an error; the root needs no name.
func docName(u string) string {
	u = stripFragment(u)
	if u == rootURL {
		return ""
	}
	return fmt.Sprintf(" (reference %q)", strings.TrimPrefix(u, rootURL+"/"))
}

// leafErrors lists the deepest causes of a meta-schema validation error as
// "at <pointer>: <message>", at most three, without repeats.
func leafErrors(ve *js.ValidationError) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(e *js.ValidationError)
	walk = func(e *js.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		ptr := "#"
		for _, tok := range e.InstanceLocation {
			ptr += "/" + escapeToken(tok)
		}
		if ptr == "#" {
			ptr = "#/"
		}
		line := fmt.Sprintf("at %s: %s", ptr, strings.Join(strings.Fields(e.ErrorKind.LocalizedString(printer)), " "))
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	walk(ve)
	if len(out) > 3 {
		out = append(out[:3], fmt.Sprintf("and %d more", len(out)-3))
	}
	return out
}

// escapeToken escapes a JSON pointer token (RFC 6901).
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

package jsonschema

import (
	"crypto/sha256"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	js "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// kind is the class of a schema part, as in the Everit model Confluent's
// differ works on: a schema object is split into one part per family of
// keywords it uses (string, number, object, array, enum, const, not, each
// of allOf/anyOf/oneOf, a reference, if/then/else), and several parts are
// held together by a synthetic allOf.
type kind uint8

const (
	kEmpty    kind = iota // {} or true: every document (Everit EmptySchema/TrueSchema)
	kFalse                // false: no document
	kString               // string keywords (type "string", or minLength… without a type)
	kNumber               // number keywords; integer when type is "integer"
	kBoolean              // type "boolean"
	kNull                 // type "null"
	kObject               // object keywords
	kArray                // array keywords
	kCombined             // allOf, anyOf or oneOf (also a type array, as anyOf)
	kEnum                 // enum
	kConst                // const
	kNot                  // not
	kRef                  // $ref, $dynamicRef, $recursiveRef
	kCond                 // if/then/else (compared by annotations only, as Confluent)
)

var kindNames = [...]string{
	kEmpty: "any value (empty schema)", kFalse: "no value (false schema)", kString: "string",
	kNumber: "number", kBoolean: "boolean", kNull: "null", kObject: "object", kArray: "array",
	kCombined: "combined schema", kEnum: "enum", kConst: "const", kNot: "not", kRef: "$ref",
	kCond: "if/then/else",
}

// Combination criteria.
const (
	critAll = "allOf"
	critAny = "anyOf"
	critOne = "oneOf"
)

// node is one schema part.
type node struct {
	kind kind
	raw  *jval  // the schema object this part comes from (nil for meta-schemas)
	key  string // suffix that tells apart the parts of one raw object
	// shared is true for the target of a reference: a part that the
	// comparison may reach by several paths, so its pairs are memoised.
	// loc is then its location (document URL#pointer), for messages.
	shared bool
	loc    string

	annot

	// string
	minLength, maxLength *big.Int
	pattern              *string

	// number
	integer                                        bool
	minimum, maximum, exclMin, exclMax, multipleOf *big.Rat

	// object
	props      []namedNode
	propIdx    map[string]*node
	required   map[string]bool
	addlPermit bool // additionalProperties is not false
	addlSchema *node
	patterns   []patternNode
	propDeps   []namedStrings
	schemaDeps []namedNode
	// propDepIdx and schemaDepIdx find an entry of propDeps and
	// schemaDeps by name (the first one when two keywords name it).
	propDepIdx   map[string][]string
	schemaDepIdx map[string]*node
	minProps     *big.Int
	maxProps     *big.Int
	uneval       *node // unevaluatedProperties (2019-09+)

	// array
	allItems        *node   // items as one schema
	tuple           []*node // items as a list (prefixItems in 2020-12)
	addlItemsPermit bool
	addlItemsSchema *node
	minItems        *big.Int
	maxItems        *big.Int
	unique          bool
	minContains     *big.Int // 2019-09+ (1 when contains is present, as json-sKema)
	maxContains     *big.Int
	unevalItems     *node

	// combined
	crit      string
	subs      []*node
	subIDs    []string // identity of each sub, for Confluent's duplicate collapsing
	typeArray bool     // built from "type": [..]

	// enum / const
	values   []*jval
	constVal *jval

	// not
	not *node

	// ref
	ref    *node
	refLoc string
	target *node // the schema the chain of references from here ends at
}

type namedNode struct {
	name string
	n    *node
	line int32 // line of the name in the root schema's text; 0 in a reference
}

type namedStrings struct {
	name  string
	names []string
}

type patternNode struct {
	src string
	re  js.Regexp
	n   *node
}

func (n *node) prop(name string) *node { return n.propIdx[name] }

// finishCombined records the identities of a combination's subschemas.
// The parts of one schema object (a type array, or keyword families held
// by a synthetic allOf) are told apart by their key alone.
func (b *builder) finishCombined(n *node) *node {
	n.subIDs = make([]string, len(n.subs))
	for i, s := range n.subs {
		if n.typeArray || n.key == "|parts" {
			n.subIDs[i] = s.key
		} else {
			n.subIDs[i] = b.identity(s)
		}
	}
	return n
}

func (n *node) isRequired(name string) bool { return n.required[name] }

// deref returns the schema a reference names, following a chain of
// references to its end (resolved once, by build), or n itself when it is
// not a reference.
func deref(n *node) *node {
	if n != nil && n.kind == kRef {
		return n.target
	}
	return n
}

// identity is the key under which Confluent's CombinedSchemaDiff collapses
// equal subschemas (it puts them in a set of JsonSchema, equal by text):
// the digest of the part's text with sorted keys and normalized numbers.
func (b *builder) identity(n *node) string {
	if n.raw == nil {
		return "meta:" + n.refLoc + n.key
	}
	return b.digest(n.raw) + n.key
}

// digest returns the SHA-256 of v's text with sorted keys and normalized
// numbers (writeNormalized), computed over the digests of its members so that
// each value is hashed once: nested combinations would otherwise hold, and
// rebuild, the text of every subtree once per level above it.
func (b *builder) digest(v *jval) string {
	if d, ok := b.digests[v]; ok {
		return d
	}
	h := sha256.New()
	var sb strings.Builder
	switch v.kind {
	case jArray:
		h.Write([]byte{'['})
		for _, e := range v.arr {
			h.Write([]byte(b.digest(e)))
		}
	case jObject:
		h.Write([]byte{'{'})
		for _, m := range sortedMembers(v.obj) {
			sb.Reset()
			writeString(&sb, m.key)
			h.Write([]byte(sb.String()))
			h.Write([]byte(b.digest(m.val)))
		}
	default:
		h.Write([]byte{'='})
		writeNormalized(&sb, v)
		h.Write([]byte(sb.String()))
	}
	d := string(h.Sum(nil))
	b.digests[v] = d
	return d
}

// builder turns the parsed documents into the part graph, using the
// compiled schemas only to resolve references.
type builder struct {
	docs    map[string]*jval
	index   map[string]*js.Schema // compiled schemas by Location
	memo    map[string]*node      // parts by location
	digests map[*jval]string      // identity digests (see digest)
	pending []*node               // references to resolve
	root    *js.Schema
}

func newBuilder(docs map[string]*jval, root *js.Schema) *builder {
	b := &builder{docs: docs, index: map[string]*js.Schema{}, memo: map[string]*node{}, digests: map[*jval]string{}, root: root}
	b.indexSchemas(root)
	return b
}

// indexSchemas records every compiled schema reachable from s by Location.
func (b *builder) indexSchemas(s *js.Schema) {
	if s == nil {
		return
	}
	if _, ok := b.index[s.Location]; ok {
		return
	}
	b.index[s.Location] = s
	each := func(list ...*js.Schema) {
		for _, c := range list {
			b.indexSchemas(c)
		}
	}
	each(s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else, s.PropertyNames, s.UnevaluatedProperties,
		s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema)
	if s.DynamicRef != nil {
		each(s.DynamicRef.Ref)
	}
	each(s.AllOf...)
	each(s.AnyOf...)
	each(s.OneOf...)
	each(s.PrefixItems...)
	for _, c := range s.Properties {
		each(c)
	}
	for _, c := range s.PatternProperties {
		each(c)
	}
	for _, c := range s.DependentSchemas {
		each(c)
	}
	for _, d := range s.Dependencies {
		if c, ok := d.(*js.Schema); ok {
			each(c)
		}
	}
	if c, ok := s.AdditionalProperties.(*js.Schema); ok {
		each(c)
	}
	if c, ok := s.AdditionalItems.(*js.Schema); ok {
		each(c)
	}
	switch it := s.Items.(type) {
	case *js.Schema:
		each(it)
	case []*js.Schema:
		each(it...)
	}
}

// build returns the root part with every reference resolved to the
// schema its chain of references ends at. A reference that cannot be
// resolved, or a chain that loops without reaching a schema, is an error:
// reading it as some schema would make a verdict up.
func (b *builder) build() (*node, error) {
	root := b.at(rootURL, nil)
	var refs []*node
	for len(b.pending) > 0 {
		r := b.pending[len(b.pending)-1]
		b.pending = b.pending[:len(b.pending)-1]
		docURL, ptr, ok := splitLocation(r.refLoc)
		if !ok {
			return nil, fmt.Errorf("invalid JSON schema: cannot resolve the reference to %s", r.refLoc)
		}
		r.ref = b.at(docURL, ptr)
		r.ref.shared, r.ref.loc = true, r.refLoc
		refs = append(refs, r)
	}
	for _, r := range refs {
		if err := resolveChain(r); err != nil {
			return nil, err
		}
	}
	return root, nil
}

// resolveChain sets the target of r and of every reference its chain
// passes: the first part that is not a reference. Each reference is
// visited once over all calls, so resolving is linear in their number
// however long the chains are.
func resolveChain(r *node) error {
	var path []*node
	onPath := map[*node]bool{}
	n := r
	for n.kind == kRef && n.target == nil {
		if onPath[n] {
			return fmt.Errorf("invalid JSON schema: the references %s loop without reaching a schema", chainText(path, n))
		}
		onPath[n] = true
		path = append(path, n)
		n = n.ref
	}
	end := n
	if n.kind == kRef {
		end = n.target
	}
	for _, p := range path {
		p.target = end
	}
	return nil
}

// shortLoc writes a location of the root document as its pointer alone.
func shortLoc(loc string) string {
	if rest, ok := strings.CutPrefix(loc, rootURL+"#"); ok {
		return "#" + rest
	}
	return strings.TrimPrefix(loc, rootURL+"/")
}

// chainText names the references of a loop that comes back to n, for the
// error: "#/$defs/a → #/$defs/b → #/$defs/a".
func chainText(path []*node, n *node) string {
	var locs []string
	for i, p := range path {
		if p == n {
			for _, q := range path[i:] {
				locs = append(locs, shortLoc(q.refLoc))
			}
			break
		}
	}
	locs = append(locs, shortLoc(n.refLoc))
	if len(locs) > 6 {
		locs = append(append(locs[:3:3], "…"), locs[len(locs)-2:]...)
	}
	return strings.Join(locs, " → ")
}

// location renders a document URL and pointer tokens as the compiler's
// Schema.Location does.
func location(docURL string, ptr []string) string {
	var sb strings.Builder
	sb.WriteString(docURL)
	sb.WriteByte('#')
	for _, tok := range ptr {
		sb.WriteByte('/')
		sb.WriteString(url.PathEscape(escapeToken(tok)))
	}
	return sb.String()
}

// splitLocation parses a Schema.Location back into URL and tokens.
func splitLocation(loc string) (string, []string, bool) {
	docURL, frag, _ := strings.Cut(loc, "#")
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return "", nil, false
	}
	if frag == "" {
		return docURL, nil, true
	}
	if !strings.HasPrefix(frag, "/") {
		return "", nil, false
	}
	var toks []string
	for _, t := range strings.Split(frag[1:], "/") {
		toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
	}
	return docURL, toks, true
}

// lookup finds the raw value at a pointer in a document.
func (b *builder) lookup(docURL string, ptr []string) *jval {
	v := b.docs[docURL]
	for _, tok := range ptr {
		if v == nil {
			return nil
		}
		switch v.kind {
		case jObject:
			v = v.get(tok)
		case jArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v.arr) {
				return nil
			}
			v = v.arr[i]
		default:
			return nil
		}
	}
	return v
}

// at returns the part for the schema at a location, building it once.
func (b *builder) at(docURL string, ptr []string) *node {
	loc := location(docURL, ptr)
	if n, ok := b.memo[loc]; ok {
		return n
	}
	raw := b.lookup(docURL, ptr)
	var n *node
	if raw == nil {
		// A meta-schema or another document we do not hold: opaque.
		n = &node{kind: kEmpty, refLoc: loc}
	} else {
		n = b.decompose(docURL, ptr, raw, b.draftAt(loc))
	}
	b.memo[loc] = n
	return n
}

// draftAt returns the draft the compiler used for the schema at loc, or the
// draft of the nearest compiled ancestor, or the root's.
func (b *builder) draftAt(loc string) int {
	if s, ok := b.index[loc]; ok {
		return s.DraftVersion
	}
	return b.root.DraftVersion
}

func (b *builder) child(docURL string, ptr []string, toks ...string) *node {
	p := make([]string, 0, len(ptr)+len(toks))
	p = append(p, ptr...)
	p = append(p, toks...)
	return b.at(docURL, p)
}

// refNode makes a part that refers to the schema the compiler resolved.
func (b *builder) refNode(target *js.Schema, raw *jval, key string) *node {
	n := &node{kind: kRef, raw: raw, key: key, refLoc: target.Location}
	b.pending = append(b.pending, n)
	return n
}

// localRef resolves a "$ref" the compiler did not compile (it sits under a
// keyword the draft ignores) when it is a JSON pointer into the same
// document.
func (b *builder) localRef(docURL string, raw *jval) *node {
	ref, _ := raw.str("$ref")
	if !strings.HasPrefix(ref, "#") {
		return &node{kind: kEmpty, raw: raw}
	}
	_, toks, ok := splitLocation(docURL + ref)
	if !ok || b.lookup(docURL, toks) == nil {
		return &node{kind: kEmpty, raw: raw}
	}
	n := &node{kind: kRef, raw: raw, refLoc: location(docURL, toks)}
	b.pending = append(b.pending, n)
	return n
}

// Keyword families that make a part of their own.
var (
	stringKeywords = []string{"minLength", "maxLength", "pattern", "format"}
	numberKeywords = []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
)

func objectKeywords(d int) []string {
	kw := []string{"properties", "required", "minProperties", "maxProperties", "dependencies",
		"patternProperties", "additionalProperties"}
	if d >= 6 {
		kw = append(kw, "propertyNames")
	}
	if d >= 2019 {
		kw = append(kw, "dependentRequired", "dependentSchemas", "unevaluatedProperties")
	}
	return kw
}

func arrayKeywords(d int) []string {
	kw := []string{"items", "additionalItems", "minItems", "maxItems", "uniqueItems"}
	if d >= 6 {
		kw = append(kw, "contains")
	}
	if d >= 2019 {
		kw = append(kw, "unevaluatedItems", "minContains", "maxContains")
	}
	if d >= 2020 {
		kw = append(kw, "prefixItems")
	}
	return kw
}

// hasFamily reports whether raw uses a keyword of a family. For 2019-09 and
// later it follows Confluent's SchemaTranslator, which ignores "format" and
// makes no part of an empty "properties".
func hasFamily(raw *jval, kws []string, d int) bool {
	for _, k := range kws {
		v := raw.get(k)
		if v == nil {
			continue
		}
		if d >= 2019 {
			if k == "format" {
				continue
			}
			if k == "properties" && v.kind == jObject && len(v.obj) == 0 {
				continue
			}
			if (k == "minContains" || k == "maxContains") && !raw.has("contains") {
				continue
			}
		}
		return true
	}
	return false
}

// decompose splits one schema value into parts as Confluent's loaders do.
func (b *builder) decompose(docURL string, ptr []string, raw *jval, d int) *node {
	switch raw.kind {
	case jBool:
		if raw.b {
			return &node{kind: kEmpty, raw: raw}
		}
		return &node{kind: kFalse, raw: raw}
	case jObject:
	default:
		return &node{kind: kEmpty, raw: raw}
	}
	loc := location(docURL, ptr)
	cs := b.index[loc]
	ann := annotations(raw, d)

	// Drafts 4-7: "All other properties in a "$ref" object MUST be ignored".
	if d < 2019 && raw.has("$ref") {
		var n *node
		if cs != nil && cs.Ref != nil {
			n = b.refNode(cs.Ref, raw, "")
		} else {
			n = b.localRef(docURL, raw)
		}
		n.annot = ann
		return n
	}

	var parts []*node
	if d >= 2019 && cs != nil {
		if cs.Ref != nil {
			parts = append(parts, b.refNode(cs.Ref, raw, "|$ref"))
		}
		if cs.DynamicRef != nil && cs.DynamicRef.Ref != nil {
			parts = append(parts, b.refNode(cs.DynamicRef.Ref, raw, "|$dynamicRef"))
		}
		if cs.RecursiveRef != nil {
			parts = append(parts, b.refNode(cs.RecursiveRef, raw, "|$recursiveRef"))
		}
	}
	if e := raw.get("enum"); e != nil && e.kind == jArray {
		parts = append(parts, &node{kind: kEnum, raw: raw, key: "|enum", values: e.arr})
	}
	for _, m := range raw.obj {
		if (m.key == critAll || m.key == critAny || m.key == critOne) && m.val.kind == jArray {
			c := &node{kind: kCombined, raw: raw, key: "|" + m.key, crit: m.key}
			for i := range m.val.arr {
				c.subs = append(c.subs, b.child(docURL, ptr, m.key, strconv.Itoa(i)))
			}
			parts = append(parts, b.finishCombined(c))
		}
	}
	if raw.has("not") {
		parts = append(parts, &node{kind: kNot, raw: raw, key: "|not", not: b.child(docURL, ptr, "not")})
	}
	if d >= 6 && raw.has("const") {
		parts = append(parts, &node{kind: kConst, raw: raw, key: "|const", constVal: raw.get("const")})
	}

	var hasString, hasNumber, hasObject, hasArray bool
	typed := func(t string) *node {
		switch t {
		case "string":
			hasString = true
			return b.stringPart(raw)
		case "integer", "number":
			hasNumber = true
			n := b.numberPart(raw, d)
			n.integer = t == "integer"
			return n
		case "boolean":
			return &node{kind: kBoolean, raw: raw}
		case "null":
			return &node{kind: kNull, raw: raw}
		case "array":
			hasArray = true
			return b.arrayPart(docURL, ptr, raw, d)
		case "object":
			hasObject = true
			return b.objectPart(docURL, ptr, raw, d)
		}
		return &node{kind: kEmpty, raw: raw}
	}
	switch t := raw.get("type"); {
	case t == nil:
	case t.kind == jString:
		n := typed(t.s)
		n.key = "|type"
		parts = append(parts, n)
	case t.kind == jArray:
		c := &node{kind: kCombined, raw: raw, key: "|type", crit: critAny, typeArray: true}
		for _, e := range t.arr {
			if e.kind == jString {
				n := typed(e.s)
				n.key = "|type=" + e.s
				c.subs = append(c.subs, n)
			}
		}
		parts = append(parts, b.finishCombined(c))
	}
	if !hasArray && hasFamily(raw, arrayKeywords(d), d) {
		n := b.arrayPart(docURL, ptr, raw, d)
		n.key = "|array"
		parts = append(parts, n)
	}
	if !hasObject && hasFamily(raw, objectKeywords(d), d) {
		n := b.objectPart(docURL, ptr, raw, d)
		n.key = "|object"
		parts = append(parts, n)
	}
	if !hasNumber && hasFamily(raw, numberKeywords, d) {
		n := b.numberPart(raw, d)
		n.key = "|number"
		parts = append(parts, n)
	}
	if !hasString && hasFamily(raw, stringKeywords, d) {
		n := b.stringPart(raw)
		n.key = "|string"
		parts = append(parts, n)
	}
	if d >= 7 && (raw.has("if") || raw.has("then") || raw.has("else")) {
		parts = append(parts, &node{kind: kCond, raw: raw, key: "|if"})
	}

	var n *node
	switch len(parts) {
	case 0:
		n = &node{kind: kEmpty, raw: raw}
	case 1:
		n = parts[0]
	default:
		n = b.finishCombined(&node{kind: kCombined, raw: raw, key: "|parts", crit: critAll, subs: parts})
	}
	n.annot = ann
	return n
}

// annot holds the keywords every part carries, compared as Confluent does
// (ID_CHANGED, TITLE_CHANGED, DESCRIPTION_CHANGED, DEFAULT_CHANGED), and
// Kafka Connect's connect.type.
type annot struct {
	id, title, description *string
	def                    *jval // "default", nil when absent
	connectType            string
}

// annotations reads a schema object's annot. Confluent's SchemaTranslator
// drops $id for 2019-09 and later.
func annotations(raw *jval, d int) annot {
	var a annot
	str := func(k string) *string {
		if s, ok := raw.str(k); ok {
			return &s
		}
		return nil
	}
	switch {
	case d == 4:
		a.id = str("id")
	case d < 2019:
		a.id = str("$id")
	}
	a.title = str("title")
	a.description = str("description")
	a.def = raw.get("default")
	a.connectType, _ = raw.str("connect.type")
	return a
}

func intKeyword(raw *jval, k string) *big.Int {
	v := raw.get(k)
	if v == nil || v.kind != jNumber {
		return nil
	}
	r, ok := numberRat(v.s)
	if !ok || !r.IsInt() {
		return nil
	}
	return new(big.Int).Set(r.Num())
}

func ratKeyword(raw *jval, k string) *big.Rat {
	v := raw.get(k)
	if v == nil || v.kind != jNumber {
		return nil
	}
	r, ok := numberRat(v.s)
	if !ok {
		return nil
	}
	return r
}

func (b *builder) stringPart(raw *jval) *node {
	n := &node{kind: kString, raw: raw}
	n.minLength = intKeyword(raw, "minLength")
	n.maxLength = intKeyword(raw, "maxLength")
	if p, ok := raw.str("pattern"); ok {
		n.pattern = &p
	}
	return n
}

func (b *builder) numberPart(raw *jval, d int) *node {
	n := &node{kind: kNumber, raw: raw}
	n.minimum = ratKeyword(raw, "minimum")
	n.maximum = ratKeyword(raw, "maximum")
	n.multipleOf = ratKeyword(raw, "multipleOf")
	if d == 4 {
		// Draft-04 makes minimum/maximum exclusive with a boolean.
		if v := raw.get("exclusiveMinimum"); v != nil && v.kind == jBool && v.b {
			n.exclMin, n.minimum = n.minimum, nil
		}
		if v := raw.get("exclusiveMaximum"); v != nil && v.kind == jBool && v.b {
			n.exclMax, n.maximum = n.maximum, nil
		}
	} else {
		n.exclMin = ratKeyword(raw, "exclusiveMinimum")
		n.exclMax = ratKeyword(raw, "exclusiveMaximum")
	}
	return n
}

func (b *builder) objectPart(docURL string, ptr []string, raw *jval, d int) *node {
	n := &node{kind: kObject, raw: raw, addlPermit: true}
	if ps := raw.get("properties"); ps != nil && ps.kind == jObject {
		n.propIdx = make(map[string]*node, len(ps.obj))
		for _, m := range ps.obj {
			c := b.child(docURL, ptr, "properties", m.key)
			var line int32
			if docURL == rootURL {
				line = m.line
			}
			n.props = append(n.props, namedNode{m.key, c, line})
			n.propIdx[m.key] = c
		}
	}
	if req := raw.get("required"); req != nil && req.kind == jArray {
		n.required = make(map[string]bool, len(req.arr))
		for _, e := range req.arr {
			if e.kind == jString {
				n.required[e.s] = true
			}
		}
	}
	if ap := raw.get("additionalProperties"); ap != nil {
		if ap.kind == jBool {
			n.addlPermit = ap.b
		} else {
			n.addlSchema = b.child(docURL, ptr, "additionalProperties")
		}
	}
	if pp := raw.get("patternProperties"); pp != nil && pp.kind == jObject {
		compiled := map[string]js.Regexp{}
		if cs := b.index[location(docURL, ptr)]; cs != nil {
			for r := range cs.PatternProperties {
				compiled[r.String()] = r
			}
		}
		for _, m := range pp.obj {
			re := compiled[m.key]
			if re == nil {
				re, _ = lenientRegexp(m.key)
			}
			n.patterns = append(n.patterns, patternNode{m.key, re, b.child(docURL, ptr, "patternProperties", m.key)})
		}
	}
	addDeps := func(kw string, arrays, schemas bool) {
		deps := raw.get(kw)
		if deps == nil || deps.kind != jObject {
			return
		}
		for _, m := range deps.obj {
			switch {
			case m.val.kind == jArray && arrays:
				var names []string
				for _, e := range m.val.arr {
					if e.kind == jString {
						names = append(names, e.s)
					}
				}
				n.propDeps = append(n.propDeps, namedStrings{m.key, names})
				if _, dup := n.propDepIdx[m.key]; !dup {
					if n.propDepIdx == nil {
						n.propDepIdx = map[string][]string{}
					}
					n.propDepIdx[m.key] = names
				}
			case m.val.kind != jArray && schemas:
				c := b.child(docURL, ptr, kw, m.key)
				n.schemaDeps = append(n.schemaDeps, namedNode{name: m.key, n: c})
				if _, dup := n.schemaDepIdx[m.key]; !dup {
					if n.schemaDepIdx == nil {
						n.schemaDepIdx = map[string]*node{}
					}
					n.schemaDepIdx[m.key] = c
				}
			}
		}
	}
	addDeps("dependencies", true, true)
	if d >= 2019 {
		addDeps("dependentRequired", true, false)
		addDeps("dependentSchemas", false, true)
		if raw.has("unevaluatedProperties") {
			n.uneval = b.child(docURL, ptr, "unevaluatedProperties")
		}
	}
	n.minProps = intKeyword(raw, "minProperties")
	n.maxProps = intKeyword(raw, "maxProperties")
	return n
}

func (b *builder) arrayPart(docURL string, ptr []string, raw *jval, d int) *node {
	n := &node{kind: kArray, raw: raw, addlItemsPermit: true}
	items := raw.get("items")
	if d >= 2020 {
		if pre := raw.get("prefixItems"); pre != nil && pre.kind == jArray {
			for i := range pre.arr {
				n.tuple = append(n.tuple, b.child(docURL, ptr, "prefixItems", strconv.Itoa(i)))
			}
		}
		// SchemaTranslator: items false closes the array, items true adds
		// nothing, a schema is the all-items schema, or the schema of the
		// items after prefixItems.
		switch {
		case items == nil:
		case items.kind == jBool && !items.b:
			n.addlItemsPermit = false
		case items.kind == jBool:
		case raw.has("prefixItems"):
			n.addlItemsSchema = b.child(docURL, ptr, "items")
		default:
			n.allItems = b.child(docURL, ptr, "items")
		}
	} else {
		explicitFalse := false
		if ai := raw.get("additionalItems"); ai != nil {
			if ai.kind == jBool {
				n.addlItemsPermit = ai.b
				explicitFalse = !ai.b
			} else {
				n.addlItemsSchema = b.child(docURL, ptr, "additionalItems")
			}
		}
		switch {
		case items == nil:
		case items.kind == jArray:
			for i := range items.arr {
				n.tuple = append(n.tuple, b.child(docURL, ptr, "items", strconv.Itoa(i)))
			}
		default:
			n.allItems = b.child(docURL, ptr, "items")
			// Everit: additionalItems false means nothing next to an
			// all-items schema.
			if explicitFalse {
				n.addlItemsPermit = true
			}
		}
	}
	n.minItems = intKeyword(raw, "minItems")
	n.maxItems = intKeyword(raw, "maxItems")
	if u := raw.get("uniqueItems"); u != nil && u.kind == jBool {
		n.unique = u.b
	}
	if d >= 2019 {
		if raw.has("contains") {
			n.minContains = intKeyword(raw, "minContains")
			if n.minContains == nil {
				n.minContains = big.NewInt(1)
			}
			n.maxContains = intKeyword(raw, "maxContains")
		}
		if raw.has("unevaluatedItems") {
			n.unevalItems = b.child(docURL, ptr, "unevaluatedItems")
		}
	}
	return n
}

// lenientRegexp compiles with Go's RE2 engine. A pattern RE2 rejects but
// that is a well-formed ECMA-262 pattern (lookaround, backreferences, \u
// escapes) is accepted as an opaque pattern that matches nothing, so that
// schemas written for JavaScript or Java validators still register.
func lenientRegexp(s string) (js.Regexp, error) {
	re, err := regexp.Compile(s)
	if err == nil {
		return re, nil
	}
	if !balanced(s) {
		return nil, err
	}
	return opaqueRegexp(s), nil
}

type opaqueRegexp string

func (r opaqueRegexp) String() string          { return string(r) }
func (r opaqueRegexp) MatchString(string) bool { return false }

// balanced reports whether groups and classes in a pattern are closed.
func balanced(s string) bool {
	depth, inClass := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
			if i >= len(s) {
				return false
			}
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0 && !inClass
}

package evidence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"

	js "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/charter-dev/charter/compat/jsonschema"
)

// jsonEngine generates JSON documents from the writer schema, keeps those
// the writer validates (a generated document the writer refuses is no
// event), and validates each under the reader. JSON Schema readers do
// not transform documents, so an event is Equal or Refused.
type jsonEngine struct {
	reader, writer *jsonschema.Schema
	root           any // the writer's schema document
	// extra are the property names the generator adds where the writer
	// allows undeclared properties: a few of its own and every name
	// the reader declares, since those are the names at which a reader
	// may constrain what the writer leaves open.
	extra []string
	// writerPatterns is whether the writer has patternProperties, to
	// name the rule when the reader refuses a property they allowed.
	writerPatterns bool
}

func newJSONEngine(r, w *jsonschema.Schema) (*jsonEngine, error) {
	root, err := decodeJSON(w.Canonical())
	if err != nil {
		return nil, fmt.Errorf("evidence: read the writer schema: %w", err)
	}
	rroot, err := decodeJSON(r.Canonical())
	if err != nil {
		return nil, fmt.Errorf("evidence: read the reader schema: %w", err)
	}
	if ref := externalRef(root, 0); ref != "" {
		return nil, fmt.Errorf("%w: the writer's $ref %q leaves its document (a schema reference)", ErrUnsupported, ref)
	}
	names := map[string]bool{}
	collectPropertyNames(rroot, names, 0)
	extra := []string{"extra", "Ünïcode-key", "x-1"}
	for _, n := range sortedKeysBool(names) {
		extra = append(extra, n)
	}
	return &jsonEngine{reader: r, writer: w, root: root, extra: extra, writerPatterns: strings.Contains(w.Canonical(), `"patternProperties"`)}, nil
}

// externalRef returns the first $ref of a decoded schema that is not a
// JSON pointer into the document itself ("" for none): the generator
// cannot follow it, and no event it makes would be valid.
func externalRef(v any, depth int) string {
	if depth > 64 {
		return ""
	}
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok && !strings.HasPrefix(ref, "#") {
			return ref
		}
		for _, k := range sortedKeys(x) {
			if r := externalRef(x[k], depth+1); r != "" {
				return r
			}
		}
	case []any:
		for _, c := range x {
			if r := externalRef(c, depth+1); r != "" {
				return r
			}
		}
	}
	return ""
}

func collectPropertyNames(v any, names map[string]bool, depth int) {
	if depth > 32 || len(names) > 64 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			for n := range props {
				names[n] = true
			}
		}
		for _, c := range x {
			collectPropertyNames(c, names, depth+1)
		}
	case []any:
		for _, c := range x {
			collectPropertyNames(c, names, depth+1)
		}
	}
}

func sortedKeysBool(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func decodeJSON(text string) (any, error) {
	return js.UnmarshalJSON(strings.NewReader(text))
}

func (e *jsonEngine) roots() int { return 1 }

func (e *jsonEngine) event(_ int, ch *chooser) (*observed, bool) {
	g := &jsonGen{ch: ch, root: e.root, extra: e.extra}
	doc, ok := g.value(e.root, "", 0)
	if !ok {
		return nil, false
	}
	text, err := json.Marshal(doc)
	if err != nil {
		return nil, false
	}
	// Validate what a consumer parses: the document's text.
	parsed, err := decodeJSON(string(text))
	if err != nil || e.writer.Validate(parsed) != nil {
		return nil, false
	}
	obs := &observed{event: func() json.RawMessage { return text }}
	if err := e.reader.Validate(parsed); err != nil {
		var ve *js.ValidationError
		if !errors.As(err, &ve) {
			obs.add(Refused, "#/", "refused", "the reader failed to validate the document: "+err.Error(), "")
			return obs, true
		}
		leaf := leafCause(ve)
		path, what, ruleID := jsonRefusal(leaf)
		if ruleID == "" && e.writerPatterns && (strings.Contains(what, "additionalProperties") || strings.Contains(what, "unevaluatedProperties") || strings.Contains(what, "additional properties")) {
			// The writer allowed the property through its
			// patternProperties, which the rules do not compare.
			ruleID = RuleJSONPatternPropertiesChanged
		}
		obs.add(Refused, path, "refused", what, ruleID)
		return obs, true
	}
	return obs, true
}

// leafCause is the first deepest cause of a validation error: the keyword
// that failed.
func leafCause(ve *js.ValidationError) *js.ValidationError {
	for len(ve.Causes) > 0 {
		// Prefer a cause that names a keyword over a group, and of
		// those the first by instance and schema location: the
		// validator lists the causes of "properties" in Go map order.
		var next *js.ValidationError
		for _, c := range ve.Causes {
			switch kw := len(c.ErrorKind.KeywordPath()) > 0; {
			case next == nil:
				next = c
			case kw != (len(next.ErrorKind.KeywordPath()) > 0):
				if kw {
					next = c
				}
			case causeBefore(c, next):
				next = c
			}
		}
		if _, ok := ve.ErrorKind.(*kind.OneOf); ok {
			if o := ve.ErrorKind.(*kind.OneOf); len(o.Subschemas) > 1 {
				return ve // several alternatives matched: the oneOf itself failed
			}
		}
		ve = next
	}
	return ve
}

// causeBefore orders validation errors by instance location (array
// indices as numbers), then schema location.
func causeBefore(a, b *js.ValidationError) bool {
	for i := 0; i < len(a.InstanceLocation) && i < len(b.InstanceLocation); i++ {
		x, y := a.InstanceLocation[i], b.InstanceLocation[i]
		if x == y {
			continue
		}
		xn, xerr := strconv.Atoi(x)
		yn, yerr := strconv.Atoi(y)
		if xerr == nil && yerr == nil {
			return xn < yn
		}
		return x < y
	}
	if len(a.InstanceLocation) != len(b.InstanceLocation) {
		return len(a.InstanceLocation) < len(b.InstanceLocation)
	}
	return a.SchemaURL < b.SchemaURL
}

// jsonRefusal describes a failed keyword: the JSON pointer of the
// instance, a sentence, and the evidence rule the failure proves.
func jsonRefusal(ve *js.ValidationError) (path, what, ruleID string) {
	instance := "#/" + strings.Join(escapePointer(ve.InstanceLocation), "/")
	loc := schemaPointer(ve.SchemaURL)
	// The path is the reader schema's location, as the JSON Schema
	// violations name it ("#/properties/contact"); "#/" for the root.
	path = loc
	if path == "#" {
		path = "#/"
	}
	kw := strings.Join(ve.ErrorKind.KeywordPath(), "/")
	what = fmt.Sprintf("the reader refused the document at %s: %s (reader schema %s)", instance, ve.ErrorKind.LocalizedString(message.NewPrinter(language.English)), strings.TrimSuffix(loc, "/")+"/"+kw)
	switch k := ve.ErrorKind.(type) {
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			ruleID = RuleJSONOneOfOverlap
		}
	case *kind.Pattern:
		if !strings.Contains(loc, "/patternProperties/") && !strings.Contains(loc, "/propertyNames") {
			ruleID = RuleJSONPatternNarrowed
		}
	case *kind.PropertyNames:
		ruleID = RuleJSONPropertyNamesChanged
	case *kind.Contains, *kind.MinContains, *kind.MaxContains:
		ruleID = RuleJSONContainsChanged
	case *kind.Required:
		if strings.Contains(loc, "/allOf/") {
			ruleID = RuleJSONRequiredThroughAllOf
		}
	}
	if ruleID == "" {
		switch {
		case strings.Contains(loc, "/propertyNames"):
			ruleID = RuleJSONPropertyNamesChanged
		case strings.Contains(loc, "/patternProperties/"):
			ruleID = RuleJSONPatternPropertiesChanged
		case strings.Contains(loc, "/dependentSchemas/") || strings.Contains(loc, "/dependencies/"):
			ruleID = RuleJSONDependentSchemasChanged
		case strings.Contains(loc, "/contains"):
			ruleID = RuleJSONContainsChanged
		}
	}
	return path, what, ruleID
}

func escapePointer(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
	}
	return out
}

// schemaPointer is the JSON pointer fragment of a schema location URL
// ("#/properties/a"), "#" for the root.
func schemaPointer(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		frag := u[i:]
		if p, err := url.PathUnescape(frag); err == nil {
			return p
		}
		return frag
	}
	return "#"
}

// jsonGen generates one document.
type jsonGen struct {
	ch    *chooser
	root  any
	refs  int
	extra []string
}

func (g *jsonGen) pick(key string, n, depth int) int {
	if depth > maxDepth || g.ch.low() {
		return 0
	}
	return g.ch.pick(key, n)
}

// resolve follows a local $ref ("#/..." JSON pointer) in the writer's
// document; nil when it leaves the document.
func (g *jsonGen) resolve(ref string) any {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	ptr := strings.TrimPrefix(ref, "#")
	cur := g.root
	if ptr == "" {
		return cur
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok, _ = url.PathUnescape(tok)
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// merge is s with its allOf parts, its local $ref and the chosen oneOf /
// anyOf alternative folded in (properties and required united, other
// keywords of the part taking over). The writer's validation filters out
// whatever the merge gets wrong.
func (g *jsonGen) merge(s map[string]any, key string, depth int) map[string]any {
	out := map[string]any{}
	var add func(m map[string]any, level int)
	add = func(m map[string]any, level int) {
		if level > 8 {
			return
		}
		for k, v := range m {
			switch k {
			case "allOf", "oneOf", "anyOf", "$ref", "if", "then", "else":
				continue
			case "properties":
				props, _ := out[k].(map[string]any)
				if props == nil {
					props = map[string]any{}
				}
				if pm, ok := v.(map[string]any); ok {
					for pk, pv := range pm {
						if prev, ok := props[pk]; ok {
							// Both constrain the property.
							props[pk] = map[string]any{"allOf": []any{prev, pv}}
						} else {
							props[pk] = pv
						}
					}
				}
				out[k] = props
			case "required":
				req, _ := out[k].([]any)
				if rl, ok := v.([]any); ok {
					req = append(req, rl...)
				}
				out[k] = req
			default:
				out[k] = v
			}
		}
		if ref, ok := m["$ref"].(string); ok {
			if t, ok := g.resolve(ref).(map[string]any); ok && g.refs < 200 {
				g.refs++
				add(t, level+1)
			}
		}
		if parts, ok := m["allOf"].([]any); ok {
			for _, p := range parts {
				if pm, ok := p.(map[string]any); ok {
					add(pm, level+1)
				}
			}
		}
		// if/then/else: fold then or else in, so that documents
		// the writer's conditional branch constrains are made
		// (whether the condition holds, validation tells).
		if _, ok := m["if"]; ok {
			branch := []string{"then", "else"}[g.pick(fmt.Sprintf("%s/if%d|", key, level), 2, depth)]
			if bm, ok := m[branch].(map[string]any); ok {
				add(bm, level+1)
			}
		}
		for _, kw := range []string{"oneOf", "anyOf"} {
			if alts, ok := m[kw].([]any); ok && len(alts) > 0 {
				i := g.pick(fmt.Sprintf("%s/%s%d|", key, kw, level), len(alts), depth)
				if am, ok := alts[i].(map[string]any); ok {
					add(am, level+1)
				}
			}
		}
	}
	add(s, 0)
	return out
}

// value generates a value of schema s at choice key.
func (g *jsonGen) value(s any, key string, depth int) (any, bool) {
	if depth > 4*maxDepth {
		return nil, false
	}
	switch sv := s.(type) {
	case bool:
		if !sv {
			return nil, false
		}
		return anyValues[g.pick(key, len(anyValues), depth)], true
	case map[string]any:
		m := g.merge(sv, key, depth)
		if c, ok := m["const"]; ok {
			return c, true
		}
		if en, ok := m["enum"].([]any); ok && len(en) > 0 {
			return en[g.pick(key+"=", len(en), depth)], true
		}
		types := typesOf(m)
		t := types[g.pick(key+":", len(types), depth)]
		return g.typed(m, t, key, depth)
	}
	return nil, false
}

var anyValues = []any{nil, "a", json.Number("1"), true, map[string]any{}, []any{}}

// typesOf lists the types s allows, the ones its keywords suggest when it
// names none.
func typesOf(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if str, ok := e.(string); ok {
				out = append(out, str)
			}
		}
		if len(out) > 0 {
			// null last: option 0 is the most telling type.
			sort.SliceStable(out, func(i, j int) bool { return out[j] == "null" && out[i] != "null" })
			return out
		}
	}
	for k := range s {
		switch k {
		case "properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties":
			return []string{"object"}
		case "items", "prefixItems", "contains", "minItems", "maxItems", "uniqueItems", "additionalItems":
			return []string{"array"}
		case "minLength", "maxLength", "pattern", "format":
			return []string{"string"}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
			return []string{"number"}
		}
	}
	return []string{"object", "string", "integer", "number", "boolean", "null", "array"}
}

func (g *jsonGen) typed(s map[string]any, t, key string, depth int) (any, bool) {
	switch t {
	case "null":
		return nil, true
	case "boolean":
		return g.pick(key, 2, depth) == 1, true
	case "integer", "number":
		return g.number(s, t == "integer", key, depth), true
	case "string":
		return g.str(s, key, depth), true
	case "array":
		return g.array(s, key, depth)
	case "object":
		return g.object(s, key, depth)
	}
	return nil, false
}

func jnum(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	}
	return 0, false
}

// number generates boundary numbers of s's range: its limits and their
// neighbours, 0, ±1, a fraction, a large value.
func (g *jsonGen) number(s map[string]any, integer bool, key string, depth int) any {
	cands := []float64{0, 1, -1, 1.5, 0.5, -2.5, 1e15, -1e15, 9007199254740993}
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
		if f, ok := jnum(s[k]); ok {
			cands = append(cands, f, f+1, f-1, f+0.5, f-0.5, math.Floor(f), math.Ceil(f))
		}
	}
	lo, okl := jnum(s["minimum"])
	hi, okh := jnum(s["maximum"])
	if okl && okh {
		cands = append(cands, (lo+hi)/2, lo+(hi-lo)/4)
	}
	if f, ok := jnum(s["multipleOf"]); ok && f > 0 {
		cands = append(cands, f, 2*f, -f)
	}
	var out []float64
	for _, c := range cands {
		if integer && c != math.Trunc(c) {
			continue
		}
		if !inRange(s, c) {
			continue
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		out = cands[:1]
	}
	f := out[g.pick(key, len(out), depth)]
	if f == math.Trunc(f) && math.Abs(f) < 1e18 {
		return json.Number(strconv.FormatInt(int64(f), 10))
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

func inRange(s map[string]any, f float64) bool {
	if m, ok := jnum(s["minimum"]); ok {
		if b, _ := s["exclusiveMinimum"].(bool); b && f <= m || f < m {
			return false
		}
	}
	if m, ok := jnum(s["maximum"]); ok {
		if b, _ := s["exclusiveMaximum"].(bool); b && f >= m || f > m {
			return false
		}
	}
	if m, ok := jnum(s["exclusiveMinimum"]); ok && f <= m {
		return false
	}
	if m, ok := jnum(s["exclusiveMaximum"]); ok && f >= m {
		return false
	}
	if m, ok := jnum(s["multipleOf"]); ok && m > 0 {
		q := f / m
		if q != math.Trunc(q) {
			return false
		}
	}
	return true
}

var formatStrings = map[string][]string{
	"date-time": {"2024-02-29T12:34:56Z", "1970-01-01T00:00:00.000+01:00"},
	"date":      {"2024-02-29", "1970-01-01"},
	"time":      {"12:34:56Z", "00:00:00+01:00"},
	"email":     {"a@example.com", "ünï@example.com"},
	"uuid":      {"123e4567-e89b-12d3-a456-426614174000", "00000000-0000-0000-0000-000000000000"},
	"uri":       {"https://example.com/a?b=c", "urn:isbn:0451450523"},
	"hostname":  {"example.com", "a"},
	"ipv4":      {"192.0.2.1", "0.0.0.0"},
	"ipv6":      {"2001:db8::1", "::"},
}

// str generates strings: from s's pattern when it has one (several
// matches, varied), its format's examples, else boundary strings, cut or
// padded to its length bounds.
func (g *jsonGen) str(s map[string]any, key string, depth int) string {
	var cands []string
	if p, ok := s["pattern"].(string); ok {
		for v := range 3 {
			if str, ok := fromPattern(p, v); ok {
				cands = append(cands, str)
			}
		}
	}
	if f, ok := s["format"].(string); ok {
		cands = append(cands, formatStrings[f]...)
	}
	if len(cands) == 0 {
		cands = genStrings
	}
	str := cands[g.pick(key, len(cands), depth)]
	if n, ok := jnum(s["minLength"]); ok && len([]rune(str)) < int(n) {
		str += strings.Repeat("x", int(n)-len([]rune(str)))
	}
	if n, ok := jnum(s["maxLength"]); ok && len([]rune(str)) > int(n) {
		str = string([]rune(str)[:int(n)])
	}
	return str
}

func (g *jsonGen) array(s map[string]any, key string, depth int) (any, bool) {
	var prefix []any
	if p, ok := s["prefixItems"].([]any); ok {
		prefix = p
	} else if p, ok := s["items"].([]any); ok {
		prefix = p
	}
	var items any = true
	if it, ok := s["items"]; ok {
		if _, tuple := it.([]any); !tuple {
			items = it
		} else if ai, ok := s["additionalItems"]; ok {
			items = ai
		}
	}
	n := repeatLens[g.pick(key+"#", len(repeatLens), depth)]
	if m, ok := jnum(s["minItems"]); ok && n < int(m) {
		n = int(m)
	}
	if m, ok := jnum(s["maxItems"]); ok && n > int(m) {
		n = int(m)
	}
	if n > 64 {
		n = 64
	}
	out := make([]any, 0, n)
	for i := range n {
		sch := items
		if i < len(prefix) {
			sch = prefix[i]
		}
		v, ok := g.value(sch, fmt.Sprintf("%s[%d]", key, i), depth+1)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	if c, ok := s["contains"]; ok && (len(out) == 0 || g.pick(key+"+", 2, depth) == 1) {
		n := 1
		if m, ok := jnum(s["minContains"]); ok && int(m) > 1 {
			n = min(int(m), 16)
		}
		for i := range n {
			if v, ok := g.value(c, fmt.Sprintf("%s[c%d]", key, i), depth+1); ok {
				out = append(out, v)
			}
		}
	}
	if u, _ := s["uniqueItems"].(bool); u {
		out = uniqueValues(out)
	}
	return out, true
}

func uniqueValues(in []any) []any {
	seen := map[string]bool{}
	out := in[:0]
	for _, v := range in {
		b, _ := json.Marshal(v)
		if !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, v)
		}
	}
	return out
}

func (g *jsonGen) object(s map[string]any, key string, depth int) (any, bool) {
	out := map[string]any{}
	props, _ := s["properties"].(map[string]any)
	required := map[string]bool{}
	if rl, ok := s["required"].([]any); ok {
		for _, r := range rl {
			if str, ok := r.(string); ok {
				required[str] = true
			}
		}
	}
	names := make([]string, 0, len(props)+len(required))
	for n := range props {
		names = append(names, n)
	}
	for n := range required {
		if _, ok := props[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		pkey := key + "/" + name
		if !required[name] && g.pick(pkey+"?", 2, depth) == 0 {
			continue
		}
		var ps any = true
		if p, ok := props[name]; ok {
			ps = p
		}
		v, ok := g.value(ps, pkey, depth+1)
		if !ok {
			if required[name] {
				return nil, false
			}
			continue
		}
		out[name] = v
	}
	// Properties the writer allows beyond its declared ones: one named
	// after each pattern of patternProperties, and one extra name.
	if pp, ok := s["patternProperties"].(map[string]any); ok {
		pats := sortedKeys(pp)
		for i, p := range pats {
			pkey := fmt.Sprintf("%s/~p%d", key, i)
			if g.pick(pkey+"?", 2, depth) == 0 {
				continue
			}
			name, ok := fromPattern(p, g.pick(pkey+"~", 3, depth))
			if !ok {
				continue
			}
			if _, taken := out[name]; taken {
				continue
			}
			if v, ok := g.value(pp[p], pkey, depth+1); ok {
				out[name] = v
			}
		}
	}
	if ap, ok := s["additionalProperties"]; !ok || ap != false {
		if ap == nil {
			ap = true
		}
		if g.pick(key+"/~extra?", 2, depth) == 1 {
			name := g.extra[g.pick(key+"/~extra~", len(g.extra), depth)]
			if _, taken := out[name]; !taken {
				if v, ok := g.value(ap, key+"/~extra", depth+1); ok {
					out[name] = v
				}
			}
		}
	}
	// minProperties: fill with the extra names where the writer allows
	// them.
	if n, ok := jnum(s["minProperties"]); ok && len(out) < int(n) {
		ap, ok := s["additionalProperties"]
		if !ok || ap != false {
			if ap == nil {
				ap = true
			}
			for i := 0; i < len(g.extra) && len(out) < int(n); i++ {
				if _, taken := out[g.extra[i]]; taken {
					continue
				}
				if v, ok := g.value(ap, key+"/~min/"+g.extra[i], depth+1); ok {
					out[g.extra[i]] = v
				}
			}
		}
	}
	// dependentRequired and dependentSchemas (draft 2019+), dependencies
	// (earlier drafts): add what a present property asks for.
	for _, kw := range []string{"dependentSchemas", "dependencies"} {
		deps, _ := s[kw].(map[string]any)
		for _, p := range sortedKeys(deps) {
			if _, present := out[p]; !present {
				continue
			}
			if dm, ok := deps[p].(map[string]any); ok {
				if v, ok := g.value(dm, key+"/~dep/"+p, depth+1); ok {
					if vm, ok := v.(map[string]any); ok {
						for k, x := range vm {
							if _, taken := out[k]; !taken {
								out[k] = x
							}
						}
					}
				}
			}
		}
	}
	return out, true // encoding/json writes its keys sorted
}

// fromPattern generates a string the regular expression p matches
// (searching, as JSON Schema patterns are not anchored); variant varies
// the choices (character class ends, repetition counts, alternatives).
func fromPattern(p string, variant int) (string, bool) {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b bytes.Buffer
	if !genRegexp(&b, re.Simplify(), variant, 0) {
		return "", false
	}
	return b.String(), true
}

func genRegexp(b *bytes.Buffer, re *syntax.Regexp, v, depth int) bool {
	if depth > 50 || b.Len() > 400 {
		return false
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		if len(re.Rune) < 2 {
			return false
		}
		pairs := len(re.Rune) / 2
		pair := v % pairs
		lo, hi := re.Rune[2*pair], re.Rune[2*pair+1]
		switch v % 3 {
		case 0:
			b.WriteRune(lo)
		case 1:
			b.WriteRune(hi)
		default:
			b.WriteRune(lo + (hi-lo)/2)
		}
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteRune([]rune{'a', 'é', '7'}[v%3])
	case syntax.OpCapture:
		return genRegexp(b, re.Sub[0], v, depth+1)
	case syntax.OpConcat:
		for i, s := range re.Sub {
			if !genRegexp(b, s, v+i, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		return genRegexp(b, re.Sub[v%len(re.Sub)], v/len(re.Sub), depth+1)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 {
				hi = lo + 2
			}
		}
		n := lo + v%(hi-lo+1)
		if n == 0 && lo == 0 && re.Op != syntax.OpQuest {
			n = min(1, hi)
		}
		for i := range n {
			if !genRegexp(b, re.Sub[0], v+i, depth+1) {
				return false
			}
		}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
	default:
		return false
	}
	return true
}

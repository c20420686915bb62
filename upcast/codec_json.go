package upcast

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	js "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// jsonCodec handles JSON Schema data. Decoded values are what
// encoding/json decodes into `any`: objects as map[string]any, numbers as
// float64. The implicit step fills in the reader schema's "default"
// values for missing properties; validation uses
// github.com/santhosh-tekuri/jsonschema/v6 with the version's schema and
// references (nothing is fetched over the network).
type jsonCodec struct{}

// jsonState is a JSON Schema version's prepared form.
type jsonState struct {
	defaults *jsonDefaults
	check    jsonCheck // nil: every value goes to the validator
	text     string
	deps     []depText

	once      sync.Once
	validator *js.Schema
	err       error
}

type depText struct{ name, text string }

// jsonDefaults is the tree of "default" values of an object schema's
// properties, nested objects included.
type jsonDefaults struct {
	names []string
	props map[string]*jsonDefaults
	def   map[string]any // property name → default
}

func (jsonCodec) resolution() string { return "JSON Schema defaults" }

func (jsonCodec) prepare(v *version, opts *options) error {
	var doc any
	if err := json.Unmarshal([]byte(v.schema.Canonical()), &doc); err != nil {
		return fmt.Errorf("%s: read schema text: %w", v, err)
	}
	st := &jsonState{text: v.schema.Canonical()}
	for _, d := range v.deps {
		st.deps = append(st.deps, depText{d.Name, d.Text})
	}
	st.defaults = buildDefaults(doc, doc, 0)
	st.check = compileJSONCheck(doc)
	v.state = st
	return nil
}

const maxDefaultsDepth = 32

// buildDefaults collects defaults from "properties", following local
// "$ref"s ("#/definitions/X", "#/$defs/X") and "allOf" parts.
func buildDefaults(node, root any, depth int) *jsonDefaults {
	obj, ok := node.(map[string]any)
	if !ok || depth > maxDefaultsDepth {
		return nil
	}
	if ref, ok := obj["$ref"].(string); ok && strings.HasPrefix(ref, "#/") {
		if target := pointer(root, ref[1:]); target != nil {
			return buildDefaults(target, root, depth+1)
		}
	}
	d := &jsonDefaults{props: map[string]*jsonDefaults{}, def: map[string]any{}}
	add := func(o map[string]any) {
		props, _ := o["properties"].(map[string]any)
		for name, p := range props {
			po, _ := p.(map[string]any)
			if po == nil {
				continue
			}
			known := d.def[name] != nil || d.props[name] != nil
			if def, ok := po["default"]; ok {
				d.def[name] = def
			}
			if sub := buildDefaults(po, root, depth+1); sub != nil {
				d.props[name] = sub
			}
			if !known && (d.def[name] != nil || d.props[name] != nil) {
				d.names = append(d.names, name)
			}
		}
	}
	add(obj)
	if parts, ok := obj["allOf"].([]any); ok {
		for _, p := range parts {
			if sub := buildDefaults(p, root, depth+1); sub != nil {
				for _, n := range sub.names {
					if _, ok := d.def[n]; !ok && sub.def[n] != nil {
						d.def[n] = sub.def[n]
					}
					if _, ok := d.props[n]; !ok && sub.props[n] != nil {
						d.props[n] = sub.props[n]
					}
					d.names = append(d.names, n)
				}
			}
		}
	}
	if len(d.names) == 0 {
		return nil
	}
	return d
}

// pointer resolves a JSON pointer ("/definitions/Address") in doc.
func pointer(doc any, p string) any {
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if t, err := url.PathUnescape(tok); err == nil {
			tok = t
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	return cur
}

// apply fills missing properties of m with defaults, recursively.
func (d *jsonDefaults) apply(m map[string]any) {
	if d == nil {
		return
	}
	for _, name := range d.names {
		cur, ok := m[name]
		if !ok {
			if def, has := d.def[name]; has {
				cur = deepCopy(def)
				m[name] = cur
			}
		}
		if sub := d.props[name]; sub != nil {
			if obj, ok := cur.(map[string]any); ok {
				sub.apply(obj)
			}
		}
	}
}

func jsonStateOf(v *version) *jsonState { return v.state.(*jsonState) }

func (jsonCodec) decoder(writer, reader *version) (decodeFunc, error) {
	var defs *jsonDefaults
	if reader != writer {
		defs = jsonStateOf(reader).defaults
	}
	return func(payload []byte) (map[string]any, error) {
		var m map[string]any
		if err := json.Unmarshal(payload, &m); err != nil {
			return nil, err
		}
		if m == nil {
			return nil, errors.New("the event is not a JSON object")
		}
		defs.apply(m)
		return m, nil
	}, nil
}

func (jsonCodec) converter(_, to *version) (convertFunc, error) {
	defs := jsonStateOf(to).defaults
	return func(v map[string]any) (map[string]any, error) {
		defs.apply(v)
		return v, nil
	}, nil
}

// validator compiles the version's schema on first use.
func (st *jsonState) compile() (*js.Schema, error) {
	st.once.Do(func() {
		const root = "urn:charter:upcast:schema.json"
		c := js.NewCompiler()
		c.DefaultDraft(js.Draft7) // Confluent's default
		c.UseRegexpEngine(lenientRegexp)
		c.UseLoader(noLoader{})
		doc, err := js.UnmarshalJSON(strings.NewReader(st.text))
		if err != nil {
			st.err = err
			return
		}
		if err := c.AddResource(root, doc); err != nil {
			st.err = err
			return
		}
		base, _ := url.Parse("urn:charter:upcast:")
		for _, d := range st.deps {
			dd, err := js.UnmarshalJSON(strings.NewReader(d.text))
			if err != nil {
				st.err = fmt.Errorf("reference %q: %w", d.name, err)
				return
			}
			u := d.name
			if ref, err := url.Parse(d.name); err == nil && !ref.IsAbs() {
				u = base.ResolveReference(ref).String()
			}
			if err := c.AddResource(u, dd); err != nil {
				st.err = fmt.Errorf("reference %q: %w", d.name, err)
				return
			}
		}
		st.validator, st.err = c.Compile(root)
	})
	return st.validator, st.err
}

type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("reference %s is not among the schema's references (nothing is fetched)", u)
}

// lenientRegexp compiles patterns with Go's RE2; a pattern it cannot
// compile (ECMA lookaround) matches everything rather than failing the
// whole schema.
func lenientRegexp(s string) (js.Regexp, error) {
	re, err := regexp.Compile(s)
	if err != nil {
		return matchAll(s), nil
	}
	return re, nil
}

type matchAll string

func (matchAll) MatchString(string) bool { return true }
func (m matchAll) String() string        { return string(m) }

// conform returns v when the version's compiled check finds it valid,
// and otherwise asks the validator (which says why when it is not).
func (jsonCodec) conform(v map[string]any, ver *version, _ bool) (map[string]any, error) {
	st := jsonStateOf(ver)
	if st.check != nil && st.check(v) {
		return v, nil
	}
	val, err := st.compile()
	if err != nil {
		return nil, fmt.Errorf("compile %s for validation: %w", ver, err)
	}
	if err := val.Validate(v); err != nil {
		var ve *js.ValidationError
		if errors.As(err, &ve) {
			return nil, errors.New(oneLine(ve))
		}
		return nil, err
	}
	return v, nil
}

// oneLine renders a validation error as "at /path: message" for its
// first leaf cause.
func oneLine(ve *js.ValidationError) string {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	loc := "/" + strings.Join(ve.InstanceLocation, "/")
	return fmt.Sprintf("at %s: %s", loc, ve.ErrorKind.LocalizedString(printer))
}

var printer = message.NewPrinter(language.English)

func (jsonCodec) encode(v map[string]any, _ *version) ([]byte, error) { return json.Marshal(v) }

func (c jsonCodec) fromJSON(raw []byte, ver *version) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("read JSON value: %w", err)
	}
	if m == nil {
		return nil, errors.New("read JSON value: not an object")
	}
	return m, nil
}

func (jsonCodec) plain(v map[string]any, _ *version) any { return v }

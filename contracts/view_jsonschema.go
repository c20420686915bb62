package contracts

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	js "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/compat/jsonschema"
)

const jsRootURL = "urn:charter:contract-schema.json"

// buildJSONSchema prepares a JSON Schema: the schema's Canonical text is
// compiled with github.com/santhosh-tekuri/jsonschema/v6 under the draft
// compat/jsonschema read it with, and its references are added as
// resources under their names. Properties listed in "required" are
// present; "additionalProperties": false closes an object. Decoding
// validates the example; a missing required property is not an error, as
// an example lists only what the consumer reads.
func (v *view) buildJSONSchema(s *jsonschema.Schema, refs []compat.Dependency) error {
	c := js.NewCompiler()
	c.DefaultDraft(jsDraft(s.Draft()))
	c.UseRegexpEngine(lenientRegexp)
	doc, err := js.UnmarshalJSON(strings.NewReader(s.Canonical()))
	if err != nil {
		return fmt.Errorf("contracts: read JSON schema: %w", err)
	}
	if m, ok := doc.(map[string]any); ok {
		delete(m, "$schema") // the draft comes from DefaultDraft
	}
	if err := c.AddResource(jsRootURL, doc); err != nil {
		return fmt.Errorf("contracts: JSON schema: %w", err)
	}
	base, _ := url.Parse(jsRootURL)
	for _, d := range refs {
		dd, err := js.UnmarshalJSON(strings.NewReader(d.Text))
		if err != nil {
			return fmt.Errorf("contracts: reference %q: %w", d.Name, err)
		}
		ref, err := url.Parse(d.Name)
		if err != nil {
			return fmt.Errorf("contracts: reference %q: %w", d.Name, err)
		}
		if err := c.AddResource(base.ResolveReference(ref).String(), dd); err != nil {
			return fmt.Errorf("contracts: reference %q: %w", d.Name, err)
		}
	}
	sch, err := c.Compile(jsRootURL)
	if err != nil {
		return fmt.Errorf("contracts: compile JSON schema: %w", err)
	}
	v.root = jsNode(sch, map[*js.Schema]*node{})
	v.decode = func(example any) []decodeProblem {
		err := sch.Validate(example)
		if err == nil {
			return nil
		}
		ve, ok := err.(*js.ValidationError)
		if !ok {
			return []decodeProblem{{path: ".", msg: err.Error()}}
		}
		var out []decodeProblem
		collectJSErrors(ve, &out)
		sort.Slice(out, func(i, j int) bool {
			if out[i].path != out[j].path {
				return out[i].path < out[j].path
			}
			return out[i].msg < out[j].msg
		})
		return out
	}
	return nil
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

// lenientRegexp compiles patterns with RE2; an ECMA-262 pattern RE2 cannot
// compile (lookaround, backreferences) matches everything, so it never
// fails an example for a reason this package cannot check (compat/jsonschema
// accepts such patterns too).
func lenientRegexp(s string) (js.Regexp, error) {
	re, err := regexp.Compile(s)
	if err != nil {
		return anyRegexp(s), nil
	}
	return re, nil
}

type anyRegexp string

func (r anyRegexp) String() string          { return string(r) }
func (r anyRegexp) MatchString(string) bool { return true }

// relevantJS reports whether a validation error still stands once missing
// required properties are forgiven.
func relevantJS(e *js.ValidationError) bool {
	switch e.ErrorKind.(type) {
	case *kind.Required:
		return false
	case *kind.AnyOf, *kind.OneOf:
		if len(e.Causes) == 0 {
			return true // oneOf: several branches matched
		}
		for _, c := range e.Causes {
			if !relevantJS(c) {
				return false // a branch passes but for missing properties
			}
		}
		return true
	}
	if len(e.Causes) == 0 {
		return true
	}
	for _, c := range e.Causes {
		if relevantJS(c) {
			return true
		}
	}
	return false
}

func collectJSErrors(e *js.ValidationError, out *[]decodeProblem) {
	if !relevantJS(e) {
		return
	}
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		*out = append(*out, jsMessage(e))
		return
	}
	if len(e.Causes) == 0 {
		*out = append(*out, jsMessage(e))
		return
	}
	for _, c := range e.Causes {
		collectJSErrors(c, out)
	}
}

func jsMessage(e *js.ValidationError) decodeProblem {
	loc := ""
	for _, el := range e.InstanceLocation {
		if _, err := strconv.Atoi(el); err == nil {
			loc += "[]"
		} else {
			loc += "." + el
		}
	}
	return decodeProblem{path: displayPath(loc), msg: "the example is invalid under the JSON schema: " + e.ErrorKind.LocalizedString(jsPrinter)}
}

var jsPrinter = message.NewPrinter(language.English)

func jsNode(s *js.Schema, memo map[*js.Schema]*node) *node {
	if n, ok := memo[s]; ok {
		return n
	}
	n := &node{kinds: kAny, open: true}
	memo[s] = n
	if s.Bool != nil {
		if !*s.Bool {
			n.kinds, n.open = 0, false
		}
		return n
	}
	if s.Types != nil && !s.Types.IsEmpty() {
		n.kinds = 0
		for _, t := range s.Types.ToStrings() {
			n.kinds |= jsKind(t)
		}
		n.typ = strings.Join(s.Types.ToStrings(), "|")
	}
	var vals []any
	switch {
	case s.Const != nil:
		vals = []any{*s.Const}
	case s.Enum != nil:
		vals = s.Enum.Values
	}
	if vals != nil {
		var k kinds
		n.enum = []string{}
		for _, e := range vals {
			n.enum = append(n.enum, enumText(e))
			k |= kindOf(e)
		}
		n.kinds &= k
		if n.typ == "" {
			n.typ = "enum"
		}
	}
	if len(s.Required) > 0 {
		n.required = map[string]bool{}
		for _, r := range s.Required {
			n.required[r] = true
		}
	}
	if len(s.Properties) > 0 {
		n.fields = map[string]*field{}
		for name, ps := range s.Properties {
			n.fields[name] = &field{name: name, node: jsNode(ps, memo), present: n.required[name], deprecated: ps.Deprecated}
		}
	}
	switch ap := s.AdditionalProperties.(type) {
	case bool:
		n.open = ap
	case *js.Schema:
		n.values = jsNode(ap, memo)
		if ap.Bool != nil && !*ap.Bool {
			n.open = false
		}
	}
	if s.UnevaluatedProperties != nil && s.UnevaluatedProperties.Bool != nil && !*s.UnevaluatedProperties.Bool {
		n.open = false
	}
	if len(s.PatternProperties) > 0 {
		n.open = true
	}
	switch it := s.Items.(type) {
	case *js.Schema:
		n.items = jsNode(it, memo)
	case []*js.Schema:
		n.items = jsUnion(it, memo)
	}
	if s.Items2020 != nil {
		n.items = jsNode(s.Items2020, memo)
	}
	if len(s.PrefixItems) > 0 && n.items == nil {
		n.items = jsUnion(s.PrefixItems, memo)
	}
	var parts []*js.Schema
	if s.Ref != nil {
		parts = append(parts, s.Ref)
	}
	parts = append(parts, s.AllOf...)
	for _, p := range parts {
		pn := jsNode(p, memo)
		n.all = append(n.all, pn)
		n.kinds &= pn.kinds
	}
	for _, alts := range [][]*js.Schema{s.AnyOf, s.OneOf} {
		if len(alts) == 0 {
			continue
		}
		u := jsUnion(alts, memo)
		n.all = append(n.all, u)
		n.kinds &= u.kinds
	}
	return n
}

func jsUnion(alts []*js.Schema, memo map[*js.Schema]*node) *node {
	u := &node{}
	for _, a := range alts {
		an := jsNode(a, memo)
		u.union = append(u.union, an)
		u.kinds |= an.kinds
	}
	return u
}

func jsKind(t string) kinds {
	switch t {
	case "null":
		return kNull
	case "boolean":
		return kBool
	case "integer":
		return kInt
	case "number":
		return kInt | kNumber
	case "string":
		return kString
	case "object":
		return kObject
	case "array":
		return kArray
	}
	return 0
}

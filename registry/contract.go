package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/charter-dev/charter/compat"
	"github.com/charter-dev/charter/registry/srerr"
)

// Data-contract merging, as Confluent Schema Registry does on register:
//
//	final = override ∘ (specific ∘ default)
//
// where default and override are the subject's effective config
// (defaultMetadata/overrideMetadata, defaultRuleSet/overrideRuleSet) and
// specific is the request's metadata and ruleSet, or, when the request has
// none, those of the subject's latest version (inheritance). An explicit
// empty object ("metadata": {}) stops the inheritance.

// checkObject returns an error unless raw is absent, JSON null or a JSON
// object.
func checkObject(raw json.RawMessage, sentinel *srerr.Error, what string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return srerr.New(sentinel, "Invalid %s: want a JSON object, got %s", what, jsonKindOf(raw))
	}
	return nil
}

// checkContract is checkObject and then checkMembers with code: a
// metadata's or rule set's member of another type than Confluent's entity
// declares is code (42201 in a register request, as every mistyped field
// of one; 422 elsewhere).
func checkContract(raw json.RawMessage, sentinel *srerr.Error, what string, code *srerr.Error) error {
	if err := checkObject(raw, sentinel, what); err != nil {
		return err
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if sentinel == srerr.ErrInvalidRuleSet {
		return checkMembers(raw, &typedRuleSet{}, what, code)
	}
	return checkMembers(raw, &typedMetadata{}, what, code)
}

// typedMetadata and typedRuleSet are the member types of Confluent's
// Metadata, RuleSet and Rule entities (and of confluent-kafka-go's:
// Properties map[string]string, Tags map[string][]string, Rule.Params
// map[string]string), which checkMembers holds a metadata or rule set to
// so that what is stored reads back in every client.
type typedMetadata struct {
	Tags       map[string][]string `json:"tags"`
	Properties map[string]string   `json:"properties"`
	Sensitive  []string            `json:"sensitive"`
}

type typedRuleSet struct {
	MigrationRules []typedRule `json:"migrationRules"`
	DomainRules    []typedRule `json:"domainRules"`
	EncodingRules  []typedRule `json:"encodingRules"`
	EnableAt       string      `json:"enableAt"`
}

type typedRule struct {
	Name      string            `json:"name"`
	Doc       string            `json:"doc"`
	Kind      string            `json:"kind"`
	Mode      string            `json:"mode"`
	Type      string            `json:"type"`
	Tags      []string          `json:"tags"`
	Params    map[string]string `json:"params"`
	Expr      string            `json:"expr"`
	OnSuccess string            `json:"onSuccess"`
	OnFailure string            `json:"onFailure"`
	Disabled  bool              `json:"disabled"`
}

// checkMembers decodes raw strictly into into: a member of another type
// than Confluent's entity declares, or one it does not declare, is code
// (HTTP 422), naming the member.
func checkMembers(raw json.RawMessage, into any, what string, code *srerr.Error) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(into)
	if err == nil {
		return nil
	}
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typ):
		field := what
		if typ.Field != "" {
			field += "." + typ.Field
		}
		return srerr.New(code, "Cannot read field %q: got JSON %s, want %s", field, typ.Value, goKind(typ.Type))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return srerr.New(code, "Unrecognized field in %s: %s", what, compat.Clip(name))
	}
	return srerr.New(code, "Cannot read %s: %s", what, strings.TrimPrefix(err.Error(), "json: "))
}

// goKind names the JSON kind a Go type reads, for messages.
func goKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(goKind(t.Elem()), "a "), "an ") + "s"
	case reflect.Map:
		return "an object of " + strings.TrimPrefix(strings.TrimPrefix(goKind(t.Elem()), "a "), "an ") + "s"
	}
	return "an object"
}

// jsonKindOf names the kind of the JSON value raw, for messages.
func jsonKindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch c := raw[0]; {
	case c == '[':
		return "a JSON array"
	case c == '"':
		return "a JSON string"
	case c == 't' || c == 'f':
		return "a JSON boolean"
	case c == '{':
		return "a malformed JSON object"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a JSON number"
	}
	return "malformed JSON"
}

// mergeMetadata merges Confluent Metadata objects, later ones winning:
// `properties` and `tags` key by key, `sensitive` as a sorted set union,
// any other member replaced whole. Absent (nil) layers are skipped; the
// result is nil when every layer is absent or the merge is empty.
func mergeMetadata(layers ...json.RawMessage) json.RawMessage {
	out := map[string]any{}
	seen := false
	for _, raw := range layers {
		m := decodeObject(raw)
		if m == nil {
			continue
		}
		seen = true
		for k, v := range m {
			switch k {
			case "properties", "tags":
				dst, _ := out[k].(map[string]any)
				if dst == nil {
					dst = map[string]any{}
				}
				if src, ok := v.(map[string]any); ok {
					for kk, vv := range src {
						dst[kk] = vv
					}
				}
				out[k] = dst
			case "sensitive":
				set := map[string]bool{}
				prev, _ := out[k].([]string)
				for _, s := range prev {
					set[s] = true
				}
				items, _ := v.([]any)
				for _, it := range items {
					if s, ok := it.(string); ok {
						set[s] = true
					}
				}
				merged := make([]string, 0, len(set))
				for s := range set {
					merged = append(merged, s)
				}
				sort.Strings(merged)
				out[k] = merged
			default:
				out[k] = v
			}
		}
	}
	return encodeObject(out, seen)
}

// mergeRuleSets merges Confluent RuleSet objects, later ones winning:
// in each rule list (migrationRules, domainRules, encodingRules) a rule
// replaces the earlier rule of the same name in place, other rules are
// appended; any other member is replaced whole.
func mergeRuleSets(layers ...json.RawMessage) json.RawMessage {
	out := map[string]any{}
	seen := false
	for _, raw := range layers {
		m := decodeObject(raw)
		if m == nil {
			continue
		}
		seen = true
		for k, v := range m {
			switch k {
			case "migrationRules", "domainRules", "encodingRules":
				prev, _ := out[k].([]any)
				next, _ := v.([]any)
				out[k] = mergeRules(prev, next)
			default:
				out[k] = v
			}
		}
	}
	return encodeObject(out, seen)
}

func mergeRules(prev, next []any) []any {
	out := append([]any(nil), prev...)
	for _, r := range next {
		name := ruleName(r)
		replaced := false
		for i, o := range out {
			if name != "" && ruleName(o) == name {
				out[i] = r
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, r)
		}
	}
	return out
}

func ruleName(r any) string {
	m, _ := r.(map[string]any)
	s, _ := m["name"].(string)
	return s
}

// decodeObject decodes a JSON object, or returns nil for anything else.
func decodeObject(raw json.RawMessage) map[string]any {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil
	}
	return m
}

// encodeObject encodes a merge result; empty members and an empty result
// are dropped so that "no contract" has one spelling.
func encodeObject(m map[string]any, seen bool) json.RawMessage {
	if !seen {
		return nil
	}
	for k, v := range m {
		switch x := v.(type) {
		case map[string]any:
			if len(x) == 0 {
				delete(m, k)
			}
		case []any:
			if len(x) == 0 {
				delete(m, k)
			}
		case []string:
			if len(x) == 0 {
				delete(m, k)
			}
		case nil:
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return b
}

// metadataProperty returns the value of metadata.properties[name] and
// whether it is set.
func metadataProperty(raw json.RawMessage, name string) (string, bool) {
	m := decodeObject(raw)
	props, _ := m["properties"].(map[string]any)
	v, ok := props[name]
	if !ok {
		return "", false
	}
	s, _ := v.(string)
	return s, true
}

// Rule kinds, modes and actions of Confluent data-contract rules
// (io.confluent.kafka.schemaregistry.client.rest.entities.Rule).
var (
	ruleKinds          = []string{"CONDITION", "TRANSFORM"}
	migrationRuleModes = []string{"UPGRADE", "DOWNGRADE", "UPDOWN"}
	domainRuleModes    = []string{"WRITE", "READ", "WRITEREAD"}
	ruleActions        = []string{"", "NONE", "ERROR", "DLQ"}
)

// validateRuleSet checks a ruleSet as Confluent does before storing it:
// every rule has a name (unique in the set), a kind (CONDITION or
// TRANSFORM) and a mode that suits its list (migration rules
// UPGRADE, DOWNGRADE or UPDOWN; domain and encoding rules WRITE, READ or
// WRITEREAD), and its onSuccess/onFailure actions are NONE, ERROR or DLQ
// (two, comma-separated, for UPDOWN and WRITEREAD). Violations are 42201,
// as Confluent answers a RuleException on register; what names the
// object ("ruleSet", "defaultRuleSet").
func validateRuleSet(raw json.RawMessage, what string) error {
	m := decodeObject(raw)
	if m == nil {
		return nil
	}
	names := map[string]bool{}
	for _, list := range []struct {
		key   string
		modes []string
	}{{"migrationRules", migrationRuleModes}, {"domainRules", domainRuleModes}, {"encodingRules", domainRuleModes}} {
		v, ok := m[list.key]
		if !ok || v == nil {
			continue
		}
		rules, ok := v.([]any)
		if !ok {
			return srerr.New(srerr.ErrInvalidSchema, "Invalid %s: %s must be an array of rules", what, list.key)
		}
		for i, r := range rules {
			rule, ok := r.(map[string]any)
			if !ok {
				return srerr.New(srerr.ErrInvalidSchema, "Invalid %s: %s[%d] is not a rule object", what, list.key, i)
			}
			str := func(k string) string { s, _ := rule[k].(string); return s }
			name := str("name")
			bad := func(format string, args ...any) error {
				return srerr.New(srerr.ErrInvalidRuleSet, "Invalid %s: %s[%d] (%q): %s", what, list.key, i, name, fmt.Sprintf(format, args...))
			}
			switch {
			case strings.TrimSpace(name) == "":
				return bad("missing rule name")
			case names[name]:
				return bad("found another rule with the name %q; rule names are unique in a rule set", name)
			case !slices.Contains(ruleKinds, str("kind")):
				return bad("kind %q: want CONDITION or TRANSFORM", str("kind"))
			case !slices.Contains(list.modes, str("mode")):
				return bad("mode %q: %s take %s", str("mode"), list.key, strings.Join(list.modes, ", "))
			}
			names[name] = true
			for _, k := range []string{"onSuccess", "onFailure"} {
				parts := strings.Split(str(k), ",")
				two := str("mode") == "UPDOWN" || str("mode") == "WRITEREAD"
				if len(parts) > 2 || (len(parts) == 2 && !two) {
					return bad("%s %q: one action, or two (comma-separated) for UPDOWN and WRITEREAD rules", k, str(k))
				}
				for _, p := range parts {
					if !slices.Contains(ruleActions, strings.TrimSpace(p)) {
						return bad("%s action %q: want NONE, ERROR or DLQ", k, strings.TrimSpace(p))
					}
				}
			}
		}
	}
	return nil
}

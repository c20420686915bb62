package upcast

import "math"

// jsonCheck reports whether v certainly validates against a JSON Schema
// made only of the keywords it understands; false means "ask the full
// validator", never "invalid". It is compiled once per version, so the
// common case (a value with the right types and required properties)
// costs a walk over the value instead of a validation run. nil when the
// schema uses anything else.
type jsonCheck func(v any) bool

// jsonCheckAnnotations are keywords with no effect on validation.
// definitions and $defs hold schemas only $ref (not understood) uses.
var jsonCheckAnnotations = map[string]bool{
	"$schema": true, "$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "readOnly": true, "writeOnly": true, "deprecated": true,
	"definitions": true, "$defs": true,
}

// compileJSONCheck compiles the check of a schema document (decoded by
// encoding/json). Understood: boolean schemas, "type" (a name or a list),
// "properties", "required", "additionalProperties" (boolean or schema),
// "items" (one schema for every item) and the annotations above. Any
// other keyword ($ref, enum, const, pattern, minimum, format, allOf …)
// returns nil: the full validator decides for every value.
func compileJSONCheck(node any) jsonCheck {
	return compileJSONCheckDepth(node, 0)
}

func compileJSONCheckDepth(node any, depth int) jsonCheck {
	if depth > maxDefaultsDepth {
		return nil
	}
	switch s := node.(type) {
	case bool:
		if s {
			return func(any) bool { return true }
		}
		return nil // false rejects everything: the validator says why
	case map[string]any:
		var (
			types    []string
			props    = map[string]jsonCheck{}
			required []string
			addl     jsonCheck // nil with addlSet: no other properties
			addlSet  bool
			items    jsonCheck
		)
		for k, x := range s {
			switch {
			case jsonCheckAnnotations[k]:
			case k == "type":
				switch t := x.(type) {
				case string:
					types = []string{t}
				case []any:
					for _, e := range t {
						name, ok := e.(string)
						if !ok {
							return nil
						}
						types = append(types, name)
					}
				default:
					return nil
				}
				for _, t := range types {
					if !jsonTypeNames[t] {
						return nil
					}
				}
			case k == "properties":
				m, ok := x.(map[string]any)
				if !ok {
					return nil
				}
				for name, sub := range m {
					ch := compileJSONCheckDepth(sub, depth+1)
					if ch == nil {
						return nil
					}
					props[name] = ch
				}
			case k == "required":
				list, ok := x.([]any)
				if !ok {
					return nil
				}
				for _, e := range list {
					name, ok := e.(string)
					if !ok {
						return nil
					}
					required = append(required, name)
				}
			case k == "additionalProperties":
				addlSet = true
				if b, ok := x.(bool); ok && !b {
					break // no other properties
				}
				if addl = compileJSONCheckDepth(x, depth+1); addl == nil {
					return nil
				}
			case k == "items":
				if _, tuple := x.([]any); tuple {
					return nil
				}
				if items = compileJSONCheckDepth(x, depth+1); items == nil {
					return nil
				}
			default:
				return nil
			}
		}
		return func(v any) bool {
			if len(types) > 0 && !jsonHasType(v, types) {
				return false
			}
			switch t := v.(type) {
			case map[string]any:
				for _, name := range required {
					if _, ok := t[name]; !ok {
						return false
					}
				}
				for name, x := range t {
					if ch, ok := props[name]; ok {
						if !ch(x) {
							return false
						}
						continue
					}
					if addlSet && (addl == nil || !addl(x)) {
						return false
					}
				}
			case []any:
				if items != nil {
					for _, x := range t {
						if !items(x) {
							return false
						}
					}
				}
			case string, bool, nil:
			case float64:
				if math.IsNaN(t) || math.IsInf(t, 0) {
					return false
				}
			default:
				return false // not what encoding/json decodes: ask the validator
			}
			return true
		}
	}
	return nil
}

var jsonTypeNames = map[string]bool{
	"object": true, "array": true, "string": true, "number": true, "integer": true, "boolean": true, "null": true,
}

// jsonHasType reports whether v (as encoding/json decodes) has one of
// the JSON Schema types.
func jsonHasType(v any, types []string) bool {
	for _, t := range types {
		switch t {
		case "object":
			if _, ok := v.(map[string]any); ok {
				return true
			}
		case "array":
			if _, ok := v.([]any); ok {
				return true
			}
		case "string":
			if _, ok := v.(string); ok {
				return true
			}
		case "number":
			if _, ok := v.(float64); ok {
				return true
			}
		case "integer":
			if f, ok := v.(float64); ok && f == math.Trunc(f) {
				return true
			}
		case "boolean":
			if _, ok := v.(bool); ok {
				return true
			}
		case "null":
			if v == nil {
				return true
			}
		}
	}
	return false
}

package jsonschema

import (
	"sort"
	"strings"
)

// Keywords whose value is a schema, a list of schemas, or a map of schemas
// (every draft's spelling). Normalized rewrites keywords only in schema
// positions reached through them.
var (
	schemaKeywords = map[string]bool{
		"additionalItems": true, "additionalProperties": true, "not": true, "if": true, "then": true,
		"else": true, "contains": true, "propertyNames": true, "unevaluatedProperties": true,
		"unevaluatedItems": true, "contentSchema": true, "items": true,
	}
	schemaListKeywords = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true, "items": true}
	schemaMapKeywords  = map[string]bool{
		"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
		"dependentSchemas": true, "dependencies": true,
	}
)

// normalizedText renders the schema for Normalized (see its doc).
func normalizedText(raw *jval) string {
	var sb strings.Builder
	writeNormalized(&sb, normalizeSchema(raw))
	return sb.String()
}

// normalizeSchema returns a copy of a schema value with the rewrites of
// Normalized applied; key sorting and number rendering happen when it is
// written.
func normalizeSchema(v *jval) *jval {
	if v.kind != jObject {
		return v
	}
	out := &jval{kind: jObject}
	for _, m := range v.obj {
		val := m.val
		switch {
		case m.key == "$comment":
			continue
		case (m.key == "required" || m.key == "type") && val.kind == jArray:
			val = stringSet(val)
		case m.key == "dependentRequired" && val.kind == jObject:
			val = mapValues(val, func(x *jval) *jval {
				if x.kind == jArray {
					return stringSet(x)
				}
				return x
			})
		case m.key == "dependencies" && val.kind == jObject:
			val = mapValues(val, func(x *jval) *jval {
				if x.kind == jArray {
					return stringSet(x)
				}
				return normalizeSchema(x)
			})
		case schemaMapKeywords[m.key] && val.kind == jObject:
			val = mapValues(val, normalizeSchema)
		case schemaListKeywords[m.key] && val.kind == jArray:
			list := &jval{kind: jArray, arr: make([]*jval, len(val.arr))}
			for i, e := range val.arr {
				list.arr[i] = normalizeSchema(e)
			}
			val = list
		case schemaKeywords[m.key]:
			val = normalizeSchema(val)
		}
		out.add(member{m.key, val, m.line})
	}
	return out
}

func mapValues(v *jval, f func(*jval) *jval) *jval {
	out := &jval{kind: jObject, obj: make([]member, 0, len(v.obj))}
	for _, m := range v.obj {
		out.add(member{m.key, f(m.val), m.line})
	}
	return out
}

// stringSet sorts and deduplicates an array of strings; an array holding
// anything else is returned as is (the meta-schema has rejected it).
func stringSet(v *jval) *jval {
	var ss []string
	for _, e := range v.arr {
		if e.kind != jString {
			return v
		}
		ss = append(ss, e.s)
	}
	sort.Slice(ss, func(i, j int) bool { return javaLess(ss[i], ss[j]) })
	out := &jval{kind: jArray, arr: []*jval{}}
	for i, s := range ss {
		if i > 0 && ss[i-1] == s {
			continue
		}
		out.arr = append(out.arr, &jval{kind: jString, s: s})
	}
	return out
}

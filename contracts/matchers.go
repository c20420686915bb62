package contracts

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MatcherType names a Pact matcher ("match" attribute).
type MatcherType string

// The matchers of Pact specification V3 and the V4 ones that apply to
// message bodies. "Supported matching rules", Pact Specification V4.
const (
	MatchEquality    MatcherType = "equality"
	MatchRegex       MatcherType = "regex"
	MatchType        MatcherType = "type"
	MatchInclude     MatcherType = "include"
	MatchInteger     MatcherType = "integer"
	MatchDecimal     MatcherType = "decimal"
	MatchNumber      MatcherType = "number"
	MatchTimestamp   MatcherType = "timestamp" // also spelled "datetime"
	MatchTime        MatcherType = "time"
	MatchDate        MatcherType = "date"
	MatchNull        MatcherType = "null"
	MatchBoolean     MatcherType = "boolean"
	MatchContentType MatcherType = "contentType"
	MatchValues      MatcherType = "values"
	// V4.
	MatchArrayContains MatcherType = "arrayContains"
	MatchNotEmpty      MatcherType = "notEmpty"
	MatchSemver        MatcherType = "semver"
	MatchEachKey       MatcherType = "eachKey"
	MatchEachValue     MatcherType = "eachValue"
	MatchStatusCode    MatcherType = "statusCode"
)

// Matcher is one matcher of a matching rule. Min and Max (V2 minType,
// maxType, minmax; V3 "min"/"max" on a type matcher, which eachLike
// writes) are -1 when absent.
type Matcher struct {
	Type MatcherType `json:"match"`
	// Regex is the regex matcher's expression (Pact uses the JVM
	// dialect; Go's RE2 compiles most of them).
	Regex string `json:"regex,omitempty"`
	// Format is the date/time/timestamp matcher's pattern
	// (java.time.format.DateTimeFormatter letters).
	Format string `json:"format,omitempty"`
	// Value is the include matcher's substring or contentType's type.
	Value    any `json:"value,omitempty"`
	Min, Max int `json:"-"`

	re *regexp.Regexp // Regex, compiled
}

// MatchingRule is the rule set for one body path: its matchers combined by
// AND (the default) or OR.
type MatchingRule struct {
	// Path is the rule's path as written ("$.items[*].sku").
	Path     string    `json:"path"`
	Combine  string    `json:"combine,omitempty"`
	Matchers []Matcher `json:"matchers"`
	tokens   []pathToken
}

// pathToken is one element of a matcher path: a property name, an array
// index, or a star (any property or any index).
type pathToken struct {
	name  string
	index int // -1 for a name or a star
	star  bool
}

// parseRules reads the "matchingRules" of a message: the V3/V4 map from
// category to path to {matchers, combine}, or the V2 flat map from
// "$.body…" path to one matcher.
func parseRules(raw any) ([]MatchingRule, error) {
	if raw == nil {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New(`"matchingRules" must be an object`)
	}
	var cat map[string]any
	legacy := false
	for _, k := range []string{"body", "content"} {
		if c, ok := m[k].(map[string]any); ok {
			cat = c
			break
		}
	}
	if cat == nil {
		for k := range m {
			if strings.HasPrefix(k, "$") {
				legacy = true
			}
		}
		if !legacy {
			return nil, nil // only metadata/header rules
		}
		cat = m
	}
	var out []MatchingRule
	for _, path := range sortedKeys(cat) {
		p := path
		if legacy {
			if !strings.HasPrefix(p, "$.body") {
				continue
			}
			p = "$" + strings.TrimPrefix(p, "$.body")
		}
		toks, err := parseMatcherPath(p)
		if err != nil {
			return nil, fmt.Errorf("matching rule %q: %v", path, err)
		}
		r := MatchingRule{Path: p, tokens: toks}
		def, ok := cat[path].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("matching rule %q: not an object", path)
		}
		var list []any
		if ms, ok := def["matchers"]; ok {
			if list, ok = ms.([]any); !ok {
				return nil, fmt.Errorf(`matching rule %q: "matchers" must be an array`, path)
			}
			r.Combine, _ = def["combine"].(string)
			r.Combine = strings.ToUpper(r.Combine)
			if r.Combine != "" && r.Combine != "AND" && r.Combine != "OR" {
				return nil, fmt.Errorf("matching rule %q: combine must be AND or OR, not %q", path, r.Combine)
			}
		} else {
			list = []any{def} // V2: the matcher itself
		}
		for i, e := range list {
			mo, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("matching rule %q: matcher %d is not an object", path, i)
			}
			mt, err := parseMatcher(mo)
			if err != nil {
				return nil, fmt.Errorf("matching rule %q: %v", path, err)
			}
			r.Matchers = append(r.Matchers, mt)
		}
		out = append(out, r)
	}
	return out, nil
}

func parseMatcher(m map[string]any) (Matcher, error) {
	mt := Matcher{Min: -1, Max: -1}
	var err error
	if mt.Min, err = intAttr(m, "min"); err != nil {
		return mt, err
	}
	if mt.Max, err = intAttr(m, "max"); err != nil {
		return mt, err
	}
	mt.Regex, _ = m["regex"].(string)
	mt.Format, _ = m["format"].(string)
	mt.Value = m["value"]
	typ, _ := m["match"].(string)
	switch {
	case typ != "":
	case mt.Regex != "":
		typ = string(MatchRegex) // V2 {"regex": …}
	case m["date"] != nil || m["time"] != nil || m["timestamp"] != nil:
		for _, k := range []string{"date", "time", "timestamp"} {
			if s, ok := m[k].(string); ok {
				typ, mt.Format = k, s
			}
		}
	case mt.Min >= 0 || mt.Max >= 0:
		typ = string(MatchType) // V2 {"min": 1}
	default:
		return mt, errors.New(`matcher without "match"`)
	}
	switch t := MatcherType(typ); t {
	case "datetime", "timestamp":
		mt.Type = MatchTimestamp
	case "min", "max", "minType", "maxType", "minmax":
		mt.Type = MatchType
	case MatchRegex:
		if mt.Regex == "" {
			return mt, errors.New(`regex matcher without "regex"`)
		}
		re, err := regexp.Compile(mt.Regex)
		if err != nil {
			return mt, fmt.Errorf("regex %q: %v", mt.Regex, err)
		}
		mt.re = re
		mt.Type = t
	case MatchEquality, MatchType, MatchInclude, MatchInteger, MatchDecimal, MatchNumber, MatchTime, MatchDate,
		MatchNull, MatchBoolean, MatchContentType, MatchValues, MatchArrayContains, MatchNotEmpty, MatchSemver,
		MatchEachKey, MatchEachValue, MatchStatusCode:
		mt.Type = t
	default:
		return mt, fmt.Errorf("unknown matcher %q", typ)
	}
	return mt, nil
}

func intAttr(m map[string]any, k string) (int, error) {
	switch v := m[k].(type) {
	case nil:
		return -1, nil
	case json.Number:
		n, err := strconv.Atoi(string(v))
		if err != nil || n < 0 {
			return -1, fmt.Errorf("%s must be a non-negative integer, not %s", k, v)
		}
		return n, nil
	case string: // the V3 spec's own example writes "min": "1"
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return -1, fmt.Errorf("%s must be a non-negative integer, not %q", k, v)
		}
		return n, nil
	}
	return -1, fmt.Errorf("%s must be a number", k)
}

// parseMatcherPath reads a body matcher path ("Matcher Path expressions
// in bodies", V3): "$" then ".name", "['name']", "[0]", "[*]" or ".*".
func parseMatcherPath(p string) ([]pathToken, error) {
	if !strings.HasPrefix(p, "$") {
		return nil, errors.New(`a body path must start with "$"`)
	}
	var toks []pathToken
	s := p[1:]
	for s != "" {
		switch s[0] {
		case '.':
			s = s[1:]
			if strings.HasPrefix(s, "*") {
				toks = append(toks, pathToken{star: true, index: -1})
				s = s[1:]
				continue
			}
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			if end == 0 {
				return nil, errors.New("empty property name")
			}
			toks = append(toks, pathToken{name: s[:end], index: -1})
			s = s[end:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, errors.New(`"[" without "]"`)
			}
			in := s[1:end]
			switch {
			case in == "*":
				toks = append(toks, pathToken{star: true, index: -1})
			case len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0]:
				// A quoted name may contain "]": find the closing quote.
				q := in[0]
				closeAt := strings.IndexByte(s[2:], q)
				if closeAt < 0 || 2+closeAt+1 >= len(s) || s[2+closeAt+1] != ']' {
					return nil, errors.New("unterminated quoted property name")
				}
				toks = append(toks, pathToken{name: s[2 : 2+closeAt], index: -1})
				end = 2 + closeAt + 1
			default:
				n, err := strconv.Atoi(in)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("invalid index [%s]", in)
				}
				toks = append(toks, pathToken{index: n})
			}
			s = s[end+1:]
		default:
			return nil, fmt.Errorf("unexpected %q", s[:1])
		}
	}
	return toks, nil
}

// itemStep is one step of the path to a value in an example: a property
// name, or an array index (name "" and index >= 0).
type itemStep struct {
	name  string
	index int
}

// weight is the Pact matcher selection weight of rule path toks for the
// item at path item ("Matcher selection algorithm", V3): 2 for the root,
// ×2 for every matching name or index, ×1 for a matching star, 0 when
// some element does not match. A rule shorter than the item applies to it
// by cascade (rules apply to all children of the value they name); a
// longer one does not apply.
func weight(toks []pathToken, item []itemStep) int {
	if len(toks) > len(item) {
		return 0
	}
	w := 2
	for i, t := range toks {
		st := item[i]
		switch {
		case t.star:
		case t.index >= 0:
			if st.index != t.index || st.name != "" {
				return 0
			}
			w *= 2
		default:
			if st.index >= 0 && st.name == "" || st.name != t.name {
				return 0
			}
			w *= 2
		}
	}
	return w
}

// ruleFor selects the rule for the value at item: the applicable rule of
// greatest weight, the longer path on a tie (the more specific one), or
// nil when none applies (equality, the default).
func ruleFor(rules []MatchingRule, item []itemStep) *MatchingRule {
	var best *MatchingRule
	bw := 0
	for i := range rules {
		r := &rules[i]
		w := weight(r.tokens, item)
		if w == 0 {
			continue
		}
		if w > bw || (w == bw && len(r.tokens) > len(best.tokens)) {
			best, bw = r, w
		}
	}
	return best
}

// exactRule returns the rule written for exactly this item (no cascade), as
// collection matchers (min/max, values) apply to the collection they name.
func exactRule(rules []MatchingRule, item []itemStep) *MatchingRule {
	var best *MatchingRule
	bw := 0
	for i := range rules {
		r := &rules[i]
		if len(r.tokens) != len(item) {
			continue
		}
		if w := weight(r.tokens, item); w > bw {
			best, bw = r, w
		}
	}
	return best
}

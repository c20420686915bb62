package jsonschema

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestObjectIndex: past smallObject members an object's keys are found
// through its index; a repeated key keeps the first key's position and
// line and takes the last value either way (as Jackson's ObjectNode).
func TestObjectIndex(t *testing.T) {
	for _, n := range []int{smallObject - 1, smallObject, smallObject + 1, 3 * smallObject} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var parts []string
			for i := range n {
				parts = append(parts, fmt.Sprintf("\"k%d\":%d", i, i))
			}
			for i := range n {
				parts = append(parts, fmt.Sprintf("\n\"k%d\":%d", i, 100+i))
			}
			v, err := parseJSON("{" + strings.Join(parts, ",") + "}")
			if err != nil {
				t.Fatal(err)
			}
			if len(v.obj) != n {
				t.Fatalf("%d members, want %d", len(v.obj), n)
			}
			for i, m := range v.obj {
				if want := fmt.Sprintf("k%d", i); m.key != want || m.line != 1 {
					t.Errorf("member %d is %q on line %d, want %q on line 1 (first position kept)", i, m.key, m.line, want)
				}
				if got := v.get(m.key); got == nil || got.s != fmt.Sprint(100+i) {
					t.Errorf("get(%q) = %v, want %d", m.key, got, 100+i)
				}
			}
			if v.has("absent") {
				t.Error(`has("absent")`)
			}
		})
	}
}

// TestValueKey: two values have the same valueKey exactly when jsonEqual
// holds, so that enum sets compared by key agree with JSON Schema's
// equality (numbers by value, objects regardless of key order).
func TestValueKey(t *testing.T) {
	values := []string{
		`1`, `1.0`, `10e-1`, `-0`, `0`, `0.0`, `1e25`, `10000000000000000000000000`, `1.5`, `15e-1`, `2`,
		`"1"`, `"a"`, `"a\u0000"`, `true`, `false`, `null`,
		`[]`, `[1]`, `[1.0]`, `[1,2]`, `[2,1]`,
		`{}`, `{"a":1,"b":2}`, `{"b":2,"a":1.0}`, `{"a":1}`, `{"a":[1,{"x":null}]}`, `{"a":[1.0,{"x":null}]}`,
	}
	parsed := make([]*jval, len(values))
	for i, text := range values {
		v, err := parseJSON(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		parsed[i] = v
	}
	for i, a := range parsed {
		for j, b := range parsed {
			if eq, same := jsonEqual(a, b), valueKey(a) == valueKey(b); eq != same {
				t.Errorf("%s and %s: jsonEqual %t, same valueKey %t (%s, %s)", values[i], values[j], eq, same, valueKey(a), valueKey(b))
			}
		}
	}
}

// refChain returns a schema whose root reaches end through n references
// (#/definitions/d0 … d(n-1)).
func refChain(n int, end string) string {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/definitions/d0","definitions":{`)
	for i := range n {
		fmt.Fprintf(&b, `"d%d":{"$ref":"#/definitions/d%d"},`, i, i+1)
	}
	fmt.Fprintf(&b, `"d%d":%s}}`, n, end)
	return b.String()
}

// TestLongRefChain: a chain of references of any length is followed to
// the schema it ends at (a chain longer than 64 hops was once read as the
// empty schema, so a breaking change at its end was accepted), in time
// linear in its length.
func TestLongRefChain(t *testing.T) {
	for _, n := range []int{1, 64, 65, 3000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			closed := `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`
			old := mustParseI(t, refChain(n, closed))
			cur := mustParseI(t, refChain(n, strings.Replace(closed, "string", "integer", 1)))
			var got []string
			for _, v := range (Format{}).CheckRead(cur, old) {
				got = append(got, v.RuleID+" "+v.Path)
			}
			if want := []string{RuleTypeChanged + " #/properties/a"}; !slices.Equal(got, want) {
				t.Errorf("violations %q, want %q", got, want)
			}
			if got := (Format{}).CheckRead(old, old); len(got) != 0 {
				t.Errorf("a schema against itself: %v", got)
			}
			if target := deref(old.root); target.kind != kObject {
				t.Errorf("the root resolves to a %s part, want object", kindNames[target.kind])
			}
		})
	}
}

// TestUnsettledRecursion: when the passes over recursive definitions do
// not settle within maxPasses, the comparison is refused as too complex
// rather than answered with the last pass's (possibly incomplete) verdict.
func TestUnsettledRecursion(t *testing.T) {
	mutual := func(leaf string) string {
		return `{"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}, "b": {"$ref": "#/definitions/B"}},
			"definitions": {"A": {"type": "object", "properties": {"b": {"$ref": "#/definitions/B"}, "v": ` + leaf + `}},
			"B": {"type": "object", "properties": {"a": {"$ref": "#/definitions/A"}}}}}`
	}
	m1, m2 := mustParseI(t, mutual(`{"type": "number"}`)), mustParseI(t, mutual(`{"type": "integer"}`))
	_, _, err := diff(compatibleSet(Strict), m1.root, m2.root, DefaultMaxComparisons, false)
	if err != nil {
		t.Fatalf("with %d passes: %v", maxPasses, err)
	}
	saved := maxPasses
	maxPasses = 0
	defer func() { maxPasses = saved }()
	if _, _, err := diff(compatibleSet(Strict), m1.root, m2.root, DefaultMaxComparisons, false); !errors.Is(err, ErrTooComplex) {
		t.Fatalf("with no pass allowed: error %v, want ErrTooComplex", err)
	}
	got := (Format{}).CheckRead(m2, m1)
	if len(got) != 1 || got[0].RuleID != RuleTooComplex || !strings.Contains(got[0].Message, "did not settle in 0 passes") {
		t.Errorf("CheckRead = %v, want one %s saying the comparison did not settle", got, RuleTooComplex)
	}
}

// TestCheckReadContext: a comparison stops within ctxEvery units of work
// once its context has ended, with the context's error and no verdict;
// with a live context it answers as CheckRead.
func TestCheckReadContext(t *testing.T) {
	original := mustParseI(t, nestedAnyOf(3, 5, map[string]any{"type": "string"}))
	update := mustParseI(t, nestedAnyOf(3, 5, map[string]any{"type": "integer"}))
	if n := spent(t, original, update); n <= ctxEvery {
		t.Fatalf("the comparison spends %d units, want more than %d for this test", n, ctxEvery)
	}
	want := Format{}.CheckRead(update, original)
	got, err := Format{}.CheckReadContext(context.Background(), update, original)
	if err != nil || len(got) != len(want) || len(got) == 0 {
		t.Fatalf("live context: %d violations, %v; want %d", len(got), err, len(want))
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	got, err = Format{}.CheckReadContext(done, update, original)
	if !errors.Is(err, context.Canceled) || got != nil {
		t.Errorf("ended context: %v, %v; want no violations and context.Canceled", got, err)
	}
}

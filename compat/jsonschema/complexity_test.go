package jsonschema

// Families of schema pairs whose comparison used to grow exponentially
// (fresh-user report F1 and F2): the tests check the verdict, the number of
// findings and the number of comparisons spent (deterministic, so a cost
// that stops being polynomial fails here); the benchmarks print the time
// per size.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
)

// chainedDefs is report F1's schema: $defs d0…dn, d0 an object with an
// integer property x (and, with extra, an optional string property y),
// every d(i) an object whose properties a, b and c all $ref d(i-1); the
// root refers to dn, so 3^n paths reach d0.
func chainedDefs(n int, extra bool) string {
	d0 := map[string]any{"x": map[string]any{"type": "integer"}}
	if extra {
		d0["y"] = map[string]any{"type": "string"}
	}
	defs := map[string]any{"d0": map[string]any{"type": "object", "properties": d0}}
	for i := 1; i <= n; i++ {
		r := map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i-1)}
		defs[fmt.Sprintf("d%d", i)] = map[string]any{"type": "object", "properties": map[string]any{"a": r, "b": r, "c": r}}
	}
	return mustJSON(map[string]any{"$defs": defs, "$ref": fmt.Sprintf("#/$defs/d%d", n)})
}

// nestedAnyOf is report F2's schema: an anyOf of k branches, branch i the
// nested anyOf of depth d-1 built over an object that wraps the leaf in
// property p<i>. It has k^d leaves, each wrapped in d objects.
func nestedAnyOf(k, d int, leaf any) string {
	var t func(d int, leaf any) any
	t = func(d int, leaf any) any {
		if d == 0 {
			return leaf
		}
		branches := make([]any, k)
		for i := range branches {
			branches[i] = t(d-1, map[string]any{"type": "object", "properties": map[string]any{fmt.Sprintf("p%d", i): leaf}})
		}
		return map[string]any{"anyOf": branches}
	}
	return mustJSON(t(d, leaf))
}

// reorderedAnyOf is an anyOf of k closed objects, branch i requiring
// property f<i>. The update lists the branches in reverse order, each with
// a title and, when reshaped, an optional property g<i> as well (both
// compatible). No branch is textually equal to its partner; a reshaped
// branch does not even have its partner's property names, so the matching
// must probe about k²/2 pairs to pair them up.
func reorderedAnyOf(k int, update, reshaped bool) string {
	branches := make([]any, k)
	for i := range branches {
		f := fmt.Sprintf("f%d", i)
		props := map[string]any{f: map[string]any{"type": "string"}}
		b := map[string]any{"type": "object", "properties": props, "required": []string{f}, "additionalProperties": false}
		if !update {
			branches[i] = b
			continue
		}
		b["title"] = "v2"
		if reshaped {
			props[fmt.Sprintf("g%d", i)] = map[string]any{"type": "string"}
		}
		branches[k-1-i] = b
	}
	return mustJSON(map[string]any{"anyOf": branches})
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func mustParseI(tb testing.TB, text string) *Schema {
	tb.Helper()
	s, err := Parse(text, nil)
	if err != nil {
		tb.Fatalf("parse: %v", err)
	}
	return s
}

// spent returns the comparisons a BACKWARD check of update over original
// spends under the default budget.
func spent(tb testing.TB, original, update *Schema) int {
	tb.Helper()
	_, n, err := diff(compatibleStrict, original.root, update.root, DefaultMaxComparisons, false)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// TestChainedDefs: a property added to a definition that 3^n paths reach
// is one finding, at the first path, naming the definition, the number of
// other paths and two of them; the work is linear in n.
func TestChainedDefs(t *testing.T) {
	tests := []struct {
		n    int
		more string // 3^n - 1
	}{
		{8, "6,560"},
		{12, "531,440"},
		{20, "3,486,784,400"},
		{40, "12,157,665,459,056,928,800"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			v1, v2 := mustParseI(t, chainedDefs(tc.n, false)), mustParseI(t, chainedDefs(tc.n, true))
			got := Format{}.CheckRead(v2, v1)
			prefix := "#/" + strings.Repeat("properties/a/", tc.n-1)
			want := compat.Violation{
				RuleID: "JSON_OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL",
				Path:   prefix + "properties/a/properties/y",
				Message: `the reader declares property "y", but the writer's open content model let writer data carry "y" with any value, ` +
					`which may fail the new schema; declare it with an empty schema ({}), which any writer value satisfies, ` +
					`or lower the subject's compatibility level (also at ` + tc.more + ` more paths through the same subschema #/$defs/d0, such as ` +
					prefix + "properties/b/properties/y and " + prefix + "properties/c/properties/y)",
			}
			if len(got) != 1 || got[0] != want {
				t.Fatalf("got %d violations %v\nwant %v", len(got), got, want)
			}
			if vs := (Format{}).CheckRead(v1, v2); len(vs) != 0 {
				t.Errorf("FORWARD: %v", vs)
			}
			res := compat.Check(Format{}, compat.Full, v2, []compat.Previous{{Version: 1, Schema: v1}})
			if len(res.Findings) != 1 {
				t.Errorf("FULL: %d findings, want 1", len(res.Findings))
			}
			// Fields lists the paths into d0 until definitions have been
			// entered again maxFieldRepeats times, every property at
			// least once: bounded, not 3^n.
			fields := v2.Fields()
			if max := 3*(maxFieldRepeats+tc.n) + 2; len(fields) > max {
				t.Errorf("Fields: %d, want at most %d", len(fields), max)
			}
			if !slices.ContainsFunc(fields, func(f compat.Field) bool { return f.Path == strings.Repeat(".a", tc.n)+".y" }) {
				t.Errorf("Fields: no field at the first path to y")
			}
			// d(i) against d(i)' once per level, with its three property
			// pairs: linear in n.
			if n := spent(t, v1, v2); n > 5*tc.n+10 {
				t.Errorf("%d comparisons for %d levels, want at most %d", n, tc.n, 5*tc.n+10)
			}
		})
	}
}

// TestChainedDefsDiff: Diff lists a difference once per path, as Confluent
// does, and refuses a list longer than MaxListedChanges.
func TestChainedDefsDiff(t *testing.T) {
	v1, v2 := mustParseI(t, chainedDefs(8, false)), mustParseI(t, chainedDefs(8, true))
	changes, err := Diff(Strict, v1, v2)
	if err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, c := range changes {
		if c.Type != "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL" || c.Compatible || !strings.HasSuffix(c.Path, "/properties/y") {
			t.Fatalf("unexpected change %+v", c)
		}
		paths[c.Path] = true
	}
	if len(changes) != 6561 || len(paths) != 6561 {
		t.Errorf("%d changes at %d paths, want 3^8 = 6561", len(changes), len(paths))
	}

	v1, v2 = mustParseI(t, chainedDefs(12, false)), mustParseI(t, chainedDefs(12, true))
	if _, err := Diff(Strict, v1, v2); !errors.Is(err, ErrTooComplex) || !strings.Contains(err.Error(), "more than 100,000 changes") {
		t.Errorf("12 levels: err = %v, want ErrTooComplex (531,441 changes)", err)
	}
}

// TestNestedAnyOf: nested anyOf of 3 branches d levels deep (3^d leaves).
// A leaf type change leaves no alternative matched (one finding at the
// root); a widened leaf matches every alternative (compatible). Either
// way the work stays within a small multiple of 3^d (changed: every
// probe fails at the first alternative tried) or d·3^d (widened: each
// alternative is matched after the ones before it failed).
func TestNestedAnyOf(t *testing.T) {
	str := map[string]any{"type": "string"}
	num := map[string]any{"type": "integer"}
	wide := map[string]any{"type": []string{"string", "integer"}}
	for d := 2; d <= 5; d++ { // 6 and 7 in BenchmarkNestedAnyOf (parsing dominates)
		t.Run(fmt.Sprint(d), func(t *testing.T) {
			leaves := 1
			for range d {
				leaves *= 3
			}
			v1 := mustParseI(t, nestedAnyOf(3, d, str))
			changed := mustParseI(t, nestedAnyOf(3, d, num))
			got := Format{}.CheckRead(changed, v1)
			if len(got) != 1 || got[0].RuleID != "JSON_COMBINED_TYPE_SUBSCHEMAS_CHANGED" || got[0].Path != "#/" {
				t.Errorf("string → integer: %v, want one JSON_COMBINED_TYPE_SUBSCHEMAS_CHANGED at #/", got)
			}
			if n := spent(t, v1, changed); n > 12*leaves {
				t.Errorf("string → integer: %d comparisons for %d leaves, want at most %d", n, leaves, 12*leaves)
			}

			widened := mustParseI(t, nestedAnyOf(3, d, wide))
			if vs := (Format{}).CheckRead(widened, v1); len(vs) != 0 {
				t.Errorf("string → [string, integer]: %v", vs)
			}
			changes, err := Diff(Strict, v1, widened)
			if err != nil {
				t.Fatal(err)
			}
			extended := 0
			for _, c := range changes {
				if c.Type == "SUM_TYPE_EXTENDED" {
					extended++
				}
			}
			if extended != leaves {
				t.Errorf("string → [string, integer]: %d SUM_TYPE_EXTENDED, want one per leaf (%d)", extended, leaves)
			}
			if n := spent(t, v1, widened); n > 6*d*leaves {
				t.Errorf("string → [string, integer]: %d comparisons for %d leaves, want at most %d", n, leaves, 6*d*leaves)
			}
		})
	}
}

// TestMatchingPreference: reordered alternatives with the same property
// names find their partners at once (linear work), where an index-order
// search would probe about k²/2 pairs.
func TestMatchingPreference(t *testing.T) {
	const k = 300
	v1, v2 := mustParseI(t, reorderedAnyOf(k, false, false)), mustParseI(t, reorderedAnyOf(k, true, false))
	if vs := (Format{}).CheckRead(v2, v1); len(vs) != 0 {
		t.Errorf("reordered: %v", vs)
	}
	if n := spent(t, v1, v2); n > 4*k {
		t.Errorf("reordered: %d comparisons for %d branches, want at most %d", n, k, 4*k)
	}
	// Drop one alternative and change another's type: the matching is
	// still found by shape and the findings are Confluent's.
	v3 := mustParseI(t, strings.Replace(reorderedAnyOf(k-1, true, false), `"f7":{"type":"string"}`, `"f7":{"type":"integer"}`, 1))
	var got []string
	for _, v := range (Format{}).CheckRead(v3, v1) {
		got = append(got, v.RuleID+" "+v.Path)
	}
	want := []string{"JSON_SUM_TYPE_NARROWED #/", "JSON_COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"}
	if !slices.Equal(got, want) {
		t.Errorf("one branch dropped, one changed: %v, want %v", got, want)
	}
}

// TestWorkBudget: a comparison that needs more than the budget answers
// one JSON_SCHEMA_TOO_COMPLEX violation; within the budget the same pair
// is compared normally.
func TestWorkBudget(t *testing.T) {
	const k = 300
	v1, v2 := mustParseI(t, reorderedAnyOf(k, false, false)), mustParseI(t, reorderedAnyOf(k, true, true))
	got := Format{MaxComparisons: 10_000}.CheckRead(v2, v1)
	want := compat.Violation{RuleID: RuleTooComplex, Path: "#/",
		Message: "schema too complex to compare: comparing it with the other version needs more than 10,000 subschema comparisons " +
			"(nested anyOf/oneOf alternatives are compared pairwise at every level); flatten the nested anyOf/oneOf, " +
			"or check this subject at compatibility level NONE", Undecided: true}
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if _, err := Diff(Strict, v1, v2); err != nil {
		t.Errorf("Diff, default budget: %v", err)
	}
	if vs := (Format{}).CheckRead(v2, v1); len(vs) != 0 {
		t.Errorf("default budget: %v", vs)
	}
	if n := spent(t, v1, v2); n < k*k/2 {
		t.Errorf("%d comparisons; the reshaped branches should need about k²/2 = %d", n, k*k/2)
	}
}

func BenchmarkChainedDefs(b *testing.B) {
	for _, n := range []int{8, 12, 20, 40} {
		b.Run(fmt.Sprintf("levels=%d", n), func(b *testing.B) {
			v1, v2 := mustParseI(b, chainedDefs(n, false)), mustParseI(b, chainedDefs(n, true))
			n := spent(b, v1, v2)
			b.ReportAllocs()
			for b.Loop() {
				if vs := (Format{}).CheckRead(v2, v1); len(vs) != 1 {
					b.Fatal(vs)
				}
			}
			b.ReportMetric(float64(n), "comparisons/op")
		})
	}
}

func BenchmarkNestedAnyOf(b *testing.B) {
	for d := 3; d <= 7; d++ {
		text := nestedAnyOf(3, d, map[string]any{"type": "string"})
		b.Run(fmt.Sprintf("depth=%d/bytes=%d", d, len(text)), func(b *testing.B) {
			v1, v2 := mustParseI(b, text), mustParseI(b, nestedAnyOf(3, d, map[string]any{"type": "integer"}))
			n := spent(b, v1, v2)
			b.ReportAllocs()
			for b.Loop() {
				if vs := (Format{}).CheckRead(v2, v1); len(vs) != 1 {
					b.Fatal(vs)
				}
			}
			b.ReportMetric(float64(n), "comparisons/op")
		})
	}
}

// BenchmarkReorderedAnyOf: reversed alternatives with the same property
// names (matched by shape, linear) and reshaped ones (about k²/2 probes;
// at 3,000 branches the default budget stops the check with
// JSON_SCHEMA_TOO_COMPLEX).
func BenchmarkReorderedAnyOf(b *testing.B) {
	for _, reshaped := range []bool{false, true} {
		for _, k := range []int{100, 300, 1000, 3000} {
			text := reorderedAnyOf(k, false, false)
			b.Run(fmt.Sprintf("reshaped=%v/branches=%d/bytes=%d", reshaped, k, len(text)), func(b *testing.B) {
				v1, v2 := mustParseI(b, text), mustParseI(b, reorderedAnyOf(k, true, reshaped))
				_, n, _ := diff(compatibleStrict, v1.root, v2.root, DefaultMaxComparisons, false)
				b.ReportAllocs()
				for b.Loop() {
					Format{}.CheckRead(v2, v1)
				}
				b.ReportMetric(float64(n), "comparisons/op")
			})
		}
	}
}

// BenchmarkParseNestedAnyOf parses anyOf nested d levels deep with a 2 KB
// const beside each level. The identities of a combination's subschemas
// are digests computed once per value; as text they would hold (and
// rebuild) every subtree once per level above it, O(size × depth).
func BenchmarkParseNestedAnyOf(b *testing.B) {
	for _, d := range []int{50, 100, 200} {
		s := `{"type":"string"}`
		for i := range d {
			s = fmt.Sprintf(`{"anyOf":[%s,{"const":"%s%d"}]}`, s, strings.Repeat("x", 2000), i)
		}
		b.Run(fmt.Sprintf("depth=%d/bytes=%d", d, len(s)), func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				mustParseI(b, s)
			}
		})
	}
}

// TestSubschemaLimit: Parse refuses more subschemas than maxSubschemas,
// counting those of the references too, with a one-line error.
func TestSubschemaLimit(t *testing.T) {
	raw, err := parseJSON(nestedAnyOf(3, 7, map[string]any{"type": "string"}))
	if err != nil {
		t.Fatal(err)
	}
	if n := countSubschemas(raw); n > maxSubschemas {
		t.Errorf("report F2's 834 KB schema has %d subschemas, over the limit %d", n, maxSubschemas)
	} else {
		t.Logf("report F2's 834 KB schema has %d subschemas", n)
	}
	saved := maxSubschemas
	maxSubschemas = 10
	defer func() { maxSubschemas = saved }()
	wide := func(k int) string {
		return `{"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{"type":"string"},`, k), ",") + `]}`
	}
	if _, err := Parse(wide(9), nil); err != nil {
		t.Errorf("10 subschemas: %v", err)
	}
	_, err = Parse(wide(10), nil)
	want := "invalid JSON schema: it has 11 subschemas with its references, more than Charter's limit of 10 " +
		"(compiling grows with the square of their number); split it into referenced schemas"
	if err == nil || err.Error() != want {
		t.Errorf("11 subschemas: %v, want %s", err, want)
	}
	dep := compat.Dependency{Name: "dep.json", Text: wide(5)}
	if _, err := Parse(`{"properties":{"a":{"$ref":"dep.json"},"b":{"type":"string"},"c":true,"d":{}}}`, []compat.Dependency{dep}); err == nil || !strings.Contains(err.Error(), "it has 11 subschemas") {
		t.Errorf("5 + 6 subschemas with a reference: %v", err)
	}
}

// BenchmarkParseWideAnyOf shows what maxSubschemas bounds: compiling an
// anyOf of k empty schemas grows with k².
func BenchmarkParseWideAnyOf(b *testing.B) {
	for _, k := range []int{2500, 5000, 10000, maxSubschemas - 1} {
		text := `{"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{},`, k), ",") + `]}`
		b.Run(fmt.Sprintf("subschemas=%d", k+1), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				mustParseI(b, text)
			}
		})
	}
}

package jsonschema

import "fmt"

// maxSubschemas bounds the subschemas of one Parse (the schema and its
// references together). The compiler Parse relies on
// (santhosh-tekuri/jsonschema v6.0.3) looks each subschema up in a list
// of those already queued, so compiling takes time quadratic in their
// number: 20,000 cost about 3 s of CPU, the 330,000 "{}" that fit in the
// registry's 1 MiB limit would take most of an hour. Real schemas of that
// size have a few thousand.
var maxSubschemas = 20000

// countSubschemas counts the schema values in v (v included): objects and
// booleans at schema positions, reached through the keywords Normalized
// rewrites. It counts every draft's keywords, so it may count a few values
// the compiler does not.
func countSubschemas(v *jval) int {
	if v == nil || (v.kind != jObject && v.kind != jBool) {
		return 0
	}
	n := 1
	for _, m := range v.obj {
		switch {
		case m.val.kind == jArray && schemaListKeywords[m.key]:
			for _, e := range m.val.arr {
				n += countSubschemas(e)
			}
		case m.val.kind == jObject && schemaMapKeywords[m.key]:
			for _, e := range m.val.obj {
				n += countSubschemas(e.val)
			}
		case schemaKeywords[m.key]:
			n += countSubschemas(m.val)
		}
	}
	return n
}

// checkSubschemas fails when n subschemas are more than Parse accepts.
func checkSubschemas(n int) error {
	if n > maxSubschemas {
		return fmt.Errorf("invalid JSON schema: it has %s subschemas with its references, more than Charter's limit of %s "+
			"(compiling grows with the square of their number); split it into referenced schemas",
			groupDigits(fmt.Sprint(n)), groupDigits(fmt.Sprint(maxSubschemas)))
	}
	return nil
}

package pii_test

import (
	"testing"

	"github.com/charter-dev/charter/pii"
)

func TestMatchGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, name string
		want          bool
	}{
		// The brief's and Confluent's documented examples.
		{"**.ssn", "a.b.ssn", true},
		{"**.ssn", "com.acme.Customer.ssn", true},
		{"**.ssn", "ssn", false}, // "**." needs a dot before ssn
		{"**.ssn", "com.acme.Customer.ssn_hash", false},
		{"eve*", "eve", true},
		{"a*.bob.eve", "alice.bob.eve", true},
		{"a*.bob.e*", "alice.bob.eve", true},
		{"a*", "alice.bob.eve", false}, // * stays within one segment
		{"a**", "alice.bob.eve", true},
		{"alice.bob*", "alice.bob.eve", false},
		{"alice.bob**", "alice.bob.eve", true},
		// ? is one character, not a dot.
		{"Customer.ss?", "Customer.ssn", true},
		{"Customer.ss?", "Customer.ss", false},
		{"Customer?ssn", "Customer.ssn", false},
		{"?", "", false},
		// Empty pattern and name.
		{"", "", true},
		{"", "a", false},
		{"*", "", true},
		{"**", "", true},
		// "**.*" is read as "**" (Confluent shortens it first).
		{"com.acme.**.*", "com.acme.Customer.ssn", true},
		{"com.acme.**.*", "com.acme.x", true},
		// Case-sensitive, whole-name.
		{"**.SSN", "a.ssn", false},
		{"Customer", "Customer.ssn", false},
		{"*.ssn", "Customer.ssn", true},
		{"*.ssn", "com.Customer.ssn", false},
		{"**ssn", "com.Customer.ssn", true},
		{"**.customer.*", "$.customer.email", true},
		{"$.customer.*", "$.customer.email", true},
		// Escapes make wildcards literal; other regexp characters are literal.
		{`a\*b`, "a*b", true},
		{`a\*b`, "axb", false},
		{`a\`, `a\`, true},
		{"a+b", "a+b", true},
		{"a[0]", "a[0]", true},
		{"a(b)|c", "a(b)|c", true},
		// Several stars.
		{"*.*.*", "a.b.c", true},
		{"*.*.*", "a.b", false},
		{"**.b.**", "a.b.c", true},
		{"**.b.**", "b.c", false},
		{"*a*a*", "banana", true},
	}
	for _, tt := range tests {
		if got := pii.MatchGlob(tt.pattern, tt.name); got != tt.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

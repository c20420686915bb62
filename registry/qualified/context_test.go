package qualified

import (
	"strings"
	"testing"
)

// TestCheckContext: the names Confluent accepts pass, with or without the dot;
// each refusal gives its reason.
func TestCheckContext(t *testing.T) {
	for _, name := range []string{".ctx", "ctx", ".a b", ".ü", ".a/b", ".a.b_c-1", "." + strings.Repeat("x", MaxBytes)} {
		if err := CheckContext(name); err != nil {
			t.Errorf("CheckContext(%q) = %v, want nil", name, err)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{".", "must not be empty"},
		{"", "must not be empty"},
		{"." + strings.Repeat("x", MaxBytes+1), "at most 255 bytes"},
		{".\xff", "not valid UTF-8"},
		{".*", "* names every context"},
		{".a:b", "cannot contain a colon"},
		{".a\tb", "control characters are not allowed"},
		{".a\u202eb", "bidirectional control characters (U+202E)"},
		{".a\u2066b", "bidirectional control characters (U+2066)"},
	} {
		if err := CheckContext(tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckContext(%q) = %v, want %q", tc.name, err, tc.want)
		}
	}
}

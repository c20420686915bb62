package compat

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestClip: input up to MaxEchoBytes is kept; longer input is cut at a
// rune boundary at or below the bound, with an ellipsis.
func TestClip(t *testing.T) {
	if s := strings.Repeat("a", MaxEchoBytes); Clip(s) != s {
		t.Errorf("Clip of %d bytes changed it", MaxEchoBytes)
	}
	for _, s := range []string{strings.Repeat("a", 1<<20), "a" + strings.Repeat("é", 300)} {
		c := Clip(s)
		if !strings.HasSuffix(c, "…") || len(c) > MaxEchoBytes+len("…") || !utf8.ValidString(c) {
			t.Errorf("Clip = %q (%d bytes)", c, len(c))
		}
	}
}

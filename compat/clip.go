package compat

import "unicode/utf8"

// MaxEchoBytes bounds a piece of input quoted in an error message: Clip
// keeps at most that many bytes of it, so that a huge value sent (a 1 MB
// tag path) does not make a huge error body.
const MaxEchoBytes = 200

// Clip returns s cut to MaxEchoBytes bytes (at a rune boundary) with an
// ellipsis, or s itself when it is not longer. Use it for every piece of
// input an error message echoes.
func Clip(s string) string {
	if len(s) <= MaxEchoBytes {
		return s
	}
	cut := MaxEchoBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Package qualified holds Confluent's qualified subjects (":.ctx:name",
// a subject in the schema context ".ctx") and the rule for a context's
// name, shared by the registry (subjects, references, aliases, the
// /contexts/{ctx}/ URL prefix) and the exporters (source references, a
// CUSTOM destination context), which cannot import it. Errors are plain
// reasons; each caller wraps them in its own error code.
package qualified

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxBytes is the longest context name, in bytes, without its dot.
const MaxBytes = 255

// CheckContext returns nil when c, with or without its leading dot, is a
// context name: what Confluent's QualifiedSubject accepts (anything but
// ':' and control characters, so spaces, '/' and letters such as 'ü'
// are fine) but for "*" (the wildcard of every context: ":*:" in a
// subject prefix), at most MaxBytes bytes, valid UTF-8, and no Unicode
// bidirectional control character (U+202A-U+202E, U+2066-U+2069), which
// would display a subject as another. Otherwise the error's text is the
// reason, one clause without the name.
func CheckContext(c string) error {
	name := strings.TrimPrefix(c, ".")
	switch {
	case name == "":
		return errors.New("the context name must not be empty")
	case len(name) > MaxBytes:
		return fmt.Errorf("a context name is at most %d bytes", MaxBytes)
	case !utf8.ValidString(name):
		return errors.New("the context name is not valid UTF-8")
	case name == "*":
		return errors.New("* names every context (:*: in a subject prefix), not one context")
	}
	for _, r := range name {
		switch {
		case r == ':':
			return errors.New("a context name cannot contain a colon")
		case unicode.IsControl(r):
			return errors.New("control characters are not allowed")
		case r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069':
			return fmt.Errorf("bidirectional control characters (U+%04X) are not allowed", r)
		}
	}
	return nil
}

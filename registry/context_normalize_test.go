package registry

import (
	"errors"
	"testing"

	"github.com/charter-dev/charter/registry/srerr"
)

// TestNormalizeSubject: Confluent's QualifiedSubject.normalize (without a
// tenant): the default context named explicitly is removed, a context
// named without its closing colon gets it.
func TestNormalizeSubject(t *testing.T) {
	for in, want := range map[string]string{
		"s": "s", ":.:s": "s", ":.:": "", ":.": "", ":.ctx": ":.ctx:", ":.ctx:": ":.ctx:",
		":.ctx:s": ":.ctx:s", ":*:s": ":*:s", ":*:": ":*:", "": "", ":.a b:s": ":.a b:s",
	} {
		if got := NormalizeSubject(in); got != want {
			t.Errorf("NormalizeSubject(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestValidateContextName: one rule for qualified subjects and the URL
// prefix: Confluent's (no ':', no control character) plus no bidi
// control character and at most 255 bytes.
func TestValidateContextName(t *testing.T) {
	for _, ok := range []string{".ctx", ".a b", ".a/b", ".ü", ".__GLOBAL", ".x.y_z-1"} {
		if err := ValidateContextName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	long := "."
	for range 256 {
		long += "x"
	}
	for _, bad := range []string{".", ".a:b", ".a\u202eb", ".a\u202ab", ".a\u2066b", ".a\u2069b", ".a\x01b", ".\xff", long} {
		if err := ValidateContextName(bad); !errors.Is(err, srerr.ErrInvalidSubject) {
			t.Errorf("%q: %v, want 42208", bad, err)
		}
	}
	for _, bad := range []string{":.a\u202eb:s", ":*:s", ":*:"} {
		if err := ValidateSubject(bad); !errors.Is(err, srerr.ErrInvalidSubject) {
			t.Errorf("ValidateSubject(%q): %v, want 42208", bad, err)
		}
	}
}

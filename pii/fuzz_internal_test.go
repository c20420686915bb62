package pii

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/charter-dev/charter/compat"
)

// FuzzTokensASCII: the ASCII fast path of Tokens splits as the general
// (rune) path does.
func FuzzTokensASCII(f *testing.F) {
	for _, s := range []string{"customerEmail", "SSNNumber", "IPv4Address", "a_b-c.d", "X", "__", "addr2Line", "ABCdefGHI9jK"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return
			}
		}
		got := Tokens(s)
		want := tokensRunes([]rune(mixedAcronyms.Replace(s)))
		if !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q, rune path gives %q", s, got, want)
		}
	})
}

// globRegexp is a reference implementation of the glob rules through
// regexp, used only to cross-check the matcher.
func globRegexp(pattern string) *regexp.Regexp {
	p := strings.ReplaceAll(pattern, "**.*", "**")
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				i++
				b.WriteString("(?s:.*)")
			} else {
				b.WriteString("[^.]*")
			}
		case '?':
			b.WriteString("[^.]")
		case '\\':
			if i+1 < len(p) {
				i++
				b.WriteString(regexp.QuoteMeta(string(p[i])))
			} else {
				b.WriteString(`\\`)
			}
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// FuzzMatchGlob: the matcher agrees with the regexp reference on ASCII
// patterns and names.
func FuzzMatchGlob(f *testing.F) {
	f.Add("**.ssn", "com.acme.Customer.ssn")
	f.Add("a*.b?.**", "aa.bc.d.e")
	f.Add(`a\*b*`, "a*bcd")
	f.Add("*", "")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		for _, s := range []string{pattern, name} {
			for i := 0; i < len(s); i++ {
				if s[i] >= 0x80 || s[i] == '\n' {
					return
				}
			}
		}
		if len(pattern) > 40 || len(name) > 200 {
			return
		}
		want := globRegexp(pattern).MatchString(name)
		if got := MatchGlob(pattern, name); got != want {
			t.Errorf("MatchGlob(%q, %q) = %v, regexp reference says %v", pattern, name, got, want)
		}
	})
}

// FuzzDetect: no field panics the detector, and every match names a known
// pattern with a valid confidence.
func FuzzDetect(f *testing.F) {
	f.Add("customerEmail", ".customer.email", "union{null,string}", "The email address")
	f.Add("name", ".patients[].name", "map<string, array<", "")
	f.Add("", "<", "union{", "date of birth")
	d := DefaultDetector()
	f.Fuzz(func(t *testing.T, name, path, typ, doc string) {
		for _, m := range d.Detect(compat.Field{Name: name, Path: path, Type: typ, Doc: doc}) {
			if _, ok := d.pattern(m.PatternID); !ok || m.Confidence < Low || m.Confidence > High || m.Reason == "" {
				t.Errorf("bad match %+v", m)
			}
		}
	})
}

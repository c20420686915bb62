package rule

import "strings"

// ShellArg returns s as one POSIX shell word, for the commands that fix
// hints print: unchanged when it holds only characters no shell treats
// specially (letters, digits and ._-:/@%+=,), else in single quotes, each
// single quote inside closed, escaped with a backslash and reopened. The
// empty string is two single quotes.
func ShellArg(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-:/@%+=,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

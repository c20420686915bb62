package rule

import "strings"

// ShellArg returns s as one POSIX shell word, for the commands that fix
// hints print: unchanged when it holds only characters no shell treats
// specially (letters, digits and ._-:/@%+=,), else in single quotes, a
// quote inside written as '\”. The empty string is ”.
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

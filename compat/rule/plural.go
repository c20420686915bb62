package rule

import (
	"strconv"
	"strings"
)

// Plural is how every Charter message counts things: n and noun, the noun
// in the plural unless n is 1 or -1 ("0 days", "1 day", "2 days", "1
// entry", "3 entries"). noun is singular, lower case and regular: "s" is
// added, "y" after a consonant becomes "ies", and "s", "x", "ch" and "sh"
// take "es". For several words only the last is made plural ("1 dead
// letter", "2 dead letters").
func Plural(n int, noun string) string {
	s := strconv.Itoa(n) + " "
	if n == 1 || n == -1 {
		return s + noun
	}
	switch {
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return s + noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return s + noun + "es"
	}
	return s + noun + "s"
}

package registry

import (
	"strings"

	"github.com/charter-dev/charter/registry/qualified"
)

// AllContexts is the subjectPrefix that selects the subjects of every
// context (Confluent's context wildcard, the default of GET /subjects).
const AllContexts = ":*:"

// subjectPrefix returns how a subjectPrefix of GET /subjects or GET
// /schemas selects subjects, as Confluent's: ":*:p" selects the subjects
// of every context whose name (after the context) starts with p; a
// qualified ":.ctx:p" the subjects starting with it (in .ctx); ":.:p" and
// an unqualified p the default context's subjects starting with p, so ""
// selects the default context only. store is the prefix to ask the store
// for, keep decides on each subject it returns.
func subjectPrefix(prefix string) (store string, keep func(subject string) bool) {
	if name, ok := strings.CutPrefix(prefix, AllContexts); ok {
		return "", func(subject string) bool {
			_, n := qualified.Split(subject)
			return strings.HasPrefix(n, name)
		}
	}
	prefix = NormalizeSubject(prefix)
	if ContextOf(prefix) != "" {
		return prefix, func(string) bool { return true }
	}
	return prefix, func(subject string) bool { return ContextOf(subject) == "" }
}

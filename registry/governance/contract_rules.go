package governance

import (
	"sort"
	"strings"
)

// Covers reports whether reading read reads the field at path: the field
// itself or something inside it (".carrier" covers ".carrier.code",
// ".carrier<acme.Carrier>.code", ".lines[]…", ".attrs{}…"), as lineage's
// impact query counts readers.
func Covers(path, read string) bool {
	if read == path {
		return true
	}
	if !strings.HasPrefix(read, path) {
		return false
	}
	switch read[len(path)] {
	case '.', '[', '{', '<':
		return true
	}
	return false
}

// ReadersOf returns, sorted, the consumers of readers (consumer → paths
// read) that read path or a field under it (Covers).
func ReadersOf(path string, readers map[string][]string) []string {
	var out []string
	for c, paths := range readers {
		for _, p := range paths {
			if Covers(path, p) {
				out = append(out, c)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

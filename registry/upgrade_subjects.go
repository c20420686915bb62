package registry

import (
	"slices"
	"strconv"
)

// SubjectRename is one subject name that the contexts upgrade renames:
// a name a registry written before contexts stored that NormalizeSubject
// changes (":.foo", ":.:x", ":.:", ":."), so that the API, which
// normalises every subject it is given, would never reach it.
type SubjectRename struct {
	From, To string
	// Collided is set when From's normal form was not free (another
	// subject holds it, or it is empty): To is the normal form with
	// "~renamed-N" appended instead.
	Collided bool
}

// UpgradeSubjectRenames returns the renames for the given stored subject
// names (any order, duplicates allowed), ordered by From. The rule: each
// name NormalizeSubject changes is renamed to its normal form when that
// is not empty and no stored subject holds it; otherwise to the normal
// form followed by "~renamed-N", the smallest N ≥ 1 that no stored
// subject and no earlier rename holds (":.foo" beside ":.foo:" is
// ":.foo:~renamed-1", ":.:x" beside "x" is "x~renamed-1", ":.:" is
// "~renamed-1"). A subject already in normal form keeps its name, so the
// name clients reach now stays the subject they reached before. Nothing
// is merged: every version stays under exactly one reachable name.
func UpgradeSubjectRenames(stored []string) []SubjectRename {
	taken := make(map[string]bool, len(stored))
	var odd []string
	for _, s := range stored {
		if taken[s] {
			continue
		}
		taken[s] = true
		if NormalizeSubject(s) != s {
			odd = append(odd, s)
		}
	}
	slices.Sort(odd)
	var out []SubjectRename
	for _, s := range odd {
		n := NormalizeSubject(s)
		for NormalizeSubject(n) != n { // ":.::.foo" is ":.foo", then ":.foo:"
			n = NormalizeSubject(n)
		}
		r := SubjectRename{From: s, To: n}
		if n == "" || taken[n] {
			r.Collided = true
			for i := 1; ; i++ {
				t := n + "~renamed-" + strconv.Itoa(i)
				if !taken[t] && NormalizeSubject(t) == t {
					r.To = t
					break
				}
			}
		}
		taken[r.To] = true
		out = append(out, r)
	}
	return out
}

// RenameReferenceSubjects returns refs with each subject that renames
// maps (From to To) renamed, and whether any was.
func RenameReferenceSubjects(refs []Reference, renames map[string]string) ([]Reference, bool) {
	var out []Reference
	for i, r := range refs {
		to, ok := renames[r.Subject]
		if !ok {
			continue
		}
		if out == nil {
			out = slices.Clone(refs)
		}
		out[i].Subject = to
	}
	if out == nil {
		return refs, false
	}
	return out, true
}

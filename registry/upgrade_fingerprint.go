package registry

import "strings"

// UpgradedFingerprint returns the fingerprint that st, a schema the
// pre-context upgrade copied into the context of a ":.ctx:" subject (its
// references to subjects outside any context renamed ":.:s", so that they
// keep naming the default context's), is identified by there: its
// content's fingerprint with the renamed references (an IMPORT copy's
// "#id" suffix kept), the one a registration of the same content in that
// context computes. ok is false, and st.Fingerprint is to be kept, unless
// st.Fingerprint is what st's references gave before the rename (a schema
// registered with ":.:s" references is identified by them already).
func UpgradedFingerprint(st Schema) (fp string, ok bool) {
	before := make([]Reference, len(st.References))
	renamed := false
	for i, r := range st.References {
		before[i] = r
		if rest, cut := strings.CutPrefix(r.Subject, ":.:"); cut {
			before[i].Subject = rest
			renamed = true
		}
	}
	if !renamed {
		return "", false
	}
	old := Fingerprint(st.Type, st.Text, before, st.Metadata, st.RuleSet)
	now := Fingerprint(st.Type, st.Text, st.References, st.Metadata, st.RuleSet)
	switch {
	case st.Fingerprint == old:
		return now, true
	case strings.HasPrefix(st.Fingerprint, old+"#"):
		return now + st.Fingerprint[len(old):], true
	}
	return "", false
}

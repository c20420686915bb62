package registry

import "testing"

// TestUpgradedFingerprint: a copy whose references the upgrade renamed
// gets the fingerprint of its renamed references (an IMPORT copy's #id
// kept); one registered with them already, one without a renamed
// reference and a fingerprint not Charter's are left alone.
func TestUpgradedFingerprint(t *testing.T) {
	renamed := []Reference{{Name: "P", Subject: ":.:plain", Version: 1}, {Name: "B", Subject: ":.foo:baz", Version: 2}}
	before := []Reference{{Name: "P", Subject: "plain", Version: 1}, {Name: "B", Subject: ":.foo:baz", Version: 2}}
	st := Schema{Context: ".foo", ID: 3, Type: "AVRO", Text: `"int"`, References: renamed, Metadata: []byte(`{"a": 1}`)}
	oldFP := Fingerprint(st.Type, st.Text, before, st.Metadata, nil)
	newFP := Fingerprint(st.Type, st.Text, renamed, st.Metadata, nil)
	if oldFP == newFP {
		t.Fatal("the rename does not change the fingerprint; the test proves nothing")
	}
	cases := []struct {
		name   string
		fp     string
		refs   []Reference
		want   string
		wantOK bool
	}{
		{"renamed", oldFP, renamed, newFP, true},
		{"import copy", oldFP + "#3", renamed, newFP + "#3", true},
		{"registered with :.:plain", newFP, renamed, "", false},
		{"no renamed reference", Fingerprint(st.Type, st.Text, before[1:], st.Metadata, nil), before[1:], "", false},
		{"not Charter's", "fp-3", renamed, "", false},
	}
	for _, c := range cases {
		s := st
		s.Fingerprint, s.References = c.fp, c.refs
		got, ok := UpgradedFingerprint(s)
		if got != c.want || ok != c.wantOK {
			t.Errorf("%s: UpgradedFingerprint = %q, %v; want %q, %v", c.name, got, ok, c.want, c.wantOK)
		}
	}
}

package exporter

import (
	"maps"
	"strings"
	"testing"
)

// TestMatches: Confluent's subjects filter ("*" the default context,
// ":*:" every context, ":.ctx:pattern" one context, '*' any run).
func TestMatches(t *testing.T) {
	cases := []struct {
		subjects []string
		subject  string
		want     bool
	}{
		{nil, "orders-value", true},
		{nil, ":.ctx:orders-value", false},
		{[]string{"*"}, "x", true},
		{[]string{"orders-*"}, "orders-value", true},
		{[]string{"orders-*"}, "users-value", false},
		{[]string{"*-value"}, "orders-value", true},
		{[]string{"o*s-*e"}, "orders-value", true},
		{[]string{"o*s-*e"}, "orders-key", false},
		{[]string{"orders-value"}, "orders-value", true},
		{[]string{"orders-value"}, "orders-value2", false},
		{[]string{":*:"}, ":.ctx:a", true},
		{[]string{":.ctx:*"}, ":.ctx:a", true},
		{[]string{":.ctx:*"}, "a", false},
		{[]string{":.other:*"}, ":.ctx:a", false},
		{[]string{"a", "b"}, "b", true},
	}
	for _, c := range cases {
		e := Exporter{Subjects: c.subjects}
		if got := e.Matches(c.subject); got != c.want {
			t.Errorf("Subjects %q: Matches(%q) = %v, want %v", c.subjects, c.subject, got, c.want)
		}
	}
}

// TestDestinationSubject: where each context type puts a subject, with
// Confluent's ${subject} renaming (docs.confluent.io, Schema Linking:
// "subjectRenameFormat ... dc_${subject} for the subject orders will map
// to the destination subject name dc_orders").
func TestDestinationSubject(t *testing.T) {
	cases := []struct {
		e    Exporter
		src  string
		want string
	}{
		{Exporter{ContextType: ContextNone}, "orders", "orders"},
		{Exporter{ContextType: ContextNone}, ":.src:orders", ":.src:orders"},
		{Exporter{ContextType: ContextNone, SubjectRenameFormat: "dc_${subject}"}, "orders", "dc_orders"},
		{Exporter{ContextType: ContextCustom, Context: ".mirror"}, "orders", ":.mirror:orders"},
		{Exporter{ContextType: ContextCustom, Context: "mirror"}, "orders", ":.mirror:orders"},
		{Exporter{ContextType: ContextCustom, Context: "mirror"}, ":.src:orders", ":.mirror.src:orders"},
		{Exporter{ContextType: ContextCustom, Context: "prod", SubjectRenameFormat: "staging.${subject}"}, "orders", ":.prod:staging.orders"},
		{Exporter{ContextType: ContextAuto}, "orders", ":.lsrc-1:orders"},
		{Exporter{ContextType: ContextAuto, SubjectRenameFormat: "${subject}"}, ":.a:b", ":.lsrc-1.a:b"},
	}
	for _, c := range cases {
		if got := c.e.DestinationSubject(c.src, "lsrc-1"); got != c.want {
			t.Errorf("%+v: DestinationSubject(%q) = %q, want %q", c.e, c.src, got, c.want)
		}
	}
	if got := resolveReference(":.src:orders", "ref"); got != ":.src:ref" {
		t.Errorf("resolveReference in .src = %q, want :.src:ref", got)
	}
	if got := resolveReference("orders", ":.x:ref"); got != ":.x:ref" {
		t.Errorf("resolveReference of a qualified subject = %q", got)
	}
	// A pre-context registry's upgrade writes a reference to the default
	// context as ":.:plain": the registry reads it as "plain".
	if got := resolveReference(":.foo:c", ":.:plain"); got != "plain" {
		t.Errorf("resolveReference of :.:plain in .foo = %q, want plain (the registry's qualified.In)", got)
	}
}

// TestRedactConfig: only the keys known to hold no secret and durations
// (*.ms) are answered (an allow-list: sasl.jaas.config, an apikey or an
// unknown key is hidden); a config sent back with the mask keeps the stored values.
func TestRedactConfig(t *testing.T) {
	c := map[string]string{ConfigURL: "https://sr", ConfigCredentialSource: "USER_INFO", ConfigUserInfo: "u:p",
		ConfigBearerToken: "tok", "ssl.key.password": "kp", "timeout.ms": "30000", "sasl.jaas.config": "jaas pw",
		"apikey": "k", "Bearer.Auth.Credentials.Source": "STATIC_TOKEN", "bearer.auth.logical.cluster": "lsrc-1"}
	r := RedactConfig(c)
	for k, want := range map[string]string{ConfigURL: "https://sr", ConfigCredentialSource: "USER_INFO", ConfigUserInfo: Redacted,
		ConfigBearerToken: Redacted, "ssl.key.password": Redacted, "timeout.ms": "30000", "sasl.jaas.config": Redacted,
		"apikey": Redacted, "Bearer.Auth.Credentials.Source": "STATIC_TOKEN", "bearer.auth.logical.cluster": "lsrc-1"} {
		if r[k] != want {
			t.Errorf("RedactConfig[%s] = %q, want %q", k, r[k], want)
		}
	}
	m := mergeConfig(c, r)
	if !maps.Equal(m, c) {
		t.Errorf("merge of the redacted config changed it: %v", m)
	}
}

// TestMergeConfig: an empty value removes a key; a new destination URL
// drops every stored credential the same update does not send again
// (the mask is not sending it), so that an administrator who does not
// know a password cannot have it sent to a host of his.
func TestMergeConfig(t *testing.T) {
	stored := map[string]string{ConfigURL: "https://b", ConfigUserInfo: "sealed-u", ConfigBearerToken: "sealed-t",
		"sasl.jaas.config": "sealed-j", ConfigCredentialSource: "USER_INFO"}
	for _, c := range []struct {
		name      string
		upd, want map[string]string
	}{
		{"remove a key", map[string]string{ConfigBearerToken: ""},
			map[string]string{ConfigURL: "https://b", ConfigUserInfo: "sealed-u", "sasl.jaas.config": "sealed-j", ConfigCredentialSource: "USER_INFO"}},
		{"same URL keeps credentials", map[string]string{ConfigURL: "https://b", ConfigUserInfo: Redacted}, stored},
		{"new URL drops them", map[string]string{ConfigURL: "https://evil", ConfigUserInfo: Redacted},
			map[string]string{ConfigURL: "https://evil", ConfigCredentialSource: "USER_INFO"}},
		{"new URL with new credentials", map[string]string{ConfigURL: "https://c", ConfigUserInfo: "v:q"},
			map[string]string{ConfigURL: "https://c", ConfigUserInfo: "v:q", ConfigCredentialSource: "USER_INFO"}},
		{"a mask of an absent key stores nothing", map[string]string{"apikey": Redacted}, stored},
	} {
		if got := mergeConfig(stored, c.upd); !maps.Equal(got, c.want) {
			t.Errorf("%s: merged %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCheckURL: http and https only, a host, no user info, query or
// fragment; an error never echoes user info.
func TestCheckURL(t *testing.T) {
	for _, ok := range []string{"http://h:8081", "https://h/contexts/.x", "http://a:1, http://b:2"} {
		if _, err := CheckURL(ok); err != nil {
			t.Errorf("CheckURL(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "ftp://h", "file:///etc/passwd", "http://", "http://u:p@h", "h:8081", "javascript:x",
		"http://h?x=1", "http://h/?", "http://h#f", "http://h/p#", "ftp://u:s3cretPW@h", "http://u:s3cretPW@", "u:s3cretPW@h:1",
		"http://u:s3cretPW@h:bad"} {
		_, err := CheckURL(bad)
		if err == nil {
			t.Errorf("CheckURL(%q) accepted", bad)
		} else if strings.Contains(err.Error(), "s3cretPW") {
			t.Errorf("CheckURL(%q) echoes the password: %v", bad, err)
		}
	}
}

// TestIsOwnCopy: the destination context and those under it are never
// exported (an exporter into its own registry would copy its copies).
func TestIsOwnCopy(t *testing.T) {
	e := Exporter{ContextType: ContextCustom, Context: "mirror", Subjects: []string{":*:"}}
	for s, want := range map[string]bool{"a": false, ":.src:a": false, ":.mirror:a": true, ":.mirror.src:a": true, ":.mirrored:a": false} {
		if got := e.IsOwnCopy(s, "charter"); got != want {
			t.Errorf("IsOwnCopy(%q) = %v, want %v", s, got, want)
		}
	}
	if (Exporter{ContextType: ContextNone}).IsOwnCopy(":.mirror:a", "charter") {
		t.Error("a NONE exporter has no context of its own")
	}
	if !(Exporter{ContextType: ContextAuto}).IsOwnCopy(":.charter:a", "charter") {
		t.Error("an AUTO exporter's context is .charter")
	}
}

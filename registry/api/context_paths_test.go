package api

import (
	"errors"
	"net/url"
	"testing"

	"github.com/charter-dev/charter/registry"
	"github.com/charter-dev/charter/registry/srerr"
)

// TestRewriteContextPath follows Confluent's ContextFilterTest: the
// subject of each route under /contexts/{ctx}/ is qualified, a root
// /config or /mode gets the context's level, the query's subject and
// subjectPrefix are qualified, and ":.:" is the default context.
func TestRewriteContextPath(t *testing.T) {
	cases := []struct {
		path, query string
		wantPath    string
		wantQuery   string // "" for the query unchanged
	}{
		{"/contexts/.ctx/subjects/s/versions", "", "/subjects/:.ctx:s/versions", ""},
		{"/contexts/ctx/subjects/s/versions/1", "", "/subjects/:.ctx:s/versions/1", ""},
		{"/contexts/:.ctx:/subjects/s", "", "/subjects/:.ctx:s", ""},
		{"/contexts/.ctx/subjects/:.other:s/versions", "", "/subjects/:.other:s/versions", ""},
		{"/contexts/.ctx/subjects/:.:s/versions", "", "/subjects/s/versions", ""},
		{"/contexts/.ctx/subjects/a%2Fb/versions", "", "/subjects/:.ctx:a%2Fb/versions", ""},
		{"/contexts/.ctx/compatibility/subjects/s/versions/latest", "", "/compatibility/subjects/:.ctx:s/versions/latest", ""},
		{"/contexts/.ctx/config", "", "/config/:.ctx:", ""},
		{"/contexts/.ctx/config/s", "defaultToGlobal=true", "/config/:.ctx:s", ""},
		{"/contexts/.ctx/mode", "", "/mode/:.ctx:", ""},
		{"/contexts/./config", "", "/config", ""},
		{"/contexts/:.:/mode", "", "/mode", ""},
		{"/contexts/.ctx/subjects", "", "/subjects", "subjectPrefix=%3A.ctx%3A"},
		{"/contexts/.ctx/subjects", "subjectPrefix=a", "/subjects", "subjectPrefix=%3A.ctx%3Aa"},
		{"/contexts/.ctx/subjects", "subjectPrefix=%3A*%3A", "/subjects", "subjectPrefix=%3A%2A%3A"},
		{"/contexts/:.:/subjects", "", "/subjects", "subjectPrefix="},
		{"/contexts/.ctx/schemas", "latestOnly=true", "/schemas", "latestOnly=true&subjectPrefix=%3A.ctx%3A"},
		{"/contexts/.ctx/schemas/ids/1", "", "/schemas/ids/1", "subject=%3A.ctx%3A"},
		{"/contexts/.ctx/schemas/ids/1/versions", "subject=s", "/schemas/ids/1/versions", "subject=%3A.ctx%3As"},
		{"/contexts/.ctx/dek-registry/v1/keks/k/deks/s", "", "/dek-registry/v1/keks/k/deks/:.ctx:s", ""},
		{"/contexts/.ctx", "", "/contexts/.ctx", ""}, // DELETE /contexts/{ctx}
		{"/contexts", "", "/contexts", ""},
		{"/contexts/", "", "/contexts", ""}, // ContextFilterTest.testContextsRoot: the list
		{"/contexts/.ctx/pact-broker/pacts/provider/p/consumer/c/latest", "", "/pact-broker/pacts/provider/:.ctx:p/consumer/c/latest", ""},
		{"/contexts/.ctx/governance/audit", "subject=s", "/governance/audit", "subject=%3A.ctx%3As"},
		{"/governance/audit", "subject=%3A.ctx", "/governance/audit", "subject=%3A.ctx%3A"},
		{"/config/:.:", "", "/config", ""},
		{"/contexts/.ctx/config/:.:", "", "/config", ""},
		{"/subjects/:.ctx/versions", "", "/subjects/:.ctx:/versions", ""},
		{"/subjects/:.:s/versions", "", "/subjects/s/versions", ""},
		{"/config/:.:s", "", "/config/s", ""},
		{"/subjects/%2E%2E/versions", "", "/subjects/%2E%2E/versions", ""},
		{"/subjects/s/versions", "", "/subjects/s/versions", ""},
	}
	for _, c := range cases {
		q, _ := url.ParseQuery(c.query)
		path, query, err := rewriteContextPath(c.path, q)
		if err != nil {
			t.Errorf("%s?%s: %v", c.path, c.query, err)
			continue
		}
		gotQuery := ""
		if query != nil {
			gotQuery = query.Encode()
		}
		if path != c.wantPath || gotQuery != c.wantQuery {
			t.Errorf("%s?%s → %s?%s, want %s?%s", c.path, c.query, path, gotQuery, c.wantPath, c.wantQuery)
		}
	}
	for _, bad := range []string{"/contexts/.a%E2%80%AEb/subjects", "/contexts/.a%3Ab/config", "/contexts/.a%E2%81%A6b/mode", "/contexts/.%/subjects",
		// The wildcard is no context (":*:x" is refused as a subject, 42208).
		"/contexts/:*:/subjects/x/versions", "/contexts/*/subjects/x/versions", "/contexts/.*/subjects/x/versions",
		"/contexts/%3A*%3A/config", "/contexts/:*/mode", "/contexts/*:/subjects",
		// Colons alone and an empty name name no context.
		"/contexts/:/subjects/x/versions", "/contexts/::/subjects/x/versions", "/contexts//subjects/x/versions"} {
		if _, _, err := rewriteContextPath(bad, url.Values{}); !errors.Is(err, srerr.ErrInvalidSubject) {
			t.Errorf("%s: error %v, want 42208", bad, err)
		}
	}
}

// TestContextPrefixIsTheSubjectRule: a context name is accepted in a
// /contexts/{ctx}/ prefix exactly when a qualified subject ":{ctx}:x" is
// (registry.ValidateSubject), so that no prefix makes a context no
// subject can name (.* from /contexts/*/ and /contexts/:*:/), and the
// names Confluent accepts (".ü", ".a b", ".a/b") are accepted in both.
func TestContextPrefixIsTheSubjectRule(t *testing.T) {
	for _, c := range []struct {
		prefix, ctx string // ctx "": refused
	}{
		{".ctx", ".ctx"}, {"ctx", ".ctx"}, {":.ctx:", ".ctx"}, {".%C3%BC", ".ü"}, {".a%20b", ".a b"}, {".a%2Fb", ".a/b"},
		{"*", ""}, {":*:", ""}, {".*", ""}, {":*", ""}, {".a%3Ab", ""}, {".a%09b", ""}, {".a%E2%80%AEb", ""}, {":", ""}, {"::", ""},
	} {
		path, _, err := rewriteContextPath("/contexts/"+c.prefix+"/subjects/x/versions", url.Values{})
		if c.ctx == "" {
			if !errors.Is(err, srerr.ErrInvalidSubject) {
				t.Errorf("/contexts/%s/: %s, %v; want 42208", c.prefix, path, err)
			}
			continue
		}
		want := "/subjects/" + url.PathEscape(":"+c.ctx+":x") + "/versions"
		if err != nil || path != want {
			t.Errorf("/contexts/%s/: %s, %v; want %s", c.prefix, path, err, want)
		}
		if err := registry.ValidateSubject(":" + c.ctx + ":x"); err != nil {
			t.Errorf("subject :%s:x: %v, though /contexts/%s/ is accepted", c.ctx, err, c.prefix)
		}
	}
	for _, s := range []string{":*:x", ":.*:x"} {
		if err := registry.ValidateSubject(s); !errors.Is(err, srerr.ErrInvalidSubject) {
			t.Errorf("subject %s: %v, want 42208 as its /contexts/ prefix", s, err)
		}
	}
}

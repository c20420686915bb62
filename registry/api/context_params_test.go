package api

import (
	"encoding/json"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestContextPrefixQualifiesEverySubjectParam walks every route of
// openapi.json that takes a subject (a {subject} path segment, a
// ?subject= or a ?subjectPrefix=) and checks that under /contexts/.staging/
// each of them is qualified with the context, as Confluent's ContextFilter
// does for its routes, and that outside a prefix each is normalised
// (":.:s" is "s", ":.ctx" is ":.ctx:") as QualifiedSubject.normalize.
func TestContextPrefixQualifiesEverySubjectParam(t *testing.T) {
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]param `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	placeholder := regexp.MustCompile(`\{[^}]+\}`)
	walked := 0
	for tmpl, ops := range doc.Paths {
		if strings.HasPrefix(tmpl, "/contexts") {
			continue
		}
		for method, rawOp := range ops {
			var op struct {
				Parameters []param `json:"parameters"`
			}
			if json.Unmarshal(rawOp, &op) != nil {
				continue
			}
			var shared []param
			if p, ok := ops["parameters"]; ok {
				_ = json.Unmarshal(p, &shared)
			}
			inQuery := map[string]bool{}
			for _, p := range append(shared, op.Parameters...) {
				if p.Ref != "" {
					p = doc.Components.Parameters[p.Ref[strings.LastIndex(p.Ref, "/")+1:]]
				}
				if p.In == "query" && (p.Name == "subject" || p.Name == "subjectPrefix") {
					inQuery[p.Name] = true
				}
			}
			inPath := strings.Contains(tmpl, "{subject}")
			if !inPath && len(inQuery) == 0 {
				continue
			}
			walked++
			for _, c := range []struct{ prefix, subject, want string }{
				{"/contexts/.staging", "s", ":.staging:s"},
				{"/contexts/.staging", ":.other:s", ":.other:s"},
				{"/contexts/.staging", ":.other", ":.other:"},
				{"", ":.:s", "s"},
				{"", ":.ctx", ":.ctx:"},
			} {
				path := placeholder.ReplaceAllStringFunc(tmpl, func(p string) string {
					switch p {
					case "{subject}":
						return url.PathEscape(c.subject)
					case "{id}", "{version}":
						return "1"
					}
					return "x"
				})
				q := url.Values{}
				for name := range inQuery {
					q.Set(name, c.subject)
				}
				where := strings.ToUpper(method) + " " + c.prefix + path + "?" + q.Encode()
				gotPath, gotQuery, err := rewriteContextPath(c.prefix+path, q)
				if err != nil {
					t.Errorf("%s: %v", where, err)
					continue
				}
				if inPath {
					segs := strings.Split(gotPath, "/")
					if !slices.Contains(segs, url.PathEscape(c.want)) {
						t.Errorf("%s: served as %s, want its subject %q", where, gotPath, c.want)
					}
				}
				for name := range inQuery {
					if name == "subjectPrefix" && c.prefix == "" {
						continue // a prefix is the service's to normalise (registry.subjectPrefix)
					}
					if gotQuery == nil || gotQuery.Get(name) != c.want {
						t.Errorf("%s: ?%s= served as %v, want %q", where, name, gotQuery, c.want)
					}
				}
			}
		}
	}
	if walked < 60 {
		t.Errorf("walked %d routes with a subject, want every one of them (60 or more)", walked)
	}
}

type param struct {
	Ref  string `json:"$ref"`
	Name string `json:"name"`
	In   string `json:"in"`
}

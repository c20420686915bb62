package web

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A broken or missing template fails the construction of the handler,
// never a request.
func TestParsePagesFails(t *testing.T) {
	ok := fstest.MapFS{
		"templates/layout.html":   {Data: []byte(`{{define "layout"}}{{template "content" .}}{{end}}`)},
		"templates/partials.html": {Data: []byte(`{{define "csrf"}}{{end}}`)},
	}
	for _, name := range pageNames {
		ok["templates/pages/"+name+".html"] = &fstest.MapFile{Data: []byte(`{{define "title"}}t{{end}}{{define "content"}}c{{end}}`)}
	}
	if _, err := parsePages(ok, nil); err != nil {
		t.Fatalf("good templates: %v", err)
	}
	broken := fstest.MapFS{}
	for k, v := range ok {
		broken[k] = v
	}
	broken["templates/pages/subjects.html"] = &fstest.MapFile{Data: []byte(`{{define "title"}}{{.Title{{end}}`)}
	if _, err := parsePages(broken, nil); err == nil || !strings.Contains(err.Error(), "subjects") {
		t.Errorf("broken template: %v, want an error naming the page", err)
	}
	missing := fstest.MapFS{}
	for k, v := range ok {
		missing[k] = v
	}
	missing["templates/pages/rules.html"] = &fstest.MapFile{Data: []byte(`{{define "title"}}t{{end}}`)}
	if _, err := parsePages(missing, nil); err == nil || !strings.Contains(err.Error(), `"content"`) {
		t.Errorf("page without content: %v", err)
	}
}

func TestSafeReturn(t *testing.T) {
	for in, want := range map[string]string{
		"/ui/deprecations?state=expired": "/ui/deprecations?state=expired",
		"https://evil.example/ui/":       "/ui/subjects",
		"//evil.example/ui/":             "/ui/subjects",
		"/ui/../health":                  "/ui/subjects",
		"/elsewhere":                     "/ui/subjects",
		"":                               "/ui/subjects",
	} {
		if got := safeReturn(in, "/ui/subjects"); got != want {
			t.Errorf("safeReturn(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFieldPath(t *testing.T) {
	for in, want := range map[string]string{"#/properties/a/properties/b": ".a.b", "#/required/qty": ".qty", "#/properties/xs/items/properties/id": ".xs[].id", ".carrier": ".carrier"} {
		if got := fieldPath(in); got != want {
			t.Errorf("fieldPath(%q) = %q, want %q", in, got, want)
		}
	}
}

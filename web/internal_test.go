package web

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/charter-dev/charter/registry/governance"
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

// TestCountdown: days left while running; once expired, how long ago.
func TestCountdown(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		days    int
		state   governance.State
		expires time.Time
		want    string
	}{
		{12, governance.StateActive, now.AddDate(0, 0, 12), "12 days left"},
		{1, governance.StateActive, now.Add(6 * time.Hour), "1 day left"},
		{0, governance.StateExpired, now.Add(-3 * time.Hour), "expired today"},
		{0, governance.StateExpired, now.AddDate(0, 0, -65), "expired 65 days ago"},
		{0, governance.StateExpired, now.AddDate(0, 0, -1), "expired 1 day ago"},
	} {
		if got := countdown(tc.days, tc.state, tc.expires, now); got != tc.want {
			t.Errorf("countdown(%d, %s, %s) = %q, want %q", tc.days, tc.state, tc.expires, got, tc.want)
		}
	}
}

package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry"
)

// TestContextSubjects: a subject of a schema context (":.staging:orders")
// is listed under its qualified name, its link is its own page, and that
// page shows it and not the default context's subject of the same name.
func TestContextSubjects(t *testing.T) {
	svc, _ := newService(t)
	ctx := t.Context()
	staging := `{"type":"record","name":"Staged","fields":[{"name":"id","type":"string"}]}`
	plain := `{"type":"record","name":"Plain","fields":[{"name":"id","type":"string"}]}`
	for subject, schema := range map[string]string{":.staging:orders": staging, "orders": plain} {
		if _, err := svc.Register(ctx, subject, registry.RegisterRequest{Schema: schema}); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(handler(t, svc, nil))
	defer srv.Close()
	b := newBrowser(t, srv.URL)
	resp, list := b.do(http.MethodGet, "/ui/subjects", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(list, `href="/ui/subjects/:.staging:orders"`) || !strings.Contains(list, `>:.staging:orders<`) {
		t.Fatalf("subjects page: %d, want a link to :.staging:orders\n%s", resp.StatusCode, list)
	}
	resp, page := b.do(http.MethodGet, "/ui/subjects/:.staging:orders", nil)
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Staged") || strings.Contains(page, "Plain") {
		t.Errorf("subject page of :.staging:orders: %d, want its own schema (Staged) only\n%s", resp.StatusCode, page)
	}
}

package exporter

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/charter-dev/charter/registry/srerr"
)

func ptr[T any](v T) *T { return &v }

// TestCreateValidation: every refusal of a definition at create, with
// its code: a renaming without ${subject} (unless one literal subject),
// ':' in a renaming, an invalid or reserved CUSTOM context, a URL with a
// query or fragment (an exporter without a URL yet is accepted, and waits
// in ERROR); and no error echoes URL user info.
func TestCreateValidation(t *testing.T) {
	svc := New(newMemStore(), nil, testSealer(t))
	url := map[string]string{ConfigURL: "http://dest:8081"}
	for _, c := range []struct {
		name string
		req  Request
		code *srerr.Error // nil: accepted
	}{
		{"renaming without ${subject}", Request{SubjectRenameFormat: ptr("fixed"), Config: url}, srerr.ErrUnprocessableEntity},
		{"renaming without ${subject}, a pattern", Request{Subjects: &[]string{"orders-*"}, SubjectRenameFormat: ptr("fixed"), Config: url}, srerr.ErrUnprocessableEntity},
		{"renaming without ${subject}, two subjects", Request{Subjects: &[]string{"a", "b"}, SubjectRenameFormat: ptr("fixed"), Config: url}, srerr.ErrUnprocessableEntity},
		{"renaming without ${subject}, one subject", Request{Subjects: &[]string{"orders-value"}, SubjectRenameFormat: ptr("orders-v2"), Config: url}, nil},
		{"renaming with a context", Request{SubjectRenameFormat: ptr(":.x:${subject}"), Config: url}, srerr.ErrUnprocessableEntity},
		{"renaming with a colon", Request{SubjectRenameFormat: ptr("a:${subject}"), Config: url}, srerr.ErrUnprocessableEntity},
		{"CUSTOM .__GLOBAL", Request{ContextType: ptr(ContextCustom), Context: ptr(".__GLOBAL"), Config: url}, srerr.ErrUnprocessableEntity},
		{"CUSTOM __GLOBAL", Request{ContextType: ptr(ContextCustom), Context: ptr("__GLOBAL"), Config: url}, srerr.ErrUnprocessableEntity},
		{"CUSTOM bidi", Request{ContextType: ptr(ContextCustom), Context: ptr("a\u202eb"), Config: url}, srerr.ErrUnprocessableEntity},
		{"CUSTOM colon", Request{ContextType: ptr(ContextCustom), Context: ptr(".a:b"), Config: url}, srerr.ErrUnprocessableEntity},
		{"CUSTOM wildcard", Request{ContextType: ptr(ContextCustom), Context: ptr(".*"), Config: url}, srerr.ErrUnprocessableEntity},
		{"CUSTOM too long", Request{ContextType: ptr(ContextCustom), Context: ptr(strings.Repeat("x", 256)), Config: url}, srerr.ErrUnprocessableEntity},
		{"CUSTOM nested", Request{ContextType: ptr(ContextCustom), Context: ptr(".a.b_c-1"), Config: url}, nil},
		{"URL with a query", Request{Config: map[string]string{ConfigURL: "http://dest:8081?x=1"}}, srerr.ErrInvalidExporterConfig},
		{"URL with a fragment", Request{Config: map[string]string{ConfigURL: "http://dest:8081#f"}}, srerr.ErrInvalidExporterConfig},
		{"no config", Request{}, nil},
		{"config without URL", Request{Config: map[string]string{"timeout.ms": "30000"}}, nil},
		{"URL with user info", Request{Config: map[string]string{ConfigURL: "http://u:s3cretPW@h"}}, srerr.ErrInvalidExporterConfig},
		{"bad URL with user info", Request{Config: map[string]string{ConfigURL: "ftp://u:s3cretPW@h"}}, srerr.ErrInvalidExporterConfig},
	} {
		req := c.req
		req.Name = ptr(strings.NewReplacer(" ", "-", "$", "", "{", "", "}", "", ",", "", ":", "", ".", "").Replace(c.name))
		_, err := svc.Create(context.Background(), req)
		switch {
		case c.code == nil && err != nil:
			t.Errorf("%s: %v, want accepted", c.name, err)
		case c.code != nil && !errors.Is(err, c.code):
			t.Errorf("%s: %v, want %d", c.name, err, c.code.Code)
		case err != nil && strings.Contains(err.Error(), "s3cretPW"):
			t.Errorf("%s: the error echoes the password: %v", c.name, err)
		}
	}
}

// TestURLChangeDropsCredentials: changing the destination URL, through
// PUT /exporters/{name} or its config, drops the stored credentials
// unless the same request sends them again (the mask does not); the
// answered config never shows an unknown key's value.
func TestURLChangeDropsCredentials(t *testing.T) {
	ctx := context.Background()
	store := newMemStore()
	svc := New(store, nil, testSealer(t))
	cfg := map[string]string{ConfigURL: "http://dest:8081", ConfigUserInfo: "u:pw", "sasl.jaas.config": "jaas", "apikey": "k"}
	if _, err := svc.Create(ctx, Request{Name: ptr("x"), Config: cfg}); err != nil {
		t.Fatal(err)
	}
	got, _ := svc.Config(ctx, "x")
	for k, v := range got {
		if k != ConfigURL && v != Redacted {
			t.Errorf("config answers %s = %q", k, v)
		}
	}
	stored := func() map[string]string { s, _, _ := store.Exporter(ctx, "x"); return s.Config }
	for k, v := range stored() {
		if k != ConfigURL && !strings.HasPrefix(v, sealedPrefix) {
			t.Errorf("%s stored in clear: %q", k, v)
		}
	}
	// Sent back as read, to the same URL: everything kept.
	if err := svc.UpdateConfig(ctx, "x", got); err != nil {
		t.Fatal(err)
	}
	if len(stored()) != 4 {
		t.Errorf("a config sent back changed: %v", stored())
	}
	// Another URL with the mask: the credentials go.
	got[ConfigURL] = "http://evil:8081"
	if err := svc.UpdateConfig(ctx, "x", got); err != nil {
		t.Fatal(err)
	}
	if c := stored(); len(c) != 1 || c[ConfigURL] != "http://evil:8081" {
		t.Errorf("after a URL change: %v, want the URL alone", c)
	}
	// PUT /exporters/{name} with a new URL and a new password keeps that one.
	if err := svc.Update(ctx, "x", Request{Config: map[string]string{ConfigURL: "http://c:8081", ConfigUserInfo: "v:q"}}); err != nil {
		t.Fatal(err)
	}
	c := stored()
	if open, err := testSealer(t).Open(ConfigUserInfo, c[ConfigUserInfo]); err != nil || open != "v:q" || len(c) != 2 {
		t.Errorf("after a URL change with credentials: %v (%q, %v)", c, open, err)
	}
	// An empty value removes a key, the URL too (the exporter then waits
	// in ERROR for one).
	if err := svc.UpdateConfig(ctx, "x", map[string]string{ConfigUserInfo: ""}); err != nil || len(stored()) != 1 {
		t.Errorf("removing user info: %v, config %v", err, stored())
	}
	if err := svc.UpdateConfig(ctx, "x", map[string]string{ConfigURL: ""}); err != nil || len(stored()) != 0 {
		t.Errorf("removing the URL: %v, config %v", err, stored())
	}
}

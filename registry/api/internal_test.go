package api

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestPanicRecovery checks that a handler panic answers Confluent's 50001
// error with the v1 content type, logs the panic with its stack, and still
// logs the request line.
func TestPanicRecovery(t *testing.T) {
	var logs bytes.Buffer
	s := &server{log: slog.New(slog.NewTextHandler(&logs, nil))}
	h := s.logRequests(s.recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("boom")
	})))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/subjects", nil))
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", rec.Code)
	}
	if got := rec.Header().Get("Content-Type"); got != ContentType {
		t.Errorf("Content-Type %q", got)
	}
	if !strings.Contains(rec.Body.String(), `"error_code":50001`) {
		t.Errorf("body %s lacks error_code 50001", rec.Body.String())
	}
	for _, want := range []string{"handler panic", "panic=boom", "stack=", "status=500"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
}

// TestWriteErrorUnknown checks that an error outside the Confluent table
// answers 50001 without leaking its text, and is logged.
func TestWriteErrorUnknown(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	rec := httptest.NewRecorder()
	writeError(rec, httptest.NewRequest("GET", "/x", nil), log, errSecret)
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"error_code":50001`) {
		t.Fatalf("status %d body %s", rec.Code, rec.Body.String())
	}
	if strings.Contains(rec.Body.String(), "secret") {
		t.Errorf("internal error text leaked: %s", rec.Body.String())
	}
	if !strings.Contains(logs.String(), "disk secret exploded") {
		t.Errorf("error not logged: %s", logs.String())
	}
}

var errSecret = errorString("disk secret exploded")

type errorString string

func (e errorString) Error() string { return string(e) }

// TestEveryAccessEntryIsARoute: routeAccess lists no pattern that no
// route registers (a renamed route would leave its old rule behind).
func TestEveryAccessEntryIsARoute(t *testing.T) {
	registered := map[string]bool{}
	for _, r := range Routes() {
		registered[r.Pattern] = true
	}
	for p := range routeAccess {
		if !registered[p] {
			t.Errorf("routeAccess has %q, which no route registers", p)
		}
	}
	if len(registered) != len(routeAccess) {
		t.Errorf("%d routes registered, %d access entries", len(registered), len(routeAccess))
	}
}

package srerr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/charter-dev/charter/registry/srerr"
)

func TestForCodeRoundTrip(t *testing.T) {
	for _, e := range srerr.All() {
		if got := srerr.ForCode(e.Code); got != e {
			t.Errorf("ForCode(%d) = %v, want %s", e.Code, got, e.Name)
		}
	}
	if srerr.ForCode(40901) != srerr.ErrIncompatibleSchema {
		t.Error("40901 must decode to ErrIncompatibleSchema")
	}
	if srerr.ForCode(12345) != nil {
		t.Error("unknown code must decode to nil")
	}
}

func TestAPIErrorMatchesSentinel(t *testing.T) {
	err := fmt.Errorf("get version: %w", srerr.New(srerr.ErrVersionNotFound, "Version 7 not found."))
	if !errors.Is(err, srerr.ErrVersionNotFound) {
		t.Fatal("wrapped APIError does not match its sentinel")
	}
	if errors.Is(err, srerr.ErrSubjectNotFound) {
		t.Fatal("APIError matches a different sentinel")
	}
	code, status, msg := srerr.Code(err)
	if code != 40402 || status != 404 || msg != "Version 7 not found." {
		t.Fatalf("Code = %d %d %q", code, status, msg)
	}
}

func TestUnknownErrorIsStoreError(t *testing.T) {
	code, status, _ := srerr.Code(errors.New("disk on fire"))
	if code != 50001 || status != 500 {
		t.Fatalf("Code = %d %d, want 50001 500", code, status)
	}
}
